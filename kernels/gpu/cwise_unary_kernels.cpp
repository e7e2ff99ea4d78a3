// Unary element-wise kernels, activations, Cast, Fill, ZerosLike, OnesLike and Reshape on the
// GPU.
#include "graph/util/shape_util.hpp"
#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"

namespace caflow::gpu {
namespace {

template <class F, class T>
class unary_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(x, ctx, g, 0);
    tensor out = allocate_output(ctx, g, 0, x.shape());
    if (!out.initialized()) return;
    launch_unary<F, T>(x.data<T>(), out.data<T>(), x.num_elements(), g.compute_stream());
  }
};

template <class T>
using neg_op = unary_op<neg_f, T>;
template <class T>
using abs_op = unary_op<abs_f, T>;
template <class T>
using sign_op = unary_op<sign_f, T>;
template <class T>
using square_op = unary_op<square_f, T>;
template <class T>
using sqrt_op = unary_op<sqrt_f, T>;
template <class T>
using rsqrt_op = unary_op<rsqrt_f, T>;
template <class T>
using exp_op = unary_op<exp_f, T>;
template <class T>
using log_op = unary_op<log_f, T>;
template <class T>
using reciprocal_op = unary_op<reciprocal_f, T>;
template <class T>
using floor_op = unary_op<floor_f, T>;
template <class T>
using relu_op = unary_op<relu_f, T>;
template <class T>
using sigmoid_op = unary_op<sigmoid_f, T>;
template <class T>
using tanh_op = unary_op<tanh_f, T>;

template <class Src, class Dst>
class cast_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(x, ctx, g, 0);
    if constexpr (std::is_same_v<Src, Dst>) {
      ctx.set_output(0, x);  // same dtype: share the bytes
    } else {
      tensor out = allocate_output(ctx, g, 0, x.shape());
      if (!out.initialized()) return;
      launch_cast<Src, Dst>(x.data<Src>(), out.data<Dst>(), x.num_elements(), g.compute_stream());
    }
  }
};

template <class T>
void fill_output(kernel_context& ctx, gpu_device& g, const tensor_shape& shape, T value) {
  tensor out = allocate_output(ctx, g, 0, shape);
  if (!out.initialized()) return;
  launch_fill<T>(out.data<T>(), out.num_elements(), value, g.compute_stream());
}

// Fill's dims and value are read on the host (dims decide the output's size).
template <class T, class Index>
class fill_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_OP_REQUIRES(ctx, ctx.input(0).rank() == 1,
                       errors::invalid_argument("dims must be a vector, got shape ",
                                                ctx.input(0).shape().to_string()));
    CAFLOW_OP_REQUIRES(ctx, ctx.input(1).rank() == 0,
                       errors::invalid_argument("value must be a scalar, got shape ",
                                                ctx.input(1).shape().to_string()));
    auto dims = host_ints(ctx, g, 0);
    CAFLOW_OP_REQUIRES_OK(ctx, dims.get_status());
    auto value = host_input(ctx, g, 1);
    CAFLOW_OP_REQUIRES_OK(ctx, value.get_status());
    auto shape = tensor_shape::make(*dims);
    CAFLOW_OP_REQUIRES(ctx, shape.ok(),
                       errors::invalid_argument("dims ", format_dims(*dims), ": ",
                                                shape.get_status().message()));
    fill_output<T>(ctx, g, *shape, value->scalar_value<T>());
  }
};

template <class T>
class zeros_like_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    fill_output<T>(ctx, g, ctx.input(0).shape(), T(0));
  }
};

template <class T>
class ones_like_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    fill_output<T>(ctx, g, ctx.input(0).shape(), T(1));
  }
};

// Reshape shares the input's bytes: an alias, nothing runs on the GPU.
template <class Index>
class reshape_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_OP_REQUIRES(ctx, ctx.input(1).rank() == 1,
                       errors::invalid_argument("shape must be a vector, got shape ",
                                                ctx.input(1).shape().to_string()));
    auto dims = host_ints(ctx, g, 1);
    CAFLOW_OP_REQUIRES_OK(ctx, dims.get_status());
    auto out_shape = resolve_reshape(ctx.input(0).num_elements(), *dims);
    CAFLOW_OP_REQUIRES_OK(ctx, out_shape.get_status());
    ctx.set_output(0, ctx.input(0).reshaped(*out_shape));
  }
};

const typed_kernel_registrar2<cast_op, all_dtypes, all_dtypes> cast_kernels("Cast", device_gpu,
                                                                            "SrcT", "DstT");
const typed_kernel_registrar2<fill_op, all_dtypes, type_list<int32_t, int64_t>> fill_kernels(
    "Fill", device_gpu, "T", "index_type");

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Neg", device_gpu, "T", neg_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Abs", device_gpu, "T", abs_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Sign", device_gpu, "T", sign_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Square", device_gpu, "T", square_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Sqrt", device_gpu, "T", sqrt_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Rsqrt", device_gpu, "T", rsqrt_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Exp", device_gpu, "T", exp_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Log", device_gpu, "T", log_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Reciprocal", device_gpu, "T", reciprocal_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Floor", device_gpu, "T", floor_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Relu", device_gpu, "T", relu_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Sigmoid", device_gpu, "T", sigmoid_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Tanh", device_gpu, "T", tanh_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("ZerosLike", device_gpu, "T", zeros_like_op, float, double, int32_t,
                              int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("OnesLike", device_gpu, "T", ones_like_op, float, double, int32_t,
                              int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("Reshape", device_gpu, "Tshape", reshape_op, int32_t, int64_t);

}  // namespace caflow::gpu
