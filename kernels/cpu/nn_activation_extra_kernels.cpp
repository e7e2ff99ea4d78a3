// Relu6, Elu, Selu, Softplus, Softsign and LeakyRelu and their *Grad ops on CPU, as scalar
// functions over plain loops (cwise_map.hpp), with TF's formulas.
#include <cmath>
#include <limits>

#include "kernels/cpu/cwise_map.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using cwise::map2_op;
using cwise::map_op;

// Selu's constants (Klambauer et al. 2017), as TF.
constexpr double selu_scale = 1.0507009873554804934193349852946;
constexpr double selu_scale_alpha = 1.7580993408473768599402175208123;

struct from_gradients_and_features {
  static constexpr const char* first = "gradients";
  static constexpr const char* second = "features";
};
struct from_gradients_and_outputs {
  static constexpr const char* first = "gradients";
  static constexpr const char* second = "outputs";
};

template <class T>
struct relu6_fn {
  T operator()(T x) const { return x < T(0) ? T(0) : (x > T(6) ? T(6) : x); }
};
// The gradient passes strictly inside (0, 6), as TF's.
template <class T>
struct relu6_grad_fn : from_gradients_and_features {
  T operator()(T g, T f) const { return f > T(0) && f < T(6) ? g : T(0); }
};

template <class T>
struct elu_fn {
  T operator()(T x) const { return x < T(0) ? std::expm1(x) : x; }
};
// In terms of the output a: d elu = a + 1 where a < 0, else 1.
template <class T>
struct elu_grad_fn : from_gradients_and_outputs {
  T operator()(T g, T a) const { return a < T(0) ? g * (a + T(1)) : g; }
};

template <class T>
struct selu_fn {
  T operator()(T x) const {
    return x < T(0) ? T(selu_scale_alpha) * std::expm1(x) : T(selu_scale) * x;
  }
};
template <class T>
struct selu_grad_fn : from_gradients_and_outputs {
  T operator()(T g, T a) const {
    return a < T(0) ? g * (a + T(selu_scale_alpha)) : g * T(selu_scale);
  }
};

// log(1 + e^x) without overflow: x itself where e^x swamps the 1, e^x where the 1 swamps it
// (TF's thresholds, log(epsilon) + 2 on either side).
template <class T>
struct softplus_fn {
  T operator()(T x) const {
    static const T threshold = std::log(std::numeric_limits<T>::epsilon()) + T(2);
    if (x > -threshold) return x;
    if (x < threshold) return std::exp(x);
    return std::log1p(std::exp(x));
  }
};
template <class T>
struct softplus_grad_fn : from_gradients_and_features {
  T operator()(T g, T f) const { return g / (T(1) + std::exp(-f)); }
};

template <class T>
struct softsign_fn {
  T operator()(T x) const { return x / (T(1) + std::abs(x)); }
};
template <class T>
struct softsign_grad_fn : from_gradients_and_features {
  T operator()(T g, T f) const {
    const T d = T(1) + std::abs(f);
    return g / (d * d);
  }
};

// alpha is read once, when the kernel is built.
template <class T>
struct leaky_relu_fn {
  explicit leaky_relu_fn(kernel_construction& c) {
    float a = 0.2f;
    c.set_status(c.get_attr("alpha", &a));
    alpha = T(a);
  }
  T operator()(T x) const { return x > T(0) ? x : x * alpha; }
  T alpha;
};
template <class T>
struct leaky_relu_grad_fn : from_gradients_and_features {
  explicit leaky_relu_grad_fn(kernel_construction& c) {
    float a = 0.2f;
    c.set_status(c.get_attr("alpha", &a));
    alpha = T(a);
  }
  T operator()(T g, T f) const { return f > T(0) ? g : g * alpha; }
  T alpha;
};

template <template <class> class Fn>
struct forward {
  template <class T>
  using op = map_op<T, T, Fn<T>>;
};
template <template <class> class Fn>
struct backward {
  template <class T>
  using op = map2_op<T, Fn<T>>;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Relu6", device_cpu, "T", forward<relu6_fn>::op, float, double,
                              int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Relu6Grad", device_cpu, "T", backward<relu6_grad_fn>::op, float,
                              double, int32_t, int64_t);
#define CAFLOW_REGISTER_REAL(name, fn, grad_name, grad_fn)                                    \
  CAFLOW_REGISTER_TYPED_KERNELS(name, device_cpu, "T", forward<fn>::op, float, double);     \
  CAFLOW_REGISTER_TYPED_KERNELS(grad_name, device_cpu, "T", backward<grad_fn>::op, float, double)
CAFLOW_REGISTER_REAL("Elu", elu_fn, "EluGrad", elu_grad_fn);
CAFLOW_REGISTER_REAL("Selu", selu_fn, "SeluGrad", selu_grad_fn);
CAFLOW_REGISTER_REAL("Softplus", softplus_fn, "SoftplusGrad", softplus_grad_fn);
CAFLOW_REGISTER_REAL("Softsign", softsign_fn, "SoftsignGrad", softsign_grad_fn);
CAFLOW_REGISTER_REAL("LeakyRelu", leaky_relu_fn, "LeakyReluGrad", leaky_relu_grad_fn);
#undef CAFLOW_REGISTER_REAL

}  // namespace caflow
