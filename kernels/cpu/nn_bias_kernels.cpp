// BiasAdd and BiasAddGrad on CPU. NHWC: the bias runs along the last dimension. NCHW: along
// dimension 1 whatever the rank (TensorFlow's kernel: N, C, then any spatial dims), so the
// value is seen as [outer, channels, inner] and each channel's run of `inner` elements gets
// one bias value.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/common/nn_checks.hpp"
#include "kernels/cpu/cwise_common.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// data_format: true for NCHW. The GPU kernels still take NHWC only
// (nn::check_bias_data_format); the CPU takes both.
status read_nchw(const kernel_construction& c, bool* nchw) {
  std::string data_format;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("data_format", &data_format));
  if (data_format != "NHWC" && data_format != "NCHW")
    return errors::invalid_argument("data_format must be \"NHWC\" or \"NCHW\", got \"",
                                    data_format, "\"");
  *nchw = data_format == "NCHW";
  return {};
}

// An NCHW value as [outer, channels, inner] around dimension 1.
struct nchw_view {
  int64_t outer = 0, channels = 0, inner = 0;
};
status_or<nchw_view> nchw_view_of(const tensor_shape& value, const char* name) {
  if (value.rank() < 2)
    return errors::invalid_argument(name, " must have at least two dimensions, got shape ",
                                    value.to_string());
  nchw_view v{value.dim(0), value.dim(1), 1};
  for (int d = 2; d < value.rank(); ++d) v.inner *= value.dim(d);
  return v;
}

template <class T>
class bias_add_op final : public op_kernel {
 public:
  explicit bias_add_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_nchw(c, &nchw_));
  }

  void compute(kernel_context& ctx) override {
    if (nchw_) return compute_nchw(ctx);
    const tensor& value = ctx.input(0);
    const tensor& bias = ctx.input(1);
    CAFLOW_OP_REQUIRES_OK(ctx, nn::check_bias_add_shapes(value.shape(), bias.shape()));
    const int64_t channels = value.dim(value.rank() - 1);
    tensor* out = ctx.allocate_output(0, value.shape());
    if (out == nullptr || value.num_elements() == 0) return;
    const T* x = value.data<T>();
    const T* b = bias.data<T>();
    T* y = out->data<T>();
    const double row_bytes = static_cast<double>(channels * sizeof(T));
    // A plain row loop: the compiler vectorizes it, and it avoids Eigen's per-packet index
    // arithmetic for broadcasting.
    cwise::for_range(ctx, value.num_elements() / channels, channels, row_bytes, row_bytes,
                     static_cast<double>(channels), [=](int64_t begin, int64_t end) {
                       add_rows(x, b, y, channels, begin, end);
                     });
  }

 private:
  void compute_nchw(kernel_context& ctx) {
    const tensor& value = ctx.input(0);
    const tensor& bias = ctx.input(1);
    auto v = nchw_view_of(value.shape(), "value");
    CAFLOW_OP_REQUIRES_OK(ctx, v.get_status());
    CAFLOW_OP_REQUIRES(ctx, bias.rank() == 1 && bias.dim(0) == v->channels,
                       errors::invalid_argument("bias of shape ", bias.shape().to_string(),
                                                " must be a vector as long as dimension 1 (the ",
                                                "channels of NCHW) of value of shape ",
                                                value.shape().to_string()));
    tensor* out = ctx.allocate_output(0, value.shape());
    if (out == nullptr || value.num_elements() == 0) return;
    const T* x = value.data<T>();
    const T* b = bias.data<T>();
    T* y = out->data<T>();
    const int64_t inner = v->inner, channels = v->channels;
    const double run_bytes = static_cast<double>(inner * sizeof(T));
    // One item per (n, c) run: y[run] = x[run] + b[c].
    cwise::for_range(ctx, v->outer * channels, inner, run_bytes, run_bytes,
                     static_cast<double>(inner), [=](int64_t begin, int64_t end) {
                       for (int64_t r = begin; r < end; ++r)
                         add_scalar(x + r * inner, b[r % channels], y + r * inner, inner);
                     });
  }

  static void add_scalar(const T* __restrict x, T b, T* __restrict y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] + b;
  }

  // Pointers as restrict parameters, not lambda captures: a store through a captured pointer
  // might overwrite the capture, for all the compiler knows, which keeps the loop scalar. The
  // output is freshly allocated, so it overlaps no input.
  static void add_rows(const T* __restrict x, const T* __restrict b, T* __restrict y,
                       int64_t channels, int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = x + r * channels;
      T* yr = y + r * channels;
      for (int64_t j = 0; j < channels; ++j) yr[j] = xr[j] + b[j];
    }
  }

  bool nchw_ = false;
};

