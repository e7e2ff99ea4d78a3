#include "graph/client/ops/math_batch_matmul_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {
namespace {

output build(const scope& s, const char* op, const output& x, const output& y,
             const batch_mat_mul_attrs& attrs) {
  return node_builder(s, op).input(x).input(y).attr("adj_x", attrs.adj_x)
      .attr("adj_y", attrs.adj_y).finalize().out();
}

}  // namespace

output batch_mat_mul_v2(const scope& s, const output& x, const output& y,
                        const batch_mat_mul_attrs& attrs) {
  return build(s, "BatchMatMulV2", x, y, attrs);
}
output batch_mat_mul(const scope& s, const output& x, const output& y,
                     const batch_mat_mul_attrs& attrs) {
  return build(s, "BatchMatMul", x, y, attrs);
}

}  // namespace ops
}  // namespace caflow
