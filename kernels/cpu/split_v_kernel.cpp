// SplitV: the value seen as [outer, dim * inner]; each piece copies its columns of every outer
// row. Along dimension 0 (outer == 1) the pieces are views of the value.
#include <cstring>

#include "graph/util/array_index_util.hpp"
#include "graph/util/split_v_rules.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

class split_v_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& value = ctx.input(0);
    const tensor& sizes_t = ctx.input(1);
    const tensor& axis_t = ctx.input(2);
    CAFLOW_OP_REQUIRES(ctx, axis_t.rank() == 0,
                       errors::invalid_argument("split_dim must be a scalar, got shape ",
                                                axis_t.shape().to_string()));
    CAFLOW_OP_REQUIRES(ctx, sizes_t.rank() == 1,
                       errors::invalid_argument("size_splits must be a vector, got shape ",
                                                sizes_t.shape().to_string()));
    auto axis = canonical_axis(index_values(axis_t)[0], value.rank(), "split_dim");
    CAFLOW_OP_REQUIRES_OK(ctx, axis.get_status());
    auto sizes = resolve_split_sizes(index_values(sizes_t), ctx.num_outputs(),
                                     value.dim(*axis));
    CAFLOW_OP_REQUIRES_OK(ctx, sizes.get_status());
    int64_t outer = 1, inner = static_cast<int64_t>(dtype_size(value.type()));
    for (int d = 0; d < *axis; ++d) outer *= value.dim(d);
    for (int d = *axis + 1; d < value.rank(); ++d) inner *= value.dim(d);
    const int64_t row = value.dim(*axis) * inner;
    const char* src = static_cast<const char*>(value.raw_data());
    int64_t offset = 0;
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      tensor_shape shape = value.shape();
      shape.set_dim(*axis, (*sizes)[i]);
      const int64_t piece = (*sizes)[i] * inner;
      if (outer == 1 || piece == 0) {
        ctx.set_output(i, piece == 0 ? tensor(value.type(), shape)
                                     : subview(value, offset / static_cast<int64_t>(
                                                                   dtype_size(value.type())),
                                               shape));
      } else {
        tensor* out = ctx.allocate_output(i, shape);
        if (!out) return;
        char* dst = static_cast<char*>(out->raw_data());
        parallel_for(ctx, outer, piece, [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r)
            std::memcpy(dst + r * piece, src + r * row + offset, static_cast<size_t>(piece));
        });
      }
      offset += piece;
    }
  }
};

template <class T>
class split_v_op final : public split_v_bytes {
 public:
  using split_v_bytes::split_v_bytes;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("SplitV", device_cpu, "T", split_v_op, float, double, int32_t,
                              int64_t, uint8_t, bool);

}  // namespace caflow
