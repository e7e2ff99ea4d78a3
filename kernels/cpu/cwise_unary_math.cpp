// The unary math ops of graph/ops/math_unary_ops.cpp on CPU, as scalar functions over
// plain loops (cwise_map.hpp): std:: and Eigen::numext functions, the same ones TF's functors
// call, so results match TF's CPU kernels.
#include <cfenv>
#include <cmath>
#include <type_traits>

#include <unsupported/Eigen/SpecialFunctions>

#include "kernels/cpu/cwise_map.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow::cwise {
namespace {

#define CAFLOW_SCALAR_FN(fn_name, expr)                \
  template <class T>                                   \
  struct fn_name {                                     \
    T operator()(T x) const { return expr; }           \
  }

CAFLOW_SCALAR_FN(ceil_fn, std::ceil(x));
// nearbyint under the default rounding mode (to nearest, ties to even) is TF's round: no
// other code of the process changes the mode. Integers are already round.
CAFLOW_SCALAR_FN(round_fn, std::is_integral_v<T> ? x : std::nearbyint(x));
CAFLOW_SCALAR_FN(rint_fn, std::nearbyint(x));
CAFLOW_SCALAR_FN(log1p_fn, std::log1p(x));
CAFLOW_SCALAR_FN(expm1_fn, std::expm1(x));
CAFLOW_SCALAR_FN(sin_fn, std::sin(x));
CAFLOW_SCALAR_FN(cos_fn, std::cos(x));
CAFLOW_SCALAR_FN(tan_fn, std::tan(x));
CAFLOW_SCALAR_FN(asin_fn, std::asin(x));
CAFLOW_SCALAR_FN(acos_fn, std::acos(x));
CAFLOW_SCALAR_FN(atan_fn, std::atan(x));
CAFLOW_SCALAR_FN(asinh_fn, std::asinh(x));
CAFLOW_SCALAR_FN(acosh_fn, std::acosh(x));
CAFLOW_SCALAR_FN(atanh_fn, std::atanh(x));
CAFLOW_SCALAR_FN(sinh_fn, std::sinh(x));
CAFLOW_SCALAR_FN(cosh_fn, std::cosh(x));
CAFLOW_SCALAR_FN(erf_fn, std::erf(x));
CAFLOW_SCALAR_FN(erfc_fn, std::erfc(x));
CAFLOW_SCALAR_FN(lgamma_fn, std::lgamma(x));
CAFLOW_SCALAR_FN(digamma_fn, Eigen::numext::digamma(x));
CAFLOW_SCALAR_FN(inv_fn, T(1) / x);
#undef CAFLOW_SCALAR_FN

template <class T>
struct is_nan_fn {
  bool operator()(T x) const { return std::isnan(x); }
};
template <class T>
struct is_inf_fn {
  bool operator()(T x) const { return std::isinf(x); }
};
template <class T>
struct is_finite_fn {
  bool operator()(T x) const { return std::isfinite(x); }
};
struct logical_not_fn {
  bool operator()(bool x) const { return !x; }
};

// The gradient helpers take (y, dy), y the forward output.
template <class T>
struct rsqrt_grad_fn {
  static constexpr const char* first = "y";
  static constexpr const char* second = "dy";
  T operator()(T y, T dy) const { return dy * (T(-0.5) * y * y * y); }
};
template <class T>
struct sqrt_grad_fn {
  static constexpr const char* first = "y";
  static constexpr const char* second = "dy";
  T operator()(T y, T dy) const { return dy * T(0.5) / y; }
};
template <class T>
struct reciprocal_grad_fn {
  static constexpr const char* first = "y";
  static constexpr const char* second = "dy";
  T operator()(T y, T dy) const { return -dy * y * y; }
};

template <template <class> class Fn>
struct same_type {
  template <class T>
  using op = map_op<T, T, Fn<T>>;
};
template <template <class> class Fn>
struct to_bool {
  template <class T>
  using op = map_op<T, bool, Fn<T>>;
};
template <template <class> class Fn>
struct grad_of {
  template <class T>
  using op = map2_op<T, Fn<T>>;
};

using logical_not_op = map_op<bool, bool, logical_not_fn>;

}  // namespace

#define CAFLOW_REGISTER_REAL(name, fn) \
  CAFLOW_REGISTER_TYPED_KERNELS(name, device_cpu, "T", same_type<fn>::op, float, double)
CAFLOW_REGISTER_REAL("Ceil", ceil_fn);
CAFLOW_REGISTER_TYPED_KERNELS("Round", device_cpu, "T", same_type<round_fn>::op, float, double,
                              int32_t, int64_t);
CAFLOW_REGISTER_REAL("Rint", rint_fn);
CAFLOW_REGISTER_REAL("Log1p", log1p_fn);
CAFLOW_REGISTER_REAL("Expm1", expm1_fn);
CAFLOW_REGISTER_REAL("Sin", sin_fn);
CAFLOW_REGISTER_REAL("Cos", cos_fn);
CAFLOW_REGISTER_REAL("Tan", tan_fn);
CAFLOW_REGISTER_REAL("Asin", asin_fn);
CAFLOW_REGISTER_REAL("Acos", acos_fn);
CAFLOW_REGISTER_REAL("Atan", atan_fn);
CAFLOW_REGISTER_REAL("Asinh", asinh_fn);
CAFLOW_REGISTER_REAL("Acosh", acosh_fn);
CAFLOW_REGISTER_REAL("Atanh", atanh_fn);
CAFLOW_REGISTER_REAL("Sinh", sinh_fn);
CAFLOW_REGISTER_REAL("Cosh", cosh_fn);
CAFLOW_REGISTER_REAL("Erf", erf_fn);
CAFLOW_REGISTER_REAL("Erfc", erfc_fn);
CAFLOW_REGISTER_REAL("Lgamma", lgamma_fn);
CAFLOW_REGISTER_REAL("Digamma", digamma_fn);
CAFLOW_REGISTER_REAL("Inv", inv_fn);
#undef CAFLOW_REGISTER_REAL

CAFLOW_REGISTER_TYPED_KERNELS("IsNan", device_cpu, "T", to_bool<is_nan_fn>::op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("IsInf", device_cpu, "T", to_bool<is_inf_fn>::op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("IsFinite", device_cpu, "T", to_bool<is_finite_fn>::op, float,
                              double);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("LogicalNot").device(device_cpu), logical_not_op);

CAFLOW_REGISTER_TYPED_KERNELS("RsqrtGrad", device_cpu, "T", grad_of<rsqrt_grad_fn>::op, float,
                              double);
CAFLOW_REGISTER_TYPED_KERNELS("SqrtGrad", device_cpu, "T", grad_of<sqrt_grad_fn>::op, float,
                              double);
CAFLOW_REGISTER_TYPED_KERNELS("ReciprocalGrad", device_cpu, "T",
                              grad_of<reciprocal_grad_fn>::op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("InvGrad", device_cpu, "T", grad_of<reciprocal_grad_fn>::op,
                              float, double);

}  // namespace caflow::cwise
