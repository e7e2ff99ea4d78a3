// All and Any on CPU: the shared reduction machinery (reduction_common.hpp) over bools with
// Eigen's And and Or reducers.
#include "kernels/cpu/reduction_common.hpp"

namespace caflow {
namespace {

using all_op = reduction_op<bool, Eigen::internal::AndReducer>;
using any_op = reduction_op<bool, Eigen::internal::OrReducer>;

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("All").device(device_cpu), all_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Any").device(device_cpu), any_op);

}  // namespace caflow
