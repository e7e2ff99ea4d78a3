// MatrixDiag, MatrixDiagPart, MatrixSetDiag and MatrixBandPart: element moves over a batch of
// [rows, cols] matrices; Diag and DiagPart: the same with the whole tensor as one [n, n] matrix
// (n its element count). Compiled once per element size and registered per dtype.
#include <algorithm>
#include <cstring>

#include "graph/util/array_index_util.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

status require_rank_at_least(const tensor& t, int rank, const char* what) {
  if (t.rank() < rank)
    return errors::invalid_argument(what, " must have rank at least ", rank, ", got shape ",
                                    t.shape().to_string());
  return {};
}

class matrix_diag_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor& d = ctx.input(0);
    CAFLOW_OP_REQUIRES_OK(ctx, require_rank_at_least(d, 1, "diagonal"));
    CAFLOW_OP_REQUIRES(ctx, d.rank() < max_rank,
                       errors::invalid_argument("diagonal of shape ", d.shape().to_string(),
                                                " has no room for another dimension"));
    const int64_t n = d.dim(d.rank() - 1);
    tensor_shape shape = d.shape();
    shape.add_dim(n);
    tensor* out = ctx.allocate_output(0, shape);
    if (!out || out->num_elements() == 0) return;
    std::memset(out->raw_data(), 0, out->byte_size());
    const int64_t batch = d.num_elements() / std::max<int64_t>(n, 1);
    with_word(dtype_size(d.type()), [&]<class W>() {
      const W* src = static_cast<const W*>(d.raw_data());
      W* dst = static_cast<W*>(out->raw_data());
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t i = 0; i < n; ++i) dst[(b * n + i) * n + i] = src[b * n + i];
    });
  }
};

// MatrixDiagPart (set false) and MatrixSetDiag (set true).
template <bool set>
class diag_part_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor& m = ctx.input(0);
    CAFLOW_OP_REQUIRES_OK(ctx, require_rank_at_least(m, 2, "input"));
    const int64_t rows = m.dim(m.rank() - 2), cols = m.dim(m.rank() - 1);
    const int64_t n = std::min(rows, cols);
    tensor_shape diag_shape = m.shape();
    diag_shape.remove_dim(m.rank() - 1);
    diag_shape.set_dim(m.rank() - 2, n);
    const int64_t batch = rows * cols == 0 ? 0 : m.num_elements() / (rows * cols);
    const size_t elem = dtype_size(m.type());
    if constexpr (set) {
      const tensor& d = ctx.input(1);
      CAFLOW_OP_REQUIRES(ctx, d.shape() == diag_shape,
                         errors::invalid_argument("diagonal has shape ", d.shape().to_string(),
                                                  " but input ", m.shape().to_string(),
                                                  " needs ", diag_shape.to_string()));
      tensor* out = ctx.allocate_output(0, m.shape());
      if (!out || out->num_elements() == 0) return;
      std::memcpy(out->raw_data(), m.raw_data(), m.byte_size());
      with_word(elem, [&]<class W>() {
        const W* src = static_cast<const W*>(d.raw_data());
        W* dst = static_cast<W*>(out->raw_data());
        for (int64_t b = 0; b < batch; ++b)
          for (int64_t i = 0; i < n; ++i) dst[b * rows * cols + i * cols + i] = src[b * n + i];
      });
    } else {
      tensor* out = ctx.allocate_output(0, diag_shape);
      if (!out || out->num_elements() == 0) return;
      with_word(elem, [&]<class W>() {
        const W* src = static_cast<const W*>(m.raw_data());
        W* dst = static_cast<W*>(out->raw_data());
        for (int64_t b = 0; b < batch; ++b)
          for (int64_t i = 0; i < n; ++i) dst[b * n + i] = src[b * rows * cols + i * cols + i];
      });
    }
  }
};

