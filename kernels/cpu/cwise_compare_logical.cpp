// NotEqual, GreaterEqual, LessEqual, LogicalAnd and LogicalOr on CPU: broadcasting
// comparisons and connectives with a bool output (cwise_binary.hpp).
#include "kernels/cpu/cwise_binary.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow::cwise {
namespace {

using Eigen::internal::cmp_GE;
using Eigen::internal::cmp_LE;
using Eigen::internal::cmp_NEQ;
using Eigen::internal::scalar_cmp_op;

// Shapes that cannot broadcast are simply "not equal" when incompatible_shape_error is false.
template <class T>
using not_equal_op = binary_op<T, scalar_cmp_op<T, T, cmp_NEQ>, incompatible_shapes_give<true>>;
template <class T>
using greater_equal_op = binary_op<T, scalar_cmp_op<T, T, cmp_GE>>;
template <class T>
using less_equal_op = binary_op<T, scalar_cmp_op<T, T, cmp_LE>>;

struct logical_and_fn {
  bool operator()(bool x, bool y) const { return x && y; }
};
struct logical_or_fn {
  bool operator()(bool x, bool y) const { return x || y; }
};
using logical_and_op = binary_op<bool, logical_and_fn>;
using logical_or_op = binary_op<bool, logical_or_fn>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("NotEqual", device_cpu, "T", not_equal_op, float, double, int32_t,
                              int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("GreaterEqual", device_cpu, "T", greater_equal_op, float, double,
                              int32_t, int64_t, uint8_t);
CAFLOW_REGISTER_TYPED_KERNELS("LessEqual", device_cpu, "T", less_equal_op, float, double,
                              int32_t, int64_t, uint8_t);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("LogicalAnd").device(device_cpu), logical_and_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("LogicalOr").device(device_cpu), logical_or_op);

}  // namespace caflow::cwise
