// Diag, DiagPart, MatrixDiag, MatrixDiagPart, MatrixSetDiag and MatrixBandPart: registrations and
// shape functions.
#include <algorithm>

#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

int64_t min_dim(int64_t a, int64_t b) { return a < 0 || b < 0 ? -1 : std::min(a, b); }

status matrix_diag_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(0, 1));
  const partial_shape& d = c.input(0);
  if (!d.rank_known()) return shape_fns::unknown(c);
  if (d.rank() >= max_rank) return c.error("diagonal of shape ", d.to_string(), " has no room");
  std::vector<int64_t> dims = d.dim_vector();
  dims.push_back(dims.back());
  c.set_output(0, partial_shape(dims));
  return {};
}

status matrix_diag_part_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(0, 2));
  const partial_shape& m = c.input(0);
  if (!m.rank_known()) return shape_fns::unknown(c);
  std::vector<int64_t> dims = m.dim_vector();
  const int64_t cols = dims.back();
  dims.pop_back();
  dims.back() = min_dim(dims.back(), cols);
  c.set_output(0, partial_shape(dims));
  return {};
}

status matrix_set_diag_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(0, 2));
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(1, 1));
  const partial_shape &m = c.input(0), &d = c.input(1);
  if (m.rank_known() && d.rank_known()) {
    std::vector<int64_t> expected = m.dim_vector();
    const int64_t cols = expected.back();
    expected.pop_back();
    expected.back() = min_dim(expected.back(), cols);
    if (!d.compatible_with(partial_shape(expected)))
      return c.error("diagonal has shape ", d.to_string(), " but input ", m.to_string(),
                     " needs ", partial_shape(expected).to_string());
  }
  c.set_output(0, m);
  return {};
}

status matrix_band_part_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(0, 2));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 0));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(2, 0));
  c.set_output(0, c.input(0));
  return {};
}

status diag_shape(shape_context& c) {
  const partial_shape& d = c.input(0);
  if (!d.rank_known()) return shape_fns::unknown(c);
  if (d.rank() < 1 || d.rank() > max_rank / 2)
    return c.error("diagonal must have rank 1 to ", max_rank / 2, ", got shape ", d.to_string());
  std::vector<int64_t> dims = d.dim_vector();
  const std::vector<int64_t> half = dims;
  dims.insert(dims.end(), half.begin(), half.end());
  c.set_output(0, partial_shape(dims));
  return {};
}

status diag_part_shape(shape_context& c) {
  const partial_shape& in = c.input(0);
  if (!in.rank_known()) return shape_fns::unknown(c);
  const int rank = in.rank();
  if (rank < 2 || rank % 2 != 0)
    return c.error("input must have an even, non-zero rank, got shape ", in.to_string());
  std::vector<int64_t> dims(static_cast<size_t>(rank / 2));
  for (int i = 0; i < rank / 2; ++i) {
    const int64_t a = in.dim(i), b = in.dim(i + rank / 2);
    if (a >= 0 && b >= 0 && a != b)
      return c.error("input of shape ", in.to_string(), " is not [d1..dk, d1..dk]: dimension ", i,
                     " is ", a, " but dimension ", i + rank / 2, " is ", b);
    dims[i] = a >= 0 ? a : b;
  }
  c.set_output(0, partial_shape(dims));
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("Diag")
    .input("diagonal: T")
    .output("output: T")
    .attr("T: type")
    .set_shape_fn(diag_shape);
CAFLOW_REGISTER_OP("DiagPart")
    .input("input: T")
    .output("diagonal: T")
    .attr("T: type")
    .set_shape_fn(diag_part_shape);
CAFLOW_REGISTER_OP("MatrixDiag")
    .input("diagonal: T")
    .output("output: T")
    .attr("T: type")
    .set_shape_fn(matrix_diag_shape);
CAFLOW_REGISTER_OP("MatrixDiagPart")
    .input("input: T")
    .output("diagonal: T")
    .attr("T: type")
    .set_shape_fn(matrix_diag_part_shape);
CAFLOW_REGISTER_OP("MatrixSetDiag")
    .input("input: T")
    .input("diagonal: T")
    .output("output: T")
    .attr("T: type")
    .set_shape_fn(matrix_set_diag_shape);
CAFLOW_REGISTER_OP("MatrixBandPart")
    .input("input: T")
    .input("num_lower: Tindex")
    .input("num_upper: Tindex")
    .output("band: T")
    .attr("T: type")
    .attr("Tindex: {int32, int64} = int64")
    .set_shape_fn(matrix_band_part_shape);

}  // namespace caflow
