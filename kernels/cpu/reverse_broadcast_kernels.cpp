// ReverseV2 and BroadcastTo, both one strided copy (kernels/cpu/array_kernel_util.hpp): a
// reversed dimension is read from its last element with a negative step, a broadcast one with
// step 0. Compiled once per element size, registered per dtype.
#include "graph/util/array_index_util.hpp"
#include "graph/util/reverse_broadcast_rules.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

class reverse_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const tensor& axis_t = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, axis_t.rank() == 1,
                       errors::invalid_argument("axis must be a vector, got shape ",
                                                axis_t.shape().to_string()));
    auto dims = reverse_dims(index_values(axis_t), x.rank());
    CAFLOW_OP_REQUIRES_OK(ctx, dims.get_status());
    const auto strides = row_strides(x.shape());
    std::array<int64_t, max_rank> steps{};
    int64_t start = 0;
    for (int k = 0; k < x.rank(); ++k) {
      const bool flip = (*dims)[k] && x.dim(k) > 1;
      steps[k] = flip ? -strides[k] : strides[k];
      if (flip) start += (x.dim(k) - 1) * strides[k];
    }
    const auto layout = strided_layout::make(x.shape().dims(), std::span(steps.data(), x.rank()));
    if (layout.empty || layout.contiguous()) {
      ctx.set_output(0, x);
      return;
    }
    tensor* out = ctx.allocate_output(0, x.shape());
    if (!out) return;
    const size_t elem = dtype_size(x.type());
    copy_strided(ctx, layout, static_cast<const char*>(x.raw_data()) + start * elem,
                 out->raw_data(), elem);
  }
};

class broadcast_to_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const tensor& shape_t = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, shape_t.rank() == 1,
                       errors::invalid_argument("shape must be a vector, got shape ",
                                                shape_t.shape().to_string()));
    const std::vector<int64_t> target = index_values(shape_t);
    CAFLOW_OP_REQUIRES_OK(ctx, check_broadcast_to(x.shape(), target));
    auto out_shape = tensor_shape::make(target);
    CAFLOW_OP_REQUIRES_OK(ctx, out_shape.get_status());
    const int rank = out_shape->rank(), lead = rank - x.rank();
    const auto strides = row_strides(x.shape());
    std::array<int64_t, max_rank> steps{};
    for (int k = lead; k < rank; ++k)
      steps[k] = x.dim(k - lead) == 1 ? 0 : strides[k - lead];
    const auto layout = strided_layout::make(out_shape->dims(), std::span(steps.data(), rank));
    if (layout.contiguous()) {
      ctx.set_output(0, x.reshaped(*out_shape));
      return;
    }
    tensor* out = ctx.allocate_output(0, *out_shape);
    if (!out || out->num_elements() == 0) return;
    copy_strided(ctx, layout, x.raw_data(), out->raw_data(), dtype_size(x.type()));
  }
};

template <class T>
class reverse_op final : public reverse_bytes {
 public:
  using reverse_bytes::reverse_bytes;
};

template <class T>
class broadcast_to_op final : public broadcast_to_bytes {
 public:
  using broadcast_to_bytes::broadcast_to_bytes;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("ReverseV2", device_cpu, "T", reverse_op, float, double, int32_t,
                              int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("BroadcastTo", device_cpu, "T", broadcast_to_op, float, double,
                              int32_t, int64_t, uint8_t, bool);

}  // namespace caflow
