#include "kernels/cpu/reduction_common.hpp"

namespace caflow {
namespace {

// As in TensorFlow, a NaN anywhere in a reduced slice makes its maximum NaN.
template <class T>
using max_op = reduction_op<
    T, Eigen::internal::MaxReducer<T, std::is_floating_point_v<T> ? Eigen::PropagateNaN
                                                                  : Eigen::PropagateFast>>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Max", device_cpu, "T", max_op, float, double, int32_t, int64_t);

}  // namespace caflow
