// Range: start, start + delta, ... up to limit (exclusive), TensorFlow's semantics.
#include <type_traits>

#include "graph/util/shape_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class range_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    static constexpr const char* names[] = {"start", "limit", "delta"};
    for (int i = 0; i < 3; ++i)
      CAFLOW_OP_REQUIRES(ctx, ctx.input(i).rank() == 0,
                         errors::invalid_argument(names[i], " must be a scalar, got shape ",
                                                  ctx.input(i).shape().to_string()));
    const T start = ctx.input(0).scalar_value<T>();
    const T delta = ctx.input(2).scalar_value<T>();
    auto length = range_length<T>(start, ctx.input(1).scalar_value<T>(), delta);
    CAFLOW_OP_REQUIRES_OK(ctx, length.get_status());
    tensor* out = ctx.allocate_output(0, tensor_shape{*length});
    if (!out) return;
    T* y = out->data<T>();
    const int64_t n = *length;
    if constexpr (std::is_floating_point_v<T>) {
      // start + i * delta rather than a running sum, so rounding errors do not accumulate.
      for (int64_t i = 0; i < n; ++i) y[i] = start + static_cast<T>(i) * delta;
    } else {
      // i * delta may leave T's range although every result lies within it: wrap-around
      // unsigned arithmetic gives the exact value.
      using U = std::make_unsigned_t<T>;
      for (int64_t i = 0; i < n; ++i)
        y[i] = static_cast<T>(static_cast<U>(start) + static_cast<U>(i) * static_cast<U>(delta));
    }
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Range", device_cpu, "Tidx", range_op, float, double, int32_t,
                              int64_t);

}  // namespace caflow
