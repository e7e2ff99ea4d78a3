// Tile and Pad: both fill the output level by level from the outermost dimension in, so
// every byte is written once, by a memcpy or memset of the longest run the layout allows.
#include <vector>

#include "graph/util/array_index_util.hpp"
#include "kernels/common/tile_checks.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

// An input shape whose trailing dimensions that are copied whole are folded into the unit of
// copying: dims[0..rank) remain, and each unit is `unit_bytes` contiguous bytes. Byte
// strides of the remaining dimensions in the input and the output.
struct fill_plan {
  int rank = 0;
  std::array<int64_t, max_rank> dims{}, in_strides{}, out_strides{};
  int64_t unit_bytes = 0;

  // `whole(k)`: dimension k is copied as it is. `out_dim(k)`: its size in the output.
  template <class Whole, class OutDim>
  fill_plan(const tensor_shape& s, size_t elem, const Whole& whole, const OutDim& out_dim) {
    rank = s.rank();
    unit_bytes = static_cast<int64_t>(elem);
    while (rank > 0 && whole(rank - 1)) unit_bytes *= s.dim(--rank);
    int64_t in_stride = unit_bytes, out_stride = unit_bytes;
    for (int k = rank - 1; k >= 0; --k) {
      dims[k] = s.dim(k);
      in_strides[k] = in_stride;
      out_strides[k] = out_stride;
      in_stride *= dims[k];
      out_stride *= out_dim(k);
    }
  }
};

// [dst, dst + block) is filled; make `times` copies of it follow one another, doubling.
void replicate(char* dst, int64_t block, int64_t times) {
  const int64_t total = block * times;
  for (int64_t filled = block; filled < total; filled *= 2)
    std::memcpy(dst + filled, dst, std::min(filled, total - filled));
}

void parallel_replicate(const kernel_context& ctx, char* dst, int64_t block, int64_t times) {
  const int64_t total = block * times;
  for (int64_t filled = block; filled < total; filled *= 2)
    parallel_copy(ctx, dst + filled, dst, std::min(filled, total - filled));
}

struct tile_plan : fill_plan {
  std::vector<int64_t> mult;

  tile_plan(const tensor_shape& s, size_t elem, std::vector<int64_t> m)
      : fill_plan(
            s, elem, [&](int k) { return m[k] == 1; }, [&](int k) { return s.dim(k) * m[k]; }),
        mult(std::move(m)) {}

  // Level k of the output: its dims[k] rows, then that block repeated mult[k] times.
  void fill(int k, const char* src, char* dst) const {
    if (k == rank - 1) {
      std::memcpy(dst, src, dims[k] * unit_bytes);
    } else {
      for (int64_t i = 0; i < dims[k]; ++i)
        fill(k + 1, src + i * in_strides[k], dst + i * out_strides[k]);
    }
    replicate(dst, dims[k] * out_strides[k], mult[k]);
  }
};

struct pad_plan : fill_plan {
  std::vector<int64_t> before, after;

  pad_plan(const tensor_shape& s, size_t elem, std::vector<int64_t> b, std::vector<int64_t> a)
      : fill_plan(
            s, elem, [&](int k) { return b[k] == 0 && a[k] == 0; },
            [&](int k) { return b[k] + s.dim(k) + a[k]; }),
        before(std::move(b)),
        after(std::move(a)) {}

  // Row `i` of level k's input lands at output row before[k] + i.
  void fill_rows(int k, const char* src, char* dst) const {
    if (k == rank - 1) {
      std::memcpy(dst, src, dims[k] * unit_bytes);
      return;
    }
    for (int64_t i = 0; i < dims[k]; ++i)
      fill(k + 1, src + i * in_strides[k], dst + i * out_strides[k]);
  }
  void fill(int k, const char* src, char* dst) const {
    std::memset(dst, 0, before[k] * out_strides[k]);
    dst += before[k] * out_strides[k];
    fill_rows(k, src, dst);
    std::memset(dst + dims[k] * out_strides[k], 0, after[k] * out_strides[k]);
  }
};

