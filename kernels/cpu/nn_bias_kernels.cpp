// BiasAdd and BiasAddGrad on CPU, for data_format NHWC (the bias runs along the last
// dimension). NCHW is a valid attr value but has no CPU kernel: building one fails at once.
#include <algorithm>
#include <vector>

#include "kernels/common/nn_checks.hpp"
#include "kernels/cpu/cwise_common.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class bias_add_op final : public op_kernel {
 public:
  explicit bias_add_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, nn::check_bias_data_format(c, device_cpu));
  }

  void compute(kernel_context& ctx) override {
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
};

template <class T>
class bias_add_grad_op final : public op_kernel {
 public:
  explicit bias_add_grad_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, nn::check_bias_data_format(c, device_cpu));
  }

  void compute(kernel_context& ctx) override {
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

  static constexpr int64_t rows_per_block_elements = 16 * 1024;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("BiasAdd", device_cpu, "T", bias_add_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("BiasAddGrad", device_cpu, "T", bias_add_grad_op, float, double);

}  // namespace caflow
