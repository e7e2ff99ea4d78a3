// Client functions of the ops that rearrange whole tensors: Transpose, ConcatV2, Split, Tile,
// Pad, Unique (registered in graph/ops/array_ops.cpp).
#include "graph/client/ops/array_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/array_op_util.hpp"
#include "graph/client/ops/base_ops.hpp"

namespace caflow {
namespace ops {

using array_op_util::index_constant;
using array_op_util::index_vector;
using array_op_util::int32_scalar;

output transpose(const scope& s, const output& x, const output& perm) {
  return node_builder(s, "Transpose").input(x).input(perm).finalize().out();
}
output transpose(const scope& s, const output& x, const std::vector<int>& perm) {
  const auto p = tensor::from_vector<int32_t>(std::vector<int32_t>(perm.begin(), perm.end()));
  return transpose(s, x, constant(s.new_sub_scope(""), p));
}

output concat(const scope& s, const std::vector<output>& values, const output& axis) {
  return node_builder(s, "ConcatV2").input_list(values).input(axis).finalize().out();
}
output concat(const scope& s, const std::vector<output>& values, int axis) {
  return concat(s, values, int32_scalar(s, axis));
}

std::vector<output> split(const scope& s, const output& axis, const output& value, int num_split) {
  const operation op =
      node_builder(s, "Split").input(axis).input(value).attr("num_split", num_split).finalize();
  // On failure the scope holds the error; the invalid outputs keep indexing safe.
  std::vector<output> parts;
  for (int i = 0; i < num_split; ++i) parts.push_back(op.out(i));
  return parts;
}
std::vector<output> split(const scope& s, int axis, const output& value, int num_split) {
  return split(s, int32_scalar(s, axis), value, num_split);
}

output tile(const scope& s, const output& input, const output& multiples) {
  return node_builder(s, "Tile").input(input).input(multiples).finalize().out();
}
output tile(const scope& s, const output& input, const std::vector<int64_t>& multiples) {
  return tile(s, input, index_vector(s, multiples));
}

output pad(const scope& s, const output& input, const output& paddings) {
  return node_builder(s, "Pad").input(input).input(paddings).finalize().out();
}
output pad(const scope& s, const output& input,
           const std::vector<std::array<int64_t, 2>>& paddings) {
  std::vector<int64_t> flat;
  for (const auto& p : paddings) flat.insert(flat.end(), p.begin(), p.end());
  return pad(s, input,
             index_constant(s, flat, tensor_shape{static_cast<int64_t>(paddings.size()), 2}));
}

std::vector<output> unique(const scope& s, const output& x, dtype out_idx) {
  const operation op = node_builder(s, "Unique").input(x).attr("out_idx", out_idx).finalize();
  return {op.out(0), op.out(1)};
}

}  // namespace ops
}  // namespace caflow
