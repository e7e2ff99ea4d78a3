// What busy polling costs and buys, as CPU: a session's thread waiting for a step of about
// 10 ms (three 512x512 products on a local server) polls for the answer for `busy_poll`, then
// sleeps. Prints the caller's CPU share of the step's wall time with polling on (20 ms window:
// the whole step) against polling off (it sleeps at once):
//   RESULT busy_poll_caller_cpu_share value=<on> unit=fraction baseline=<off>
// and the default window (200 us: it polls a little, then sleeps through the step) against off:
//   RESULT busy_poll_200us_caller_cpu_share value=<200 us> unit=fraction baseline=<off>
// A working poller uses most of the step (target: above 0.25 on an idle machine); a short
// window or a sleeper next to none (target: below 0.25, i.e. it slept for most of the step).
// Shares depend on the machine's load, so they are measured here, not asserted in unit tests
// (tests/actors/server/local_server_test.cpp checks the steps' values in all three settings).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "bench_util.hpp"
#include "graph/client/ops/ops.hpp"

using namespace caflow;

namespace {

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// The caller's CPU over the wall time of `steps` steps, polling for `poll`.
double caller_cpu_share(server& srv, const scope& root, const output& x, const output& y,
                        const tensor& ones, std::chrono::microseconds poll, int steps) {
  session sess(root, {.target = srv.target(), .busy_poll = poll});
  bench::check(sess.run({{x, ones}}, {y}).ok(), "the first step failed");
  const double cpu_before = thread_cpu_ms();
  const auto wall_before = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) bench::check(sess.run({{x, ones}}, {y}).ok(), "a step failed");
  const double wall =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_before)
          .count();
  return (thread_cpu_ms() - cpu_before) / std::max(wall, 1e-9);
}

}  // namespace

int main() {
  auto srv = create_local_server({.intra_op_threads = 1, .inter_op_threads = 1});
  bench::check(srv.ok(), "no local server");
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto y = ops::mat_mul(root, ops::mat_mul(root, ops::mat_mul(root, x, x), x), x);
  tensor ones(dtype::float32, tensor_shape{512, 512});
  std::fill(ones.data<float>(), ones.data<float>() + 512 * 512, 1.0f);
  const double polling =
      caller_cpu_share(**srv, root, x, y, ones, std::chrono::microseconds(20000), 50);
  const double sleeping = caller_cpu_share(**srv, root, x, y, ones, std::chrono::microseconds(0), 50);
  const double short_window =
      caller_cpu_share(**srv, root, x, y, ones, std::chrono::microseconds(200), 50);
  bench::result("busy_poll_caller_cpu_share", polling, "fraction", sleeping);
  bench::result("busy_poll_200us_caller_cpu_share", short_window, "fraction", sleeping);
  return 0;
}
