#pragma once
// Shared by the benchmarks: timing loops and the RESULT line format that bench/run collects:
//   RESULT <name> value=<v> unit=<u> [baseline=<b> ratio=<value/baseline>]
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace caflow::bench {

// Whether the bench's tasks talk through same-host rings (net/ring/ring_link.hpp): yes unless
// CAFLOW_BENCH_RINGS=0, which measures loopback TCP instead, for A/B runs.
inline bool rings_from_env() {
  const char* v = std::getenv("CAFLOW_BENCH_RINGS");
  return !v || v[0] != '0';
}

// Calls fn() repeatedly for about `seconds` (after `warmup` calls); returns calls per second.
template <class F>
double rate(F&& fn, double seconds, int warmup = 3) {
  for (int i = 0; i < warmup; ++i) fn();
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto until = start + std::chrono::duration<double>(seconds);
  long calls = 0;
  auto now = start;
  do {
    fn();
    ++calls;
    if ((calls & 15) == 0 || seconds > 0.5) now = clock::now();
  } while (now < until);
  now = clock::now();
  return calls / std::chrono::duration<double>(now - start).count();
}

inline void result(const char* name, double value, const char* unit) {
  std::printf("RESULT %s value=%.4g unit=%s\n", name, value, unit);
  std::fflush(stdout);
}

inline void result(const char* name, double value, const char* unit, double baseline) {
  std::printf("RESULT %s value=%.4g unit=%s baseline=%.4g ratio=%.3f\n", name, value, unit,
              baseline, value / baseline);
  std::fflush(stdout);
}

inline void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "benchmark failed: %s\n", what);
    std::exit(1);
  }
}

}  // namespace caflow::bench
