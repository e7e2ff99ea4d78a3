#pragma once
// TensorArrays, with TensorFlow's TensorArrayV3 op family and semantics: a per-step array of
// tensors reached through a resource handle, with a float "flow" scalar threaded through every
// op so that the graph orders the writes and reads (each op takes the flow its predecessor
// produced).
//
//   auto ta = ops::tensor_array(root, ops::constant(root, 3), dtype::float32);
//   auto f1 = ops::tensor_array_write(root, ta.handle, ops::constant(root, 0), x, ta.flow);
//   auto f2 = ops::tensor_array_write(root, ta.handle, ops::constant(root, 1), y, f1);
//   auto xs = ops::tensor_array_gather(root, ta.handle, idx, f2, dtype::float32);
//
// Indices are int32; lengths (Concat, Split) are int64. A new array is made on each run of its
// TensorArrayV3 node. Gradients follow tensor_array_grad.py: each gradient computation gets its
// own gradient array (TensorArrayGradV3, keyed by its "gradients" name scope).
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

struct tensor_array_attrs {
  partial_shape element_shape{};  // unknown by default
  bool dynamic_size = false;    // writes past the end grow the array
  bool clear_after_read = true; // each element can be read once
  // All elements have one shape, learnt from the first write. The default of tf.TensorArray
  // (infer_shape=True), not of the op: it lets a gradient array read elements no gradient
  // reached as zeros. Set it to false for elements of different shapes (a ragged split).
  bool identical_element_shapes = true;
  std::string tensor_array_name{};
};

struct tensor_array_outputs {
  output handle;  // resource
  output flow;    // float32 scalar
};

// TensorArrayV3: an array of `size` (int32 scalar) elements of `type`.
tensor_array_outputs tensor_array(const scope& s, const output& size, dtype type,
                                  const tensor_array_attrs& attrs = {});
// TensorArrayWriteV3: returns the flow after writing `value` at `index`.
output tensor_array_write(const scope& s, const output& handle, const output& index,
                          const output& value, const output& flow_in);
// TensorArrayReadV3: the element at `index`.
output tensor_array_read(const scope& s, const output& handle, const output& index,
                         const output& flow_in, dtype type);
// TensorArrayGatherV3: the elements at `indices` (an int32 vector), stacked.
output tensor_array_gather(const scope& s, const output& handle, const output& indices,
                           const output& flow_in, dtype type,
                           const partial_shape& element_shape = {});
// TensorArrayScatterV3: writes value[i] at indices[i].
output tensor_array_scatter(const scope& s, const output& handle, const output& indices,
                            const output& value, const output& flow_in);
// TensorArrayConcatV3: {all elements joined along dimension 0, int64 lengths of each}.
std::vector<output> tensor_array_concat(const scope& s, const output& handle,
                                        const output& flow_in, dtype type,
                                        const partial_shape& element_shape_except0 = {});
// TensorArraySplitV3: writes consecutive pieces of `value` along dimension 0, of `lengths`
// (an int64 vector) rows each, at indices 0, 1, ...
output tensor_array_split(const scope& s, const output& handle, const output& value,
                          const output& lengths, const output& flow_in);
// TensorArraySizeV3: the current size (int32 scalar).
output tensor_array_size(const scope& s, const output& handle, const output& flow_in);
// TensorArrayCloseV3: later operations on the handle fail.
operation tensor_array_close(const scope& s, const output& handle);
// TensorArrayGradV3: the gradient array of `handle` for `source`, and its flow.
tensor_array_outputs tensor_array_grad(const scope& s, const output& handle,
                                       const output& flow_in, const std::string& source);

}  // namespace caflow::ops
