// Add, AddV2, Sub, Mul, RealDiv on CPU, with broadcasting (see cwise_binary.hpp).
#include "kernels/common/cwise_families.hpp"
#include "kernels/cpu/cwise_binary.hpp"
#include "kernels/framework/host_computed.hpp"

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

// A GPU's int32 arithmetic (shapes: a gradient's reshape and tile sizes) on the host, where the
// shape kernels put their values, so no value crosses to the GPU and back; it may be recorded
// with the GPU work around it (kernels/framework/host_computed.hpp).
template <class T>
using add_on_host = host_computed<add_op<T>>;
template <class T>
using sub_on_host = host_computed<sub_op<T>>;
template <class T>
using mul_on_host = host_computed<mul_op<T>>;
const host_int32_arithmetic<add_on_host, sub_on_host, mul_on_host> int32_on_gpu_host(device_gpu);

}  // namespace

}  // namespace caflow::cwise
