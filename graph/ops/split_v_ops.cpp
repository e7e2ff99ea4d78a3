// SplitV: registration and shape function.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/array_index_util.hpp"
#include "graph/util/split_v_rules.hpp"

namespace caflow {
namespace {

status split_v_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(2, 0));
  int64_t num_split = 0;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("num_split", &num_split));
  const partial_shape& value = c.input(0);
  const tensor *sizes_t = c.input_value(1), *axis_t = c.input_value(2);
  if (!value.rank_known() || !axis_t) {
    const partial_shape out = value.rank_known() ? partial_shape::unknown_of_rank(value.rank())
                                                 : partial_shape::unknown();
    for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, out);
    return {};
  }
  auto axis = canonical_axis(index_values(*axis_t)[0], value.rank(), "split_dim");
  if (!axis.ok()) return c.error(axis.get_status().message());
  std::vector<int64_t> sizes(static_cast<size_t>(num_split), -1);
  if (sizes_t) {
    auto resolved = resolve_split_sizes(index_values(*sizes_t), num_split, value.dim(*axis));
    if (!resolved.ok()) return c.error(resolved.get_status().message());
    sizes = *resolved;
  }
  std::vector<int64_t> dims = value.dim_vector();
  for (int i = 0; i < c.num_outputs(); ++i) {
    dims[*axis] = sizes[i];
    c.set_output(i, partial_shape(dims));
  }
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("SplitV")
    .input("value: T")
    .input("size_splits: Tlen")
    .input("split_dim: int32")
    .output("output: num_split * T")
    .attr("num_split: int >= 1")
    .attr("T: type")
    .attr("Tlen: {int32, int64} = int64")
    .set_shape_fn(split_v_shape);

}  // namespace caflow
