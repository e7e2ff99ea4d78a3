#pragma once
// Element-wise kernels written as a scalar function and run as a plain loop over the flat
// tensors, spread over the intra-op pool when large (cwise::for_range). For ops whose scalar
// function Eigen has no packet version of (erf, lgamma, rounding modes...), a plain loop costs
// nothing in speed and compiles much faster than an Eigen expression.
//
//   template <class T> struct sin_fn { T operator()(T x) const { return std::sin(x); } };
//   template <class T> using sin_op = cwise::map_op<T, T, sin_fn<T>>;
#include <cstdint>

#include "kernels/cpu/cwise_common.hpp"
#include "kernels/framework/op_kernel.hpp"

namespace caflow::cwise {

// y = Fn(x), y of type Out and x's shape. Fn is built once per kernel (it may hold attrs:
// Fn(kernel_construction&) when it has such a constructor, else Fn()).
template <class T, class Out, class Fn>
class map_op final : public op_kernel {
 public:
  explicit map_op(kernel_construction& c) : op_kernel(c), fn_(make(c)) {}

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    tensor* out = ctx.allocate_output(0, x.shape());
    if (out == nullptr) return;
    const T* xp = x.data<T>();
    Out* yp = out->data<Out>();
    const Fn fn = fn_;
    for_range(ctx, x.num_elements(), sizeof(T), sizeof(Out), 10.0,
              [=](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) yp[i] = fn(xp[i]);
              });
  }

 private:
  static Fn make(kernel_construction& c) {
    if constexpr (std::is_constructible_v<Fn, kernel_construction&>) return Fn(c);
    else return Fn();
  }
  Fn fn_;
};

// z = Fn(a, b) for two inputs of one shape (the gradient helpers: ReluGrad-like ops take the
// incoming gradient and a forward tensor). Fn::first and Fn::second name the inputs for the
// shape-mismatch error.
template <class T, class Fn>
class map2_op final : public op_kernel {
 public:
  explicit map2_op(kernel_construction& c) : op_kernel(c), fn_(make(c)) {}

  void compute(kernel_context& ctx) override {
    const tensor& a = ctx.input(0);
    const tensor& b = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, a.shape() == b.shape(),
                       errors::invalid_argument(Fn::first, " of shape ", a.shape().to_string(),
                                                " and ", Fn::second, " of shape ",
                                                b.shape().to_string(),
                                                " must have the same shape"));
    tensor* out = ctx.allocate_output(0, a.shape());
    if (out == nullptr) return;
    const T* ap = a.data<T>();
    const T* bp = b.data<T>();
    T* zp = out->data<T>();
    const Fn fn = fn_;
    for_range(ctx, a.num_elements(), 2 * sizeof(T), sizeof(T), 10.0,
              [=](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) zp[i] = fn(ap[i], bp[i]);
              });
  }

 private:
  static Fn make(kernel_construction& c) {
    if constexpr (std::is_constructible_v<Fn, kernel_construction&>) return Fn(c);
    else return Fn();
  }
  Fn fn_;
};

}  // namespace caflow::cwise
