// Conv2DBackpropFilter: d filter = patches^T x out_backprop, summed over tiles of output
// positions. Each worker accumulates its tiles into its own [patch, out_depth] sum (worker 0
// straight into the output); the sums are added at the end.
#include <algorithm>

#include "kernels/cpu/conv_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class conv2d_backprop_filter_op final : public conv::conv2d_kernel_base {
 public:
  using conv2d_kernel_base::conv2d_kernel_base;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    const tensor& out_backprop = ctx.input(2);
    auto resolved =
        conv2d_backprop_filter_geometry(params_, input.shape(), ctx.input(1), out_backprop.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = resolved->geometry;
    tensor* out = ctx.allocate_output(0, resolved->shape);
    if (out == nullptr || out->num_elements() == 0) return;
    T* dw = out->data<T>();
    const int64_t patch = g.patch_size(), depth = g.out_depth, positions = g.out_pixels();
    std::fill_n(dw, out->num_elements(), T{0});
    if (positions == 0) return;

    const bool pointwise = conv::is_pointwise(g);
    const conv::tiling plan =
        conv::plan_tiles(ctx, positions, pointwise ? 0 : patch * int64_t{sizeof(T)},
                         2.0 * static_cast<double>(patch * depth));
    tensor scratch, sums;
    if (!pointwise) {
      auto s = ctx.allocate_temp(dtype_v<T>, tensor_shape{plan.shards, plan.tile_units, patch});
      CAFLOW_OP_REQUIRES_OK(ctx, s.get_status());
      scratch = std::move(*s);
    }
    if (plan.shards > 1) {
      auto s = ctx.allocate_temp(dtype_v<T>, tensor_shape{plan.shards - 1, patch, depth});
      CAFLOW_OP_REQUIRES_OK(ctx, s.get_status());
      sums = std::move(*s);
      std::fill_n(sums.data<T>(), sums.num_elements(), T{0});
    }
    const T* x = input.data<T>();
    const T* dy = out_backprop.data<T>();
    conv::run_tiles(ctx, plan, [&](int64_t shard, int64_t tile) {
      const int64_t begin = tile * plan.tile_units;
      const int64_t end = std::min(positions, begin + plan.tile_units);
      const T* patches = x + begin * patch;
      if (!pointwise) {
        T* cols = scratch.data<T>() + shard * plan.tile_units * patch;
        conv::im2col(g, x, begin, end, cols);
        patches = cols;
      }
      T* sum = shard == 0 ? dw : sums.data<T>() + (shard - 1) * patch * depth;
      conv::matrix_map<T>(sum, patch, depth).noalias() +=
          conv::const_matrix_map<T>(patches, end - begin, patch).transpose() *
          conv::const_matrix_map<T>(dy + begin * depth, end - begin, depth);
    });
    for (int64_t s = 1; s < plan.shards; ++s) {
      const T* sum = sums.data<T>() + (s - 1) * patch * depth;
      for (int64_t i = 0; i < patch * depth; ++i) dw[i] += sum[i];
    }
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Conv2DBackpropFilter", device_cpu, "T", conv2d_backprop_filter_op,
                              float, double);

}  // namespace caflow
