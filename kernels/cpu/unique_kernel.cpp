// Unique: the distinct values of a vector in order of first occurrence, and for each element
// the position of its value among them. One hash map pass; values compare as C++ == does, so
// 0.0 and -0.0 are one value and every NaN is its own (as in TensorFlow).
#include <limits>
#include <unordered_map>
#include <vector>

#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T, class Index>
class unique_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    CAFLOW_OP_REQUIRES(
        ctx, x.rank() == 1,
        errors::invalid_argument("x must be a vector, got shape ", x.shape().to_string()));
    const int64_t n = x.dim(0);
    CAFLOW_OP_REQUIRES(ctx, n <= std::numeric_limits<Index>::max(),
                       errors::invalid_argument("x has ", n, " elements, more than out_idx ",
                                                dtype_name(dtype_v<Index>), " can index"));
    tensor* idx = ctx.allocate_output(1, x.shape());
    if (!idx) return;
    const T* in = x.data<T>();
    Index* pos = idx->data<Index>();
    std::unordered_map<T, Index> first_seen;
    first_seen.reserve(static_cast<size_t>(n));
    std::vector<T> distinct;
    for (int64_t i = 0; i < n; ++i) {
      auto [it, inserted] = first_seen.try_emplace(in[i], static_cast<Index>(distinct.size()));
      if (inserted) distinct.push_back(in[i]);
      pos[i] = it->second;
    }
    tensor* y = ctx.allocate_output(0, tensor_shape{static_cast<int64_t>(distinct.size())});
    if (!y) return;
    std::copy(distinct.begin(), distinct.end(), y->data<T>());
  }
};

}  // namespace

#define CAFLOW_REGISTER_UNIQUE(T)                                  \
  CAFLOW_REGISTER_KERNEL(kernel_def_builder("Unique")              \
                             .device(device_cpu)                   \
                             .type_constraint<T>("T")              \
                             .type_constraint<int32_t>("out_idx"), \
                         unique_op<T, int32_t>);                   \
  CAFLOW_REGISTER_KERNEL(kernel_def_builder("Unique")              \
                             .device(device_cpu)                   \
                             .type_constraint<T>("T")              \
                             .type_constraint<int64_t>("out_idx"), \
                         unique_op<T, int64_t>)

CAFLOW_REGISTER_UNIQUE(float);
CAFLOW_REGISTER_UNIQUE(double);
CAFLOW_REGISTER_UNIQUE(int32_t);
CAFLOW_REGISTER_UNIQUE(int64_t);
#undef CAFLOW_REGISTER_UNIQUE

}  // namespace caflow
