// ReverseV2, ReverseSequence, InvertPermutation, BroadcastTo and BroadcastArgs: client
// functions (registered in graph/ops/reverse_ops.cpp).
#include "graph/client/ops/reverse_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/array_op_util.hpp"

namespace caflow {
namespace ops {

output reverse(const scope& s, const output& tensor, const output& axis) {
  return node_builder(s, "ReverseV2").input(tensor).input(axis).finalize().out();
}
output reverse(const scope& s, const output& tensor, const std::vector<int64_t>& axis) {
  return reverse(s, tensor, array_op_util::index_vector(s, axis));
}

output broadcast_to(const scope& s, const output& input, const output& shape) {
  return node_builder(s, "BroadcastTo").input(input).input(shape).finalize().out();
}
output broadcast_to(const scope& s, const output& input, const std::vector<int64_t>& shape) {
  return broadcast_to(s, input, array_op_util::index_vector(s, shape));
}

output reverse_sequence(const scope& s, const output& input, const output& seq_lengths,
                        int64_t seq_dim, const reverse_sequence_attrs& attrs) {
  return node_builder(s, "ReverseSequence").input(input).input(seq_lengths)
      .attr("seq_dim", seq_dim).attr("batch_dim", attrs.batch_dim).finalize().out();
}

output reverse_v1(const scope& s, const output& tensor, const output& dims) {
  return node_builder(s, "Reverse").input(tensor).input(dims).finalize().out();
}

output roll(const scope& s, const output& input, const output& shift, const output& axis) {
  return node_builder(s, "Roll").input(input).input(shift).input(axis).finalize().out();
}

output invert_permutation(const scope& s, const output& x) {
  return node_builder(s, "InvertPermutation").input(x).finalize().out();
}

output broadcast_args(const scope& s, const output& s0, const output& s1) {
  return node_builder(s, "BroadcastArgs").input(s0).input(s1).finalize().out();
}

}  // namespace ops
}  // namespace caflow
