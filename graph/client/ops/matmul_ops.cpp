#include "graph/client/ops/matmul_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {

output mat_mul(const scope& s, const output& a, const output& b, const mat_mul_attrs& attrs) {
  return node_builder(s, "MatMul")
      .input(a)
      .input(b)
      .attr("transpose_a", attrs.transpose_a)
      .attr("transpose_b", attrs.transpose_b)
      .finalize()
      .out();
}

}  // namespace ops
}  // namespace caflow
