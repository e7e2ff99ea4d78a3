// Starts three caflow-server processes on 127.0.0.1 (one ps, two workers) and runs graphs
// whose nodes span all three through a session whose target is worker 0's master.
#include <doctest/doctest.h>

#include <signal.h>

#include <future>
#include <memory>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/platform/time_scale.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/process.hpp"
#include "test_util/three_process_cluster.hpp"

using namespace caflow;
using namespace std::chrono_literals;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::child_process;
using caflow::testing::remote;
using caflow::testing::three_process_cluster;


TEST_CASE("a graph spanning the ps and both workers computes the hand-checked values") {
  three_process_cluster c;
  REQUIRE(c.ready());
  auto root = scope::new_root();
  auto ps = root.with_device("/job:ps/task:0");
  auto w1 = root.with_device("/job:worker/task:1");
  auto v = ops::variable(ps.with_op_name("v"), partial_shape{3}, dtype::float32);
  auto init = ops::assign(ps.with_op_name("init"), v, ops::constant(ps, std::vector<float>{1, 2, 3}, {3}));
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {3}});
  auto prod = ops::mul(w1.with_op_name("prod"), x, v);
  auto total = ops::sum(root.with_op_name("total"), prod, std::vector<int>{0});
  auto update = ops::assign_add(ps.with_op_name("update"), v, prod);
  session sess(root, remote(c.target()));
  REQUIRE(sess.run({init}).ok());
  auto out = sess.run({{x, tensor::from_vector<float>({1, 10, 100})}}, {total, prod});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  CHECK(out->at(0).scalar_value<float>() == 321.0f);
  check_tensor(out->at(1), tensor_shape{3}, std::vector<float>{1, 20, 300});
  REQUIRE(sess.run({{x, tensor::from_vector<float>({1, 1, 1})}}, {update}).ok());  // v = [2,4,6]
  auto after = sess.run({{x, tensor::from_vector<float>({1, 1, 1})}}, {total});
  REQUIRE(after.ok());
  CHECK(after->at(0).scalar_value<float>() == 12.0f);
}

TEST_CASE("a kernel error on one process reaches the client naming node, op, device and task") {
  three_process_cluster c;
  REQUIRE(c.ready());
  auto root = scope::new_root();
  auto w1 = root.with_device("/job:worker/task:1");
  auto a = ops::placeholder(root.with_op_name("a"), dtype::float32);
  auto b = ops::placeholder(root.with_op_name("b"), dtype::float32);
  auto m = ops::mat_mul(w1.with_op_name("m"), a, b);
  auto r = ops::identity(root.with_device("/job:ps/task:0").with_op_name("r"), m);
  session sess(root, remote(c.target()));
  const auto start = std::chrono::steady_clock::now();
  auto out = sess.run({{a, tensor(dtype::float32, tensor_shape{2, 3})}, {b, tensor(dtype::float32, tensor_shape{4, 5})}}, {r});
  check_error(out, "node 'm' (MatMul) on /job:worker/replica:0/task:1/device:CPU:0");
  // Reported as soon as it happens, not after a step timeout (minutes): a generous bound, so a
  // loaded machine does not fail it.
  CHECK(std::chrono::steady_clock::now() - start < scaled(10s));
  // Across two process boundaries (worker 1 to the master, the master to this client), the
  // root cause's code and where it arose arrive as fields.
  CHECK(out.get_status().code() == error_code::invalid_argument);
  const auto& where = out.get_status().source();
  REQUIRE(where);
  CHECK(where->node == "m");
  CHECK(where->device == "/job:worker/replica:0/task:1/device:CPU:0");
  CHECK(where->task == "/job:worker/replica:0/task:1");
}