template <class T>
class bias_add_grad_op final : public op_kernel {
 public:
  explicit bias_add_grad_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_nchw(c, &nchw_));
  }

  void compute(kernel_context& ctx) override {
    if (nchw_) return compute_nchw(ctx);
    const tensor& in = ctx.input(0);
    CAFLOW_OP_REQUIRES_OK(ctx, nn::check_bias_add_grad_shape(in.shape()));
    const int64_t channels = in.dim(in.rank() - 1);
    tensor* out = ctx.allocate_output(0, tensor_shape{channels});
    if (out == nullptr || channels == 0) return;
    const int64_t rows = in.num_elements() / channels;
    if (rows == 0) {
      std::fill(out->data<T>(), out->data<T>() + channels, T(0));
      return;
    }
    sum_rows(ctx, in.data<T>(), rows, channels, out->data<T>());
  }

 private:
  // Column sums of a [rows, channels] matrix. Eigen's reduction over the outer dimension walks
  // each column with a stride, one scalar at a time; here blocks of rows are summed row by row
  // (vectorized along the channels) into one partial row per block, on the intra-op pool, and
  // the partial rows are then added in block order. The blocks depend only on the shape, so
  // the result does not depend on the thread count.
  static void sum_rows(const kernel_context& ctx, const T* x, int64_t rows, int64_t channels,
                       T* out) {
    const int64_t block_rows = std::max<int64_t>(1, rows_per_block_elements / channels);
    const int64_t blocks = (rows + block_rows - 1) / block_rows;
    if (blocks == 1) {
      add_rows(x, 0, rows, channels, out);
      return;
    }
    std::vector<T> partial(static_cast<size_t>(blocks * channels));
    const double block_bytes = static_cast<double>(block_rows * channels * int64_t{sizeof(T)});
    cwise::for_range(ctx, blocks, block_rows * channels, block_bytes,
                     static_cast<double>(channels * int64_t{sizeof(T)}),
                     static_cast<double>(block_rows * channels), [&](int64_t begin, int64_t end) {
                       for (int64_t b = begin; b < end; ++b)
                         add_rows(x, b * block_rows, std::min(rows, (b + 1) * block_rows),
                                  channels, partial.data() + b * channels);
                     });
    add_rows(partial.data(), 0, blocks, channels, out);
  }

  // out = the sum of rows [begin, end) of x.
  static void add_rows(const T* __restrict x, int64_t begin, int64_t end, int64_t channels,
                       T* __restrict out) {
    std::fill_n(out, channels, T(0));
    for (int64_t r = begin; r < end; ++r) {
      const T* __restrict row = x + r * channels;
      for (int64_t c = 0; c < channels; ++c) out[c] += row[c];
    }
  }

  // NCHW: out[c] = the sum of every (n, c) run. Each run is summed on its own (in parallel),
  // then the runs of a channel are added in batch order, so the result does not depend on the
  // thread count.
  static void compute_nchw(kernel_context& ctx) {
    const tensor& in = ctx.input(0);
    auto v = nchw_view_of(in.shape(), "out_backprop");
    CAFLOW_OP_REQUIRES_OK(ctx, v.get_status());
    const int64_t outer = v->outer, channels = v->channels, inner = v->inner;
    tensor* out = ctx.allocate_output(0, tensor_shape{channels});
    if (out == nullptr || channels == 0) return;
    T* o = out->data<T>();
    std::fill_n(o, channels, T(0));
    if (in.num_elements() == 0) return;
    std::vector<T> runs(static_cast<size_t>(outer * channels));
    const T* x = in.data<T>();
    T* sums = runs.data();
    const double run_bytes = static_cast<double>(inner * int64_t{sizeof(T)});
    cwise::for_range(ctx, outer * channels, inner, run_bytes, sizeof(T),
                     static_cast<double>(inner), [=](int64_t begin, int64_t end) {
                       for (int64_t r = begin; r < end; ++r)
                         sums[r] = sum_run(x + r * inner, inner);
                     });
    for (int64_t n = 0; n < outer; ++n)
      for (int64_t c = 0; c < channels; ++c) o[c] += sums[n * channels + c];
  }

  static T sum_run(const T* __restrict x, int64_t n) {
    T s = 0;
    for (int64_t i = 0; i < n; ++i) s += x[i];
    return s;
  }

  static constexpr int64_t rows_per_block_elements = 16 * 1024;
  bool nchw_ = false;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("BiasAdd", device_cpu, "T", bias_add_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("BiasAddGrad", device_cpu, "T", bias_add_grad_op, float, double);

}  // namespace caflow
