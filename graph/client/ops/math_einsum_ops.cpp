#include "graph/client/ops/math_einsum_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {

output einsum(const scope& s, const std::vector<output>& inputs, const std::string& equation) {
  return node_builder(s, "Einsum").input_list(inputs).attr("equation", equation).finalize().out();
}

}  // namespace ops
}  // namespace caflow
