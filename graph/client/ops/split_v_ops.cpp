// SplitV: client functions (registered in graph/ops/split_v_ops.cpp).
#include "graph/client/ops/split_v_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/array_op_util.hpp"

namespace caflow {
namespace ops {

std::vector<output> split_v(const scope& s, const output& value, const output& size_splits,
                            const output& axis, int num_split) {
  const operation op = node_builder(s, "SplitV").input(value).input(size_splits).input(axis)
                           .attr("num_split", num_split).finalize();
  std::vector<output> parts;
  for (int i = 0; i < num_split; ++i) parts.push_back(op.out(i));
  return parts;
}

std::vector<output> split_v(const scope& s, const output& value,
                            const std::vector<int64_t>& size_splits, int axis) {
  return split_v(s, value, array_op_util::index_vector(s, size_splits),
                 array_op_util::int32_scalar(s, axis), static_cast<int>(size_splits.size()));
}

}  // namespace ops
}  // namespace caflow
