// Cast between every pair of caflow's dtypes on CPU, one kernel per (SrcT, DstT).
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/cpu/cwise_common.hpp"
#include "kernels/kernel_registry.hpp"

namespace caflow::cwise {
namespace {

// To bool: nonzero (NaN included) is true. Floating point to integer truncates toward zero;
// C++ leaves out-of-range and NaN conversions undefined, so those saturate and NaN gives 0
// rather than whatever the hardware's conversion instruction happens to produce.
template <class Dst, class Src>
Dst convert(Src v) {
  if constexpr (std::is_same_v<Dst, bool>) {
    return v != Src(0);
  } else if constexpr (std::is_floating_point_v<Src> && std::is_integral_v<Dst>) {
    using limits = std::numeric_limits<Dst>;
    if (std::isnan(v)) return Dst(0);
    if (v <= static_cast<Src>(limits::lowest())) return limits::lowest();
    if (v >= static_cast<Src>(limits::max())) return limits::max();
    return static_cast<Dst>(v);
  } else {
    return static_cast<Dst>(v);
  }
}

template <class Src, class Dst>
class cast_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    if constexpr (std::is_same_v<Src, Dst>) {
      ctx.set_output(0, x);  // same dtype: share the bytes
    } else {
      tensor* out = ctx.allocate_output(0, x.shape());
      if (out == nullptr) return;
      const Src* in = x.data<Src>();
      Dst* o = out->data<Dst>();
      for_range(ctx, x.num_elements(), sizeof(Src), sizeof(Dst), 1,
                [=](int64_t begin, int64_t end) {
                  for (int64_t i = begin; i < end; ++i) o[i] = convert<Dst>(in[i]);
                });
    }
  }
};

const typed_kernel_registrar2<cast_op, all_dtypes, all_dtypes> cast_kernels("Cast", device_cpu,
                                                                            "SrcT", "DstT");

}  // namespace
}  // namespace caflow::cwise
