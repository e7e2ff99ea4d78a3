#include "graph/ir/partition.hpp"

#include <doctest/doctest.h>

#include <set>

#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/state_ops.hpp"
#include "graph/core/device_name.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;

namespace {

const std::string ps = "/job:ps/replica:0/task:0/device:CPU:0";
const std::string w0 = "/job:worker/replica:0/task:0/device:CPU:0";
const std::string w1 = "/job:worker/replica:0/task:1/device:CPU:0";

// The high bit set on ps checks the int attr carries the uint64 bit for bit.
const partition_options incarnations{
    .incarnations = {{ps, 0xfedcba9876543210ull}, {w0, 0xa1}, {w1, 0x2b}}};

graph build(const scope& root) {
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  auto g = graph::build(root.to_graph_def());
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  return std::move(g).value();
}

// Every node of these test graphs names its full device, so the placement is just that.
std::vector<std::string> as_requested(const graph& g) {
  std::vector<std::string> out;
  for (const graph_node& n : g.nodes()) out.push_back(n.def->device);
  return out;
}

partitioned partition_ok(const graph& g, const std::vector<std::string>& placement,
                         const partition_options& opts = incarnations) {
  auto r = partition(g, placement, opts);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  for (const auto& [device, def] : r->partitions) {
    INFO("partition ", device);
    auto built = graph::build(def);
    CHECK_MESSAGE(built.ok(), built.get_status().to_string());
    for (const node_def& n : def.nodes) CHECK(n.device == device);
  }
  return std::move(r).value();
}

const node_def& node(const graph_def& def, std::string_view name) {
  for (const node_def& n : def.nodes)
    if (n.name == name) return n;
  FAIL("no node ", name);
  return def.nodes.front();
}

std::set<std::string> names(const graph_def& def) {
  std::set<std::string> out;
  for (const node_def& n : def.nodes) out.insert(n.name);
  return out;
}

std::vector<const node_def*> with_op(const graph_def& def, std::string_view op) {
  std::vector<const node_def*> out;
  for (const node_def& n : def.nodes)
    if (n.op == op) out.push_back(&n);
  return out;
}

template <class T>
T attr(const node_def& n, const char* name) {
  T v{};
  status s = get_attr(n, name, &v);
  REQUIRE_MESSAGE(s.ok(), s.to_string());
  return v;
}

// ps:       v (variable), zero, init = Assign(v, zero)
// worker 0: x, y = Mul(x, v) after ^init
// worker 1: a = Add(y, y), b = Mul(y, x), c = Add(v, x), done = NoOp after ^a
graph three_device_graph() {
  auto root = scope::new_root();
  auto on_ps = root.with_device(ps);
  auto on_w0 = root.with_device(w0);
  auto on_w1 = root.with_device(w1);
  auto v = ops::variable(on_ps.with_op_name("v"), {}, dtype::float32);
  auto zero = ops::constant(on_ps.with_op_name("zero"), 0.0f);
  auto init = ops::assign(on_ps.with_op_name("init"), v, zero);
  auto x = ops::constant(on_w0.with_op_name("x"), 2.0f);
  auto y = ops::mul(on_w0.with_op_name("y").with_control_dependencies({init}), x, v);
  auto a = ops::add(on_w1.with_op_name("a"), y, y);
  ops::mul(on_w1.with_op_name("b"), y, x);
  ops::add(on_w1.with_op_name("c"), v, x);
  ops::no_op(on_w1.with_op_name("done").with_control_dependencies({a}));
  return build(root);
}

}  // namespace

