// Maximum, Minimum and Pow on CPU, with broadcasting (see cwise_binary.hpp).
#include "kernels/cpu/cwise_binary.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow::cwise {
namespace {

// NaN propagates, as in TensorFlow and numpy: max(NaN, 1) is NaN, not 1.
template <class T>
using maximum_op = binary_op<T, Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>>;
template <class T>
using minimum_op = binary_op<T, Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>>;
template <class T>
using pow_op = binary_op<T, Eigen::internal::scalar_pow_op<T, T>>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Maximum", device_cpu, "T", maximum_op, float, double, int32_t,
                              int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Minimum", device_cpu, "T", minimum_op, float, double, int32_t,
                              int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Pow", device_cpu, "T", pow_op, float, double);

}  // namespace caflow::cwise
