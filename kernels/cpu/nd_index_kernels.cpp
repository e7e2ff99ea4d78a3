// GatherNd and ScatterNd: each index tuple names one slice (the dims after the K indexed
// ones) of params (of the output). GatherNd copies slices as bytes; ScatterNd adds, so it is
// typed. Every index is checked; the error names the tuple and the shape.
#include <cstring>
#include <vector>

#include "graph/util/array_index_util.hpp"
#include "graph/util/nd_index_rules.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

// The flat slice offsets (in slices) of every index tuple of `indices` into `shape`.
status_or<std::vector<int64_t>> slice_offsets(const tensor& indices, const tensor_shape& shape) {
  const int64_t k = indices.dim(indices.rank() - 1);
  int64_t tuples = 1;
  for (int d = 0; d + 1 < indices.rank(); ++d) tuples *= indices.dim(d);
  const std::vector<int64_t> idx = index_values(indices);
  std::vector<int64_t> offsets(static_cast<size_t>(tuples), 0);
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t off = 0;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t i = idx[static_cast<size_t>(t * k + j)];
      const int64_t dim = shape.dim(static_cast<int>(j));
      if (i < 0 || i >= dim) {
        std::vector<int64_t> tuple(idx.begin() + t * k, idx.begin() + (t + 1) * k);
        return errors::invalid_argument(element_name("indices", indices.shape(), t * k), " = ",
                                        format_dims(tuple), " does not index into shape ",
                                        shape.to_string());
      }
      off = off * dim + i;
    }
    offsets[static_cast<size_t>(t)] = off;
  }
  return offsets;
}

class gather_nd_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& params = ctx.input(0);
    const tensor& indices = ctx.input(1);
    auto shape = gather_nd_shape(params.shape(), indices.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, shape.get_status());
    auto offsets = slice_offsets(indices, params.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, offsets.get_status());
    tensor* out = ctx.allocate_output(0, shape->to_shape());
    if (!out || out->num_elements() == 0) return;
    const int64_t k = indices.dim(indices.rank() - 1);
    int64_t slice = static_cast<int64_t>(dtype_size(params.type()));
    for (int d = static_cast<int>(k); d < params.rank(); ++d) slice *= params.dim(d);
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    for (size_t t = 0; t < offsets->size(); ++t)
      std::memcpy(dst + t * slice, src + (*offsets)[t] * slice, static_cast<size_t>(slice));
  }
};

template <class T>
class gather_nd_op final : public gather_nd_bytes {
 public:
  using gather_nd_bytes::gather_nd_bytes;
};

template <class T>
class scatter_nd_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& indices = ctx.input(0);
    const tensor& updates = ctx.input(1);
    const tensor& shape_t = ctx.input(2);
    CAFLOW_OP_REQUIRES(ctx, shape_t.rank() == 1,
                       errors::invalid_argument("shape must be a vector, got shape ",
                                                shape_t.shape().to_string()));
    auto shape = tensor_shape::make(index_values(shape_t));
    CAFLOW_OP_REQUIRES_OK(ctx, shape.get_status());
    CAFLOW_OP_REQUIRES_OK(ctx, check_scatter_nd(indices.shape(), updates.shape(), *shape));
    auto offsets = slice_offsets(indices, *shape);
    CAFLOW_OP_REQUIRES_OK(ctx, offsets.get_status());
    tensor* out = ctx.allocate_output(0, *shape);
    if (!out) return;
    T* dst = out->data<T>();
    std::fill_n(dst, out->num_elements(), T{0});
    const int64_t k = indices.dim(indices.rank() - 1);
    int64_t slice = 1;
    for (int d = static_cast<int>(k); d < shape->rank(); ++d) slice *= shape->dim(d);
    const T* src = updates.data<T>();
    for (size_t t = 0; t < offsets->size(); ++t) {
      T* to = dst + (*offsets)[t] * slice;
      const T* from = src + static_cast<int64_t>(t) * slice;
      for (int64_t i = 0; i < slice; ++i) to[i] += from[i];
    }
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("GatherNd", device_cpu, "Tparams", gather_nd_op, float, double,
                              int32_t, int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("ScatterNd", device_cpu, "T", scatter_nd_op, float, double, int32_t,
                              int64_t);

}  // namespace caflow
