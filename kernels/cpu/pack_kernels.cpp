// Pack stacks N equally shaped tensors along a new dimension; Unpack splits one tensor along a
// dimension into N. Both see the stacked tensor as [before, N, after]: row (b, i) of it is row
// b of the i-th unstacked tensor, `after` contiguous elements. When before == 1 (axis 0, or
// only 1s ahead of the axis) Unpack's outputs share the input's bytes.
#include <algorithm>
#include <vector>

#include "kernels/cpu/eigen_eval.hpp"
#include "kernels/framework/host_computed.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// Runs copy_rows(begin, end) over [0, rows); big copies are spread over the intra-op pool.
template <class F>
void for_row_ranges(const kernel_context& ctx, int64_t rows, int64_t row_elements,
                    size_t element_bytes, F&& copy_rows) {
  const Eigen::ThreadPoolDevice* pool = ctx.dev().eigen_cpu();
  if (pool == nullptr || rows < 2 || rows * row_elements < parallel_eval_threshold) {
    copy_rows(int64_t{0}, rows);
    return;
  }
  const double row_bytes = static_cast<double>(row_elements * element_bytes);
  pool->parallelFor(rows, Eigen::TensorOpCost(row_bytes, row_bytes, 0),
                    [&](Eigen::Index begin, Eigen::Index end) { copy_rows(begin, end); });
}

int64_t product_of_dims(const tensor_shape& s, int begin, int end) {
  int64_t p = 1;
  for (int i = begin; i < end; ++i) p *= s.dim(i);
  return p;
}

template <class T>
class pack_op : public op_kernel {
 public:
  explicit pack_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("axis", &axis_));
  }

  void compute(kernel_context& ctx) override {
    const int n = ctx.num_inputs();
    const tensor_shape& shape = ctx.input(0).shape();
    for (int i = 1; i < n; ++i)
      CAFLOW_OP_REQUIRES(
          ctx, ctx.input(i).shape() == shape,
          errors::invalid_argument("shapes of all inputs must match: values[0] has shape ",
                                   shape.to_string(), " but values[", i, "] has shape ",
                                   ctx.input(i).shape().to_string()));
    const int rank = shape.rank();
    CAFLOW_OP_REQUIRES(
        ctx, axis_ >= -rank - 1 && axis_ <= rank,
        errors::invalid_argument("axis ", axis_, " is out of range for packing inputs of shape ",
                                 shape.to_string(), " (allowed: [", -rank - 1, ", ", rank, "])"));
    CAFLOW_OP_REQUIRES(ctx, rank < max_rank,
                       errors::invalid_argument("cannot pack inputs of shape ", shape.to_string(),
                                                ": rank ", max_rank, " is the maximum"));
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank + 1 : axis_);
    tensor_shape out_shape = shape;
    out_shape.insert_dim(axis, n);
    tensor* out = ctx.allocate_output(0, out_shape);
    if (!out || out->num_elements() == 0) return;

    const int64_t before = product_of_dims(shape, 0, axis);
    const int64_t after = product_of_dims(shape, axis, rank);
    std::vector<const T*> in(n);
    for (int i = 0; i < n; ++i) in[i] = ctx.input(i).data<T>();
    T* y = out->data<T>();
    for_row_ranges(ctx, before * n, after, sizeof(T), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r)
        std::copy_n(in[r % n] + (r / n) * after, after, y + r * after);
    });
  }

 private:
  int64_t axis_ = 0;
};

template <class T>
class unpack_op final : public op_kernel {
 public:
  explicit unpack_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("axis", &axis_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    const int num = ctx.num_outputs();
    const int rank = in.rank();
    CAFLOW_OP_REQUIRES(ctx, rank > 0, errors::invalid_argument("cannot unpack a scalar"));
    CAFLOW_OP_REQUIRES(
        ctx, axis_ >= -rank && axis_ < rank,
        errors::invalid_argument("axis ", axis_, " is out of range for input of shape ",
                                 in.shape().to_string(), " (allowed: [", -rank, ", ", rank, "))"));
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    CAFLOW_OP_REQUIRES(
        ctx, in.dim(axis) == num,
        errors::invalid_argument("num is ", num, " but dimension ", axis, " of input shape ",
                                 in.shape().to_string(), " has size ", in.dim(axis)));
    tensor_shape out_shape = in.shape();
    out_shape.remove_dim(axis);
    const int64_t before = product_of_dims(in.shape(), 0, axis);
    const int64_t after = product_of_dims(in.shape(), axis + 1, rank);

    if (before == 1) {
      const tensor rows = in.reshaped(tensor_shape{num, after});
      for (int i = 0; i < num; ++i)
        ctx.set_output(i, rows.slice_dim0(i, i + 1).reshaped(out_shape));
      return;
    }
    std::vector<T*> outs(num);
    for (int i = 0; i < num; ++i) {
      tensor* out = ctx.allocate_output(i, out_shape);
      if (!out) return;
      outs[i] = out->data<T>();
    }
    if (out_shape.num_elements() == 0) return;
    const T* x = in.data<T>();
    for_row_ranges(ctx, before * num, after, sizeof(T), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r)
        std::copy_n(x + r * after, after, outs[r % num] + (r / num) * after);
    });
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Pack", device_cpu, "T", pack_op, float, double, int32_t, int64_t,
                              uint8_t, bool);
// On a GPU, integer Packs (of shapes) on the host (kernels/framework/host_computed.hpp).
template <class T>
using pack_on_host = host_computed<pack_op<T>>;
CAFLOW_REGISTER_TYPED_KERNELS("Pack", device_gpu, "T", pack_on_host, int32_t, int64_t);
CAFLOW_REGISTER_HOST_MEMORY("Pack", device_gpu, "values", "output");
CAFLOW_REGISTER_TYPED_KERNELS("Unpack", device_cpu, "T", unpack_op, float, double, int32_t, int64_t,
                              uint8_t, bool);

}  // namespace caflow
