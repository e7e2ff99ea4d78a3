// ShapeN and ConcatOffset: small host computations on shapes.
#include "graph/util/array_index_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class I>
class shape_n_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const tensor_shape& s = ctx.input(i).shape();
      tensor* out = ctx.allocate_output(i, tensor_shape{s.rank()});
      if (!out) return;
      for (int d = 0; d < s.rank(); ++d) out->data<I>()[d] = static_cast<I>(s.dim(d));
    }
  }
};

class concat_offset_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor& dim_t = ctx.input(0);
    CAFLOW_OP_REQUIRES(ctx, dim_t.rank() == 0,
                       errors::invalid_argument("concat_dim must be a scalar, got shape ",
                                                dim_t.shape().to_string()));
    const tensor& first = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, first.rank() == 1,
                       errors::invalid_argument("shape[0] must be a vector, got shape ",
                                                first.shape().to_string()));
    const int rank = static_cast<int>(first.num_elements());
    auto axis = canonical_axis(dim_t.scalar_value<int32_t>(), rank, "concat_dim");
    CAFLOW_OP_REQUIRES_OK(ctx, axis.get_status());
    int32_t offset = 0;
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      const tensor& s = ctx.input(i);
      CAFLOW_OP_REQUIRES(ctx, s.rank() == 1 && s.num_elements() == rank,
                         errors::invalid_argument("shape[", i - 1, "] has shape ",
                                                  s.shape().to_string(), " but shape[0] has ",
                                                  rank, " entries"));
      for (int d = 0; d < rank; ++d)
        CAFLOW_OP_REQUIRES(ctx, d == *axis || s.data<int32_t>()[d] == first.data<int32_t>()[d],
                           errors::invalid_argument(
                               "shape[", i - 1, "] = ", format_dims(index_values(s)),
                               " differs from shape[0] = ", format_dims(index_values(first)),
                               " in dimension ", d, ", not only in concat_dim ", *axis));
      tensor* out = ctx.allocate_output(i - 1, tensor_shape{rank});
      if (!out) return;
      for (int d = 0; d < rank; ++d) out->data<int32_t>()[d] = d == *axis ? offset : 0;
      offset += s.data<int32_t>()[*axis];
    }
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("ShapeN", device_cpu, "out_type", shape_n_op, int32_t, int64_t);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("ConcatOffset").device(device_cpu), concat_offset_op);

}  // namespace caflow
