// Equal, Greater and Less on CPU: broadcasting comparisons with a bool output.
#include "kernels/cpu/cwise_binary.hpp"
#include "kernels/kernel_registry.hpp"

namespace caflow::cwise {
namespace {

using Eigen::internal::cmp_EQ;
using Eigen::internal::cmp_GT;
using Eigen::internal::cmp_LT;
using Eigen::internal::scalar_cmp_op;

// Shapes that cannot broadcast are simply "not equal" when incompatible_shape_error is false.
template <class T>
using equal_op = binary_op<T, scalar_cmp_op<T, T, cmp_EQ>, incompatible_shapes_give<false>>;
template <class T>
using greater_op = binary_op<T, scalar_cmp_op<T, T, cmp_GT>>;
template <class T>
using less_op = binary_op<T, scalar_cmp_op<T, T, cmp_LT>>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Equal", device_cpu, "T", equal_op, float, double, int32_t, int64_t,
                              uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("Greater", device_cpu, "T", greater_op, float, double, int32_t,
                              int64_t, uint8_t);
CAFLOW_REGISTER_TYPED_KERNELS("Less", device_cpu, "T", less_op, float, double, int32_t, int64_t,
                              uint8_t);

}  // namespace caflow::cwise
