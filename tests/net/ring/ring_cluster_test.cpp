// Three caflow-server processes on one host talk through shared memory rings
// (net/ring/ring_link.hpp): a graph spanning them computes the hand-checked values, and each server
// then maps the rings of its connections to the others (memfd "caflow-ring" in
// /proc/<pid>/maps), one it writes and one it reads per connection. With --same-host-rings 0
// the same graph runs over TCP and no server maps a ring.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/three_process_cluster.hpp"

using namespace caflow;
using caflow::testing::remote;
using caflow::testing::three_process_cluster;

namespace {

// How many mappings of ring segments `pid` has.
int ring_mappings(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  int n = 0;
  while (std::getline(maps, line)) n += line.find("/memfd:caflow-ring") != std::string::npos;
  return n;
}

// x (fed) * v (ps) on worker 1, summed on worker 0 (the master's task): every pair of the
// three talks.
void run_spanning_graph(three_process_cluster& c) {
  auto root = scope::new_root();
  auto ps = root.with_device("/job:ps/task:0");
  auto w1 = root.with_device("/job:worker/task:1");
  auto v = ops::variable(ps.with_op_name("v"), partial_shape{3}, dtype::float32);
  auto init =
      ops::assign(ps.with_op_name("init"), v, ops::constant(ps, std::vector<float>{1, 2, 3}, {3}));
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {3}});
  auto prod = ops::mul(w1.with_op_name("prod"), x, v);
  auto total = ops::sum(root.with_op_name("total"), prod, std::vector<int>{0});
  session sess(root, remote(c.target()));
  REQUIRE(sess.run({init}).ok());
  for (int i = 0; i < 50; ++i) {
    auto out = sess.run({{x, tensor::from_vector<float>({1, 10, float(i)})}}, {total});
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    CHECK(out->at(0).scalar_value<float>() == 21.0f + 3.0f * float(i));
  }
}

}  // namespace

TEST_CASE("servers on one host talk through rings, and over TCP with --same-host-rings 0") {
  SUBCASE("rings (the default)") {
    three_process_cluster c;
    REQUIRE(c.ready());
    run_spanning_graph(c);
    // The ps talks to both workers, each worker to the ps and the other worker.
    for (auto* p : {c.ps0.get(), c.worker0.get(), c.worker1.get()}) {
      CAPTURE(p->pid());
      CHECK(ring_mappings(p->pid()) >= 4);
    }
  }
  SUBCASE("TCP") {
    three_process_cluster c({"--same-host-rings", "0"});
    REQUIRE(c.ready());
    run_spanning_graph(c);
    for (auto* p : {c.ps0.get(), c.worker0.get(), c.worker1.get()}) CHECK(ring_mappings(p->pid()) == 0);
  }
}
