// StridedSlice: numpy basic indexing (x[1:3], x[:, 0], x[..., ::-1], x[newaxis]). The spec
// is resolved by the same code as the shape function; the read is one strided pattern, a
// view when it is a contiguous run of the input.
#include "graph/ops/array_index_util.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

class strided_slice_bytes : public op_kernel {
 public:
  explicit strided_slice_bytes(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("begin_mask", &masks_.begin_mask));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("end_mask", &masks_.end_mask));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("ellipsis_mask", &masks_.ellipsis_mask));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("new_axis_mask", &masks_.new_axis_mask));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("shrink_axis_mask", &masks_.shrink_axis_mask));
  }

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    const char* names[] = {"begin", "end", "strides"};
    for (int i = 1; i <= 3; ++i)
      CAFLOW_OP_REQUIRES(ctx, ctx.input(i).rank() == 1,
                         errors::invalid_argument(names[i - 1], " must be a vector, got shape ",
                                                  ctx.input(i).shape().to_string()));
    const std::vector<int64_t> begin = index_values(ctx.input(1));
    const std::vector<int64_t> end = index_values(ctx.input(2));
    const std::vector<int64_t> strides = index_values(ctx.input(3));
    auto spec_or = resolve_strided_slice(input.shape(), &begin, &end, strides, masks_);
    CAFLOW_OP_REQUIRES_OK(ctx, spec_or.get_status());
    const strided_slice_spec& spec = *spec_or;
    const tensor_shape out_shape = spec.final_shape.to_shape();

    const int rank = input.rank();
    const auto in_strides = row_strides(input.shape());
    std::array<int64_t, max_rank> steps{};
    int64_t base = 0;
    for (int i = 0; i < rank; ++i) {
      steps[i] = spec.strides[i] * in_strides[i];
      base += spec.begin[i] * in_strides[i];
    }
    const auto layout = strided_layout::make(spec.counts, std::span(steps.data(), rank));
    if (layout.contiguous()) {
      ctx.set_output(0, subview(input, base, out_shape));
      return;
    }
    tensor* out = ctx.allocate_output(0, out_shape);
    // An empty slice may start outside the input (e.g. begin == dim): read nothing.
    if (!out || layout.empty) return;
    const size_t elem = dtype_size(input.type());
    copy_strided(ctx, layout, static_cast<const char*>(input.raw_data()) + base * int64_t(elem),
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
