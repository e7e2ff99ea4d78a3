// SelectV2 on CPU: output[i] = condition[i] ? t[i] : e[i] with condition, t and e broadcast
// together (TF >= 1.15). Same shapes take a flat loop; a scalar condition with t and e of the
// output's shape shares the chosen input's bytes.
#include "kernels/common/broadcast_plan.hpp"
#include "kernels/cpu/broadcast_runs.hpp"
#include "kernels/cpu/cwise_common.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow::cwise {
namespace {

template <class T>
class select_v2_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& cond = ctx.input(0);
    const tensor& t = ctx.input(1);
    const tensor& e = ctx.input(2);
    broadcast_plan te, all;
    CAFLOW_OP_REQUIRES_OK(ctx, plan_broadcast(t.shape(), e.shape(), &te));
    CAFLOW_OP_REQUIRES_OK(ctx, plan_broadcast(cond.shape(), te.out_shape, &all));
    const tensor_shape& shape = all.out_shape;
    if (cond.rank() == 0 && t.shape() == shape && e.shape() == shape) {
      ctx.set_output(0, *cond.data<bool>() ? t : e);
      return;
    }
    tensor* out = ctx.allocate_output(0, shape);
    if (out == nullptr || shape.num_elements() == 0) return;
    const bool* c = cond.data<bool>();
    const T* a = t.data<T>();
    const T* b = e.data<T>();
    T* o = out->data<T>();
    if (cond.shape() == shape && t.shape() == shape && e.shape() == shape) {
      for_range(ctx, shape.num_elements(), 2 * sizeof(T) + 1, sizeof(T), 1,
                [=](int64_t begin, int64_t end) {
                  for (int64_t i = begin; i < end; ++i) o[i] = c[i] ? a[i] : b[i];
                });
      return;
    }
    for_each_broadcast_run<3>(
        shape, {cond.shape(), t.shape(), e.shape()},
        [=](int64_t at, const std::array<int64_t, 3>& in, const std::array<int64_t, 3>& step,
            int64_t n) {
          for (int64_t j = 0; j < n; ++j)
            o[at + j] = c[in[0] + j * step[0]] ? a[in[1] + j * step[1]] : b[in[2] + j * step[2]];
        });
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("SelectV2", device_cpu, "T", select_v2_op, float, double, int32_t,
                              int64_t, uint8_t, bool);

}  // namespace caflow::cwise
