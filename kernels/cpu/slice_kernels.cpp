// Slice: a box of the input, [begin, begin + size) in every dimension. A box that is one
// contiguous run of the input (whole trailing dimensions) is returned as a view.
#include "graph/util/array_index_util.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

class slice_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    const tensor& begin_t = ctx.input(1);
    const tensor& size_in = ctx.input(2);
    const int rank = input.rank();
    CAFLOW_OP_REQUIRES(ctx,
                       begin_t.rank() == 1 && size_in.rank() == 1 &&
                           begin_t.num_elements() == rank && size_in.num_elements() == rank,
                       errors::invalid_argument(
                           "begin and size must be vectors with one entry per input "
                           "dimension; input shape ",
                           input.shape().to_string(), ", begin shape ", begin_t.shape().to_string(),
                           ", size shape ", size_in.shape().to_string()));
    const std::vector<int64_t> begin = index_values(begin_t);
    const std::vector<int64_t> size = index_values(size_in);
    tensor_shape out_shape;
    int64_t base = 0;
    const auto strides = row_strides(input.shape());
    for (int i = 0; i < rank; ++i) {
      const int64_t dim = input.dim(i), b = begin[i];
      CAFLOW_OP_REQUIRES(
          ctx, b >= 0 && b <= dim,
          errors::invalid_argument("begin[", i, "] = ", b, " is out of range [0, ", dim,
                                   "] for input shape ", input.shape().to_string()));
      const int64_t s = size[i] == -1 ? dim - b : size[i];
      CAFLOW_OP_REQUIRES(
          ctx, s >= 0 && s <= dim - b,
          errors::invalid_argument("size[", i, "] = ", size[i], " is out of range [0, ", dim - b,
                                   "] (or -1) for begin[", i, "] = ", b, " and input shape ",
                                   input.shape().to_string()));
      out_shape.add_dim(s);
      base += b * strides[i];
    }
    const auto layout = strided_layout::make(out_shape.dims(), std::span(strides.data(), rank));
    if (layout.contiguous()) {
      ctx.set_output(0, subview(input, base, out_shape));
      return;
    }
    tensor* out = ctx.allocate_output(0, out_shape);
    if (!out || layout.empty) return;
    const size_t elem = dtype_size(input.type());
    copy_strided(ctx, layout, static_cast<const char*>(input.raw_data()) + base * elem,
                 out->raw_data(), elem);
  }
};

template <class T>
class slice_op final : public slice_bytes {
 public:
  using slice_bytes::slice_bytes;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Slice", device_cpu, "T", slice_op, float, double, int32_t, int64_t,
                              uint8_t, bool);

}  // namespace caflow
