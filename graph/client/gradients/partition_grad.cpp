// Gradients of DynamicPartition and DynamicStitch, each built from the other, as TF 1.x's.
// The integer partitions and indices get none.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/data_flow_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

// Partitioning the positions 0 .. n-1 of the partitions tensor the same way says where each
// output row came from; stitching the output gradients by them puts every row back.
status dynamic_partition_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                              grad_list* dx) {
  const output &data = op.inputs[0], &partitions = op.inputs[1];
  int64_t num_partitions = 0;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("num_partitions", &num_partitions));
  const output prefix = grad::shape_of(s, partitions);
  const output count = ops::prod(s, prefix, {0});
  const output positions = ops::reshape(
      s, ops::range(s, ops::constant(s, int32_t{0}), count, ops::constant(s, int32_t{1})), prefix);
  const std::vector<output> routed =
      ops::dynamic_partition(s, positions, partitions, static_cast<int>(num_partitions));
  const output merged = ops::dynamic_stitch(s, routed, dy);
  *dx = {ops::reshape(s, merged, grad::shape_of(s, data)), output{}};
  return {};
}

// data[m]'s gradient is dy's rows at indices[m]. As in TF 1.x, a row that a later repeated
// index overwrote still receives the gradient of the row it was written to.
status dynamic_stitch_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                           grad_list* dx) {
  const size_t n = op.inputs.size() / 2;
  dx->assign(op.inputs.size(), output{});
  for (size_t m = 0; m < n; ++m) (*dx)[n + m] = ops::gather(s, dy[0], op.inputs[m]);
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("DynamicPartition", dynamic_partition_grad);
CAFLOW_REGISTER_GRADIENT("DynamicStitch", dynamic_stitch_grad);

}  // namespace caflow
