// Add, AddV2, Sub, Mul, RealDiv on CPU, with broadcasting (see cwise_binary.hpp).
#include "kernels/common/cwise_families.hpp"
#include "kernels/cpu/cwise_binary.hpp"

namespace caflow::cwise {
namespace {

template <class T>
using add_op = binary_op<T, Eigen::internal::scalar_sum_op<T>>;
template <class T>
using sub_op = binary_op<T, Eigen::internal::scalar_difference_op<T>>;
template <class T>
using mul_op = binary_op<T, Eigen::internal::scalar_product_op<T>>;
template <class T>
using real_div_op = binary_op<T, Eigen::internal::scalar_quotient_op<T>>;

const arithmetic_kernels<add_op, sub_op, mul_op, real_div_op> arithmetic(device_cpu);

}  // namespace

}  // namespace caflow::cwise
