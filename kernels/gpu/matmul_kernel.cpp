// MatMul on the GPU through cuBLASLt (lt_matmul.hpp). Each kernel plans once per shape and
// owns its cuBLASLt handle, bound to nothing; the workspace comes from the GPU's BFC on every
// call, sized to the chosen algorithm, and is passed with the call, so kernels on other threads
// never see each other's.
#include <climits>
#include <mutex>

#include "kernels/common/matmul_checks.hpp"
#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"
#include "kernels/gpu/lt_matmul.hpp"
#include "kernels/gpu/plan_cache.hpp"

namespace caflow::gpu {
namespace {

// The most workspace an algorithm may ask for: what cuBLAS gives its own pool on Hopper, where
// split-K and stream-K kernels for small products need it.
constexpr size_t max_workspace = size_t{32} << 20;

template <class T>
class mat_mul_op final : public gpu_op_kernel {
 public:
  explicit mat_mul_op(kernel_construction& c) : gpu_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_matmul_params(c, &params_));
  }

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(a, ctx, g, 0);
    CAFLOW_GPU_INPUT(b, ctx, g, 1);
    auto dims = matmul_dims_for(params_, a.shape(), b.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, dims.get_status());
    const int64_t m = dims->m, k = dims->k, n = dims->n;
    tensor out = allocate_output(ctx, g, 0, dims->output_shape());
    if (!out.initialized() || out.num_elements() == 0) return;
    if (k == 0) {
      launch_fill<T>(out.data<T>(), out.num_elements(), T(0), g.compute_stream());
      return;
    }
    CAFLOW_OP_REQUIRES_OK(ctx, run(g, a, b, m, n, k, out));
  }

 private:
  status run(gpu_device& g, const tensor& a, const tensor& b, int64_t m, int64_t n, int64_t k,
             tensor& out) {
    CAFLOW_ASSIGN_OR_RETURN(cublasLtHandle_t h, handle());
    const lt_shape s = lt_shape_of(m, n, k, params_.transpose_a, params_.transpose_b,
                                   a.raw_data(), b.raw_data(), out.raw_data());
    CAFLOW_ASSIGN_OR_RETURN(auto plan,
                            plans_.get(s, [&] { return plan_lt_matmul<T>(h, s, max_workspace); }));
    tensor ws;
    if (plan->workspace_bytes > 0) {
      CAFLOW_ASSIGN_OR_RETURN(ws, g.allocate(dtype::uint8, tensor_shape{static_cast<int64_t>(
                                                               plan->workspace_bytes)}));
    }
    return run_lt_matmul<T>(h, *plan, a.data<T>(), b.data<T>(), out.data<T>(),
                            ws.initialized() ? ws.raw_data() : nullptr, g.compute_stream());
  }

  // Made at the first run, on the GPU the kernel runs on; an error then is kept.
  status_or<cublasLtHandle_t> handle() {
    std::call_once(lt_once_, [this] {
      auto made = make_lt_handle();
      if (made.ok()) lt_ = std::move(made).value();
      else lt_error_ = made.get_status();
    });
    if (!lt_error_.ok()) return lt_error_;
    return lt_.get();
  }

  matmul_params params_;
  std::once_flag lt_once_;
  lt_handle lt_;
  status lt_error_;
  plan_cache<lt_shape, lt_plan> plans_;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("MatMul", device_gpu, "T", mat_mul_op, float, double);

}  // namespace caflow::gpu
