// Conv2DBackpropInput: d patches = out_backprop x filter^T for a block of output positions,
// then col2im adds each patch row back onto the input elements it was read from. Tiles are
// whole images, so no two workers ever add into the same input element; an image whose patch
// matrix exceeds the scratch budget is done in blocks of its positions by one worker.
#include <algorithm>

#include "kernels/cpu/conv_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class conv2d_backprop_input_op final : public conv::conv2d_kernel_base {
 public:
  using conv2d_kernel_base::conv2d_kernel_base;

  void compute(kernel_context& ctx) override {
    const tensor& filter = ctx.input(1);
    const tensor& out_backprop = ctx.input(2);
    auto resolved =
        conv2d_backprop_input_geometry(params_, ctx.input(0), filter.shape(), out_backprop.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = resolved->geometry;
    tensor* out = ctx.allocate_output(0, resolved->shape);
    if (out == nullptr || out->num_elements() == 0) return;
    T* dx = out->data<T>();
    const int64_t patch = g.patch_size(), depth = g.out_depth;
    const int64_t image_positions = g.out_rows * g.out_cols;
    const int64_t image_size = g.in_rows * g.in_cols * g.in_depth;
    if (image_positions == 0 || depth == 0) {
      std::fill_n(dx, out->num_elements(), T{0});
      return;
    }

    const bool pointwise = conv::is_pointwise(g);
    const int64_t row_bytes = patch * int64_t{sizeof(T)};
    const conv::tiling plan =
        conv::plan_tiles(ctx, g.batch, pointwise ? 0 : image_positions * row_bytes,
                         2.0 * static_cast<double>(image_positions * patch * depth));
    const int64_t block = std::min(plan.tile_units * image_positions,
                                   std::max<int64_t>(1, conv::scratch_budget_bytes / row_bytes));
    tensor scratch;
    if (!pointwise) {
      auto s = ctx.allocate_temp(dtype_v<T>, tensor_shape{plan.shards, block, patch});
      CAFLOW_OP_REQUIRES_OK(ctx, s.get_status());
      scratch = std::move(*s);
    }
    const T* dy = out_backprop.data<T>();
    const conv::const_matrix_map<T> w(filter.data<T>(), patch, depth);
    conv::run_tiles(ctx, plan, [&](int64_t shard, int64_t tile) {
      const int64_t first_image = tile * plan.tile_units;
      const int64_t end_image = std::min(g.batch, first_image + plan.tile_units);
      const int64_t end = end_image * image_positions;
      if (pointwise) {
        // Each input element is the patch of exactly one output position.
        const int64_t begin = first_image * image_positions;
        conv::matrix_map<T>(dx + begin * patch, end - begin, patch).noalias() =
            conv::const_matrix_map<T>(dy + begin * depth, end - begin, depth) * w.transpose();
        return;
      }
      std::fill(dx + first_image * image_size, dx + end_image * image_size, T{0});
      T* cols = scratch.data<T>() + shard * block * patch;
      for (int64_t begin = first_image * image_positions; begin < end; begin += block) {
        const int64_t stop = std::min(end, begin + block);
        conv::matrix_map<T>(cols, stop - begin, patch).noalias() =
            conv::const_matrix_map<T>(dy + begin * depth, stop - begin, depth) * w.transpose();
        conv::col2im_add(g, cols, begin, stop, dx);
      }
    });
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Conv2DBackpropInput", device_cpu, "T", conv2d_backprop_input_op,
                              float, double);

}  // namespace caflow