// Worker 1's part of the step waits on a queue nobody feeds: the step is surely still running
// when the worker is killed or frozen, however fast the machine (a long computation was not).
struct slow_step {
  scope root = scope::new_root();
  output result;
  output local;
  slow_step() {
    auto w1 = root.with_device("/job:worker/task:1");
    auto q = ops::fifo_queue(w1.with_op_name("q"), {dtype::float32}, {.shapes = {partial_shape({})}});
    auto waited = ops::queue_dequeue(w1, q, {dtype::float32}).at(0);
    result = ops::add(root.with_op_name("result"), waited, ops::constant(root, 1.0f));
    local = ops::square(root.with_device("/job:ps/task:0").with_op_name("local"),
                        ops::placeholder(root.with_op_name("p"), dtype::float32));
  }
};

TEST_CASE("SIGKILL of a worker mid-step: the client hears of the lost task within 2 s") {
  three_process_cluster c;
  REQUIRE(c.ready());
  slow_step g;
  session sess(g.root, remote(c.target()));
  auto running = std::async(std::launch::async, [&] { return sess.run({g.result}); });
  std::this_thread::sleep_for(500ms);
  REQUIRE(running.wait_for(0s) == std::future_status::timeout);  // still mid-step
  const auto killed = std::chrono::steady_clock::now();
  c.worker1->signal(SIGKILL);
  REQUIRE(running.wait_for(5s) == std::future_status::ready);
  const auto waited = std::chrono::steady_clock::now() - killed;
  auto out = running.get();
  check_error(out, "task /job:worker/replica:0/task:1 was lost");
  CHECK(waited < 2s);
  // The survivors keep serving, new sessions included.
  session fresh(g.root, remote(c.target()));
  auto ok = fresh.run({{output{"p", 0, dtype::float32}, tensor::scalar(3.0f)}}, {g.local});
  REQUIRE_MESSAGE(ok.ok(), ok.get_status().to_string());
  CHECK(ok->at(0).scalar_value<float>() == 9.0f);
}

TEST_CASE("SIGKILL of the master's process mid-step: the client hears of it within 2 s") {
  three_process_cluster c;
  REQUIRE(c.ready());
  slow_step g;
  session sess(g.root, remote(c.target()));  // worker 0's master, in another process
  auto running = std::async(std::launch::async, [&] { return sess.run({g.result}); });
  std::this_thread::sleep_for(500ms);
  REQUIRE(running.wait_for(0s) == std::future_status::timeout);  // still mid-step
  const auto killed = std::chrono::steady_clock::now();
  c.worker0->signal(SIGKILL);
  REQUIRE(running.wait_for(scaled_failure(5s)) == std::future_status::ready);
  const auto waited = std::chrono::steady_clock::now() - killed;
  auto out = running.get();
  check_error(out, "master at " + c.target() + " was lost in the middle of the step");
  CHECK(waited < scaled_failure(2s));
}

TEST_CASE("SIGSTOP of a worker mid-step: detected by heartbeats within 5 s") {
  three_process_cluster c;
  REQUIRE(c.ready());
  slow_step g;
  session sess(g.root, remote(c.target()));
  auto running = std::async(std::launch::async, [&] { return sess.run({g.result}); });
  std::this_thread::sleep_for(500ms);
  REQUIRE(running.wait_for(0s) == std::future_status::timeout);
  const auto frozen = std::chrono::steady_clock::now();
  c.worker1->signal(SIGSTOP);
  REQUIRE(running.wait_for(caflow::scaled_failure(10s)) == std::future_status::ready);
  const auto waited = std::chrono::steady_clock::now() - frozen;
  check_error(running.get(), "task /job:worker/replica:0/task:1 was lost");
  CHECK(waited < caflow::scaled_failure(5s));
  c.worker1->signal(SIGCONT);
}

TEST_CASE("SIGTERM shuts a server down cleanly") {
  auto port = caflow::testing::free_ports(1)[0];
  child_process solo({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "solo=127.0.0.1:" + std::to_string(port), "--job", "solo", "--task", "0"});
  REQUIRE(solo.wait_for_output("serving at", 20s));
  solo.signal(SIGTERM);
  CHECK(solo.wait_exit(10s) == 0);
  CHECK(solo.output().find("stopped") != std::string::npos);
}