TEST_CASE("partition: three devices, one Send/Recv pair per tensor and destination") {
  const graph g = three_device_graph();
  const partitioned p = partition_ok(g, as_requested(g));
  REQUIRE(p.partitions.size() == 3);
  const graph_def& on_ps = p.partitions.at(ps);
  const graph_def& on_w0 = p.partitions.at(w0);
  const graph_def& on_w1 = p.partitions.at(w1);

  CHECK(names(on_ps) ==
        std::set<std::string>{"v", "zero", "init", "_send_v_0_to_worker_task0_CPU_0",
                              "_send_v_0_to_worker_task1_CPU_0", "_ctrl_init_to_worker_task0_CPU_0",
                              "_send_ctrl_init_to_worker_task0_CPU_0"});
  CHECK(names(on_w0) == std::set<std::string>{"x", "y", "_recv_v_0_to_worker_task0_CPU_0",
                                              "_recv_ctrl_init_to_worker_task0_CPU_0",
                                              "_send_y_0_to_worker_task1_CPU_0",
                                              "_send_x_0_to_worker_task1_CPU_0"});
  CHECK(names(on_w1) == std::set<std::string>{
                            "a", "b", "c", "done", "_recv_y_0_to_worker_task1_CPU_0",
                            "_recv_x_0_to_worker_task1_CPU_0", "_recv_v_0_to_worker_task1_CPU_0"});

  // y feeds a (twice) and b on worker 1 through the same Recv; x feeds b and c through another.
  CHECK(node(on_w1, "a").inputs == std::vector<std::string>{"_recv_y_0_to_worker_task1_CPU_0",
                                                            "_recv_y_0_to_worker_task1_CPU_0"});
  CHECK(node(on_w1, "b").inputs == std::vector<std::string>{"_recv_y_0_to_worker_task1_CPU_0",
                                                            "_recv_x_0_to_worker_task1_CPU_0"});
  CHECK(node(on_w1, "c").inputs == std::vector<std::string>{"_recv_v_0_to_worker_task1_CPU_0",
                                                            "_recv_x_0_to_worker_task1_CPU_0"});
  CHECK(node(on_w1, "done").inputs == std::vector<std::string>{"^a"});  // same device: as is
  CHECK(node(on_w0, "y").inputs ==
        std::vector<std::string>{"x", "_recv_v_0_to_worker_task0_CPU_0",
                                 "^_recv_ctrl_init_to_worker_task0_CPU_0"});
  CHECK(node(on_ps, "init").inputs == std::vector<std::string>{"v", "zero"});

  const node_def& send = node(on_ps, "_send_v_0_to_worker_task1_CPU_0");
  CHECK(send.op == "_Send");
  CHECK(send.inputs == std::vector<std::string>{"v"});
  CHECK(attr<dtype>(send, "T") == dtype::float32);
  CHECK(attr<std::string>(send, "tensor_name") == "v:0");
  CHECK(attr<std::string>(send, "send_device") == ps);
  CHECK(static_cast<uint64_t>(attr<int64_t>(send, "send_device_incarnation")) ==
        0xfedcba9876543210ull);
  CHECK(attr<std::string>(send, "recv_device") == w1);
  CHECK_FALSE(attr<bool>(send, "client_terminated"));
  const node_def& recv = node(on_w1, "_recv_v_0_to_worker_task1_CPU_0");
  CHECK(recv.op == "_Recv");
  CHECK(recv.inputs.empty());
  CHECK(attr<dtype>(recv, "tensor_type") == dtype::float32);
  CHECK(attr<std::string>(recv, "tensor_name") == "v:0");
  CHECK(attr<std::string>(recv, "send_device") == ps);
  CHECK(attr<std::string>(recv, "recv_device") == w1);
  CHECK(rendezvous_key(send) == ps + ";fedcba9876543210;" + w1 + ";v:0;0:0");
  CHECK(rendezvous_key(recv) == rendezvous_key(send));
}

TEST_CASE("partition: a control edge across devices becomes a dummy scalar sent after the source") {
  const graph g = three_device_graph();
  const partitioned p = partition_ok(g, as_requested(g));
  const graph_def& on_ps = p.partitions.at(ps);
  const node_def& dummy = node(on_ps, "_ctrl_init_to_worker_task0_CPU_0");
  CHECK(dummy.op == "Const");
  CHECK(dummy.inputs == std::vector<std::string>{"^init"});
  CHECK(attr<dtype>(dummy, "dtype") == dtype::float32);
  CHECK(attr<tensor>(dummy, "value").shape().rank() == 0);
  const node_def& send = node(on_ps, "_send_ctrl_init_to_worker_task0_CPU_0");
  CHECK(send.inputs == std::vector<std::string>{"_ctrl_init_to_worker_task0_CPU_0"});
  CHECK(attr<std::string>(send, "tensor_name") == "_ctrl_init_to_worker_task0_CPU_0:0");
  const node_def& recv = node(p.partitions.at(w0), "_recv_ctrl_init_to_worker_task0_CPU_0");
  CHECK(rendezvous_key(recv) == rendezvous_key(send));
}

