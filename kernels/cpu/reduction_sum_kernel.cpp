// Sum and Mean share their Eigen instantiations: Mean is a Sum divided by the count.
#include "kernels/cpu/reduction_common.hpp"

namespace caflow {
namespace {

template <class T>
using sum_op = reduction_op<T, Eigen::internal::SumReducer<T>>;
template <class T>
using mean_op = reduction_op<T, Eigen::internal::SumReducer<T>, /*Mean=*/true>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Sum", device_cpu, "T", sum_op, float, double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("Mean", device_cpu, "T", mean_op, float, double, int32_t, int64_t);

}  // namespace caflow
