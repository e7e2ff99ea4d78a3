// ConditionalAccumulator and the ops on its handle. The accumulator lives in the device's
// resource manager under (container, shared_name or node name), looked up once when the
// kernel is built, so every worker graph naming it on this device shares one accumulator.
#include "kernels/conditional_accumulator.hpp"
#include "kernels/kernel_registry.hpp"

namespace caflow {
namespace {

status_or<std::shared_ptr<conditional_accumulator>> accumulator_for(kernel_context& ctx) {
  auto acc = ctx.input_resource<conditional_accumulator>(0);
  if (!acc) return errors::invalid_argument("input 0 is not an accumulator handle");
  return acc;
}

status require_scalar(const kernel_context& ctx, int i, const char* what) {
  if (ctx.input(i).rank() != 0)
    return errors::invalid_argument(what, " must be a scalar, got shape ",
                                    ctx.input(i).shape().to_string());
  return {};
}

class accumulator_op final : public op_kernel {
 public:
  explicit accumulator_op(kernel_construction& c) : op_kernel(c) {
    dtype type;
    partial_shape shape;
    std::string container, shared_name, reduction;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("dtype", &type));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("shape", &shape));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("container", &container));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("shared_name", &shared_name));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("reduction_type", &reduction));
    auto r = conditional_accumulator::parse_reduction(reduction);
    CAFLOW_OP_REQUIRES_OK(c, r.get_status());
    const std::string& key = shared_name.empty() ? c.def().name : shared_name;
    acc_ = c.dev().resources().lookup_or_create<conditional_accumulator>(container, key, [&] {
      return std::make_shared<conditional_accumulator>(key, type, shape, *r);
    });
    CAFLOW_OP_REQUIRES(c, acc_,
                       errors::invalid_argument("resource '", key, "' in container '", container,
                                                "' exists and is not an accumulator"));
    CAFLOW_OP_REQUIRES_OK(c, acc_->matches(type, shape, *r));
  }
  void compute(kernel_context& ctx) override { ctx.set_output_resource(0, acc_); }

 private:
  std::shared_ptr<conditional_accumulator> acc_;
};

template <class T>
void add_into(tensor& sum, const tensor& gradient) {
  T* s = sum.data<T>();
  const T* g = gradient.data<T>();
  const int64_t n = sum.num_elements();
  for (int64_t i = 0; i < n; ++i) s[i] += g[i];
}

template <class T>
class apply_gradient_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto acc = accumulator_for(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, acc.get_status());
    CAFLOW_OP_REQUIRES_OK(ctx, require_scalar(ctx, 1, "local_step"));
    CAFLOW_OP_REQUIRES_OK(ctx, (*acc)->apply_gradient(ctx.input(1).scalar_value<int64_t>(),
                                                      ctx.input(2), ctx.dev().get_allocator(),
                                                      &add_into<T>));
  }
};

template <class T>
class take_gradient_op final : public async_op_kernel {
 public:
  using async_op_kernel::async_op_kernel;
  void compute_async(kernel_context& ctx, done_callback done) override {
    auto acc = accumulator_for(ctx);
    status st = acc.get_status();
    if (st.ok()) st = require_scalar(ctx, 1, "num_required");
    if (st.ok() && ctx.input(1).scalar_value<int32_t>() < 1)
      st = errors::invalid_argument("num_required must be positive, got ",
                                    ctx.input(1).scalar_value<int32_t>());
    if (st.ok() && (*acc)->type() != dtype_v<T>)
      st = errors::invalid_argument("accumulator '", (*acc)->name(), "' holds ",
                                    dtype_name((*acc)->type()), " gradients, this take gives ",
                                    dtype_name(dtype_v<T>));
    if (!st.ok()) {
      ctx.set_status(std::move(st));
      done();
      return;
    }
    const bool mean = (*acc)->reduction_type() == conditional_accumulator::reduction::mean;
    (*acc)->take_gradient(
        ctx.input(1).scalar_value<int32_t>(), {ctx.step().cancellation, &ctx.dev()},
        [&ctx, mean, done = std::move(done)](status st, conditional_accumulator::taken t) {
          if (st.ok()) {
            // The sum is handed over, owned alone: averaged in place.
            if (mean && t.count > 1) {
              T* p = t.sum.data<T>();
              const T count = static_cast<T>(t.count);
              const int64_t n = t.sum.num_elements();
              for (int64_t i = 0; i < n; ++i) p[i] /= count;
            }
            ctx.set_output(0, std::move(t.sum));
          }
          ctx.set_status(std::move(st));
          done();
        });
  }
};

class num_accumulated_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto acc = accumulator_for(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, acc.get_status());
    tensor* out = ctx.allocate_output(0, tensor_shape{});
    if (out) *out->data<int32_t>() = static_cast<int32_t>((*acc)->num_accumulated());
  }
};

class set_global_step_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto acc = accumulator_for(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, acc.get_status());
    CAFLOW_OP_REQUIRES_OK(ctx, require_scalar(ctx, 1, "new_global_step"));
    (*acc)->set_global_step(ctx.input(1).scalar_value<int64_t>());
  }
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("ConditionalAccumulator").device(device_cpu),
                       accumulator_op);
CAFLOW_REGISTER_TYPED_KERNELS("AccumulatorApplyGradient", device_cpu, "dtype", apply_gradient_op,
                              float, double);
CAFLOW_REGISTER_TYPED_KERNELS("AccumulatorTakeGradient", device_cpu, "dtype", take_gradient_op,
                              float, double);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("AccumulatorNumAccumulated").device(device_cpu),
                       num_accumulated_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("AccumulatorSetGlobalStep").device(device_cpu),
                       set_global_step_op);

}  // namespace caflow
