// Metadata kernels. Reshape, ExpandDims and Squeeze hand out the input's bytes under a new
// shape; Shape, Size and Rank read only the input's shape. None of them looks at elements, so
// one kernel serves every element dtype.
#include <array>
#include <limits>

#include "graph/util/shape_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class Index>
std::vector<int64_t> to_int64(const tensor& t) {
  const Index* p = t.data<Index>();
  return std::vector<int64_t>(p, p + t.num_elements());
}

template <class Index>
class reshape_op final : public op_kernel {
 public:
  bool is_capturable() const override { return true; }
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    const tensor& requested = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, requested.rank() == 1,
                       errors::invalid_argument("shape must be a vector, got shape ",
                                                requested.shape().to_string()));
    auto out_shape = resolve_reshape(in.num_elements(), to_int64<Index>(requested));
    CAFLOW_OP_REQUIRES_OK(ctx, out_shape.get_status());
    ctx.set_output(0, in.reshaped(*out_shape));
  }
};

template <class Out>
class shape_op final : public op_kernel {
 public:
  bool is_capturable() const override { return true; }
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor_shape& in = ctx.input(0).shape();
    tensor* out = ctx.allocate_output(0, tensor_shape{in.rank()});
    if (!out) return;
    for (int i = 0; i < in.rank(); ++i) {
      CAFLOW_OP_REQUIRES(ctx, in.dim(i) <= std::numeric_limits<Out>::max(),
                         errors::invalid_argument("dimension ", i, " of shape ", in.to_string(),
                                                  " does not fit in ", dtype_name(dtype_v<Out>),
                                                  "; use out_type int64"));
      out->data<Out>()[i] = static_cast<Out>(in.dim(i));
    }
  }
};

template <class Out>
class size_op final : public op_kernel {
 public:
  bool is_capturable() const override { return true; }
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor_shape& in = ctx.input(0).shape();
    CAFLOW_OP_REQUIRES(ctx, in.num_elements() <= std::numeric_limits<Out>::max(),
                       errors::invalid_argument("the ", in.num_elements(), " elements of shape ",
                                                in.to_string(), " do not fit in ",
                                                dtype_name(dtype_v<Out>), "; use out_type int64"));
    tensor* out = ctx.allocate_output(0, tensor_shape{});
    if (out) *out->data<Out>() = static_cast<Out>(in.num_elements());
  }
};

class rank_op final : public op_kernel {
 public:
  bool is_capturable() const override { return true; }
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    tensor* out = ctx.allocate_output(0, tensor_shape{});
    if (out) *out->data<int32_t>() = ctx.input(0).rank();
  }
};

template <class Index>
class expand_dims_op final : public op_kernel {
 public:
  bool is_capturable() const override { return true; }
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    const tensor& axis_t = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, axis_t.num_elements() == 1,
                       errors::invalid_argument("axis must hold a single value, got shape ",
                                                axis_t.shape().to_string()));
    const int rank = in.rank();
    CAFLOW_OP_REQUIRES(
        ctx, rank < max_rank,
        errors::invalid_argument("cannot add a dimension to ", in.shape().to_string(), ": rank ",
                                 max_rank, " is the maximum"));
    int64_t axis = static_cast<int64_t>(axis_t.data<Index>()[0]);
    CAFLOW_OP_REQUIRES(ctx, axis >= -rank - 1 && axis <= rank,
                       errors::invalid_argument(
                           "axis ", axis, " is out of range for input of shape ",
                           in.shape().to_string(), " (allowed: [", -rank - 1, ", ", rank, "])"));
    if (axis < 0) axis += rank + 1;
    tensor_shape out_shape = in.shape();
    out_shape.insert_dim(static_cast<int>(axis), 1);
    ctx.set_output(0, in.reshaped(out_shape));
  }
};

class squeeze_op final : public op_kernel {
 public:
  bool is_capturable() const override { return true; }
  explicit squeeze_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("squeeze_dims", &axes_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    const int rank = in.rank();
    std::array<bool, max_rank> drop{};
    for (int64_t a : axes_) {
      CAFLOW_OP_REQUIRES(
          ctx, a >= -rank && a < rank,
          errors::invalid_argument("squeeze_dims entry ", a, " is out of range for input of shape ",
                                   in.shape().to_string()));
      const int i = static_cast<int>(a < 0 ? a + rank : a);
      CAFLOW_OP_REQUIRES(
          ctx, in.dim(i) == 1,
          errors::invalid_argument("cannot squeeze dimension ", i, " of shape ",
                                   in.shape().to_string(), ": its size is ", in.dim(i), ", not 1"));
      drop[i] = true;
    }
    if (axes_.empty())
      for (int i = 0; i < rank; ++i) drop[i] = in.dim(i) == 1;
    tensor_shape out_shape;
    for (int i = 0; i < rank; ++i)
      if (!drop[i]) out_shape.add_dim(in.dim(i));
    ctx.set_output(0, in.reshaped(out_shape));
  }

 private:
  std::vector<int64_t> axes_;
};

}  // namespace

// These read only shapes and share the input's bytes, so they serve every device type; what
// they read or write on the host is in host memory (TF's HostMemory).
CAFLOW_REGISTER_TYPED_KERNELS("Reshape", any_device, "Tshape", reshape_op, int32_t, int64_t);
CAFLOW_REGISTER_HOST_MEMORY("Reshape", any_device, "shape");
CAFLOW_REGISTER_TYPED_KERNELS("Shape", any_device, "out_type", shape_op, int32_t, int64_t);
CAFLOW_REGISTER_HOST_MEMORY("Shape", any_device, "output");
CAFLOW_REGISTER_TYPED_KERNELS("Size", any_device, "out_type", size_op, int32_t, int64_t);
CAFLOW_REGISTER_HOST_MEMORY("Size", any_device, "output");
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Rank").device(any_device).host_memory("output"), rank_op);
CAFLOW_REGISTER_TYPED_KERNELS("ExpandDims", any_device, "Tdim", expand_dims_op, int32_t, int64_t);
CAFLOW_REGISTER_HOST_MEMORY("ExpandDims", any_device, "dim");
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Squeeze").device(any_device), squeeze_op);

}  // namespace caflow
