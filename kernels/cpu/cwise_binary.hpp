#pragma once
// Binary element-wise kernels with numpy/TensorFlow broadcasting. A kernel is
// `binary_op<T, Op>` where Op is an Eigen scalar functor (scalar_sum_op<T>, scalar_cmp_op...)
// whose operator() every path's loop calls.
//
// Paths, cheapest first:
//   same shape           one flat loop (no broadcast analysis at all: the executor's hot path)
//   same element count   one flat loop ([3] with [1,3])
//   one side one element a loop with that element held in a register
//   general              dims collapsed (size-1 output dims dropped, neighbours that broadcast
//                        the same way merged), then rows of the innermost dim, split among
//                        the device's threads, each a flat loop.
#include <array>
#include <cstdint>

#include "graph/core/tensor_views.hpp"
#include "kernels/common/broadcast_plan.hpp"
#include "kernels/cpu/cwise_common.hpp"
#include "kernels/framework/op_kernel.hpp"

namespace caflow::cwise {

template <class Op, class T, class Out>
void apply_flat(const kernel_context& ctx, const T* x, const T* y, Out* out, int64_t n) {
  for_range(ctx, n, 2 * sizeof(T), sizeof(Out), Eigen::internal::functor_traits<Op>::Cost,
            [=](int64_t begin, int64_t end) {
              const Op op;
              for (int64_t i = begin; i < end; ++i) out[i] = op(x[i], y[i]);
            });
}

template <class Op, class T, class Out>
void apply_lhs_scalar(const kernel_context& ctx, T x, const T* y, Out* out, int64_t n) {
  for_range(ctx, n, sizeof(T), sizeof(Out), Eigen::internal::functor_traits<Op>::Cost,
            [=](int64_t begin, int64_t end) {
              const Op op;
              for (int64_t i = begin; i < end; ++i) out[i] = op(x, y[i]);
            });
}

template <class Op, class T, class Out>
void apply_rhs_scalar(const kernel_context& ctx, const T* x, T y, Out* out, int64_t n) {
  for_range(ctx, n, sizeof(T), sizeof(Out), Eigen::internal::functor_traits<Op>::Cost,
            [=](int64_t begin, int64_t end) {
              const Op op;
              for (int64_t i = begin; i < end; ++i) out[i] = op(x[i], y);
            });
}

// Walks the output in rows of the innermost collapsed dim, carrying x's and y's offsets along
// (a broadcast dim has stride 0); rows are split among the device's threads. Within a row an
// operand is either contiguous or one element held in a register, so each row is a loop like
// the flat paths', which the compiler vectorizes. One loop serves every rank: no broadcast
// expression is instantiated per rank, op and type.
template <class Op, class T, class Out>
void apply_general(const kernel_context& ctx, const broadcast_plan& p, const T* x, const T* y,
                   Out* out) {
  const int r = p.rank;
  if (r == 0 || p.out_shape.num_elements() == 0) return;
  std::array<int64_t, max_rank> xs{}, ys{}, dims{};
  int64_t xstride = 1, ystride = 1;
  for (int d = r - 1; d >= 0; --d) {
    xs[d] = p.x_dims[d] == 1 ? 0 : xstride;
    ys[d] = p.y_dims[d] == 1 ? 0 : ystride;
    xstride *= p.x_dims[d];
    ystride *= p.y_dims[d];
    dims[d] = p.out_dims[d];
  }
  const int64_t inner = dims[r - 1];
  const bool x_row = xs[r - 1] != 0, y_row = ys[r - 1] != 0;
  const int64_t rows = p.out_shape.num_elements() / inner;
  const double cost = Eigen::internal::functor_traits<Op>::Cost;
  for_range(ctx, rows, inner, 2.0 * sizeof(T) * inner, double(sizeof(Out)) * inner, cost * inner,
            [=](int64_t begin, int64_t end) {
              // The offsets of row `begin`: its index over the outer dims.
              std::array<int64_t, max_rank> idx{};
              int64_t xo = 0, yo = 0;
              for (int64_t d = r - 2, rest = begin; d >= 0; --d) {
                idx[d] = rest % dims[d];
                rest /= dims[d];
                xo += idx[d] * xs[d];
                yo += idx[d] * ys[d];
              }
              const Op op;
              for (int64_t row = begin; row < end; ++row) {
                Out* o = out + row * inner;
                const T* xr = x + xo;
                const T* yr = y + yo;
                if (x_row && y_row) {
                  for (int64_t j = 0; j < inner; ++j) o[j] = op(xr[j], yr[j]);
                } else if (x_row) {
                  const T b = *yr;
                  for (int64_t j = 0; j < inner; ++j) o[j] = op(xr[j], b);
                } else if (y_row) {
                  const T a = *xr;
                  for (int64_t j = 0; j < inner; ++j) o[j] = op(a, yr[j]);
                } else {  // both broadcast along the row (collapsing leaves no such dim)
                  const Out v = op(*xr, *yr);
                  for (int64_t j = 0; j < inner; ++j) o[j] = v;
                }
                for (int d = r - 2; d >= 0; --d) {
                  xo += xs[d];
                  yo += ys[d];
                  if (++idx[d] < dims[d]) break;
                  xo -= xs[d] * dims[d];
                  yo -= ys[d] * dims[d];
                  idx[d] = 0;
                }
              }
            });
}

// What a kernel does with shapes that cannot broadcast.
struct fail_on_incompatible_shapes {};
// TF's Equal with `incompatible_shape_error = false`: such inputs give a scalar `Value`.
template <bool Value>
struct incompatible_shapes_give {};

template <class T, class Op, class Incompatible = fail_on_incompatible_shapes>
class binary_op : public op_kernel {
 public:
  using out_type = result_of_t<Op, T, T>;

