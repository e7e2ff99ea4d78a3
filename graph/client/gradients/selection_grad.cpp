// Gradients of the selection ops (graph/client/ops/selection_ops.hpp), as TensorFlow defines
// them: TopKV2 sends each value's gradient back to the element it was taken from; Where and
// InTopKV2 have none.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

// Row r's indices point into row r of the input seen as [rows, cols]: offset by r * cols they
// index the flat input, and UnsortedSegmentSum scatters the values' gradient there (the k
// indices of a row are distinct, so nothing is summed). Shapes are taken at run time.
status top_k_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const output &x = op.inputs[0], &k = op.inputs[1], &indices = op.outputs[1];
  const output shape = ops::shape(s, x);
  const output total = ops::size(s, x);
  const output cols = ops::strided_slice(s, shape, {-1}, {0}, {1},
                                         {.end_mask = 1, .shrink_axis_mask = 1});
  const output one = ops::constant(s, int32_t{1});
  const output offsets = ops::reshape(
      s, ops::range(s, ops::constant(s, int32_t{0}), total, ops::maximum(s, cols, one)), {-1, 1});
  const output rows_by_k = ops::reshape(s, indices, ops::pack(s, {ops::constant(s, int32_t{-1}), k}));
  const output flat = ops::reshape(s, ops::add(s, rows_by_k, offsets), {-1});
  const output scattered =
      ops::unsorted_segment_sum(s, ops::reshape(s, dy[0], {-1}), flat, total);
  *dx = {ops::reshape(s, scattered, shape), output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("TopKV2", top_k_grad);
CAFLOW_REGISTER_NO_GRADIENT("Where");
CAFLOW_REGISTER_NO_GRADIENT("InTopKV2");

}  // namespace caflow
