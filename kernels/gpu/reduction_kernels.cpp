// Sum, Mean, Max and ArgMax on the GPU: the CPU's reduction plan (axes checked, dims
// collapsed into [outer, size, inner] passes), each pass a launch or two (reduce.cu).
#include <limits>

#include "kernels/common/argmax_checks.hpp"
#include "kernels/common/reduction_plan.hpp"
#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/gpu_reduce.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"

namespace caflow::gpu {
namespace {

template <class T, class R, bool Mean = false>
class reduction_op final : public gpu_op_kernel {
 public:
  explicit reduction_op(kernel_construction& c) : gpu_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("keep_dims", &keep_dims_));
  }

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(in, ctx, g, 0);
    auto axes = host_input(ctx, g, 1);
    CAFLOW_OP_REQUIRES_OK(ctx, axes.get_status());
    auto plan = plan_reduction(in.shape(), *axes, keep_dims_);
    CAFLOW_OP_REQUIRES_OK(ctx, plan.get_status());
    if (plan->num_passes == 0) {
      ctx.set_output(0, in.reshaped(plan->output_shape));
      return;
    }
    tensor out = allocate_output(ctx, g, 0, plan->output_shape);
    if (!out.initialized()) return;
    const int64_t n = out.num_elements();
    cudaStream_t s = g.compute_stream();
    if (in.num_elements() == 0) {
      // Nothing meets in an output: as on the CPU, Sum gives 0, Max the lowest finite value,
      // Mean NaN (0 / 0).
      T identity = T(0);
      if constexpr (Mean) {
        if constexpr (std::numeric_limits<T>::has_quiet_NaN) identity = std::numeric_limits<T>::quiet_NaN();
      } else if constexpr (std::is_same_v<R, max_r>) {
        identity = std::numeric_limits<T>::lowest();
      }
      launch_fill<T>(out.data<T>(), n, identity, s);
      return;
    }
    const T* x = in.data<T>();
    tensor scratch[2];
    for (int i = 0; i < plan->num_passes; ++i) {
      const reduction_pass& p = plan->passes[i];
      T* dst = out.data<T>();
      if (i + 1 < plan->num_passes) {
        auto t = g.allocate(dtype_v<T>, tensor_shape{p.outer * p.inner});
        CAFLOW_OP_REQUIRES_OK(ctx, t.get_status());
        scratch[i % 2] = std::move(t).value();
        dst = scratch[i % 2].data<T>();
      }
      CAFLOW_OP_REQUIRES_OK(ctx, (reduce_on<R, T>(g, x, dst, p.outer, p.size, p.inner)));
      x = dst;
    }
    if constexpr (Mean) launch_divide<T>(out.data<T>(), n, static_cast<T>(plan->reduced_elements), s);
  }

 private:
  bool keep_dims_ = false;
};

template <class T>
using sum_op = reduction_op<T, sum_r>;
template <class T>
using mean_op = reduction_op<T, sum_r, /*Mean=*/true>;
template <class T>
using max_op = reduction_op<T, max_r>;

template <class T, class Index>
class arg_max_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(in, ctx, g, 0);
    CAFLOW_OP_REQUIRES_OK(ctx, check_arg_reduction_inputs(in.shape(), ctx.input(1).shape()));
    auto dim = host_ints(ctx, g, 1);
    CAFLOW_OP_REQUIRES_OK(ctx, dim.get_status());
    auto plan = plan_arg_reduction(in.shape(), (*dim)[0], dtype_v<Index>);
    CAFLOW_OP_REQUIRES_OK(ctx, plan.get_status());
    tensor out = allocate_output(ctx, g, 0, plan->output_shape);
    if (!out.initialized()) return;
    launch_arg_max<T, Index>(in.data<T>(), out.data<Index>(), plan->outer, plan->size, plan->inner,
                             g.compute_stream());
  }
};

const typed_kernel_registrar2<arg_max_op, type_list<float, double, int32_t, int64_t>,
                              type_list<int32_t, int64_t>>
    arg_max_kernels("ArgMax", device_gpu, "T", "output_type");

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Sum", device_gpu, "T", sum_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Mean", device_gpu, "T", mean_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Max", device_gpu, "T", max_op, float, double, int32_t, int64_t);

}  // namespace caflow::gpu
