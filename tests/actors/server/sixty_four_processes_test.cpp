// A cluster of 64 caflow-server processes on one host: it forms (no task waits for another to
// serve), a step touches every task, a killed task is named, and every task stops on SIGTERM.
#include <doctest/doctest.h>

#include <signal.h>

#include <chrono>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/server_cluster.hpp"
#include "test_util/three_process_cluster.hpp"

using namespace caflow;
using namespace std::chrono_literals;
using caflow::testing::check_error;
using caflow::testing::remote;
using caflow::testing::server_cluster;

TEST_CASE("64 tasks form, run a step over all of them, name a killed one and stop") {
  constexpr int tasks = 64;
  const auto start = std::chrono::steady_clock::now();
  server_cluster c(0, tasks);
  REQUIRE(c.ready(scaled(40s)));
  const auto formed = std::chrono::steady_clock::now();
  MESSAGE("64 processes serving after ", std::chrono::duration<double>(formed - start).count(), " s");

  // y_i = x + i on task i, summed on task 0: 63 x + (1 + ... + 63).
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  std::vector<output> ys;
  for (int i = 1; i < tasks; ++i) {
    auto at = root.with_device("/job:worker/task:" + std::to_string(i));
    ys.push_back(ops::add(at.with_op_name("y" + std::to_string(i)), x,
                          ops::constant(at, static_cast<float>(i))));
  }
  auto total = ops::add_n(root.with_op_name("total"), ys);
  session sess(root, remote(c.worker_target(0)));
  for (float v : {1.0f, 2.0f}) {
    auto out = sess.run({{x, tensor::scalar<float>(v)}}, {total});
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    CHECK(out->at(0).scalar_value<float>() == 63 * v + 2016);
  }
  MESSAGE("two steps done after ", std::chrono::duration<double>(std::chrono::steady_clock::now() - formed).count(), " s");

  c.worker(37).signal(SIGKILL);
  CHECK(c.worker(37).wait_exit(10s) != -1);
  auto lost = sess.run({{x, tensor::scalar<float>(3)}}, {total});
  check_error(lost, "/job:worker/replica:0/task:37");
  CHECK(lost.get_status().code() == error_code::unavailable);

  for (int i = 0; i < tasks; ++i)
    if (i != 37) c.worker(i).signal(SIGTERM);
  for (int i = 0; i < tasks; ++i) {
    if (i == 37) continue;
    const int rc = c.worker(i).wait_exit(20s);
    CHECK_MESSAGE(rc == 0, "worker ", i, " exited with ", rc, ": ", c.worker(i).output_now());
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("whole test ", took, " s");
  CHECK(took < std::chrono::duration<double>(scaled(60s)).count());
}
