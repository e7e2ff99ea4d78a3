// Conv2D: im2col of a tile of output positions, then [positions, patch] x [patch, out_depth]
// straight into the output rows of those positions.
#include <algorithm>

#include "kernels/cpu/conv_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class conv2d_op final : public conv::conv2d_kernel_base {
 public:
  using conv2d_kernel_base::conv2d_kernel_base;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    const tensor& filter = ctx.input(1);
    auto resolved = conv2d_kernel_geometry(params_, input.shape(), filter.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = *resolved;
    tensor* out = ctx.allocate_output(0, g.output_shape());
    if (out == nullptr || out->num_elements() == 0) return;
    T* y = out->data<T>();
    const int64_t patch = g.patch_size(), depth = g.out_depth, positions = g.out_pixels();
    if (patch == 0) {
      std::fill_n(y, out->num_elements(), T{0});
      return;
    }
    const bool pointwise = conv::is_pointwise(g);
    const conv::tiling plan =
        conv::plan_tiles(ctx, positions, pointwise ? 0 : patch * int64_t{sizeof(T)},
                         2.0 * static_cast<double>(patch * depth));
    tensor scratch;
    if (!pointwise) {
      auto s = ctx.allocate_temp(dtype_v<T>, tensor_shape{plan.shards, plan.tile_units, patch});
      CAFLOW_OP_REQUIRES_OK(ctx, s.get_status());
      scratch = std::move(*s);
    }
    const T* x = input.data<T>();
    const conv::const_matrix_map<T> w(filter.data<T>(), patch, depth);
    conv::run_tiles(ctx, plan, [&](int64_t shard, int64_t tile) {
      const int64_t begin = tile * plan.tile_units;
      const int64_t end = std::min(positions, begin + plan.tile_units);
      const T* patches = x + begin * patch;
      if (!pointwise) {
        T* cols = scratch.data<T>() + shard * plan.tile_units * patch;
        conv::im2col(g, x, begin, end, cols);
        patches = cols;
      }
      conv::matrix_map<T>(y + begin * depth, end - begin, depth).noalias() =
          conv::const_matrix_map<T>(patches, end - begin, patch) * w;
    });
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Conv2D", device_cpu, "T", conv2d_op, float, double);

}  // namespace caflow
