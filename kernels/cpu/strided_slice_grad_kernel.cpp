// StridedSliceGrad: the gradient of StridedSlice, dy written back where the slice read it
// (through the same plan as the forward kernel) into zeros shaped like the sliced input.
#include <cstring>

#include "kernels/cpu/strided_slice_plan.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

status_or<tensor_shape> shape_from(const tensor& t) {
  if (t.rank() != 1)
    return errors::invalid_argument("shape must be a vector, got shape ", t.shape().to_string());
  const std::vector<int64_t> dims = index_values(t);
  if (dims.size() > static_cast<size_t>(max_rank))
    return errors::invalid_argument("shape ", format_dims(dims), " has more than ", max_rank,
                                    " dimensions");
  tensor_shape shape;
  for (int64_t d : dims) {
    if (d < 0)
      return errors::invalid_argument("shape ", format_dims(dims), " has a negative dimension");
    shape.add_dim(d);
  }
  return shape;
}

class strided_slice_grad_bytes : public op_kernel {
 public:
  explicit strided_slice_grad_bytes(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_strided_slice_masks(c, &masks_));
  }

  void compute(kernel_context& ctx) override {
    auto shape_or = shape_from(ctx.input(0));
    CAFLOW_OP_REQUIRES_OK(ctx, shape_or.get_status());
    auto plan_or = plan_strided_slice(*shape_or, ctx.input(1), ctx.input(2), ctx.input(3), masks_);
    CAFLOW_OP_REQUIRES_OK(ctx, plan_or.get_status());
    const strided_slice_plan& plan = *plan_or;
    const tensor& dy = ctx.input(4);
    CAFLOW_OP_REQUIRES(ctx, dy.shape() == plan.final_shape,
                       errors::invalid_argument("dy has shape ", dy.shape().to_string(),
                                                " but the slice of shape ", shape_or->to_string(),
                                                " has shape ", plan.final_shape.to_string()));
    tensor* out = ctx.allocate_output(0, *shape_or);
    if (!out || out->num_elements() == 0) return;
    const size_t elem = dtype_size(dy.type());
    // All-zero bytes are 0 in every dtype this kernel is registered for.
    std::memset(out->raw_data(), 0, static_cast<size_t>(out->num_elements()) * elem);
    if (plan.layout.empty) return;
    scatter_strided(ctx, plan.layout, dy.raw_data(),
                    static_cast<char*>(out->raw_data()) + plan.base * int64_t(elem), elem);
  }

 private:
  strided_slice_masks masks_;
};

template <class T>
class strided_slice_grad_op final : public strided_slice_grad_bytes {
 public:
  using strided_slice_grad_bytes::strided_slice_grad_bytes;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("StridedSliceGrad", device_cpu, "T", strided_slice_grad_op, float,
                              double, int32_t, int64_t);

}  // namespace caflow
