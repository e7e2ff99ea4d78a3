#include "kernels/cpu/reduction_common.hpp"

namespace caflow {
namespace {

// As in TensorFlow, a NaN anywhere in a reduced slice makes its minimum NaN.
template <class T>
using min_op = reduction_op<
    T, Eigen::internal::MinReducer<T, std::is_floating_point_v<T> ? Eigen::PropagateNaN
                                                                  : Eigen::PropagateFast>>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Min", device_cpu, "T", min_op, float, double, int32_t, int64_t);

}  // namespace caflow