  explicit binary_op(kernel_construction& c) : op_kernel(c) {
    if constexpr (!std::is_same_v<Incompatible, fail_on_incompatible_shapes>)
      CAFLOW_OP_REQUIRES_OK(c, c.get_attr("incompatible_shape_error", &shape_error_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const tensor& y = ctx.input(1);
    if (x.shape() == y.shape()) {
      tensor* out = ctx.allocate_output(0, x.shape());
      if (out == nullptr) return;
      apply_flat<Op>(ctx, x.data<T>(), y.data<T>(), out->data<out_type>(), x.num_elements());
      return;
    }
    broadcast_plan p;
    if (status st = plan_broadcast(x.shape(), y.shape(), &p); !st.ok()) {
      if (!shape_error_) return set_incompatible_result(ctx);
      return ctx.set_status(std::move(st));
    }
    tensor* out = ctx.allocate_output(0, p.out_shape);
    if (out == nullptr) return;
    const int64_t n = p.out_shape.num_elements();
    out_type* o = out->data<out_type>();
    switch (p.how) {
      case broadcast_plan::kind::flat:
        return apply_flat<Op>(ctx, x.data<T>(), y.data<T>(), o, n);
      case broadcast_plan::kind::lhs_scalar:
        return apply_lhs_scalar<Op>(ctx, *x.data<T>(), y.data<T>(), o, n);
      case broadcast_plan::kind::rhs_scalar:
        return apply_rhs_scalar<Op>(ctx, x.data<T>(), *y.data<T>(), o, n);
      case broadcast_plan::kind::general:
        return apply_general<Op>(ctx, p, x.data<T>(), y.data<T>(), o);
    }
  }

 private:
  void set_incompatible_result(kernel_context& ctx) {
    if constexpr (!std::is_same_v<Incompatible, fail_on_incompatible_shapes>) {
      tensor* out = ctx.allocate_output(0, tensor_shape{});
      if (out != nullptr) *out->data<bool>() = value_of(Incompatible{});
    }
  }
  template <bool V>
  static constexpr bool value_of(incompatible_shapes_give<V>) {
    return V;
  }

  bool shape_error_ = true;
};

}  // namespace caflow::cwise
