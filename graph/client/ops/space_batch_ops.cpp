// SpaceToBatchND and BatchToSpaceND: registrations, shape functions and client functions.
#include "graph/client/ops/space_batch_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/array_op_util.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/array_index_util.hpp"
#include "graph/util/space_batch_rules.hpp"

namespace caflow {
namespace {

template <bool to_batch>
status space_batch_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(2, 2));
  const partial_shape& in = c.input(0);
  const tensor *block_t = c.input_value(1), *pads_t = c.input_value(2);
  if (!block_t || !pads_t) {
    c.set_output(0, in.rank_known() ? partial_shape::unknown_of_rank(in.rank())
                                    : partial_shape::unknown());
    return {};
  }
  const std::vector<int64_t> block = index_values(*block_t), pads = index_values(*pads_t);
  auto g = to_batch ? space_to_batch_geometry(in, block, pads)
                    : batch_to_space_geometry(in, block, pads);
  if (!g.ok()) return c.error(g.get_status().message());
  if (!in.rank_known()) return shape_fns::unknown(c);
  c.set_output(0, partial_shape(to_batch ? g->batch : g->space));
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("SpaceToBatchND")
    .input("input: T")
    .input("block_shape: Tblock_shape")
    .input("paddings: Tpaddings")
    .output("output: T")
    .attr("T: type")
    .attr("Tblock_shape: {int32, int64} = int32")
    .attr("Tpaddings: {int32, int64} = int32")
    .set_shape_fn(space_batch_shape<true>);
CAFLOW_REGISTER_OP("BatchToSpaceND")
    .input("input: T")
    .input("block_shape: Tblock_shape")
    .input("crops: Tcrops")
    .output("output: T")
    .attr("T: type")
    .attr("Tblock_shape: {int32, int64} = int32")
    .attr("Tcrops: {int32, int64} = int32")
    .set_shape_fn(space_batch_shape<false>);

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

}  // namespace ops
}  // namespace caflow
