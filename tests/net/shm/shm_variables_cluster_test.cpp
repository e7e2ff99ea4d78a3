// Three caflow-server processes with --shm-variables 1 (docs/shm_transport.md, "Variables
// live in the export segment"): the ps's variable lives in its shared memory segment and a
// worker reads its very bytes, while the same steps update it on the ps after taking the
// value the worker reads. The worker must see that value, not the update: the ps writes in
// place only when no worker views the block, and otherwise into a fresh one.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/three_process_cluster.hpp"

using namespace caflow;
using caflow::testing::remote;
using caflow::testing::three_process_cluster;

TEST_CASE("a ps's variable a worker views is not changed under it by the ps's update") {
  three_process_cluster c({"--shm-variables", "1"});
  REQUIRE(c.ready());
  constexpr int64_t n = 4096;  // 16 KiB: big enough for a shared memory block
  auto root = scope::new_root();
  auto ps = root.with_device("/job:ps/task:0");
  auto w1 = root.with_device("/job:worker/task:1");
  auto v = ops::variable(ps.with_op_name("v"), partial_shape{n}, dtype::float32);
  auto init = ops::assign(ps.with_op_name("init"), v,
                          ops::constant(ps, std::vector<float>(n, 0.0f), {n}));
  // The value the step reads, taken on the ps before its update.
  auto read = ops::identity(ps.with_op_name("read"), v);
  auto total = ops::sum(w1.with_op_name("total"), read, std::vector<int>{0});
  auto bump = ops::assign_add(ps.with_op_name("bump").with_control_dependencies({read}), v,
                              ops::constant(ps, std::vector<float>(n, 1.0f), {n}));
  session sess(root, remote(c.target()));
  REQUIRE(sess.run({init}).ok());
  for (int k = 0; k < 60; ++k) {
    auto out = sess.run({}, {total}, {operation{bump.node, {}}});
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    CAPTURE(k);
    CHECK(out->at(0).scalar_value<float>() == float(n * k));
  }
  // Reads after the last update see all of it.
  auto last = sess.run({total});
  REQUIRE_MESSAGE(last.ok(), last.get_status().to_string());
  CHECK(last->at(0).scalar_value<float>() == float(n * 60));
}
