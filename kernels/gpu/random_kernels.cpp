// RandomUniform, RandomStandardNormal and TruncatedNormal on the GPU: the CPU kernels' streams
// (random_launch.hpp), so a graph draws the same values wherever it is placed. The position in
// the stream is a counter in the GPU's memory that each launch reads and advances, so a step
// recorded into a CUDA graph draws fresh values at every replay.
#include <mutex>

#include "kernels/common/random_args.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"
#include "kernels/gpu/random_launch.hpp"

namespace caflow::gpu {
namespace {

template <random_kind Kind, class T>
class random_op final : public gpu_op_kernel {
 public:
  explicit random_op(kernel_construction& c) : gpu_op_kernel(c) {
    int64_t seed = 0, seed2 = 0;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("seed", &seed));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("seed2", &seed2));
    const random_seeds s = resolve_random_seeds(seed, seed2);
    seeds_ = {static_cast<uint32_t>(s.seed), static_cast<uint32_t>(s.seed >> 32),
              static_cast<uint32_t>(s.seed2), static_cast<uint32_t>(s.seed2 >> 32)};
  }

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    auto shape_t = host_input(ctx, g, 0);
    CAFLOW_OP_REQUIRES_OK(ctx, shape_t.get_status());
    tensor_shape shape;
    CAFLOW_OP_REQUIRES_OK(ctx, random_output_shape(*shape_t, &shape));
    tensor out = allocate_output(ctx, g, 0, shape);
    const int64_t n = shape.num_elements();
    if (!out.initialized() || n == 0) return;
    CAFLOW_OP_REQUIRES_OK(ctx, make_counter(g));
    launch_random<T>(Kind, seeds_, static_cast<uint64_t*>(counter_.raw_data()), out.data<T>(), n,
                     g.compute_stream());
  }

 private:
  // The stream's position, zeroed on the GPU at the kernel's first step (a plain one: a
  // partition's first step of a shape is never recorded).
  status make_counter(gpu_device& g) {
    std::lock_guard<std::mutex> lock(mu_);
    if (counter_.initialized()) return {};
    // Zeroing it inside a recording would rewind the stream at every replay.
    if (g.is_capturing())
      return errors::failed_precondition("the random stream of '", name(),
                                         "' has not started, so its first step cannot be recorded");
    CAFLOW_ASSIGN_OR_RETURN(tensor t, g.allocate(dtype::int64, tensor_shape{1}));  // a uint64
    CAFLOW_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(t.raw_data(), 0, sizeof(uint64_t), g.compute_stream()));
    counter_ = std::move(t);
    return {};
  }

  philox_seeds seeds_;
  std::mutex mu_;
  tensor counter_;
};

template <class T>
using uniform_op = random_op<random_kind::uniform, T>;
template <class T>
using normal_op = random_op<random_kind::normal, T>;
template <class T>
using truncated_normal_op = random_op<random_kind::truncated_normal, T>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("RandomUniform", device_gpu, "dtype", uniform_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("RandomStandardNormal", device_gpu, "dtype", normal_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("TruncatedNormal", device_gpu, "dtype", truncated_normal_op, float,
                              double);

}  // namespace caflow::gpu
