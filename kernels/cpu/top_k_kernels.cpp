// TopKV2 and InTopKV2 over rows of the last dimension. TopKV2 partially sorts each row's
// indices (larger value first, lower index first among equals), rows in parallel.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class top_k_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const tensor& k_t = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, k_t.rank() == 0,
                       errors::invalid_argument("k must be a scalar, got shape ",
                                                k_t.shape().to_string()));
    const int64_t k = k_t.scalar_value<int32_t>();
    CAFLOW_OP_REQUIRES(ctx, k >= 0, errors::invalid_argument("k must be non-negative, got ", k));
    CAFLOW_OP_REQUIRES(ctx, x.rank() >= 1,
                       errors::invalid_argument("input must be at least 1-D, got shape ",
                                                x.shape().to_string()));
    const int64_t cols = x.dim(x.rank() - 1);
    CAFLOW_OP_REQUIRES(ctx, cols >= k,
                       errors::invalid_argument("input must have at least k = ", k,
                                                " columns, got shape ", x.shape().to_string()));
    tensor_shape out_shape = x.shape();
    out_shape.set_dim(x.rank() - 1, k);
    tensor* values = ctx.allocate_output(0, out_shape);
    tensor* indices = ctx.allocate_output(1, out_shape);
    if (!values || !indices || out_shape.num_elements() == 0) return;
    const int64_t rows = x.num_elements() / cols;
    const T* in = x.data<T>();
    T* val = values->data<T>();
    int32_t* idx = indices->data<int32_t>();
    array_kernels::parallel_for(
        ctx, rows, cols * int64_t{sizeof(T)} * 4, [&](int64_t begin, int64_t end) {
          std::vector<int32_t> order(static_cast<size_t>(cols));
          for (int64_t r = begin; r < end; ++r) {
            const T* row = in + r * cols;
            std::iota(order.begin(), order.end(), 0);
            std::partial_sort(order.begin(), order.begin() + k, order.end(),
                              [row](int32_t a, int32_t b) {
                                return row[a] > row[b] || (row[a] == row[b] && a < b);
                              });
            for (int64_t j = 0; j < k; ++j) {
              idx[r * k + j] = order[j];
              val[r * k + j] = row[order[j]];
            }
          }
        });
  }
};

template <class I>
class in_top_k_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& p = ctx.input(0);
    const tensor& t = ctx.input(1);
    const tensor& k_t = ctx.input(2);
    CAFLOW_OP_REQUIRES(ctx, p.rank() == 2,
                       errors::invalid_argument("predictions must be 2-D, got shape ",
                                                p.shape().to_string()));
    CAFLOW_OP_REQUIRES(ctx, t.rank() == 1 && t.dim(0) == p.dim(0),
                       errors::invalid_argument("targets must be a vector of ", p.dim(0),
                                                " entries (predictions ", p.shape().to_string(),
                                                "), got shape ", t.shape().to_string()));
    CAFLOW_OP_REQUIRES(ctx, k_t.rank() == 0,
                       errors::invalid_argument("k must be a scalar, got shape ",
                                                k_t.shape().to_string()));
    const int64_t k = static_cast<int64_t>(k_t.scalar_value<I>());
    tensor* out = ctx.allocate_output(0, tensor_shape{p.dim(0)});
    if (!out) return;
    const int64_t classes = p.dim(1);
    const float* pred = p.data<float>();
    const I* target = t.data<I>();
    bool* hit = out->data<bool>();
    for (int64_t b = 0; b < p.dim(0); ++b) {
      const float* row = pred + b * classes;
      const int64_t c = static_cast<int64_t>(target[b]);
      bool ok = c >= 0 && c < classes && std::isfinite(row[c]);
      if (ok) {
        int64_t larger = 0;
        for (int64_t j = 0; j < classes && ok; ++j) {
          if (!std::isfinite(row[j])) ok = false;
          else if (row[j] > row[c]) ++larger;
        }
        ok = ok && larger < k;
      }
      hit[b] = ok;
    }
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("TopKV2", device_cpu, "T", top_k_op, float, double, int32_t,
                              int64_t, uint8_t);
CAFLOW_REGISTER_TYPED_KERNELS("InTopKV2", device_cpu, "T", in_top_k_op, int32_t, int64_t);

}  // namespace caflow
