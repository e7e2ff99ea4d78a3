// Device filters on real processes: one ps and three workers on 127.0.0.1, worker 1 started with
// --device-filters /job:ps,/job:worker/task:1. Who holds a TCP connection to whom is read from
// /proc (test_util/tcp_links.hpp), so the checks see every connection a process made.
#include <doctest/doctest.h>

#include <set>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/console_run.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/server_cluster.hpp"
#include "test_util/tcp_links.hpp"
#include "test_util/three_process_cluster.hpp"

using namespace caflow;
using namespace std::chrono_literals;
using caflow::testing::check_error;
using caflow::testing::has_row;
using caflow::testing::run_console;
using caflow::testing::remote;
using caflow::testing::server_cluster;
using caflow::testing::tcp_peers;

namespace {

server_cluster filtered_cluster() {
  return server_cluster(1, 3, [](const std::string& job, int task) -> std::vector<std::string> {
    if (job == "worker" && task == 1) return {"--device-filters", "/job:ps,/job:worker/task:1"};
    return {};
  });
}

// v (on the ps) = [1, 2]; the step returns x * v computed on `worker`, summed on the master.
struct ps_and_worker_graph {
  explicit ps_and_worker_graph(const std::string& worker) {
    auto ps = root.with_device("/job:ps/task:0");
    auto w = root.with_device(worker);
    v = ops::variable(ps.with_op_name("v"), partial_shape{2}, dtype::float32);
    init = ops::assign(ps.with_op_name("init"), v, ops::constant(ps, std::vector<float>{1, 2}, {2}));
    x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {2}});
    total = ops::sum(root.with_op_name("total"), ops::mul(w.with_op_name("prod"), x, v),
                     std::vector<int>{0});
  }
  scope root = scope::new_root();
  output v, x, total, init;
};

float run_total(session& sess, const ps_and_worker_graph& g) {
  auto out = sess.run({{g.x, tensor::from_vector<float>({10, 100})}}, {g.total});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return out->at(0).scalar_value<float>();
}

}  // namespace

TEST_CASE("a task with device filters connects only to the tasks they admit") {
  auto c = filtered_cluster();
  REQUIRE(c.ready(30s));
  // Nothing connects at start-up.
  for (pid_t p : c.pids()) CHECK(tcp_peers(p, c.pids()).empty());

  ps_and_worker_graph g("/job:worker/task:1");
  session sess(g.root, remote(c.worker_target(1)));
  REQUIRE(sess.run({g.init}).ok());
  CHECK(run_total(sess, g) == 210.0f);
  CHECK(tcp_peers(c.worker(1).pid(), c.pids()) == std::set<pid_t>{c.ps(0).pid()});

  // A node placed outside the filters fails by name, before anything runs.
  auto root = scope::new_root();
  auto y = ops::placeholder(root.with_op_name("y"), dtype::float32);
  auto far = ops::identity(root.with_device("/job:worker/task:2").with_op_name("far"), y);
  session outside(root, remote(c.worker_target(1)));
  check_error(outside.run({{y, tensor::scalar<float>(1)}}, {far}),
              "node 'far' (Identity) asks for device '/job:worker/task:2', which the device "
              "filters (/job:ps, /job:worker/task:1) leave out");
  CHECK(tcp_peers(c.worker(1).pid(), c.pids()) == std::set<pid_t>{c.ps(0).pid()});
}

TEST_CASE("a session's device filters bound the tasks its master contacts") {
  auto c = filtered_cluster();
  REQUIRE(c.ready(30s));
  ps_and_worker_graph g("/job:worker/task:0");
  auto opts = remote(c.worker_target(0));
  opts.device_filters = {"/job:ps"};
  session sess(g.root, opts);
  REQUIRE(sess.run({g.init}).ok());
  CHECK(run_total(sess, g) == 210.0f);
  CHECK(tcp_peers(c.worker(0).pid(), c.pids()) == std::set<pid_t>{c.ps(0).pid()});
  auto bad = remote(c.worker_target(0));
  bad.device_filters = {"/job:ps/task:one"};
  session refused(g.root, bad);
  check_error(refused.run({g.init}), "/job:ps/task:one");
}

TEST_CASE("tasks that exchange values connect to each other, within their filters") {
  auto c = filtered_cluster();
  REQUIRE(c.ready(30s));
  // The master (worker 0) has the ps connect to worker 2 before their partitions are bound.
  ps_and_worker_graph g("/job:worker/task:2");
  session sess(g.root, remote(c.worker_target(0)));
  REQUIRE(sess.run({g.init}).ok());
  CHECK(run_total(sess, g) == 210.0f);
  CHECK(tcp_peers(c.ps(0).pid(), c.pids()).count(c.worker(2).pid()) == 1);

  // Worker 1 would have to connect to worker 2 (the earlier of the pair connects): its
  // filters refuse, and the step says so.
  auto root = scope::new_root();
  auto y = ops::placeholder(root.with_op_name("y"), dtype::float32);
  auto at1 = ops::identity(root.with_device("/job:worker/task:1").with_op_name("at1"), y);
  auto at2 = ops::neg(root.with_device("/job:worker/task:2").with_op_name("at2"), at1);
  session across(root, remote(c.worker_target(0)));
  check_error(across.run({{y, tensor::scalar<float>(1)}}, {at2}),
              "task /job:worker/replica:0/task:1 may not connect to /job:worker/replica:0/task:2: "
              "its device filters (/job:ps, /job:worker/task:1) leave that task out");
  CHECK(tcp_peers(c.worker(1).pid(), c.pids()).count(c.worker(2).pid()) == 0);
}

TEST_CASE("a console reaches every task through a task with device filters, which still "
          "connects to none outside them") {
  auto c = filtered_cluster();
  REQUIRE(c.ready(30s));
  const std::string at = c.address(2);  // worker 1: /job:ps and itself
  auto r = run_console(at, "tasks; cluster; devices");
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(has_row(r.output, {"/job:worker/replica:0/task:1", at, "this task"}));
  CHECK(has_row(r.output, {"/job:ps/replica:0/task:0", c.address(0), "through", "this", "task"}));
  for (int w : {0, 2}) {
    const std::string task = "/job:worker/replica:0/task:" + std::to_string(w);
    CHECK_MESSAGE(has_row(r.output, {task, c.address(1 + w), "outside", "its", "device", "filters"}),
                  r.output);
    // "cluster" and "devices" hold every task, the ones outside the filters included.
    CHECK_MESSAGE(has_row(r.output, {task, c.address(1 + w), "alive"}), r.output);
    CHECK_MESSAGE(has_row(r.output, {task, task + "/device:CPU:0"}), r.output);
  }
  CHECK(has_row(r.output, {"/job:ps/replica:0/task:0", c.address(0), "alive"}));
  CHECK(has_row(r.output, {"/job:worker/replica:0/task:1", at, "alive"}));
  // "tasks" is about the task asked and takes no argument.
  auto bad = run_console(at, "tasks /job:ps/task:0");
  CHECK(bad.exit_code == 1);
  CHECK_MESSAGE(bad.output.find("tasks /job:ps/task:0: INVALID_ARGUMENT: usage: tasks") !=
                    std::string::npos,
                bad.output);
  // The console asked worker 0 and worker 2 itself: worker 1 holds no connection to them.
  CHECK(tcp_peers(c.worker(1).pid(), c.pids()).count(c.worker(0).pid()) == 0);
  CHECK(tcp_peers(c.worker(1).pid(), c.pids()).count(c.worker(2).pid()) == 0);
}
