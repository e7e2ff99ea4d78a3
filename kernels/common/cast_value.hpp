#pragma once
// How Cast converts one element, on every device: to bool is != 0 (NaN included); floating
// point to integer truncates toward zero, saturates outside the integer's range and gives 0
// for NaN. C++ leaves those conversions undefined, and CPUs' and GPUs' conversion
// instructions answer them differently, so the rule is spelled out once here.
#ifdef __CUDACC__
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#else
#include <limits>
#include <type_traits>
#endif

#include "kernels/common/host_device.hpp"

namespace caflow::cwise {
namespace cast_detail {
#ifdef __CUDACC__
namespace stdx = cuda::std;  // std's traits are host-only in device code
#else
namespace stdx = std;
#endif
}  // namespace cast_detail

template <class Dst, class Src>
CAFLOW_HOST_DEVICE inline Dst cast_value(Src v) {
  namespace stdx = cast_detail::stdx;
  if constexpr (stdx::is_same_v<Dst, bool>) {
    return v != Src(0);
  } else if constexpr (stdx::is_floating_point_v<Src> && stdx::is_integral_v<Dst>) {
    using limits = stdx::numeric_limits<Dst>;
    if (v != v) return Dst(0);  // NaN
    if (v <= static_cast<Src>(limits::lowest())) return limits::lowest();
    if (v >= static_cast<Src>(limits::max())) return limits::max();
    return static_cast<Dst>(v);
  } else {
    return static_cast<Dst>(v);
  }
}

}  // namespace caflow::cwise
