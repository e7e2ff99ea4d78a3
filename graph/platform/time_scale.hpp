#pragma once
// How many times slower than a plain build this build runs. ThreadSanitizer instruments every
// memory access (5-15x on this code); failure detection and the tests' bounded waits stretch by
// this factor, so that a TSan run checks threads, not timing. The plain build checks the bounds.
#include <chrono>

#include "graph/platform/thread_sanitizer.hpp"

namespace caflow {

// failure_time_scale stretches how long a peer may stay silent before it is declared lost.
// More than time_scale: in TSan runs of healthy multi-process training, a process now and then
// went silent for over 10 s (every peer lost it at once, nothing had died, and it noticed its
// own lost links seconds later), which fits ThreadSanitizer's runtime pausing all threads of a
// process at once; its peers must not take such a pause for a frozen process.
#ifdef CAFLOW_TSAN
inline constexpr int time_scale = 10;
inline constexpr int failure_time_scale = 30;
#else
inline constexpr int time_scale = 1;
inline constexpr int failure_time_scale = 1;
#endif

template <class Rep, class Period>
constexpr std::chrono::duration<Rep, Period> scaled(std::chrono::duration<Rep, Period> d) {
  return d * time_scale;
}

// For bounds on failure detection: how long a frozen peer takes to be declared lost.
template <class Rep, class Period>
constexpr std::chrono::duration<Rep, Period> scaled_failure(
    std::chrono::duration<Rep, Period> d) {
  return d * failure_time_scale;
}

}  // namespace caflow
