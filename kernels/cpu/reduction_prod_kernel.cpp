#include "kernels/cpu/reduction_common.hpp"

namespace caflow {
namespace {

template <class T>
using prod_op = reduction_op<T, Eigen::internal::ProdReducer<T>>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Prod", device_cpu, "T", prod_op, float, double, int32_t, int64_t);

}  // namespace caflow
