// Add, AddV2, Sub, Mul, RealDiv on CPU, with broadcasting (see cwise_binary.hpp).
#include "kernels/cpu/cwise_binary.hpp"
#include "kernels/kernel_registry.hpp"

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

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Add", device_cpu, "T", add_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("AddV2", device_cpu, "T", add_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Sub", device_cpu, "T", sub_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Mul", device_cpu, "T", mul_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("RealDiv", device_cpu, "T", real_div_op, float, double);

}  // namespace caflow::cwise
