// GatherNd, ScatterNd and SparseToDense: each index tuple names one slice (the dims after the K indexed
// ones) of params (of the output). GatherNd copies slices as bytes; ScatterNd adds, so it is
// typed. Every index is checked; the error names the tuple and the shape.
#include <cstring>
#include <vector>

#include "graph/util/array_index_util.hpp"
#include "graph/util/nd_index_rules.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

class gather_nd_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& params = ctx.input(0);
    const tensor& indices = ctx.input(1);
    auto shape = gather_nd_shape(params.shape(), indices.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, shape.get_status());
    auto offsets = nd_slice_offsets(indices, params.shape());
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
    auto offsets = nd_slice_offsets(indices, *shape);
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

// SparseToDense: the indices as [n, rank] tuples (a vector is n positions of a 1-D output),
// checked in range and, with validate_indices, strictly increasing in row-major order.
class sparse_to_dense_bytes : public op_kernel {
 public:
  explicit sparse_to_dense_bytes(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("validate_indices", &validate_));
  }

  void compute(kernel_context& ctx) override {
    const tensor &idx_t = ctx.input(0), &shape_t = ctx.input(1);
    const tensor &values = ctx.input(2), &fill = ctx.input(3);
    CAFLOW_OP_REQUIRES(ctx, shape_t.rank() == 1,
                       errors::invalid_argument("output_shape must be a vector, got shape ",
                                                shape_t.shape().to_string()));
    auto shape = tensor_shape::make(index_values(shape_t));
    CAFLOW_OP_REQUIRES_OK(ctx, shape.get_status());
    CAFLOW_OP_REQUIRES(ctx, idx_t.rank() <= 2,
                       errors::invalid_argument("sparse_indices must have rank at most 2, got "
                                                "shape ",
                                                idx_t.shape().to_string()));
    const int64_t n = idx_t.rank() == 0 ? 1 : idx_t.dim(0);
    const int64_t k = idx_t.rank() == 2 ? idx_t.dim(1) : 1;
    CAFLOW_OP_REQUIRES(ctx, k == shape->rank(),
                       errors::invalid_argument("sparse_indices of shape ",
                                                idx_t.shape().to_string(), " give ", k,
                                                "-element coordinates but output_shape ",
                                                shape->to_string(), " has rank ", shape->rank()));
    CAFLOW_OP_REQUIRES(ctx, values.rank() == 0 || (values.rank() == 1 && values.dim(0) == n),
                       errors::invalid_argument("sparse_values must be a scalar or have ", n,
                                                " entries, got shape ",
                                                values.shape().to_string()));
    CAFLOW_OP_REQUIRES(ctx, fill.rank() == 0,
                       errors::invalid_argument("default_value must be a scalar, got shape ",
                                                fill.shape().to_string()));
    auto offsets = nd_slice_offsets(idx_t.reshaped(tensor_shape{n, k}), *shape);
    CAFLOW_OP_REQUIRES_OK(ctx, offsets.get_status());
    if (validate_)
      for (int64_t i = 1; i < n; ++i)
        CAFLOW_OP_REQUIRES(ctx, (*offsets)[i] > (*offsets)[i - 1],
                           errors::invalid_argument("sparse_indices[", i, "] is ",
                                                    (*offsets)[i] == (*offsets)[i - 1]
                                                        ? "repeated"
                                                        : "out of order",
                                                    " (validate_indices is set)"));
    tensor* out = ctx.allocate_output(0, *shape);
    if (!out || out->num_elements() == 0) return;
    with_word(dtype_size(values.type()), [&]<class W>() {
      W* dst = static_cast<W*>(out->raw_data());
      std::fill_n(dst, out->num_elements(), *static_cast<const W*>(fill.raw_data()));
      const W* v = static_cast<const W*>(values.raw_data());
      for (int64_t i = 0; i < n; ++i) dst[(*offsets)[i]] = values.rank() == 0 ? v[0] : v[i];
    });
  }

 private:
  bool validate_ = true;
};

template <class T>
class sparse_to_dense_op final : public sparse_to_dense_bytes {
 public:
  using sparse_to_dense_bytes::sparse_to_dense_bytes;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("SparseToDense", device_cpu, "T", sparse_to_dense_op, float, double,
                              int32_t, int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("GatherNd", device_cpu, "Tparams", gather_nd_op, float, double,
                              int32_t, int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("ScatterNd", device_cpu, "T", scatter_nd_op, float, double, int32_t,
                              int64_t);

}  // namespace caflow
