// Cumsum and Cumprod. The input is seen as [outer, n, inner] around the scanned axis; each
// step of the scan combines one row of `inner` elements with the previous output row, so the
// inner loop is a plain vectorizable loop over contiguous memory whatever the axis.
#include <algorithm>
#include <functional>

#include "graph/util/array_index_util.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using array_kernels::parallel_for;

// Inner rows longer than this are split into blocks so a scan over a leading axis of a wide
// tensor still spreads over the pool.
constexpr int64_t inner_block = 1024;

template <class T, class Op>
class scan_op final : public op_kernel {
 public:
  explicit scan_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("exclusive", &exclusive_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("reverse", &reverse_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const tensor& axis_t = ctx.input(1);
    CAFLOW_OP_REQUIRES(
        ctx, axis_t.rank() == 0,
        errors::invalid_argument("axis must be a scalar, got shape ", axis_t.shape().to_string()));
    CAFLOW_OP_REQUIRES(
        ctx, x.rank() >= 1,
        errors::invalid_argument("x must have rank at least 1, got shape ", x.shape().to_string()));
    auto axis_or = canonical_axis(index_values(axis_t)[0], x.rank(), "axis");
    CAFLOW_OP_REQUIRES_OK(ctx, axis_or.get_status());
    const int axis = *axis_or;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    const int64_t n = x.dim(axis);

    tensor* out = ctx.allocate_output(0, x.shape());
    if (!out || x.num_elements() == 0) return;
    const T* in = x.data<T>();
    T* o = out->data<T>();
    const int64_t blocks = (inner + inner_block - 1) / inner_block;
    const int64_t bytes_per_unit = n * std::min(inner, inner_block) * int64_t(sizeof(T));
    parallel_for(ctx, outer * blocks, bytes_per_unit, [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        const int64_t base = (u / blocks) * n * inner + (u % blocks) * inner_block;
        const int64_t width = std::min(inner_block, inner - (u % blocks) * inner_block);
        scan_block(in + base, o + base, n, inner, width);
      }
    });
  }

 private:
  // Scans `width` columns of an [n, inner] slab (row stride `inner`).
  void scan_block(const T* in, T* out, int64_t n, int64_t inner, int64_t width) const {
    const Op op;
    // Row i of the output, in scan order.
    const int64_t first = reverse_ ? n - 1 : 0;
    const int64_t step = reverse_ ? -inner : inner;
    const T* src = in + first * inner;
    T* dst = out + first * inner;
    if (exclusive_) {
      std::fill(dst, dst + width, Op::identity);
      for (int64_t i = 1; i < n; ++i) {
        T* next = dst + step;
        for (int64_t j = 0; j < width; ++j) next[j] = op(dst[j], src[j]);
        dst = next;
        src += step;
      }
      return;
    }
    std::copy(src, src + width, dst);
    for (int64_t i = 1; i < n; ++i) {
      T* next = dst + step;
      src += step;
      for (int64_t j = 0; j < width; ++j) next[j] = op(dst[j], src[j]);
      dst = next;
    }
  }

  bool exclusive_ = false, reverse_ = false;
};

template <class T>
struct sum_step {
  static constexpr T identity = T(0);
  T operator()(T a, T b) const { return a + b; }
};

template <class T>
struct prod_step {
  static constexpr T identity = T(1);
  T operator()(T a, T b) const { return a * b; }
};

template <class T>
using cumsum_op = scan_op<T, sum_step<T>>;
template <class T>
using cumprod_op = scan_op<T, prod_step<T>>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Cumsum", device_cpu, "T", cumsum_op, float, double, int32_t,
                              int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Cumprod", device_cpu, "T", cumprod_op, float, double, int32_t,
                              int64_t);

}  // namespace caflow
