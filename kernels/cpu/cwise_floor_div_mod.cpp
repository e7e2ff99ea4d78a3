// FloorDiv and FloorMod on CPU, with broadcasting (see cwise_binary.hpp). C++'s / and %
// truncate toward zero; these round toward negative infinity, as Python and TensorFlow do, so
// that FloorMod(id, n) is a shard in [0, n) for every id and n > 0.
#include <cmath>
#include <type_traits>

#include "kernels/cpu/cwise_binary.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow::cwise {
namespace {

template <class T>
struct floor_div_fn {
  T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::floor(x / y);
    } else {
      // -1 separately: min / -1 overflows; its wrapped negation is what TF's kernel gives.
      if (y == -1) return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(x));
      const T q = x / y;
      return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
    }
  }
};

template <class T>
struct floor_mod_fn {
  T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) {
      const T r = std::fmod(x, y);
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    } else {
      if (y == -1) return 0;
      const T r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    }
  }
};

// Integer division by zero has no value: the step fails (TF's "Integer division by zero")
// before any element is computed. Floating point gives inf or NaN, as IEEE says.
template <class T, template <class> class Fn>
class floor_op final : public op_kernel {
 public:
  explicit floor_op(kernel_construction& c) : op_kernel(c), apply_(c) {}

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

template <class T>
using floor_div_op = floor_op<T, floor_div_fn>;
template <class T>
using floor_mod_op = floor_op<T, floor_mod_fn>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("FloorDiv", device_cpu, "T", floor_div_op, float, double, int32_t,
                              int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("FloorMod", device_cpu, "T", floor_mod_op, float, double, int32_t,
                              int64_t);

}  // namespace caflow::cwise