TEST_CASE("partition: every Send has exactly one Recv with the same key, and keys are unique") {
  const graph g = three_device_graph();
  const partitioned p = partition_ok(g, as_requested(g));
  std::map<std::string, std::string> sends, recvs;  // key -> device of the node
  for (const auto& [device, def] : p.partitions) {
    for (const node_def* n : with_op(def, "_Send")) {
      CHECK(sends.emplace(rendezvous_key(*n), device).second);
    }
    for (const node_def* n : with_op(def, "_Recv")) {
      CHECK(recvs.emplace(rendezvous_key(*n), device).second);
    }
  }
  CHECK(sends.size() == 5);  // v to w0 and w1, y and x to w1, init's control to w0
  REQUIRE(recvs.size() == sends.size());
  for (const auto& [key, send_device] : sends) {
    INFO("key ", key);
    REQUIRE(recvs.count(key));
    auto parsed = parse_rendezvous_key(key);
    REQUIRE_MESSAGE(parsed.ok(), parsed.get_status().to_string());
    CHECK(parsed->send_device == send_device);
    CHECK(parsed->recv_device == recvs.at(key));
    CHECK(parsed->send_device_incarnation == incarnations.incarnations.at(send_device));
    CHECK(parsed->frame_id == 0);
    CHECK(parsed->iter_id == 0);
  }
}

TEST_CASE("partition: output ports other than 0 are named and received correctly") {
  auto root = scope::new_root();
  auto on_w0 = root.with_device(w0);
  auto on_w1 = root.with_device(w1);
  auto axis = ops::constant(on_w0.with_op_name("axis"), 0);
  auto value = ops::constant(on_w0.with_op_name("value"), std::vector<float>{1, 2, 3, 4}, {4});
  auto parts = ops::split(on_w0.with_op_name("parts"), axis, value, 2);
  ops::add(on_w1.with_op_name("sum"), parts[1], parts[1]);
  ops::identity(on_w1.with_op_name("first"), parts[0]);
  const graph g = build(root);
  const partitioned p = partition_ok(g, as_requested(g));
  const graph_def& on_w1_def = p.partitions.at(w1);
  CHECK(node(on_w1_def, "sum").inputs ==
        std::vector<std::string>{"_recv_parts_1_to_worker_task1_CPU_0",
                                 "_recv_parts_1_to_worker_task1_CPU_0"});
  CHECK(node(on_w1_def, "first").inputs ==
        std::vector<std::string>{"_recv_parts_0_to_worker_task1_CPU_0"});
  const node_def& send = node(p.partitions.at(w0), "_send_parts_1_to_worker_task1_CPU_0");
  CHECK(send.inputs == std::vector<std::string>{"parts:1"});
  CHECK(attr<std::string>(send, "tensor_name") == "parts:1");
}

TEST_CASE("partition: a graph on one device is copied with full device names and no Send/Recv") {
  const graph g = three_device_graph();
  const std::vector<std::string> all_on_w0(g.num_nodes(), w0);
  // No device sends anything, so no incarnation is needed.
  const partitioned p = partition_ok(g, all_on_w0, {});
  REQUIRE(p.partitions.size() == 1);
  const graph_def& def = p.partitions.at(w0);
  CHECK(def.nodes.size() == static_cast<size_t>(g.num_nodes()));
  CHECK(with_op(def, "_Send").empty());
  CHECK(with_op(def, "_Recv").empty());
  for (const graph_node& n : g.nodes()) CHECK(node(def, n.name()).inputs == n.def->inputs);
}

