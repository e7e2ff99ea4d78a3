// Binary element-wise kernels on the GPU: the CPU's broadcast plan (shapes checked and dims
// collapsed the same way), then one launch.
#include "kernels/common/broadcast_plan.hpp"
#include "kernels/common/cwise_families.hpp"
#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"

namespace caflow::gpu {
namespace {

// TF's Equal with incompatible_shape_error = false gives a scalar false for such inputs.
enum class on_incompatible { fail, give_false };

template <class F, class T, class Out, on_incompatible Incompatible = on_incompatible::fail>
class binary_op final : public gpu_op_kernel {
 public:
  explicit binary_op(kernel_construction& c) : gpu_op_kernel(c) {
    if constexpr (Incompatible != on_incompatible::fail)
      CAFLOW_OP_REQUIRES_OK(c, c.get_attr("incompatible_shape_error", &shape_error_));
  }

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(x, ctx, g, 0);
    CAFLOW_GPU_INPUT(y, ctx, g, 1);
    broadcast_strides strides;
    operand_layout layout = operand_layout::same;
    tensor_shape out_shape = x.shape();
    if (x.shape() != y.shape()) {
      cwise::broadcast_plan p;
      if (status st = cwise::plan_broadcast(x.shape(), y.shape(), &p); !st.ok()) {
        if (shape_error_) return ctx.set_status(std::move(st));
        tensor out = allocate_output(ctx, g, 0, tensor_shape{});
        if (out.initialized())
          launch_fill<bool>(out.data<bool>(), 1, false, g.compute_stream());
        return;
      }
      out_shape = p.out_shape;
      switch (p.how) {
        case cwise::broadcast_plan::kind::flat:
          break;
        case cwise::broadcast_plan::kind::lhs_scalar:
          layout = operand_layout::x_scalar;
          break;
        case cwise::broadcast_plan::kind::rhs_scalar:
          layout = operand_layout::y_scalar;
          break;
        case cwise::broadcast_plan::kind::general:
          layout = operand_layout::broadcast;
          strides = strides_of(p);
          break;
      }
    }
    tensor out = allocate_output(ctx, g, 0, out_shape);
    if (!out.initialized()) return;
    launch_binary<F, T, Out>(x.data<T>(), y.data<T>(), out.data<Out>(), out.num_elements(),
                             layout, strides, g.compute_stream());
  }

 private:
  static broadcast_strides strides_of(const cwise::broadcast_plan& p) {
    broadcast_strides s;
    s.rank = p.rank;
    int64_t xs = 1, ys = 1;
    for (int d = p.rank - 1; d >= 0; --d) {
      s.out_dims[d] = p.out_dims[d];
      s.x_strides[d] = p.x_dims[d] == 1 ? 0 : xs;
      s.y_strides[d] = p.y_dims[d] == 1 ? 0 : ys;
      xs *= p.x_dims[d];
      ys *= p.y_dims[d];
    }
    return s;
  }

  bool shape_error_ = true;
};

template <class T>
using add_op = binary_op<add_f, T, T>;
template <class T>
using sub_op = binary_op<sub_f, T, T>;
template <class T>
using mul_op = binary_op<mul_f, T, T>;
template <class T>
using real_div_op = binary_op<div_f, T, T>;
template <class T>
using maximum_op = binary_op<maximum_f, T, T>;
template <class T>
using minimum_op = binary_op<minimum_f, T, T>;
template <class T>
using pow_op = binary_op<pow_f, T, T>;
template <class T>
using equal_op = binary_op<equal_f, T, bool, on_incompatible::give_false>;
template <class T>
using greater_op = binary_op<greater_f, T, bool>;
template <class T>
using less_op = binary_op<less_f, T, bool>;
// The activation gradients take same-shaped inputs; the broadcast path reports any mismatch.
template <class T>
using relu_grad_op = binary_op<relu_grad_f, T, T>;
template <class T>
using sigmoid_grad_op = binary_op<sigmoid_grad_f, T, T>;
template <class T>
using tanh_grad_op = binary_op<tanh_grad_f, T, T>;

// int32: on the host (kernels/cpu/cwise_arith.cpp).
const cwise::arithmetic_kernels<add_op, sub_op, mul_op, real_div_op, cwise::device_number_types>
    arithmetic(device_gpu);
const cwise::comparison_kernels<equal_op, greater_op, less_op> comparisons(device_gpu);

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Maximum", device_gpu, "T", maximum_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Minimum", device_gpu, "T", minimum_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Pow", device_gpu, "T", pow_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("ReluGrad", device_gpu, "T", relu_grad_op, float, double, int32_t,
                              int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("SigmoidGrad", device_gpu, "T", sigmoid_grad_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("TanhGrad", device_gpu, "T", tanh_grad_op, float, double);

}  // namespace caflow::gpu
