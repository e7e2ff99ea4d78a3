// Conv2D: im2col of a tile of output positions, then [positions, patch] x [patch, out_depth]
// straight into the output rows of those positions (and _FusedConv2D's epilogue on them).
#include "kernels/cpu/conv_forward.hpp"

#include <algorithm>

#include "kernels/cpu/conv_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace conv {

template <class T>
void conv2d_forward(kernel_context& ctx, const conv2d_geometry& g, const tensor& input,
                    const tensor& filter, tensor& out, const channel_epilogue<T>* epilogue) {
  if (out.num_elements() == 0) return;
  T* y = out.data<T>();
  const int64_t patch = g.patch_size(), depth = g.out_depth, positions = g.out_pixels();
  if (patch == 0) {
    std::fill_n(y, out.num_elements(), T{0});
    if (epilogue) epilogue->apply_rows(y, positions);
    return;
  }
  const bool pointwise = is_pointwise(g);
  const tiling plan = plan_tiles(ctx, positions, pointwise ? 0 : patch * int64_t{sizeof(T)},
                                 2.0 * static_cast<double>(patch * depth));
  tensor scratch;
  if (!pointwise) {
    auto s = ctx.allocate_temp(dtype_v<T>, tensor_shape{plan.shards, plan.tile_units, patch});
    CAFLOW_OP_REQUIRES_OK(ctx, s.get_status());
    scratch = std::move(*s);
  }
  const T* x = input.data<T>();
  const const_matrix_map<T> w(filter.data<T>(), patch, depth);
  run_tiles(ctx, plan, [&](int64_t shard, int64_t tile) {
    const int64_t begin = tile * plan.tile_units;
    const int64_t end = std::min(positions, begin + plan.tile_units);
    const T* patches = x + begin * patch;
    if (!pointwise) {
      T* cols = scratch.data<T>() + shard * plan.tile_units * patch;
      im2col(g, x, begin, end, cols);
      patches = cols;
    }
    T* rows = y + begin * depth;
    matrix_map<T>(rows, end - begin, depth).noalias() =
        const_matrix_map<T>(patches, end - begin, patch) * w;
    if (epilogue) epilogue->apply_rows(rows, end - begin);
  });
}

template void conv2d_forward<float>(kernel_context&, const conv2d_geometry&, const tensor&,
                                    const tensor&, tensor&, const channel_epilogue<float>*);
template void conv2d_forward<double>(kernel_context&, const conv2d_geometry&, const tensor&,
                                     const tensor&, tensor&, const channel_epilogue<double>*);

}  // namespace conv

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
    tensor* out = ctx.allocate_output(0, resolved->output_shape());
    if (out == nullptr) return;
    conv::conv2d_forward<T>(ctx, *resolved, input, filter, *out, nullptr);
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Conv2D", device_cpu, "T", conv2d_op, float, double);

}  // namespace caflow