class tile_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    auto tiled = tile_output_shape(input.shape(), ctx.input(1));
    CAFLOW_OP_REQUIRES_OK(ctx, tiled.get_status());
    std::vector<int64_t> mult = std::move(tiled->multiples);
    const tensor_shape& out_shape = tiled->output;
    if (out_shape == input.shape()) {
      ctx.set_output(0, input);
      return;
    }
    tensor* out = ctx.allocate_output(0, out_shape);
    if (!out || out->num_elements() == 0) return;

    const tile_plan plan(input.shape(), dtype_size(input.type()), std::move(mult));
    const char* src = static_cast<const char*>(input.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    // The outermost level by hand: its rows fill in parallel, its repetitions are large
    // parallel copies.
    if (plan.rank == 1) {
      parallel_copy(ctx, dst, src, plan.dims[0] * plan.unit_bytes);
    } else {
      parallel_for(ctx, plan.dims[0], plan.out_strides[0], [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          plan.fill(1, src + i * plan.in_strides[0], dst + i * plan.out_strides[0]);
      });
    }
    parallel_replicate(ctx, dst, plan.dims[0] * plan.out_strides[0], plan.mult[0]);
  }
};

class pad_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    const tensor& pad_t = ctx.input(1);
    const int rank = input.rank();
    CAFLOW_OP_REQUIRES(ctx, pad_t.rank() == 2 && pad_t.dim(0) == rank && pad_t.dim(1) == 2,
                       errors::invalid_argument("paddings must have shape [", rank,
                                                ",2] for input shape ", input.shape().to_string(),
                                                ", got shape ", pad_t.shape().to_string()));
    const std::vector<int64_t> p = index_values(pad_t);
    std::vector<int64_t> before(rank), after(rank), out_dims(rank);
    for (int k = 0; k < rank; ++k) {
      before[k] = p[2 * k];
      after[k] = p[2 * k + 1];
      CAFLOW_OP_REQUIRES(ctx, before[k] >= 0 && after[k] >= 0,
                         errors::invalid_argument("paddings must be non-negative, but paddings[", k,
                                                  "] = [", before[k], ", ", after[k], "]"));
      CAFLOW_OP_REQUIRES(
          ctx,
          !__builtin_add_overflow(before[k], input.dim(k), &out_dims[k]) &&
              !__builtin_add_overflow(out_dims[k], after[k], &out_dims[k]),
          errors::invalid_argument("padding dimension ", k, " of size ", input.dim(k), " by [",
                                   before[k], ", ", after[k], "] overflows int64"));
    }
    auto out_shape = tensor_shape::make(out_dims);
    CAFLOW_OP_REQUIRES_OK(ctx, out_shape.get_status());
    if (*out_shape == input.shape()) {
      ctx.set_output(0, input);
      return;
    }
    tensor* out = ctx.allocate_output(0, *out_shape);
    if (!out || out->num_elements() == 0) return;
    char* dst = static_cast<char*>(out->raw_data());
    if (input.num_elements() == 0) {
      std::memset(dst, 0, out->byte_size());
      return;
    }

    const pad_plan plan(input.shape(), dtype_size(input.type()), std::move(before),
                        std::move(after));
    const char* src = static_cast<const char*>(input.raw_data());
    // The outermost level by hand, its rows in parallel.
    const int64_t row = plan.out_strides[0];
    std::memset(dst, 0, plan.before[0] * row);
    char* body = dst + plan.before[0] * row;
    if (plan.rank == 1) {
      parallel_copy(ctx, body, src, plan.dims[0] * plan.unit_bytes);
    } else {
      parallel_for(ctx, plan.dims[0], row, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          plan.fill(1, src + i * plan.in_strides[0], body + i * row);
      });
    }
    std::memset(body + plan.dims[0] * row, 0, plan.after[0] * row);
  }
};

template <class T>
class tile_op final : public tile_bytes {
 public:
  using tile_bytes::tile_bytes;
};

template <class T>
class pad_op final : public pad_bytes {
 public:
  using pad_bytes::pad_bytes;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Tile", device_cpu, "T", tile_op, float, double, int32_t, int64_t,
                              uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("Pad", device_cpu, "T", pad_op, float, double, int32_t, int64_t,
                              uint8_t, bool);

}  // namespace caflow
