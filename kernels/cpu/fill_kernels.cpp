// Kernels that set every element of a new tensor to one value: Fill, ZerosLike, OnesLike.
#include "kernels/cpu/eigen_eval.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
void allocate_filled(kernel_context& ctx, const tensor_shape& shape, T value) {
  tensor* out = ctx.allocate_output(0, shape);
  if (!out) return;
  eval_into(ctx, flat<T>(*out), flat<T>(*out).constant(value), out->num_elements());
}

template <class T, class Index>
class fill_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor& dims = ctx.input(0);
    const tensor& value = ctx.input(1);
    CAFLOW_OP_REQUIRES(
        ctx, dims.rank() == 1,
        errors::invalid_argument("dims must be a vector, got shape ", dims.shape().to_string()));
    CAFLOW_OP_REQUIRES(
        ctx, value.rank() == 0,
        errors::invalid_argument("value must be a scalar, got shape ", value.shape().to_string()));
    const Index* d = dims.data<Index>();
    const std::vector<int64_t> requested(d, d + dims.num_elements());
    auto shape = tensor_shape::make(requested);
    CAFLOW_OP_REQUIRES(ctx, shape.ok(),
                       errors::invalid_argument("dims ", format_dims(requested), ": ",
                                                shape.get_status().message()));
    allocate_filled(ctx, *shape, value.scalar_value<T>());
  }
};

template <class T>
class zeros_like_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override { allocate_filled(ctx, ctx.input(0).shape(), T(0)); }
};

template <class T>
class ones_like_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override { allocate_filled(ctx, ctx.input(0).shape(), T(1)); }
};

const typed_kernel_registrar2<fill_op, all_dtypes, type_list<int32_t, int64_t>> fill_kernels(
    "Fill", device_cpu, "T", "index_type");

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("ZerosLike", device_cpu, "T", zeros_like_op, float, double, int32_t,
                              int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("OnesLike", device_cpu, "T", ones_like_op, float, double, int32_t,
                              int64_t, uint8_t, bool);

}  // namespace caflow
