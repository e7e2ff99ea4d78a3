// Relu, Sigmoid and Tanh and their gradients on CPU, as Eigen expressions or plain loops
// (vectorized, and spread over the intra-op pool when large).
#include "kernels/cpu/cwise_common.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// Fn::expr(x) builds the expression for one input map. The map lives in compute() for the
// whole evaluation: Eigen nests maps by reference.
template <class T, class Fn>
class activation_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    tensor* out = ctx.allocate_output(0, in.shape());
    if (out == nullptr) return;
    const auto x = flat<const T>(in);
    eval_into(ctx, flat<T>(*out), Fn::template expr<T>(x), in.num_elements());
  }
};

// The gradients take two tensors of one shape; Fn::first and Fn::second name them.
template <class T, class Fn>
class activation_grad_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& in0 = ctx.input(0);
    const tensor& in1 = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, in0.shape() == in1.shape(),
                       errors::invalid_argument(Fn::first, " of shape ", in0.shape().to_string(),
                                                " and ", Fn::second, " of shape ",
                                                in1.shape().to_string(),
                                                " must have the same shape"));
    tensor* out = ctx.allocate_output(0, in0.shape());
    if (out == nullptr) return;
    const auto a = flat<const T>(in0);
    const auto b = flat<const T>(in1);
    eval_into(ctx, flat<T>(*out), Fn::template expr<T>(a, b), in0.num_elements());
  }
};

// NaN stays NaN, so a diverging model shows it rather than hiding it behind zeros.
struct relu_fn {
  template <class T, class X>
  static auto expr(const X& x) {
    return x.template cwiseMax<Eigen::PropagateNaN>(T(0));
  }
};

// A plain loop rather than Eigen's select, whose boolean condition keeps the tensor evaluator
// from vectorizing (5x slower than Relu itself on conv1's [100, 28, 28, 32]).
template <class T>
class relu_grad_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& gradients = ctx.input(0);
    const tensor& features = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, gradients.shape() == features.shape(),
                       errors::invalid_argument("gradients of shape ",
                                                gradients.shape().to_string(),
                                                " and features of shape ",
                                                features.shape().to_string(),
                                                " must have the same shape"));
    tensor* out = ctx.allocate_output(0, gradients.shape());
    if (out == nullptr) return;
    const T* g = gradients.data<T>();
    const T* f = features.data<T>();
    T* y = out->data<T>();
    constexpr double bytes = sizeof(T);
    cwise::for_range(ctx, gradients.num_elements(), 2 * bytes, bytes, 1.0,
                     [=](int64_t begin, int64_t end) { pass(g, f, y, begin, end); });
  }

 private:
  // Pointers as restrict parameters, not lambda captures: a store through a captured pointer
  // might, for all the compiler knows, overwrite the capture, and that keeps the loop scalar.
  // The output is freshly allocated, so it overlaps neither input.
  static void pass(const T* __restrict g, const T* __restrict f, T* __restrict y, int64_t begin,
                   int64_t end) {
    for (int64_t i = begin; i < end; ++i) y[i] = f[i] > T(0) ? g[i] : T(0);
  }
};

struct sigmoid_fn {
  template <class T, class X>
  static auto expr(const X& x) {
    return x.sigmoid();
  }
};

// In terms of the forward output y: d sigmoid = y (1 - y).
struct sigmoid_grad_fn {
  static constexpr const char* first = "y";
  static constexpr const char* second = "dy";
  template <class T, class Y, class D>
  static auto expr(const Y& y, const D& dy) {
    return dy * y * (y.constant(T(1)) - y);
  }
};

struct tanh_fn {
  template <class T, class X>
  static auto expr(const X& x) {
    return x.tanh();
  }
};

// In terms of the forward output y: d tanh = 1 - y^2.
struct tanh_grad_fn {
  static constexpr const char* first = "y";
  static constexpr const char* second = "dy";
  template <class T, class Y, class D>
  static auto expr(const Y& y, const D& dy) {
    return dy * (y.constant(T(1)) - y * y);
  }
};

template <class T>
using relu_op = activation_op<T, relu_fn>;
template <class T>
using sigmoid_op = activation_op<T, sigmoid_fn>;
template <class T>
using sigmoid_grad_op = activation_grad_op<T, sigmoid_grad_fn>;
template <class T>
using tanh_op = activation_op<T, tanh_fn>;
template <class T>
using tanh_grad_op = activation_grad_op<T, tanh_grad_fn>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Relu", device_cpu, "T", relu_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("ReluGrad", device_cpu, "T", relu_grad_op, float, double, int32_t,
                              int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Sigmoid", device_cpu, "T", sigmoid_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("SigmoidGrad", device_cpu, "T", sigmoid_grad_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Tanh", device_cpu, "T", tanh_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("TanhGrad", device_cpu, "T", tanh_grad_op, float, double);

}  // namespace caflow
