// Equal, Greater and Less on CPU: broadcasting comparisons with a bool output.
#include "kernels/common/cwise_families.hpp"
#include "kernels/cpu/cwise_binary.hpp"

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

const comparison_kernels<equal_op, greater_op, less_op> comparisons(device_cpu);

}  // namespace

}  // namespace caflow::cwise
