#pragma once
// How many times slower than a plain build this build runs. ThreadSanitizer instruments every
// memory access (5-15x on this code); failure detection and the tests' bounded waits stretch by
// this factor, so that a TSan run checks threads, not timing. The plain build checks the bounds.
#include <chrono>

#include "graph/thread_sanitizer.hpp"

namespace caflow {

#ifdef CAFLOW_TSAN
inline constexpr int time_scale = 10;
#else
inline constexpr int time_scale = 1;
#endif

template <class Rep, class Period>
constexpr std::chrono::duration<Rep, Period> scaled(std::chrono::duration<Rep, Period> d) {
  return d * time_scale;
}

}  // namespace caflow
