// session_options::required_tasks on three caflow-server processes: a step blocked on a queue
// of the ps fails within 2 s of a SIGKILL of worker 1, which it requires although none of its
// nodes run there; later steps fail at once while the task is lost; names that are not tasks
// of the cluster are refused.
#include <doctest/doctest.h>

#include <csignal>
#include <thread>

#include "graph/client/ops/ops.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/three_process_cluster.hpp"

using namespace caflow;
using namespace std::chrono_literals;
using caflow::testing::check_error;
using caflow::testing::remote;
using caflow::testing::three_process_cluster;

namespace {

// A dequeue on the ps that nobody ever feeds, fetched through worker 0.
struct blocked_dequeue {
  scope root = scope::new_root();
  output value;
  output one;
  blocked_dequeue() {
    auto q = ops::fifo_queue(root.with_op_name("q").with_device("/job:ps/task:0"), {dtype::float32},
                             {.shapes = {partial_shape({})}});
    value = ops::queue_dequeue(root.with_device("/job:ps/task:0"), q, {dtype::float32}).at(0);
    one = ops::add(root.with_device("/job:worker/task:0"), ops::constant(root, 1.0f),
                   ops::constant(root, 2.0f));
  }
};

}  // namespace

TEST_CASE("a session requiring a task fails its blocked step within 2 s of losing it") {
  three_process_cluster cluster;
  REQUIRE(cluster.ready());
  blocked_dequeue g;
  session_options opts = remote(cluster.target());
  opts.required_tasks = {"/job:worker/task:1"};
  session sess(g.root, opts);
  // Steps run normally while the task is there.
  auto sum = sess.run({g.one});
  REQUIRE_MESSAGE(sum.ok(), sum.get_status().to_string());
  CHECK((*sum)[0].data<float>()[0] == 3.0f);

  std::thread killer([&] {
    std::this_thread::sleep_for(500ms);
    cluster.worker1->signal(SIGKILL);
  });
  const auto start = std::chrono::steady_clock::now();
  auto blocked = sess.run({g.value});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  killer.join();
  check_error(blocked, "a task this session requires: task /job:worker/replica:0/task:1 was lost");
  CHECK(blocked.get_status().code() == error_code::unavailable);
  CHECK(took < 0.5 + 2.0);
  // New steps fail at once while it is lost, even ones that do not wait on it...
  check_error(sess.run({g.one}), "task /job:worker/replica:0/task:1 was lost");
  // ...but sessions that do not require it keep working.
  session other(g.root, remote(cluster.target()));
  auto again = other.run({g.one});
  REQUIRE_MESSAGE(again.ok(), again.get_status().to_string());
  CHECK((*again)[0].data<float>()[0] == 3.0f);
}

TEST_CASE("required tasks must be tasks of the cluster") {
  three_process_cluster cluster;
  REQUIRE(cluster.ready());
  blocked_dequeue g;
  for (const std::string name : {"/job:worker/task:7", "/job:chief/task:0", "worker1"}) {
    session_options opts = remote(cluster.target());
    opts.required_tasks = {name};
    session sess(g.root, opts);
    check_error(sess.run({g.one}), "required task '" + name + "'");
  }
}