TEST_CASE("bad server flags are rejected with a message naming the culprit") {
  child_process bad({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "ps=127.0.0.1:0", "--job", "ps", "--task", "0"});
  CHECK(bad.wait_exit(10s) == 2 << 8);
  CHECK(bad.output().find("port") != std::string::npos);
  child_process unknown({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "ps=127.0.0.1:2", "--job", "worker", "--task", "0"});
  CHECK(unknown.wait_exit(10s) != 0);
  CHECK(unknown.output().find("worker") != std::string::npos);
  child_process negative({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "ps=127.0.0.1:2", "--job", "ps",
                          "--task", "0", "--actor-threads", "-1"});
  CHECK(negative.wait_exit(10s) == 2 << 8);
  CHECK(negative.output().find("--actor-threads takes a non-negative integer, got '-1'") !=
        std::string::npos);
  child_process poll({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "ps=127.0.0.1:2", "--job", "ps", "--task",
                      "0", "--busy-poll-us", "200us"});
  CHECK(poll.wait_exit(10s) == 2 << 8);
  CHECK(poll.output().find("--busy-poll-us takes a non-negative integer, got '200us'") !=
        std::string::npos);
  child_process budget({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "ps=127.0.0.1:2", "--job",
                        "ps", "--task", "0", "--cpu-memory-limit-mb", "lots"});
  CHECK(budget.wait_exit(10s) == 2 << 8);
  CHECK(budget.output().find("--cpu-memory-limit-mb takes a non-negative integer, got 'lots'") !=
        std::string::npos);
  child_process no_root({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "ps=127.0.0.1:2",
                         "--job", "ps", "--task", "0", "--checkpoint-root", ""});
  CHECK(no_root.wait_exit(10s) == 2 << 8);
  CHECK(no_root.output().find("--checkpoint-root takes a directory, got ''") != std::string::npos);
  child_process rings({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "ps=127.0.0.1:2", "--job",
                       "ps", "--task", "0", "--same-host-rings", "yes"});
  CHECK(rings.wait_exit(10s) == 2 << 8);
  CHECK(rings.output().find("--same-host-rings takes 0 or 1, got 'yes'") != std::string::npos);
  child_process shared({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "ps=127.0.0.1:2", "--job",
                        "ps", "--task", "0", "--shm-variables", "on"});
  CHECK(shared.wait_exit(10s) == 2 << 8);
  CHECK(shared.output().find("--shm-variables takes 0 or 1, got 'on'") != std::string::npos);
}

TEST_CASE("a restarted worker is found again and its partitions registered anew") {
  three_process_cluster c;
  REQUIRE(c.ready());
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto y = ops::square(root.with_device("/job:worker/task:1").with_op_name("y"), x);
  session sess(root, remote(c.target()));
  auto first = sess.run({{x, tensor::scalar(2.0f)}}, {y});
  REQUIRE_MESSAGE(first.ok(), first.get_status().to_string());
  CHECK(first->at(0).scalar_value<float>() == 4.0f);

  c.worker1->signal(SIGKILL);
  c.worker1->wait_exit(5s);
  std::this_thread::sleep_for(200ms);
  check_error(sess.run({{x, tensor::scalar(2.0f)}}, {y}), "task /job:worker/replica:0/task:1");

  c.worker1 = c.start("worker", 1);  // same address, new process, new incarnation
  REQUIRE(c.worker1->wait_for_output("serving at", 20s));
  auto again = sess.run({{x, tensor::scalar(3.0f)}}, {y});
  REQUIRE_MESSAGE(again.ok(), again.get_status().to_string());
  CHECK(again->at(0).scalar_value<float>() == 9.0f);
}
