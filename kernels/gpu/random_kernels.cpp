// RandomUniform, RandomStandardNormal and TruncatedNormal on the GPU: the CPU kernels' streams
// (random_launch.hpp), so a graph draws the same values wherever it is placed. The position in
// the stream is a counter in the GPU's memory that each launch reads and advances, so a step
// recorded into a CUDA graph draws fresh values at every replay.
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
    // The stream's position, zeroed on the GPU before any step of the kernel is queued.
    gpu_device* g = as_gpu(c.dev());
    CAFLOW_OP_REQUIRES(c, g != nullptr,
                       errors::internal("a GPU kernel was built for ", c.dev().name()));
    CAFLOW_OP_REQUIRES_OK(c, g->activate());
    auto counter = g->allocate(dtype::int64, tensor_shape{1});  // holds a uint64
    CAFLOW_OP_REQUIRES_OK(c, counter.get_status());
    counter_ = std::move(counter).value();
    CAFLOW_OP_REQUIRES_OK(c, cuda_status(cudaMemsetAsync(counter_.raw_data(), 0, sizeof(uint64_t),
                                                         g->compute_stream()),
                                         "cudaMemsetAsync"));
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
    launch_random<T>(Kind, seeds_, static_cast<uint64_t*>(counter_.raw_data()), out.data<T>(), n,
                     g.compute_stream());
  }

 private:
  philox_seeds seeds_;
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
