// Grouping the control inputs a node takes from another device under one NoOp there
// (graph/ir/control_coalesce.hpp): one control _Send/_Recv pair per consumer and device
// instead of one per edge, with the same order.
#include "graph/ir/control_coalesce.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/placed_graph.hpp"

using namespace caflow;

namespace {

using testing::noop;
using testing::build_graph;
using testing::node_named;
using testing::placement_of;
using testing::send_nodes;
const std::string& ps = testing::ps_cpu;
const std::string& w0 = testing::worker0_cpu;
const std::string& w1 = testing::worker1_cpu;

}  // namespace

TEST_CASE("control coalesce: a worker's group of ps updates waits on one NoOp on the ps") {
  graph_def def;
  def.nodes = {noop("apply_a", ps), noop("apply_b", ps), noop("apply_c", ps), noop("local", w0),
               noop("update", w0, {"^apply_a", "^local", "^apply_b", "^apply_c"})};
  const graph g = build_graph(def);
  CHECK(send_nodes(g, placement_of(g)) == 3);

  coalesced_graph c = coalesce_remote_control(g, placement_of(g));
  CHECK(c.edges_removed == 3);
  REQUIRE(c.def.nodes.size() == 6);
  const node_def& group = c.def.nodes.back();
  CHECK(group.op == "NoOp");
  CHECK(group.name == "_ctrl_group/update");
  CHECK(group.device == ps);
  CHECK(group.inputs == std::vector<std::string>{"^apply_a", "^apply_b", "^apply_c"});
  REQUIRE(c.placement.size() == 6);
  CHECK(c.placement.back() == ps);
  // The input on its own device stays; the three from the ps become one.
  CHECK(node_named(c.def, "update").inputs ==
        std::vector<std::string>{"^local", "^_ctrl_group/update"});
  const graph after = build_graph(c.def);
  CHECK(send_nodes(after, c.placement) == 1);
}

TEST_CASE("control coalesce: consumers waiting on the same set share a NoOp; other sets get "
          "their own") {
  graph_def def;
  def.nodes = {noop("a", ps), noop("b", ps), noop("c", ps),
               noop("x", w0, {"^a", "^b"}), noop("y", w1, {"^b", "^a"}),
               noop("z", w0, {"^a", "^b", "^c"})};
  const graph g = build_graph(def);
  coalesced_graph c = coalesce_remote_control(g, placement_of(g));
  CHECK(c.edges_removed == 7);
  REQUIRE(c.def.nodes.size() == 8);  // one NoOp for {a, b}, one for {a, b, c}
  CHECK(node_named(c.def, "x").inputs == std::vector<std::string>{"^_ctrl_group/x"});
  CHECK(node_named(c.def, "y").inputs == std::vector<std::string>{"^_ctrl_group/x"});
  CHECK(node_named(c.def, "z").inputs == std::vector<std::string>{"^_ctrl_group/z"});
  const graph after = build_graph(c.def);
  // Before: a, b and c to w0, a and b to w1 (the partitioner sends a node once per device).
  // After: {a, b} to w0 and to w1, {a, b, c} to w0.
  CHECK(send_nodes(g, placement_of(g)) == 5);
  CHECK(send_nodes(after, c.placement) == 3);
}

TEST_CASE("control coalesce: nothing changes for single edges, same-device edges, or a graph "
          "with control flow") {
  SUBCASE("one edge per device") {
    graph_def def;
    def.nodes = {noop("a", ps), noop("b", w1), noop("x", w0, {"^a", "^b"})};
    const graph g = build_graph(def);
    coalesced_graph c = coalesce_remote_control(g, placement_of(g));
    CHECK(c.edges_removed == 0);
    CHECK(c.def.nodes.empty());  // nothing to rebuild
    CHECK(c.placement.empty());
  }
  SUBCASE("all on the consumer's device") {
    graph_def def;
    def.nodes = {noop("a", w0), noop("b", w0), noop("x", w0, {"^a", "^b"})};
    const graph g = build_graph(def);
    CHECK(coalesce_remote_control(g, placement_of(g)).edges_removed == 0);
  }
  SUBCASE("a name that is taken gets a suffix") {
    graph_def def;
    def.nodes = {noop("a", ps), noop("b", ps), noop("_ctrl_group/x", w1),
                 noop("x", w0, {"^a", "^b"})};
    const graph g = build_graph(def);
    coalesced_graph c = coalesce_remote_control(g, placement_of(g));
    CHECK(c.def.nodes.back().name == "_ctrl_group/x_1");
    CHECK(node_named(c.def, "x").inputs == std::vector<std::string>{"^_ctrl_group/x_1"});
  }
  SUBCASE("control flow") {
    auto root = scope::new_root();
    auto on_ps = root.with_device(ps);
    auto pred = ops::placeholder(on_ps.with_op_name("pred"), dtype::boolean);
    auto v = ops::constant(on_ps.with_op_name("v"), 1.0f);
    auto sw = ops::switch_(on_ps.with_op_name("sw"), v, pred);
    (void)sw;
    graph_def def = root.to_graph_def();
    def.nodes.push_back(noop("a", ps));
    def.nodes.push_back(noop("b", ps));
    def.nodes.push_back(noop("x", w0, {"^a", "^b"}));
    const graph g = build_graph(def);
    CHECK(coalesce_remote_control(g, placement_of(g)).edges_removed == 0);
  }
}

TEST_CASE("control coalesce: a session's result is the same, with the pass and without it") {
  // On one task with two CPU devices: the group of assigns on CPU:1 is what CPU:0's read
  // waits on.
  auto root = scope::new_root();
  auto d0 = root.with_device("/job:localhost/replica:0/task:0/device:CPU:0");
  auto d1 = root.with_device("/job:localhost/replica:0/task:0/device:CPU:1");
  auto a = ops::variable(d1.with_op_name("a"), partial_shape{}, dtype::float32);
  auto b = ops::variable(d1.with_op_name("b"), partial_shape{}, dtype::float32);
  auto init_a = ops::assign(d1.with_op_name("init_a"), a, ops::constant(d1, 2.0f));
  auto init_b = ops::assign(d1.with_op_name("init_b"), b, ops::constant(d1, 3.0f));
  auto after_init = d0.with_control_dependencies({init_a, init_b});
  auto sum = ops::add(d0.with_op_name("sum"), ops::identity(after_init.with_op_name("ra"), a),
                      ops::identity(after_init.with_op_name("rb"), b));
  for (bool disabled : {false, true}) {
    CAPTURE(disabled);
    session_options opts;
    opts.device_count = {{"CPU", 2}};
    if (disabled) opts.optimizer.disabled = {control_coalesce_pass};
    session sess(root, opts);
    auto out = sess.run({}, {sum});
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    CHECK(out->at(0).scalar_value<float>() == 5.0f);
  }
}
