// MatMul: Eigen's tensor contraction on the intra-op pool, with transposes expressed as the
// contracted dims (no transposed copy is made). Products too small to repay a thread-pool
// hand-off run on the calling thread.
#include <algorithm>

#include "kernels/cpu/eigen_eval.hpp"
#include "kernels/kernel_registry.hpp"

namespace caflow {
namespace {

// Below this many multiply-adds a thread-pool hand-off costs more than the arithmetic.
inline constexpr int64_t small_mat_mul_flops = 32 * 1024;

template <class T>
class mat_mul_op final : public op_kernel {
 public:
  explicit mat_mul_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("transpose_a", &transpose_a_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("transpose_b", &transpose_b_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& a = ctx.input(0);
    const tensor& b = ctx.input(1);
    for (int i = 0; i < 2; ++i) {
      CAFLOW_OP_REQUIRES(ctx, ctx.input(i).rank() == 2,
                         errors::invalid_argument("In[", i,
                                                  "] is not a matrix. Instead it has "
                                                  "shape ",
                                                  ctx.input(i).shape().to_string()));
    }
    const int64_t m = a.dim(transpose_a_ ? 1 : 0), k = a.dim(transpose_a_ ? 0 : 1);
    const int64_t k_b = b.dim(transpose_b_ ? 1 : 0), n = b.dim(transpose_b_ ? 0 : 1);
    CAFLOW_OP_REQUIRES(
        ctx, k == k_b,
        errors::invalid_argument("matrix size-incompatible: In[0]: ", a.shape().to_string(),
                                 ", In[1]: ", b.shape().to_string(), ", transpose_a=", transpose_a_,
                                 ", transpose_b=", transpose_b_));
    tensor* out = ctx.allocate_output(0, tensor_shape{m, n});
    if (out == nullptr || out->num_elements() == 0) return;
    T* c = out->data<T>();
    if (k == 0) {
      std::fill(c, c + m * n, T{0});
      return;
    }
    using index_pair = Eigen::IndexPair<Eigen::DenseIndex>;
    const Eigen::array<index_pair, 1> contracted{
        index_pair(transpose_a_ ? 0 : 1, transpose_b_ ? 1 : 0)};
    // The expression refers to the maps, so they must outlive it.
    const auto lhs = matrix<const T>(a), rhs = matrix<const T>(b);
    auto product = matrix<T>(*out);
    if (m * n * k < small_mat_mul_flops)
      product = lhs.contract(rhs, contracted);
    else
      product.device(ctx.eigen_cpu()) = lhs.contract(rhs, contracted);
  }

 private:
  bool transpose_a_ = false, transpose_b_ = false;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("MatMul", device_cpu, "T", mat_mul_op, float, double, int32_t,
                              int64_t);

}  // namespace caflow
