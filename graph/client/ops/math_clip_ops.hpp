#pragma once
// ClipByValue, TensorFlow's op: t with every element limited to [clip_value_min,
// clip_value_max], each bound a scalar or shaped like t. Kernel in kernels/cpu/clip_kernel.cpp.
#include "graph/client/scope.hpp"

namespace caflow::ops {

output clip_by_value(const scope& s, const output& t, const output& clip_value_min,
                     const output& clip_value_max);

}  // namespace caflow::ops
