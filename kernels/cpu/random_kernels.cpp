// RandomUniform, RandomStandardNormal and TruncatedNormal on the CPU: Philox4x32-10 streams
// keyed by the (seed, seed2) attrs, filled in parallel on the intra-op pool.
#include <algorithm>
#include <array>
#include <atomic>

#include "kernels/common/random_args.hpp"
#include "kernels/cpu/eigen_eval.hpp"
#include "kernels/cpu/random_distributions.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// Writes n samples; group g reads the blocks from first_block + g * blocks_per_group on.
template <class Dist, class T>
void fill(const kernel_context& ctx, const random::philox_stream& stream, uint64_t first_block,
          T* out, int64_t n) {
  constexpr int group = Dist::group_size;
  const int64_t groups = (n + group - 1) / group;
  auto run = [&](Eigen::Index begin, Eigen::Index end) {
    for (int64_t g = begin; g < end; ++g) {
      const uint64_t block = first_block + static_cast<uint64_t>(g) * Dist::blocks_per_group;
      const int64_t offset = g * group;
      if (offset + group <= n) {
        Dist::sample(stream, block, out + offset);
      } else {
        T tail[group];
        Dist::sample(stream, block, tail);
        std::copy(tail, tail + (n - offset), out + offset);
      }
    }
  };
  if (n < parallel_eval_threshold || ctx.dev().eigen_cpu() == nullptr) {
    run(0, groups);
  } else {
    ctx.eigen_cpu().parallelFor(
        groups, Eigen::TensorOpCost(0, sizeof(T) * group, Dist::cycles_per_group), run);
  }
}

// Seeds (0, 0) mean "nondeterministic", as in TensorFlow: the stream is drawn from the
// system's entropy once, when the kernel is built. Any other pair fixes the whole sequence of
// steps, which therefore repeats when the graph is rebuilt.
template <template <class> class Distribution, class T>
class random_op final : public op_kernel {
  using dist = Distribution<T>;

 public:
  explicit random_op(kernel_construction& c) : op_kernel(c) {
    int64_t seed = 0, seed2 = 0;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("seed", &seed));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("seed2", &seed2));
    const random_seeds seeds = resolve_random_seeds(seed, seed2);
    stream_ = random::philox_stream(seeds.seed, seeds.seed2);
  }

  void compute(kernel_context& ctx) override {
    tensor_shape shape;
    CAFLOW_OP_REQUIRES_OK(ctx, random_output_shape(ctx.input(0), &shape));
    tensor* out = ctx.allocate_output(0, shape);
    if (out == nullptr) return;
    const int64_t n = shape.num_elements();
    if (n == 0) return;
    const uint64_t groups = static_cast<uint64_t>((n + dist::group_size - 1) / dist::group_size);
    // Reserving this step's block range is the only shared write: concurrent steps of one
    // kernel get disjoint ranges and fill them without a lock.
    const uint64_t first =
        next_block_.fetch_add(groups * dist::blocks_per_group, std::memory_order_relaxed);
    fill<dist>(ctx, stream_, first, out->data<T>(), n);
  }

 private:
  random::philox_stream stream_;
  std::atomic<uint64_t> next_block_{0};
};

template <class T>
using random_uniform_op = random_op<random::uniform_dist, T>;
template <class T>
using random_standard_normal_op = random_op<random::normal_dist, T>;
template <class T>
using truncated_normal_op = random_op<random::truncated_normal_dist, T>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("RandomUniform", device_cpu, "dtype", random_uniform_op, float,
                              double);
CAFLOW_REGISTER_TYPED_KERNELS("RandomStandardNormal", device_cpu, "dtype",
                              random_standard_normal_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("TruncatedNormal", device_cpu, "dtype", truncated_normal_op, float,
                              double);

}  // namespace caflow
