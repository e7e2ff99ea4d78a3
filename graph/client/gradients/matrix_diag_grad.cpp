// Gradients of Diag, DiagPart, MatrixDiag, MatrixDiagPart, MatrixSetDiag and MatrixBandPart
// (graph/client/ops/matrix_diag_ops.hpp), as TensorFlow's array_grad.py defines them.
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/matrix_diag_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status matrix_diag_grad(const scope& s, const grad_op_info&, const grad_list& dy,
                        grad_list* dx) {
  *dx = {ops::matrix_diag_part(s, dy[0])};
  return {};
}

// A square matrix's diagonal goes back as a diagonal matrix; otherwise onto zeros of the
// input's shape.
status matrix_diag_part_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                             grad_list* dx) {
  const partial_shape m = s.shape_of(op.inputs[0]);
  const bool square = m.rank_known() && m.dim(m.rank() - 1) >= 0 &&
                      m.dim(m.rank() - 1) == m.dim(m.rank() - 2);
  *dx = {square ? ops::matrix_diag(s, dy[0])
                : ops::matrix_set_diag(s, ops::zeros_like(s, op.inputs[0]), dy[0])};
  return {};
}

status matrix_set_diag_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                            grad_list* dx) {
  *dx = {ops::matrix_set_diag(s, dy[0], ops::zeros_like(s, op.inputs[1])),
         ops::matrix_diag_part(s, dy[0])};
  return {};
}

status matrix_band_part_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                             grad_list* dx) {
  *dx = {ops::matrix_band_part(s, dy[0], op.inputs[1], op.inputs[2]), output{}, output{}};
  return {};
}

status diag_grad(const scope& s, const grad_op_info&, const grad_list& dy, grad_list* dx) {
  *dx = {ops::diag_part(s, dy[0])};
  return {};
}

status diag_part_grad(const scope& s, const grad_op_info&, const grad_list& dy, grad_list* dx) {
  *dx = {ops::diag(s, dy[0])};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Diag", diag_grad);
CAFLOW_REGISTER_GRADIENT("DiagPart", diag_part_grad);
CAFLOW_REGISTER_GRADIENT("MatrixDiag", matrix_diag_grad);
CAFLOW_REGISTER_GRADIENT("MatrixDiagPart", matrix_diag_part_grad);
CAFLOW_REGISTER_GRADIENT("MatrixSetDiag", matrix_set_diag_grad);
CAFLOW_REGISTER_GRADIENT("MatrixBandPart", matrix_band_part_grad);

}  // namespace caflow
