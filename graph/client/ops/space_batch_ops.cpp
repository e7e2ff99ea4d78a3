// SpaceToBatchND, BatchToSpaceND, SpaceToDepth and DepthToSpace: client functions (registered
// in graph/ops/space_batch_ops.cpp).
#include "graph/client/ops/space_batch_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/array_op_util.hpp"

namespace caflow {
namespace ops {
namespace {

output pairs_constant(const scope& s, const std::vector<std::array<int64_t, 2>>& pairs) {
  std::vector<int64_t> flat;
  for (const auto& p : pairs) flat.insert(flat.end(), p.begin(), p.end());
  return array_op_util::index_constant(s, flat,
                                       tensor_shape{static_cast<int64_t>(pairs.size()), 2});
}

}  // namespace

output space_to_batch_nd(const scope& s, const output& input, const output& block_shape,
                         const output& paddings) {
  return node_builder(s, "SpaceToBatchND").input(input).input(block_shape).input(paddings)
      .finalize().out();
}
output space_to_batch_nd(const scope& s, const output& input,
                         const std::vector<int64_t>& block_shape,
                         const std::vector<std::array<int64_t, 2>>& paddings) {
  return space_to_batch_nd(s, input, array_op_util::index_vector(s, block_shape),
                           pairs_constant(s, paddings));
}

output batch_to_space_nd(const scope& s, const output& input, const output& block_shape,
                         const output& crops) {
  return node_builder(s, "BatchToSpaceND").input(input).input(block_shape).input(crops)
      .finalize().out();
}
output batch_to_space_nd(const scope& s, const output& input,
                         const std::vector<int64_t>& block_shape,
                         const std::vector<std::array<int64_t, 2>>& crops) {
  return batch_to_space_nd(s, input, array_op_util::index_vector(s, block_shape),
                           pairs_constant(s, crops));
}

output space_to_depth(const scope& s, const output& input, int64_t block_size,
                      const depth_space_attrs& attrs) {
  return node_builder(s, "SpaceToDepth").input(input).attr("block_size", block_size)
      .attr("data_format", attrs.data_format).finalize().out();
}

output depth_to_space(const scope& s, const output& input, int64_t block_size,
                      const depth_space_attrs& attrs) {
  return node_builder(s, "DepthToSpace").input(input).attr("block_size", block_size)
      .attr("data_format", attrs.data_format).finalize().out();
}

}  // namespace ops
}  // namespace caflow
