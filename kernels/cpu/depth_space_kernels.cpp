// SpaceToDepth and DepthToSpace over NHWC: both move runs of `depth` contiguous elements (the
// smaller depth), one per (image row, block row, column, block column); rows of the space
// image run in parallel. Byte moves, registered per dtype.
#include <cstring>

#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

template <bool to_depth>
class depth_space_bytes : public op_kernel {
 public:
  explicit depth_space_bytes(kernel_construction& c) : op_kernel(c) {
    std::string format;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("block_size", &block_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("data_format", &format));
    CAFLOW_OP_REQUIRES(c, format == "NHWC",
                       errors::unimplemented("the CPU kernel supports only data_format NHWC, got ",
                                             format));
    CAFLOW_OP_REQUIRES(c, block_ >= 2,
                       errors::invalid_argument("block_size must be at least 2, got ", block_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    CAFLOW_OP_REQUIRES(ctx, in.rank() == 4,
                       errors::invalid_argument("input must be 4-dimensional, got shape ",
                                                in.shape().to_string()));
    const int64_t b = block_;
    // The space side [n, H, W, c] and the depth side [n, H / b, W / b, c * b * b].
    int64_t n = in.dim(0), rows, cols, depth;
    if (to_depth) {
      CAFLOW_OP_REQUIRES(ctx, in.dim(1) % b == 0 && in.dim(2) % b == 0,
                         errors::invalid_argument("rows and columns of input ",
                                                  in.shape().to_string(),
                                                  " must be divisible by block_size ", b));
      rows = in.dim(1);
      cols = in.dim(2);
      depth = in.dim(3);
    } else {
      CAFLOW_OP_REQUIRES(ctx, in.dim(3) % (b * b) == 0,
                         errors::invalid_argument("the depth of input ", in.shape().to_string(),
                                                  " must be divisible by block_size * "
                                                  "block_size = ",
                                                  b * b));
      rows = in.dim(1) * b;
      cols = in.dim(2) * b;
      depth = in.dim(3) / (b * b);
    }
    const tensor_shape out_shape = to_depth ? tensor_shape{n, rows / b, cols / b, depth * b * b}
                                            : tensor_shape{n, rows, cols, depth};
    tensor* out = ctx.allocate_output(0, out_shape);
    if (!out || out->num_elements() == 0) return;
    const int64_t run = depth * static_cast<int64_t>(dtype_size(in.type()));
    const char* src = static_cast<const char*>(in.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    // Space position (img, r, c) <-> depth position (img, r / b, c / b) at slot
    // ((r % b) * b + c % b).
    parallel_for(ctx, n * rows, cols * run, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t img = row / rows, r = row % rows;
        for (int64_t c = 0; c < cols; ++c) {
          const int64_t space = (row * cols + c) * run;
          const int64_t deep =
              (((img * (rows / b) + r / b) * (cols / b) + c / b) * b * b + (r % b) * b + c % b) *
              run;
          if (to_depth) std::memcpy(dst + deep, src + space, static_cast<size_t>(run));
          else std::memcpy(dst + space, src + deep, static_cast<size_t>(run));
        }
      }
    });
  }

 private:
  int64_t block_ = 2;
};

template <class T>
class space_to_depth_op final : public depth_space_bytes<true> {
 public:
  using depth_space_bytes<true>::depth_space_bytes;
};

template <class T>
class depth_to_space_op final : public depth_space_bytes<false> {
 public:
  using depth_space_bytes<false>::depth_space_bytes;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("SpaceToDepth", device_cpu, "T", space_to_depth_op, float, double,
                              int32_t, int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("DepthToSpace", device_cpu, "T", depth_to_space_op, float, double,
                              int32_t, int64_t, uint8_t, bool);

}  // namespace caflow
