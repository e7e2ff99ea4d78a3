// Shape-preserving unary element-wise kernels on CPU. They go through Eigen expressions, whose
// packet math vectorizes sqrt, exp and log where a plain loop would not.
#include <cmath>
#include <limits>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "kernels/cpu/cwise_common.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow::cwise {
namespace {

// Eigen 3.4's vectorized exp clamps its argument and returns the clamped result, so exp(-inf)
// came out as 5.6e-309 rather than 0 (softmax masks rely on the exact zero). Results that would
// be denormal are flushed to zero instead, on both the packet and the scalar path.
template <class T>
struct exp_fn {
  // log of the smallest normal T: below it exp is denormal or zero.
  static constexpr T min_arg = std::is_same_v<T, float> ? T(-87.33654f) : T(-708.3964185322641);
  T operator()(const T& x) const { return x < min_arg ? T(0) : std::exp(x); }
  template <class P>
  P packetOp(const P& x) const {
    namespace ei = Eigen::internal;
    return ei::pselect(ei::pcmp_lt(x, ei::pset1<P>(min_arg)), ei::pzero(x), ei::pexp(x));
  }
};

// Correctly rounded square roots of packets, as std::sqrt gives for one value. Eigen 3.4's fast
// float psqrt is x * rsqrt(x) refined by a Newton step: NaN for +inf, and its last bit follows
// the CPU's rsqrt approximation (sqrt(4) came out 2.0000002 on a Xeon with AVX-512). Its double
// psqrt is exact with AVX2, not with AVX-512.
#if defined(__SSE2__)
inline __m128 exact_sqrt(__m128 x) { return _mm_sqrt_ps(x); }
inline __m128d exact_sqrt(__m128d x) { return _mm_sqrt_pd(x); }
#endif
#if defined(__AVX__)
inline __m256 exact_sqrt(__m256 x) { return _mm256_sqrt_ps(x); }
inline __m256d exact_sqrt(__m256d x) { return _mm256_sqrt_pd(x); }
#endif
#if defined(__AVX512F__)
inline __m512 exact_sqrt(__m512 x) { return _mm512_sqrt_ps(x); }
inline __m512d exact_sqrt(__m512d x) { return _mm512_sqrt_pd(x); }
#endif
// Other packets (another ISA): Eigen's, which may be its fast approximation.
template <class P>
P exact_sqrt(const P& x) {
  return Eigen::internal::psqrt(x);
}

template <class T>
struct sqrt_fn {
  T operator()(const T& x) const { return std::sqrt(x); }
  template <class P>
  P packetOp(const P& x) const { return exact_sqrt(x); }
};

}  // namespace
}  // namespace caflow::cwise

namespace Eigen::internal {
template <class T>
struct functor_traits<caflow::cwise::exp_fn<T>> {
  enum {
    Cost = functor_traits<scalar_exp_op<T>>::Cost + 2,
    PacketAccess = packet_traits<T>::HasExp,
  };
};
template <class T>
struct functor_traits<caflow::cwise::sqrt_fn<T>> {
  enum {
    Cost = functor_traits<scalar_sqrt_op<T>>::Cost + 2,
    PacketAccess = packet_traits<T>::HasSqrt,
  };
};
}  // namespace Eigen::internal

namespace caflow::cwise {
namespace {

template <class T, class Op>
class unary_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    tensor* out = ctx.allocate_output(0, x.shape());
    if (out == nullptr) return;
    eval_into(ctx, flat<T>(*out), flat<const T>(x).unaryExpr(Op()), x.num_elements());
  }
};

namespace ei = Eigen::internal;
template <class T>
using neg_op = unary_op<T, ei::scalar_opposite_op<T>>;
template <class T>
using square_op = unary_op<T, ei::scalar_square_op<T>>;
template <class T>
using sqrt_op = unary_op<T, sqrt_fn<T>>;
template <class T>
using rsqrt_op = unary_op<T, ei::scalar_rsqrt_op<T>>;
template <class T>
using exp_op = unary_op<T, exp_fn<T>>;
template <class T>
using log_op = unary_op<T, ei::scalar_log_op<T>>;
template <class T>
using abs_op = unary_op<T, ei::scalar_abs_op<T>>;
template <class T>
using sign_op = unary_op<T, ei::scalar_sign_op<T>>;
template <class T>
using reciprocal_op = unary_op<T, ei::scalar_inverse_op<T>>;
template <class T>
using floor_op = unary_op<T, ei::scalar_floor_op<T>>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Neg", device_cpu, "T", neg_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Square", device_cpu, "T", square_op, float, double, int32_t,
                              int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Sqrt", device_cpu, "T", sqrt_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Rsqrt", device_cpu, "T", rsqrt_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Exp", device_cpu, "T", exp_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Log", device_cpu, "T", log_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Abs", device_cpu, "T", abs_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Sign", device_cpu, "T", sign_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Reciprocal", device_cpu, "T", reciprocal_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Floor", device_cpu, "T", floor_op, float, double);

}  // namespace caflow::cwise
