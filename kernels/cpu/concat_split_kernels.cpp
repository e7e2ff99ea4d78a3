// ConcatV2 and Split: both see a tensor as [outer, axis * inner] rows, so each moves whole
// rows of bytes; a split whose pieces are contiguous returns views of its input.
#include <vector>

#include "graph/util/array_index_util.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

int64_t outer_size(const tensor_shape& s, int axis) {
  int64_t n = 1;
  for (int d = 0; d < axis; ++d) n *= s.dim(d);
  return n;
}

class concat_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const int n = ctx.num_inputs() - 1;
    const tensor& axis_t = ctx.input(n);
    CAFLOW_OP_REQUIRES(
        ctx, axis_t.rank() == 0,
        errors::invalid_argument("axis must be a scalar, got shape ", axis_t.shape().to_string()));
    const tensor_shape& first = ctx.input(0).shape();
    CAFLOW_OP_REQUIRES(ctx, first.rank() > 0,
                       errors::invalid_argument("cannot concatenate scalars (values[0] has ",
                                                "shape []); use Pack to stack them"));
    const int rank = first.rank();
    auto axis_or = canonical_axis(index_values(axis_t)[0], rank, "concat axis");
    CAFLOW_OP_REQUIRES_OK(ctx, axis_or.get_status());
    const int axis = *axis_or;

    tensor_shape out_shape = first;
    int64_t axis_total = 0;
    for (int i = 0; i < n; ++i) {
      const tensor_shape& s = ctx.input(i).shape();
      CAFLOW_OP_REQUIRES(ctx, s.rank() == rank,
                         errors::invalid_argument(
                             "all inputs must have the same rank, but values[0] has shape ",
                             first.to_string(), " and values[", i, "] has shape ", s.to_string()));
      for (int d = 0; d < rank; ++d)
        CAFLOW_OP_REQUIRES(
            ctx, d == axis || s.dim(d) == first.dim(d),
            errors::invalid_argument("dimension ", d, " of values[", i, "] (shape ", s.to_string(),
                                     ") does not match values[0] (shape ", first.to_string(),
                                     "); only dimension ", axis, " may differ"));
      axis_total += s.dim(axis);
    }
    out_shape.set_dim(axis, axis_total);
    tensor* out = ctx.allocate_output(0, out_shape);
    if (!out || out_shape.num_elements() == 0) return;

    const size_t elem = dtype_size(out->type());
    const int64_t outer = outer_size(out_shape, axis);
    std::vector<const char*> srcs(n);
    std::vector<int64_t> row_bytes(n);
    int64_t out_row_bytes = 0;
    for (int i = 0; i < n; ++i) {
      const tensor& v = ctx.input(i);
      srcs[i] = static_cast<const char*>(v.raw_data());
      row_bytes[i] = v.num_elements() / outer * static_cast<int64_t>(elem);
      out_row_bytes += row_bytes[i];
    }
    char* dst = static_cast<char*>(out->raw_data());
    if (outer == 1) {
      for (int i = 0; i < n; ++i) {
        parallel_copy(ctx, dst, srcs[i], row_bytes[i]);
        dst += row_bytes[i];
      }
      return;
    }
    parallel_for(ctx, outer, out_row_bytes, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        char* d = dst + row * out_row_bytes;
        for (int i = 0; i < n; ++i) {
          // An empty input has no buffer: memcpy from null is undefined even for 0 bytes.
          if (row_bytes[i] != 0) std::memcpy(d, srcs[i] + row * row_bytes[i], row_bytes[i]);
          d += row_bytes[i];
        }
      }
    });
  }
};

class split_bytes : public op_kernel {
 public:
  explicit split_bytes(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("num_split", &num_split_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& dim_t = ctx.input(0);
    const tensor& value = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, dim_t.rank() == 0,
                       errors::invalid_argument("split_dim must be a scalar, got shape ",
                                                dim_t.shape().to_string()));
    auto axis_or = canonical_axis(dim_t.scalar_value<int32_t>(), value.rank(), "split_dim");
    CAFLOW_OP_REQUIRES_OK(ctx, axis_or.get_status());
    const int axis = *axis_or;
    const int64_t size = value.dim(axis);
    CAFLOW_OP_REQUIRES(ctx, size % num_split_ == 0,
                       errors::invalid_argument(
                           "num_split ", num_split_, " does not evenly divide dimension ", axis,
                           " of size ", size, " (value shape ", value.shape().to_string(), ")"));
    if (num_split_ == 1) {
      ctx.set_output(0, value);
      return;
    }
    const int64_t chunk = size / num_split_;
    tensor_shape out_shape = value.shape();
    out_shape.set_dim(axis, chunk);
    const int64_t outer = outer_size(value.shape(), axis);
    const int64_t piece = out_shape.num_elements() / std::max<int64_t>(outer, 1);
    // With one outer row (splitting dimension 0, or only size-1 dimensions before it) every
    // piece is a contiguous run of the input: hand out views instead of copies.
    if (outer <= 1 || out_shape.num_elements() == 0) {
      for (int j = 0; j < num_split_; ++j) ctx.set_output(j, subview(value, j * piece, out_shape));
      return;
    }
    const size_t elem = dtype_size(value.type());
    const int64_t counts[] = {outer, piece};
    const int64_t steps[] = {num_split_ * piece, 1};
    const auto layout = strided_layout::make(counts, steps);
    for (int j = 0; j < num_split_; ++j) {
      tensor* out = ctx.allocate_output(j, out_shape);
      if (!out) return;
      copy_strided(ctx, layout, static_cast<const char*>(value.raw_data()) + j * piece * elem,
                   out->raw_data(), elem);
    }
  }

 private:
  int64_t num_split_ = 1;
};

template <class T>
class concat_op final : public concat_bytes {
 public:
  using concat_bytes::concat_bytes;
};

template <class T>
class split_op final : public split_bytes {
 public:
  using split_bytes::split_bytes;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("ConcatV2", device_cpu, "T", concat_op, float, double, int32_t,
                              int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("Split", device_cpu, "T", split_op, float, double, int32_t, int64_t,
                              uint8_t, bool);

}  // namespace caflow
