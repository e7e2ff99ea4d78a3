// StridedSlice: numpy basic indexing (x[1:3], x[:, 0], x[..., ::-1], x[newaxis]). The spec
// is resolved by the same code as the shape function; the read is one strided pattern, a
// view when it is a contiguous run of the input.
#include "kernels/cpu/strided_slice_plan.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

class strided_slice_bytes : public op_kernel {
 public:
  explicit strided_slice_bytes(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_strided_slice_masks(c, &masks_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    auto plan_or =
        plan_strided_slice(input.shape(), ctx.input(1), ctx.input(2), ctx.input(3), masks_);
    CAFLOW_OP_REQUIRES_OK(ctx, plan_or.get_status());
    const strided_slice_plan& plan = *plan_or;
    if (plan.layout.contiguous()) {
      ctx.set_output(0, subview(input, plan.base, plan.final_shape));
      return;
    }
    tensor* out = ctx.allocate_output(0, plan.final_shape);
    // An empty slice may start outside the input (e.g. begin == dim): read nothing.
    if (!out || plan.layout.empty) return;
    const size_t elem = dtype_size(input.type());
    copy_strided(ctx, plan.layout,
                 static_cast<const char*>(input.raw_data()) + plan.base * int64_t(elem),
                 out->raw_data(), elem);
  }

 private:
  strided_slice_masks masks_;
};

template <class T>
class strided_slice_op final : public strided_slice_bytes {
 public:
  using strided_slice_bytes::strided_slice_bytes;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("StridedSlice", device_cpu, "T", strided_slice_op, float, double,
                              int32_t, int64_t, uint8_t, bool);

}  // namespace caflow
