#pragma once
// Sparse gradients, as TensorFlow 1.x's IndexedSlices: the gradient of a gather names only the
// rows it read, so the gradient of a 10M-row embedding table read at 512 ids is 512 rows, not
// 10M. A `gradient_value` is what flows through add_symbolic_gradients and the optimizers:
// a dense tensor or such slices.
//
//   std::vector<gradient_value> grads;
//   add_symbolic_gradients(root, {loss}, {table}, {}, {}, &grads);
//   if (grads[0].is_sparse()) ... grads[0].slices().indices ...   // rows of `table`
//
// The dense value of slices is their rows summed into a zero tensor of dense_shape
// (UnsortedSegmentSum): a repeated index adds up, an index never named stays zero.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow {

struct indexed_slices {
  output values;       // [len(indices)] + dense_shape[1:]
  output indices;      // int32 or int64 vector: the rows of the dense tensor
  output dense_shape;  // int32 or int64 vector: the shape of the dense tensor

  bool valid() const { return values.valid() && indices.valid() && dense_shape.valid(); }
};

class gradient_value {
 public:
  gradient_value() = default;
  gradient_value(output dense) : dense_(std::move(dense)) {}  // NOLINT: a dense gradient
  gradient_value(indexed_slices slices) : slices_(std::move(slices)) {}  // NOLINT

  // Invalid: no gradient.
  bool valid() const { return dense_.valid() || slices_.valid(); }
  bool is_sparse() const { return slices_.valid(); }
  // REQUIRES !is_sparse().
  const output& dense() const { return dense_; }
  // REQUIRES is_sparse().
  const indexed_slices& slices() const { return slices_; }
  // The dtype of the gradient's values.
  dtype type() const { return is_sparse() ? slices_.values.type : dense_.type; }
  // The node that computes the values, for messages.
  std::string name() const { return is_sparse() ? slices_.values.name() : dense_.name(); }

 private:
  output dense_;
  indexed_slices slices_;
};

// Where a sparse gradient had to be made dense (an op whose gradient function takes only
// dense gradients, a caller asking for tensors): the message names the tensor and why.
// The default writes "caflow: warning: ..." to std::clog, as TF warns.
using dense_fallback_log = std::function<void(std::string_view message)>;
void log_to_clog(std::string_view message);

namespace grad {

// The dense tensor of `g` (g itself when dense). Sparse values are summed into their rows with
// UnsortedSegmentSum; `why`, when given, is logged through `log` with the tensor's name.
output to_dense(const scope& s, const gradient_value& g);
output to_dense(const scope& s, const gradient_value& g, std::string_view why,
                const dense_fallback_log& log);

// The sum of gradients of one tensor, TF's aggregation: dense ones with AddN; when any is
// sparse, all become slices (a dense one as every row, indices 0..n-1) and their indices and
// values are concatenated, so the sum stays sparse. REQUIRES !grads.empty().
// With `tree`, dense gradients are summed by a balanced tree of pairwise Adds instead.
gradient_value aggregate(const scope& s, const std::vector<gradient_value>& grads,
                         bool tree = false);

// `g` times the scalar `factor` (of g's dtype); slices keep their indices.
gradient_value scale(const scope& s, const gradient_value& g, const output& factor);

// Slices whose indices are unique, the values of a repeated index summed (TF's
// _deduplicate_indexed_slices: Unique, then UnsortedSegmentSum over the unique positions).
indexed_slices deduplicate(const scope& s, const indexed_slices& g);

}  // namespace grad
}  // namespace caflow
