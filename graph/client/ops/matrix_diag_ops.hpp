#pragma once
// Diagonals and bands of (batches of) matrices, with TensorFlow 1.x's names and semantics:
// MatrixDiag, MatrixDiagPart, MatrixSetDiag and MatrixBandPart (the innermost two dims are the
// matrix; the others are a batch), and the rank-doubling Diag and DiagPart. Any dtype.
//
//   auto d = ops::matrix_diag(root, v);                  // [..., n] -> [..., n, n]
//   auto lower = ops::matrix_band_part(root, m, -1, 0);  // lower triangle
#include <cstdint>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// [..., n] -> [..., n, n] with `diagonal` on the main diagonal, zeros elsewhere.
output matrix_diag(const scope& s, const output& diagonal);
// [..., m, n] -> [..., min(m, n)]: the main diagonal.
output matrix_diag_part(const scope& s, const output& input);
// `input` [..., m, n] with its main diagonal replaced by `diagonal` [..., min(m, n)].
output matrix_set_diag(const scope& s, const output& input, const output& diagonal);
// `input` with the elements outside the band zeroed: (i, j) is kept when (num_lower < 0 ||
// i - j <= num_lower) && (num_upper < 0 || j - i <= num_upper). num_lower and num_upper are
// int32 or int64 scalars.
output matrix_band_part(const scope& s, const output& input, const output& num_lower,
                        const output& num_upper);
output matrix_band_part(const scope& s, const output& input, int64_t num_lower,
                        int64_t num_upper);

// Diag: a tensor of rank k (1 to 4) to one of rank 2k, [d1..dk, d1..dk], holding `diagonal` at
// [i1..ik, i1..ik] and zeros elsewhere.
output diag(const scope& s, const output& diagonal);
// DiagPart: the inverse, for an input of shape [d1..dk, d1..dk].
output diag_part(const scope& s, const output& input);

}  // namespace caflow::ops
