// OneHot: indices of shape [P..., S...] become [P..., depth, S...] (depth inserted at `axis`),
// on_value where the index matches and off_value elsewhere. An index outside [0, depth)
// yields a row that is all off_value, as in TensorFlow.
#include <limits>

#include "kernels/cpu/eigen_eval.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T, class Index>
class one_hot_op final : public op_kernel {
 public:
  explicit one_hot_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("axis", &axis_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& indices = ctx.input(0);
    const tensor& depth_t = ctx.input(1);
    const tensor& on_t = ctx.input(2);
    const tensor& off_t = ctx.input(3);
    CAFLOW_OP_REQUIRES(ctx, depth_t.rank() == 0,
                       errors::invalid_argument("depth must be a scalar, got shape ",
                                                depth_t.shape().to_string()));
    CAFLOW_OP_REQUIRES(ctx, on_t.rank() == 0,
                       errors::invalid_argument("on_value must be a scalar, got shape ",
                                                on_t.shape().to_string()));
    CAFLOW_OP_REQUIRES(ctx, off_t.rank() == 0,
                       errors::invalid_argument("off_value must be a scalar, got shape ",
                                                off_t.shape().to_string()));
    const int64_t depth = depth_t.scalar_value<int32_t>();
    CAFLOW_OP_REQUIRES(ctx, depth >= 0,
                       errors::invalid_argument("depth must be non-negative, got ", depth));
    const int rank = indices.rank();
    CAFLOW_OP_REQUIRES(
        ctx, axis_ >= -1 && axis_ <= rank,
        errors::invalid_argument("axis ", axis_, " is out of range for indices of shape ",
                                 indices.shape().to_string(), " (allowed: -1 to ", rank, ")"));
    CAFLOW_OP_REQUIRES(ctx, rank < max_rank,
                       errors::invalid_argument("indices of shape ", indices.shape().to_string(),
                                                " leave no room for the depth dimension: rank ",
                                                max_rank, " is the maximum"));
    CAFLOW_OP_REQUIRES(
        ctx, depth == 0 || indices.num_elements() <= std::numeric_limits<int64_t>::max() / depth,
        errors::invalid_argument("depth ", depth, " for indices of shape ",
                                 indices.shape().to_string(), " gives too many elements"));
    const int at = axis_ == -1 ? rank : static_cast<int>(axis_);
    tensor_shape out_shape = indices.shape();
    out_shape.insert_dim(at, depth);
    tensor* out = ctx.allocate_output(0, out_shape);
    if (!out) return;

    const T on = on_t.scalar_value<T>();
    eval_into(ctx, flat<T>(*out), flat<T>(*out).constant(off_t.scalar_value<T>()),
              out->num_elements());
    int64_t suffix = 1;
    for (int i = at; i < rank; ++i) suffix *= indices.dim(i);
    const int64_t prefix = suffix == 0 ? 0 : indices.num_elements() / suffix;
    const Index* idx = indices.data<Index>();
    T* y = out->data<T>();
    for (int64_t p = 0; p < prefix; ++p) {
      for (int64_t s = 0; s < suffix; ++s) {
        const int64_t d = static_cast<int64_t>(idx[p * suffix + s]);
        if (d >= 0 && d < depth) y[(p * depth + d) * suffix + s] = on;
      }
    }
  }

 private:
  int64_t axis_ = -1;
};

const typed_kernel_registrar2<one_hot_op, type_list<float, double, int32_t, int64_t>,
                              type_list<uint8_t, int32_t, int64_t>>
    one_hot_kernels("OneHot", device_cpu, "T", "TI");

}  // namespace
}  // namespace caflow
