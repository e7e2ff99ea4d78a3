#pragma once
// Building blocks shared by the gradient functions of graph/client/gradients/*_grad.cpp. Each one
// folds to constants when shapes are known at graph construction and otherwise adds the
// shape arithmetic that works them out at run time, so a graph with a batch dimension of -1
// gets the same gradient as one with every dim known.
#include <vector>

#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/conv_ops.hpp"

namespace caflow::grad {

// A scalar of floating-point type `type` (float32 or float64) holding `value`.
output scalar(const scope& s, dtype type, double value);

// A Const vector of `type` (int32 or int64).
output index_vector(const scope& s, const std::vector<int64_t>& values, dtype type);

// The attrs of a 2-D convolution node (Conv2D, DepthwiseConv2dNative and their backprops), for
// building its gradient ops with the same ones.
status conv2d_attrs_of(const grad_op_info& op, ops::conv2d_attrs* a);

// x's shape as a vector of `type` (int32 or int64): a Const when fully known, else Shape.
output shape_of(const scope& s, const output& x, dtype type = dtype::int32);

// An int32 vector as long as x's rank with 1 at the dims named by `axes` (an int32/int64
// scalar or vector, negative counting from the end) and 0 elsewhere.
status_or<output> axes_mask(const scope& s, const output& x, const output& axes);

// Undoes broadcasting for a binary op z = f(x, y): sums a gradient shaped like z over the
// dims where x (or y) was broadcast and reshapes it to x's (or y's) shape. When both shapes
// are known the reduction dims are constants, and no node at all is added for an input that
// was not broadcast.
class unbroadcast {
 public:
  unbroadcast(const scope& s, const output& x, const output& y);
  output x_grad(const output& g) const { return reduce(g, 0); }
  output y_grad(const output& g) const { return reduce(g, 1); }

 private:
  output reduce(const output& g, int which) const;

  scope s_;
  output shapes_[2];
  bool known_ = false;
  std::vector<int64_t> dims_[2];  // known: the reduction dims of x and of y
  output dynamic_dims_[2];        // unknown: BroadcastGradientArgs' r0 and r1
};

// For a reduction of x over `axes` (an int32/int64 scalar or vector): x's shape with the
// reduced dims set to 1 (kept), and with the other dims set to 1 (the multiples that tile a
// kept-shape tensor back to x's shape). Both int32 vectors.
struct reduction_shapes {
  output kept;
  output multiples;
};
status_or<reduction_shapes> reduction_shapes_of(const scope& s, const output& x,
                                                const output& axes);

// The gradient of a reduction whose output gradient is `g`, spread back over x's shape.
status_or<output> broadcast_to_input(const scope& s, const output& g, const output& x,
                                     const output& axes);

}  // namespace caflow::grad