TEST_CASE("partition: names and order are deterministic and never clash with existing nodes") {
  const graph g = three_device_graph();
  const partitioned first = partition_ok(g, as_requested(g));
  const partitioned second = partition_ok(g, as_requested(g));
  CHECK(first.partitions == second.partitions);

  auto root = scope::new_root();
  auto x = ops::constant(root.with_device(w0).with_op_name("x"), 1.0f);
  ops::identity(root.with_device(w1).with_op_name("_send_x_0_to_worker_task1_CPU_0"), x);
  ops::identity(root.with_device(w1).with_op_name("_recv_x_0_to_worker_task1_CPU_0"), x);
  const graph clash = build(root);
  const partitioned p = partition_ok(clash, as_requested(clash));
  CHECK(names(p.partitions.at(w0)) ==
        std::set<std::string>{"x", "_send_x_0_to_worker_task1_CPU_0_1"});
  CHECK(names(p.partitions.at(w1)) == std::set<std::string>{"_send_x_0_to_worker_task1_CPU_0",
                                                            "_recv_x_0_to_worker_task1_CPU_0",
                                                            "_recv_x_0_to_worker_task1_CPU_0_1"});
}

TEST_CASE("partition: errors name the node, device or edge at fault") {
  const graph g = three_device_graph();
  std::vector<std::string> placement = as_requested(g);
  check_error(partition(g, {ps}, incarnations), "placement has 1 devices for a graph of 9 nodes");

  std::vector<std::string> partial = placement;
  partial[*g.find("x")] = "/job:worker";
  check_error(partition(g, partial, incarnations),
              "node 'x' (Const) is placed on '/job:worker', which is not a full device name");

  std::vector<std::string> split_ref = placement;
  split_ref[*g.find("init")] = w0;
  check_error(partition(g, split_ref, incarnations),
              "node 'init' (Assign) on " + w0 + " takes a reference to 'v' on " + ps);

  partition_options missing = incarnations;
  missing.incarnations.erase(ps);
  check_error(partition(g, placement, missing),
              "no incarnation for device " + ps + ", which sends 'v:0' to ");
}

TEST_CASE("parse_rendezvous_key: round trip and malformed keys") {
  auto parsed = parse_rendezvous_key(w0 + ";00000000000000a1;" + w1 + ";y:3;0:0");
  REQUIRE_MESSAGE(parsed.ok(), parsed.get_status().to_string());
  CHECK(parsed->send_device == w0);
  CHECK(parsed->send_device_incarnation == 0xa1);
  CHECK(parsed->recv_device == w1);
  CHECK(parsed->tensor_name == "y:3");

  check_error(parse_rendezvous_key("a;b"), "malformed rendezvous key 'a;b': expected 5 parts");
  check_error(parse_rendezvous_key(w0 + ";a1;" + w1 + ";y:0;0:0"),
              "incarnation 'a1' is not 16 hex digits");
  check_error(parse_rendezvous_key(w0 + ";00000000000000g1;" + w1 + ";y:0;0:0"),
              "incarnation '00000000000000g1' is not 16 hex digits");
  check_error(parse_rendezvous_key("/job:ps;00000000000000a1;" + w1 + ";y:0;0:0"),
              "send device '/job:ps' is not a full device name");
  check_error(parse_rendezvous_key(w0 + ";00000000000000a1;;y:0;0:0"),
              "recv device '' is not a full device name");
  check_error(parse_rendezvous_key(w0 + ";00000000000000a1;" + w1 + ";^y;0:0"),
              "tensor name '^y' is not node:port");
  check_error(parse_rendezvous_key(w0 + ";00000000000000a1;" + w1 + ";y:0;0"),
              "frame and iteration '0' are not frame:iter");
}

TEST_CASE("partition: a value that comes back after its device's own work names what it waits for") {
  // w0: x, z = Add(y, x); w1: y = Mul(x, x). y depends on w0's x: a round trip.
  auto root = scope::new_root();
  auto x = ops::constant(root.with_device(w0).with_op_name("x"), 2.0f);
  auto y = ops::mul(root.with_device(w1).with_op_name("y"), x, x);
  ops::add(root.with_device(w0).with_op_name("z"), y, x);
  const graph g = build(root);
  const partitioned p = partition_ok(g, as_requested(g));
  const node_def& back = node(p.partitions.at(w0), "_recv_y_0_to_worker_task0_CPU_0");
  CHECK(attr<std::vector<std::string>>(back, "loops_back_via") == std::vector<std::string>{"x"});
  const node_def& there = node(p.partitions.at(w1), "_recv_x_0_to_worker_task1_CPU_0");
  CHECK(there.attrs.count("loops_back_via") == 0);  // the op's default: none
}
