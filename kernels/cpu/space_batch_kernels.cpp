// SpaceToBatchND and BatchToSpaceND (geometry in graph/util/space_batch_rules.hpp). Both walk
// the batch tensor's positions; each maps to one position of the space tensor or to padding
// (cropped away), and moves one contiguous run of the trailing dims. Byte moves, compiled
// once, registered per dtype.
#include <cstring>
#include <vector>

#include "graph/util/array_index_util.hpp"
#include "graph/util/space_batch_rules.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

template <bool to_batch>
class space_batch_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    const tensor& block_t = ctx.input(1);
    const tensor& pads_t = ctx.input(2);
    const char* pads_name = to_batch ? "paddings" : "crops";
    CAFLOW_OP_REQUIRES(ctx, block_t.rank() == 1,
                       errors::invalid_argument("block_shape must be a vector, got shape ",
                                                block_t.shape().to_string()));
    CAFLOW_OP_REQUIRES(ctx, pads_t.rank() == 2 && pads_t.dim(0) == block_t.dim(0) &&
                                pads_t.dim(1) == 2,
                       errors::invalid_argument(pads_name, " must have shape [", block_t.dim(0),
                                                ",2], got shape ", pads_t.shape().to_string()));
    const std::vector<int64_t> block = index_values(block_t), pads = index_values(pads_t);
    auto geo = to_batch ? space_to_batch_geometry(in.shape(), block, pads)
                        : batch_to_space_geometry(in.shape(), block, pads);
    CAFLOW_OP_REQUIRES_OK(ctx, geo.get_status());
    const space_batch_geometry& g = *geo;
    auto out_shape = tensor_shape::make(to_batch ? g.batch : g.space);
    CAFLOW_OP_REQUIRES_OK(ctx, out_shape.get_status());
    tensor* out = ctx.allocate_output(0, *out_shape);
    if (!out || out->num_elements() == 0) return;
    const tensor_shape space_shape(g.space), batch_shape(g.batch);
    const int m = static_cast<int>(block.size());
    // The trailing dims after the spatial ones move as one run.
    const size_t elem = dtype_size(in.type());
    int64_t run = static_cast<int64_t>(elem);
    for (int k = m + 1; k < space_shape.rank(); ++k) run *= space_shape.dim(k);
    const auto space_strides = row_strides(space_shape);
    const int64_t space_batch = space_shape.dim(0);
    const int64_t positions = batch_shape.num_elements() * static_cast<int64_t>(elem) / run;
    const char* src = static_cast<const char*>(in.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    parallel_for(ctx, positions, run, [&](int64_t begin, int64_t end) {
      for (int64_t pos = begin; pos < end; ++pos) {
        // pos walks batch dims [0, m]: the spatial index of each, then the batch entry.
        int64_t rest = pos, space_off = 0;
        bool inside = true;
        std::array<int64_t, max_rank> p{};
        for (int i = m - 1; i >= 0; --i) {
          p[i] = rest % batch_shape.dim(i + 1);
          rest /= batch_shape.dim(i + 1);
        }
        const int64_t b = rest % space_batch;
        int64_t offset = rest / space_batch;
        for (int i = m - 1; i >= 0; --i) {
          const int64_t o = offset % block[i];
          offset /= block[i];
          const int64_t s = p[i] * block[i] + o - g.before[i];
          if (s < 0 || s >= space_shape.dim(i + 1)) inside = false;
          space_off += s * space_strides[i + 1];
        }
        space_off += b * space_strides[0];
        const int64_t space_bytes = space_off * static_cast<int64_t>(elem);
        if (to_batch) {
          char* d = dst + pos * run;
          if (inside) std::memcpy(d, src + space_bytes, run);
          else std::memset(d, 0, run);
        } else if (inside) {
          std::memcpy(dst + space_bytes, src + pos * run, run);
        }
      }
    });
  }
};

template <class T>
class space_to_batch_op final : public space_batch_bytes<true> {
 public:
  using space_batch_bytes<true>::space_batch_bytes;
};

template <class T>
class batch_to_space_op final : public space_batch_bytes<false> {
 public:
  using space_batch_bytes<false>::space_batch_bytes;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("SpaceToBatchND", device_cpu, "T", space_to_batch_op, float, double,
                              int32_t, int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("BatchToSpaceND", device_cpu, "T", batch_to_space_op, float, double,
                              int32_t, int64_t, uint8_t, bool);

}  // namespace caflow
