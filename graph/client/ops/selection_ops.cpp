// Where, TopKV2 and InTopKV2: client functions (registered in graph/ops/selection_ops.cpp).
#include "graph/client/ops/selection_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"

namespace caflow {
namespace ops {

output where(const scope& s, const output& condition) {
  return node_builder(s, "Where").input(condition).finalize().out();
}

std::vector<output> top_k(const scope& s, const output& input, const output& k,
                          const top_k_attrs& attrs) {
  const operation op =
      node_builder(s, "TopKV2").input(input).input(k).attr("sorted", attrs.sorted).finalize();
  return {op.out(0), op.out(1)};
}
std::vector<output> top_k(const scope& s, const output& input, int k, const top_k_attrs& attrs) {
  return top_k(s, input, constant(s.with_op_name(""), tensor::scalar<int32_t>(k)), attrs);
}

output in_top_k(const scope& s, const output& predictions, const output& targets,
                const output& k) {
  return node_builder(s, "InTopKV2").input(predictions).input(targets).input(k).finalize().out();
}
output in_top_k(const scope& s, const output& predictions, const output& targets, int64_t k) {
  const scope helper = s.with_op_name("");
  const output kt = targets.type == dtype::int64
                        ? constant(helper, tensor::scalar<int64_t>(k))
                        : constant(helper, tensor::scalar<int32_t>(static_cast<int32_t>(k)));
  return in_top_k(s, predictions, targets, kt);
}

}  // namespace ops
}  // namespace caflow
