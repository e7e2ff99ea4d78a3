// SpaceToBatchND, BatchToSpaceND, SpaceToDepth and DepthToSpace: registrations and shape
// functions.
#include "graph/ir/op_def.hpp"
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

// SpaceToDepth (to_depth) or DepthToSpace on a 4-D input in the node's data_format.
template <bool to_depth>
status depth_space_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 4));
  int64_t b = 0;
  std::string format;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("block_size", &b));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("data_format", &format));
  if (format != "NHWC" && format != "NCHW")
    return c.error("invalid data_format '", format, "' (expected NHWC or NCHW)");
  if (b < 2) return c.error("block_size must be at least 2, got ", b);
  const partial_shape& in = c.input(0);
  if (!in.rank_known()) {
    c.set_output(0, partial_shape::unknown_of_rank(4));
    return {};
  }
  const int h = format == "NHWC" ? 1 : 2, w = h + 1, ch = format == "NHWC" ? 3 : 1;
  std::vector<int64_t> dims = in.dim_vector();
  if (to_depth) {
    for (int d : {h, w})
      if (dims[d] >= 0 && dims[d] % b != 0)
        return c.error("dimension ", d, " of input ", in.to_string(),
                       " is not divisible by block_size ", b);
    if (dims[h] >= 0) dims[h] /= b;
    if (dims[w] >= 0) dims[w] /= b;
    if (dims[ch] >= 0) dims[ch] *= b * b;
  } else {
    if (dims[ch] >= 0 && dims[ch] % (b * b) != 0)
      return c.error("the depth ", dims[ch], " of input ", in.to_string(),
                     " is not divisible by block_size * block_size = ", b * b);
    if (dims[h] >= 0) dims[h] *= b;
    if (dims[w] >= 0) dims[w] *= b;
    if (dims[ch] >= 0) dims[ch] /= b * b;
  }
  c.set_output(0, partial_shape(dims));
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("SpaceToDepth")
    .input("input: T")
    .output("output: T")
    .attr("T: type")
    .attr("block_size: int >= 2")
    .attr("data_format: string = 'NHWC'")
    .set_shape_fn(depth_space_shape<true>);
CAFLOW_REGISTER_OP("DepthToSpace")
    .input("input: T")
    .output("output: T")
    .attr("T: type")
    .attr("block_size: int >= 2")
    .attr("data_format: string = 'NHWC'")
    .set_shape_fn(depth_space_shape<false>);

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

}  // namespace caflow