class band_part_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor& m = ctx.input(0);
    CAFLOW_OP_REQUIRES_OK(ctx, require_rank_at_least(m, 2, "input"));
    for (int i : {1, 2})
      CAFLOW_OP_REQUIRES(ctx, ctx.input(i).rank() == 0,
                         errors::invalid_argument(i == 1 ? "num_lower" : "num_upper",
                                                  " must be a scalar, got shape ",
                                                  ctx.input(i).shape().to_string()));
    const int64_t rows = m.dim(m.rank() - 2), cols = m.dim(m.rank() - 1);
    const int64_t lower = index_values(ctx.input(1))[0], upper = index_values(ctx.input(2))[0];
    CAFLOW_OP_REQUIRES(ctx, lower <= rows,
                       errors::invalid_argument("num_lower ", lower,
                                                " must not exceed the rows, ", rows));
    CAFLOW_OP_REQUIRES(ctx, upper <= cols,
                       errors::invalid_argument("num_upper ", upper,
                                                " must not exceed the columns, ", cols));
    tensor* out = ctx.allocate_output(0, m.shape());
    if (!out || out->num_elements() == 0) return;
    const int64_t batch = m.num_elements() / (rows * cols);
    with_word(dtype_size(m.type()), [&]<class W>() {
      const W* src = static_cast<const W*>(m.raw_data());
      W* dst = static_cast<W*>(out->raw_data());
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j) {
            const int64_t k = (b * rows + i) * cols + j;
            const bool keep = (lower < 0 || i - j <= lower) && (upper < 0 || j - i <= upper);
            dst[k] = keep ? src[k] : W{0};
          }
    });
  }
};

// Diag (part false) and DiagPart (part true): element i of the n-element diagonal sits at flat
// index i * (n + 1) of the [d1..dk, d1..dk] tensor.
template <bool part>
class diag_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    tensor_shape shape;
    if constexpr (part) {
      const int rank = in.rank();
      CAFLOW_OP_REQUIRES(ctx, rank >= 2 && rank % 2 == 0,
                         errors::invalid_argument("input must have an even, non-zero rank, got "
                                                  "shape ",
                                                  in.shape().to_string()));
      for (int i = 0; i < rank / 2; ++i) {
        CAFLOW_OP_REQUIRES(ctx, in.dim(i) == in.dim(i + rank / 2),
                           errors::invalid_argument("input of shape ", in.shape().to_string(),
                                                    " is not [d1..dk, d1..dk]"));
        shape.add_dim(in.dim(i));
      }
    } else {
      CAFLOW_OP_REQUIRES(ctx, in.rank() >= 1 && in.rank() <= max_rank / 2,
                         errors::invalid_argument("diagonal must have rank 1 to ", max_rank / 2,
                                                  ", got shape ", in.shape().to_string()));
      shape = in.shape();
      for (int i = 0; i < in.rank(); ++i) shape.add_dim(in.dim(i));
    }
    tensor* out = ctx.allocate_output(0, shape);
    if (!out || out->num_elements() == 0) return;
    const int64_t n = part ? out->num_elements() : in.num_elements();
    if (!part) std::memset(out->raw_data(), 0, out->byte_size());
    with_word(dtype_size(in.type()), [&]<class W>() {
      const W* src = static_cast<const W*>(in.raw_data());
      W* dst = static_cast<W*>(out->raw_data());
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (part) dst[i] = src[i * (n + 1)];
        else dst[i * (n + 1)] = src[i];
      }
    });
  }
};

template <class T>
class diag_op final : public diag_bytes<false> {
 public:
  using diag_bytes<false>::diag_bytes;
};
template <class T>
class diag_part_op final : public diag_bytes<true> {
 public:
  using diag_bytes<true>::diag_bytes;
};

template <class T>
class matrix_diag_op final : public matrix_diag_bytes {
 public:
  using matrix_diag_bytes::matrix_diag_bytes;
};
template <class T>
class matrix_diag_part_op final : public diag_part_bytes<false> {
 public:
  using diag_part_bytes<false>::diag_part_bytes;
};
template <class T>
class matrix_set_diag_op final : public diag_part_bytes<true> {
 public:
  using diag_part_bytes<true>::diag_part_bytes;
};
template <class T>
class matrix_band_part_op final : public band_part_bytes {
 public:
  using band_part_bytes::band_part_bytes;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Diag", device_cpu, "T", diag_op, float, double, int32_t, int64_t,
                              uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("DiagPart", device_cpu, "T", diag_part_op, float, double, int32_t,
                              int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("MatrixDiag", device_cpu, "T", matrix_diag_op, float, double,
                              int32_t, int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("MatrixDiagPart", device_cpu, "T", matrix_diag_part_op, float,
                              double, int32_t, int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("MatrixSetDiag", device_cpu, "T", matrix_set_diag_op, float, double,
                              int32_t, int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("MatrixBandPart", device_cpu, "T", matrix_band_part_op, float,
                              double, int32_t, int64_t, uint8_t, bool);

}  // namespace caflow
