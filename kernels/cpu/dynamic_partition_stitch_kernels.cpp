// DynamicPartition and DynamicStitch: rows of a tensor routed by an index tensor. Both only
// move bytes, so one kernel serves every dtype. Every index is checked before any row moves.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using array_kernels::element_name;

bool is_prefix(const tensor_shape& prefix, const tensor_shape& full) {
  if (prefix.rank() > full.rank()) return false;
  for (int d = 0; d < prefix.rank(); ++d)
    if (prefix.dim(d) != full.dim(d)) return false;
  return true;
}

// full.shape[from:]
tensor_shape dims_after(const tensor_shape& full, int from) {
  tensor_shape out;
  for (int d = from; d < full.rank(); ++d) out.add_dim(full.dim(d));
  return out;
}

// [rows] + row
tensor_shape rows_of(int64_t rows, const tensor_shape& row) {
  tensor_shape out{rows};
  for (int d = 0; d < row.rank(); ++d) out.add_dim(row.dim(d));
  return out;
}

class dynamic_partition_op final : public op_kernel {
 public:
  explicit dynamic_partition_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("num_partitions", &num_partitions_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& data = ctx.input(0);
    const tensor& partitions = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, is_prefix(partitions.shape(), data.shape()),
                       errors::invalid_argument("data of shape ", data.shape().to_string(),
                                                " must start with the shape of partitions ",
                                                partitions.shape().to_string()));
    const int32_t* p = partitions.data<int32_t>();
    const int64_t n = partitions.num_elements();
    std::vector<int64_t> counts(static_cast<size_t>(num_partitions_), 0);
    for (int64_t k = 0; k < n; ++k) {
      CAFLOW_OP_REQUIRES(
          ctx, p[k] >= 0 && p[k] < num_partitions_,
          errors::invalid_argument(element_name("partitions", partitions.shape(), k), " = ", p[k],
                                   " is not in [0, ", num_partitions_, ")"));
      ++counts[p[k]];
    }
    const tensor_shape row = dims_after(data.shape(), partitions.rank());
    const size_t row_bytes = static_cast<size_t>(row.num_elements()) * dtype_size(data.type());
    std::vector<char*> next(counts.size());
    for (size_t i = 0; i < counts.size(); ++i) {
      tensor* out = ctx.allocate_output(static_cast<int>(i), rows_of(counts[i], row));
      if (!out) return;
      next[i] = static_cast<char*>(out->raw_data());
    }
    if (row_bytes == 0) return;
    const char* src = static_cast<const char*>(data.raw_data());
    for (int64_t k = 0; k < n; ++k, src += row_bytes) {
      std::memcpy(next[p[k]], src, row_bytes);
      next[p[k]] += row_bytes;
    }
  }

 private:
  int64_t num_partitions_ = 1;
};

class dynamic_stitch_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const int n = ctx.num_inputs() / 2;
    const tensor& data0 = ctx.input(n);
    const tensor_shape row = dims_after(data0.shape(), ctx.input(0).rank());
    int64_t max_index = -1;
    for (int i = 0; i < n; ++i) {
      const tensor& indices = ctx.input(i);
      const tensor& data = ctx.input(n + i);
      CAFLOW_OP_REQUIRES(
          ctx, is_prefix(indices.shape(), data.shape()),
          errors::invalid_argument("data[", i, "] of shape ", data.shape().to_string(),
                                   " must start with the shape of indices[", i, "] ",
                                   indices.shape().to_string()));
      const tensor_shape rest = dims_after(data.shape(), indices.rank());
      CAFLOW_OP_REQUIRES(ctx, rest == row,
                         errors::invalid_argument(
                             "data[", i, "] of shape ", data.shape().to_string(),
                             " has rows of shape ", rest.to_string(), " but data[0] of shape ",
                             data0.shape().to_string(), " has rows of shape ", row.to_string()));
      const int32_t* idx = indices.data<int32_t>();
      for (int64_t k = 0; k < indices.num_elements(); ++k) {
        CAFLOW_OP_REQUIRES(
            ctx, idx[k] >= 0,
            errors::invalid_argument(
                element_name("indices[" + std::to_string(i) + "]", indices.shape(), k), " = ",
                idx[k], " is negative"));
        max_index = std::max<int64_t>(max_index, idx[k]);
      }
    }
    tensor* merged = ctx.allocate_output(0, rows_of(max_index + 1, row));
    if (!merged) return;
    const size_t row_bytes = static_cast<size_t>(row.num_elements()) * dtype_size(data0.type());
    if (row_bytes == 0 || max_index < 0) return;
    char* dst = static_cast<char*>(merged->raw_data());
    // Rows no index names are zero rather than whatever the allocator left there.
    std::memset(dst, 0, row_bytes * static_cast<size_t>(max_index + 1));
    // In input order, so the last of repeated indices wins.
    for (int i = 0; i < n; ++i) {
      const tensor& indices = ctx.input(i);
      const int32_t* idx = indices.data<int32_t>();
      const char* src = static_cast<const char*>(ctx.input(n + i).raw_data());
      for (int64_t k = 0; k < indices.num_elements(); ++k, src += row_bytes)
        std::memcpy(dst + idx[k] * row_bytes, src, row_bytes);
    }
  }
};

}  // namespace

#define CAFLOW_REGISTER_PARTITION_STITCH(T)                                              \
  CAFLOW_REGISTER_KERNEL(                                                                \
      kernel_def_builder("DynamicPartition").device(device_cpu).type_constraint<T>("T"), \
      dynamic_partition_op);                                                             \
  CAFLOW_REGISTER_KERNEL(                                                                \
      kernel_def_builder("DynamicStitch").device(device_cpu).type_constraint<T>("T"),    \
      dynamic_stitch_op)

CAFLOW_REGISTER_PARTITION_STITCH(float);
CAFLOW_REGISTER_PARTITION_STITCH(double);
CAFLOW_REGISTER_PARTITION_STITCH(int32_t);
CAFLOW_REGISTER_PARTITION_STITCH(int64_t);
CAFLOW_REGISTER_PARTITION_STITCH(uint8_t);
CAFLOW_REGISTER_PARTITION_STITCH(bool);
#undef CAFLOW_REGISTER_PARTITION_STITCH

}  // namespace caflow
