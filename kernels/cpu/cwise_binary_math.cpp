// The broadcasting arithmetic of graph/ops/math_binary_ops.cpp (and Polygamma) on CPU,
// through binary_op (cwise_binary.hpp) with TF's scalar formulas.
#include <cmath>
#include <type_traits>

#include <unsupported/Eigen/SpecialFunctions>

#include "kernels/cpu/cwise_binary.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow::cwise {
namespace {

// C's truncation: fmod for floats, % for integers. y == -1 separately: min % -1 overflows.
template <class T>
struct truncate_mod_fn {
  T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) return std::fmod(x, y);
    else return y == T(-1) ? T(0) : static_cast<T>(x % y);
  }
};

template <class T>
struct truncate_div_fn {
  T operator()(T x, T y) const {
    // min / -1 overflows; its wrapped negation is what TF's kernel gives.
    if constexpr (std::is_signed_v<T>)
      if (y == T(-1)) return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(x));
    return static_cast<T>(x / y);
  }
};

// Integers truncate (C's /): TF's Div. min / -1 as TruncateDiv.
template <class T>
struct div_fn {
  T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) return x / y;
    else return truncate_div_fn<T>()(x, y);
  }
};

template <class T>
struct squared_difference_fn {
  T operator()(T x, T y) const { return (x - y) * (x - y); }
};

template <class T>
struct atan2_fn {
  T operator()(T y, T x) const { return std::atan2(y, x); }
};

template <class T>
struct div_no_nan_fn {
  T operator()(T x, T y) const { return y == T(0) ? T(0) : x / y; }
};

template <class T>
struct xlogy_fn {
  T operator()(T x, T y) const { return x == T(0) ? T(0) : x * std::log(y); }
};

template <class T>
struct xdivy_fn {
  T operator()(T x, T y) const { return x == T(0) ? T(0) : x / y; }
};

template <class T>
struct polygamma_fn {
  T operator()(T a, T x) const { return Eigen::numext::polygamma(a, x); }
};

// Integer division by zero has no value: the step fails (TF's "Integer division by zero")
// before any element is computed. Floating point gives inf or NaN, as IEEE says.
template <class T, template <class> class Fn>
class checked_division_op final : public op_kernel {
 public:
  explicit checked_division_op(kernel_construction& c) : op_kernel(c), apply_(c) {}

  void compute(kernel_context& ctx) override {
    if constexpr (std::is_integral_v<T>) {
      const tensor& y = ctx.input(1);
      const T* d = y.data<T>();
      for (int64_t i = 0; i < y.num_elements(); ++i)
        CAFLOW_OP_REQUIRES(ctx, d[i] != 0,
                           errors::invalid_argument("Integer division by zero (y[", i, "])"));
    }
    apply_.compute(ctx);
  }

 private:
  binary_op<T, Fn<T>> apply_;
};

template <template <class> class Fn>
struct plain {
  template <class T>
  using op = binary_op<T, Fn<T>>;
};
template <template <class> class Fn>
struct checked {
  template <class T>
  using op = checked_division_op<T, Fn>;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Div", device_cpu, "T", checked<div_fn>::op, float, double,
                              uint8_t, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Mod", device_cpu, "T", checked<truncate_mod_fn>::op, float,
                              double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("TruncateMod", device_cpu, "T", checked<truncate_mod_fn>::op,
                              float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("TruncateDiv", device_cpu, "T", checked<truncate_div_fn>::op,
                              uint8_t, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("SquaredDifference", device_cpu, "T",
                              plain<squared_difference_fn>::op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Atan2", device_cpu, "T", plain<atan2_fn>::op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("DivNoNan", device_cpu, "T", plain<div_no_nan_fn>::op, float,
                              double);
CAFLOW_REGISTER_TYPED_KERNELS("Xlogy", device_cpu, "T", plain<xlogy_fn>::op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Xdivy", device_cpu, "T", plain<xdivy_fn>::op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Polygamma", device_cpu, "T", plain<polygamma_fn>::op, float,
                              double);

}  // namespace caflow::cwise
