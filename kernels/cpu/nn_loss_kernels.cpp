// The softmax cross-entropy losses and L2Loss on CPU.
//
// SoftmaxCrossEntropyWithLogits broadcasts labels and features against each other (TF >= 1.14,
// labels [1, classes] for every row, say) into one [batch, classes] matrix; an input that does
// not have that shape is first copied out to it, as TensorFlow's kernel does.
//
// Cross-entropy rows are computed stably through log-sum-exp: with s = x - max(x) and
// S = sum(exp(s)), loss = sum(labels * (log S - s)) and backprop = exp(s) / S - labels; the
// exponentials are written into backprop first and normalized in place.
#include <cmath>

#include "kernels/common/broadcast_plan.hpp"
#include "kernels/common/loss_checks.hpp"
#include "kernels/cpu/cwise_common.hpp"
#include "kernels/cpu/nn_softmax_rows.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

constexpr double xent_cycles_per_element = 16;

// Allocates loss [batch] and backprop [batch, classes] and runs `row(r, loss, backprop)` for
// every row, spread over the pool when there are many; an empty class dimension gives
// losses of 0.
template <class T, class Row>
void run_rows(kernel_context& ctx, const tensor_shape& shape, Row&& row) {
  const int64_t batch = shape.dim(0), classes = shape.dim(1);
  tensor* loss = ctx.allocate_output(0, tensor_shape{batch});
  if (loss == nullptr) return;
  tensor* backprop = ctx.allocate_output(1, shape);
  if (backprop == nullptr) return;
  T* l = loss->data<T>();
  T* bp = backprop->data<T>();
  if (classes == 0) {
    for (int64_t r = 0; r < batch; ++r) l[r] = T(0);
    return;
  }
  const double row_bytes = static_cast<double>(classes * sizeof(T));
  cwise::for_range(ctx, batch, classes, 2 * row_bytes, row_bytes + sizeof(T),
                   xent_cycles_per_element * static_cast<double>(classes),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t r = begin; r < end; ++r) l[r] = row(r, bp + r * classes);
                   });
}

// `in` (rank <= 2, broadcastable to [rows, cols]) copied out to [rows, cols]; `in` itself when
// it already has that shape.
template <class T>
status_or<tensor> broadcast_to_matrix(kernel_context& ctx, const tensor& in, int64_t rows,
                                      int64_t cols) {
  const tensor_shape shape{rows, cols};
  if (in.shape() == shape) return in;
  CAFLOW_ASSIGN_OR_RETURN(tensor out, ctx.allocate_temp(dtype_v<T>, shape));
  const int64_t in_rows = in.rank() == 2 ? in.dim(0) : 1;
  const int64_t in_cols = in.rank() >= 1 ? in.dim(in.rank() - 1) : 1;
  const T* x = in.data<T>();
  T* y = out.data<T>();
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + (in_rows == 1 ? 0 : r) * in_cols;
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = xr[in_cols == 1 ? 0 : c];
  }
  return out;
}

template <class T>
class softmax_xent_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    cwise::broadcast_plan plan;
    CAFLOW_OP_REQUIRES_OK(ctx, cwise::plan_broadcast(ctx.input(0).shape(), ctx.input(1).shape(),
                                                     &plan));
    const tensor_shape& shape = plan.out_shape;
    CAFLOW_OP_REQUIRES(ctx, shape.rank() == 2,
                       errors::invalid_argument(
                           "features of shape ", ctx.input(0).shape().to_string(),
                           " and labels of shape ", ctx.input(1).shape().to_string(),
                           " must be matrices or broadcast to one, got shape ", shape.to_string()));
    auto features = broadcast_to_matrix<T>(ctx, ctx.input(0), shape.dim(0), shape.dim(1));
    CAFLOW_OP_REQUIRES_OK(ctx, features.get_status());
    auto labels = broadcast_to_matrix<T>(ctx, ctx.input(1), shape.dim(0), shape.dim(1));
    CAFLOW_OP_REQUIRES_OK(ctx, labels.get_status());
    const int64_t n = shape.dim(1);
    const T* x = features->template data<T>();
    const T* y = labels->template data<T>();
    run_rows<T>(ctx, shape, [=](int64_t r, T* bp) {
      const T* xr = x + r * n;
      const T* yr = y + r * n;
      const T max = softmax_rows::row_max(xr, n);
      const T sum = softmax_rows::exp_shifted(xr, max, n, bp);
      const T log_sum = std::log(sum), inv_sum = T(1) / sum;
      T loss = 0;
      for (int64_t j = 0; j < n; ++j) {
        const T s = xr[j] - max;
        // A zero label contributes nothing, even where log_softmax is -inf (0 * inf is NaN).
        if (yr[j] != T(0)) loss += yr[j] * (log_sum - s);
        bp[j] = softmax_rows::probability(s, bp[j], inv_sum) - yr[j];
      }
      return loss;
    });
  }
};

template <class T, class Index>
class sparse_softmax_xent_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& features = ctx.input(0);
    const tensor& labels = ctx.input(1);
    CAFLOW_OP_REQUIRES_OK(ctx,
                          nn::check_sparse_softmax_xent_shapes(features.shape(), labels.shape()));
    const int64_t n = features.dim(1);
    const Index* y = labels.data<Index>();
    for (int64_t r = 0; r < labels.dim(0); ++r)
      CAFLOW_OP_REQUIRES(ctx, y[r] >= 0 && static_cast<int64_t>(y[r]) < n,
                         errors::invalid_argument(
                             "labels[", r, "] = ", static_cast<int64_t>(y[r]),
                             " is outside the valid range [0, ", n,
                             ") of classes for features of shape ", features.shape().to_string()));
    const T* x = features.data<T>();
    run_rows<T>(ctx, features.shape(), [=](int64_t r, T* bp) {
      const T* xr = x + r * n;
      const T max = softmax_rows::row_max(xr, n);
      const T sum = softmax_rows::exp_shifted(xr, max, n, bp);
      const T inv_sum = T(1) / sum;
      for (int64_t j = 0; j < n; ++j)
        bp[j] = softmax_rows::probability(xr[j] - max, bp[j], inv_sum);
      const int64_t label = static_cast<int64_t>(y[r]);
      bp[label] -= T(1);
      return std::log(sum) - (xr[label] - max);
    });
  }
};

template <class T>
class l2_loss_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    tensor* out = ctx.allocate_output(0, tensor_shape{});
    if (out == nullptr) return;
    tensor_map<T, 0> y(out->data<T>());
    eval_into(ctx, y, flat<const T>(in).square().sum(), in.num_elements());
    *out->data<T>() *= T(0.5);
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("SoftmaxCrossEntropyWithLogits", device_cpu, "T", softmax_xent_op,
                              float, double);
static const typed_kernel_registrar2<sparse_softmax_xent_op, type_list<float, double>,
                                     type_list<int32_t, int64_t>>
    sparse_softmax_xent_kernels("SparseSoftmaxCrossEntropyWithLogits", device_cpu, "T",
                                "Tlabels");
CAFLOW_REGISTER_TYPED_KERNELS("L2Loss", device_cpu, "T", l2_loss_op, float, double);

}  // namespace caflow
