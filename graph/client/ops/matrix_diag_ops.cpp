// Diag, DiagPart, MatrixDiag, MatrixDiagPart, MatrixSetDiag and MatrixBandPart: client functions
// (registered in graph/ops/matrix_diag_ops.cpp).
#include "graph/client/ops/matrix_diag_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"

namespace caflow {
namespace ops {

output diag(const scope& s, const output& diagonal) {
  return node_builder(s, "Diag").input(diagonal).finalize().out();
}
output diag_part(const scope& s, const output& input) {
  return node_builder(s, "DiagPart").input(input).finalize().out();
}
output matrix_diag(const scope& s, const output& diagonal) {
  return node_builder(s, "MatrixDiag").input(diagonal).finalize().out();
}
output matrix_diag_part(const scope& s, const output& input) {
  return node_builder(s, "MatrixDiagPart").input(input).finalize().out();
}
output matrix_set_diag(const scope& s, const output& input, const output& diagonal) {
  return node_builder(s, "MatrixSetDiag").input(input).input(diagonal).finalize().out();
}
output matrix_band_part(const scope& s, const output& input, const output& num_lower,
                        const output& num_upper) {
  return node_builder(s, "MatrixBandPart").input(input).input(num_lower).input(num_upper)
      .finalize().out();
}
output matrix_band_part(const scope& s, const output& input, int64_t num_lower,
                        int64_t num_upper) {
  const scope helper = s.with_op_name("");
  return matrix_band_part(s, input, constant(helper, tensor::scalar<int64_t>(num_lower)),
                          constant(helper, tensor::scalar<int64_t>(num_upper)));
}

}  // namespace ops
}  // namespace caflow
