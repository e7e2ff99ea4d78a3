// Transpose: output dimension i is input dimension perm[i].
#include "graph/util/array_index_util.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

class transpose_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const tensor& perm_t = ctx.input(1);
    CAFLOW_OP_REQUIRES(
        ctx, perm_t.rank() == 1,
        errors::invalid_argument("perm must be a vector, got shape ", perm_t.shape().to_string()));
    const std::vector<int64_t> perm = index_values(perm_t);
    CAFLOW_OP_REQUIRES_OK(ctx, check_permutation(perm, x.rank()));

    tensor_shape out_shape;
    for (int64_t p : perm) out_shape.add_dim(x.dim(static_cast<int>(p)));
    // Output dimension i walks input dimension perm[i]; when the walk is linear (only
    // size-1 dimensions moved) the output shares the input's bytes.
    const auto in_strides = row_strides(x.shape());
    std::array<int64_t, max_rank> steps{};
    for (int i = 0; i < x.rank(); ++i) steps[i] = in_strides[perm[i]];
    const int r = x.rank();
    const auto layout = strided_layout::make(out_shape.dims(), std::span(steps.data(), r));
    if (layout.contiguous()) {
      ctx.set_output(0, x.reshaped(out_shape));
      return;
    }
    tensor* out = ctx.allocate_output(0, out_shape);
    if (!out) return;
    copy_strided(ctx, layout, x.raw_data(), out->raw_data(), dtype_size(x.type()));
  }
};

// The work depends only on the element size; one registration per dtype.
template <class T>
class transpose_op final : public transpose_bytes {
 public:
  using transpose_bytes::transpose_bytes;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Transpose", device_cpu, "T", transpose_op, float, double, int32_t,
                              int64_t, uint8_t, bool);

}  // namespace caflow
