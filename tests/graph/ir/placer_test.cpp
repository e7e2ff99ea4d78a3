#include "graph/ir/placer.hpp"

#include <doctest/doctest.h>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/state_ops.hpp"
#include "graph/ir/prune.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;

namespace {

const std::string ps0 = "/job:ps/replica:0/task:0/device:CPU:0";
const std::string w0_cpu = "/job:worker/replica:0/task:0/device:CPU:0";
const std::string w0_gpu0 = "/job:worker/replica:0/task:0/device:GPU:0";
const std::string w0_gpu1 = "/job:worker/replica:0/task:0/device:GPU:1";
const std::string w1_cpu = "/job:worker/replica:0/task:1/device:CPU:0";
// Deliberately not in priority order: placement must not depend on the order given.
const std::vector<std::string> cluster = {w1_cpu, w0_gpu1, ps0, w0_gpu0, w0_cpu};

const placement_options on_worker0{.default_device = "/job:worker/replica:0/task:0"};

bool cpu_only(const node_def&, std::string_view type) { return type == "CPU"; }

graph build(const scope& root) {
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  auto g = graph::build(root.to_graph_def());
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  return std::move(g).value();
}

graph build(graph_def def) {
  auto g = graph::build(std::move(def));
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  return std::move(g).value();
}

// The device of each named node. REQUIRES: the graph outlives it.
struct placed {
  const graph& g;
  std::vector<std::string> devices;
  const std::string& operator[](std::string_view name) const {
    auto id = g.find(name);
    REQUIRE(id);
    return devices[*id];
  }
};

placed place_ok(const graph& g, const placement_options& opts, const kernel_check& check = {},
                const std::vector<std::string>& devices = cluster) {
  auto r = place(g, devices, opts, check);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  REQUIRE(r->size() == static_cast<size_t>(g.num_nodes()));
  return {g, std::move(r).value()};
}

node_def make_node(std::string name, std::string op, std::string device = {}) {
  node_def n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.device = std::move(device);
  if (n.op == "Const") {
    n.attrs["value"] = tensor::scalar<float>(1.0f);
    n.attrs["dtype"] = dtype::float32;
  }
  return n;
}

}  // namespace

TEST_CASE("place: full and partial specs pick the matching device") {
  auto root = scope::new_root();
  ops::constant(root.with_op_name("full").with_device(w1_cpu), 1.0f);
  ops::constant(root.with_op_name("ps").with_device("/job:ps"), 1.0f);
  ops::constant(root.with_op_name("task1").with_device("/task:1"), 1.0f);
  ops::constant(root.with_op_name("legacy_gpu").with_device("/gpu:1"), 1.0f);
  ops::constant(root.with_op_name("any_cpu").with_device("/device:CPU:*"), 1.0f);
  const graph g = build(root);
  const placed p = place_ok(g, on_worker0);
  CHECK(p["full"] == w1_cpu);
  // The default worker's task is not imposed on a node of another job.
  CHECK(p["ps"] == ps0);
  CHECK(p["task1"] == w1_cpu);
  CHECK(p["legacy_gpu"] == w0_gpu1);
  CHECK(p["any_cpu"] == w0_cpu);
}

TEST_CASE("place: the default device fills a spec only while the spec agrees with it") {
  auto root = scope::new_root();
  ops::constant(root.with_op_name("ps").with_device("/job:ps"), 1.0f);
  ops::constant(root.with_op_name("any_cpu").with_device("/device:CPU:*"), 1.0f);
  ops::constant(root.with_op_name("task0").with_device("/task:0"), 1.0f);
  const graph g = build(root);
  const placed p = place_ok(g, {.default_device = "/job:worker/replica:0/task:1"});
  // ps has only task 0: inheriting the default worker's task 1 would leave no device.
  CHECK(p["ps"] == ps0);
  CHECK(p["any_cpu"] == w1_cpu);
  CHECK(p["task0"] == w0_gpu0);
}

TEST_CASE("place: unconstrained nodes go to the default device, GPU before CPU") {
  auto root = scope::new_root();
  auto a = ops::constant(root.with_op_name("a"), 1.0f);
  ops::add(root.with_op_name("sum"), a, a);
  const graph g = build(root);
  const placed with_gpu = place_ok(g, on_worker0);
  CHECK(with_gpu["a"] == w0_gpu0);
  CHECK(with_gpu["sum"] == w0_gpu0);
  const placed cpu = place_ok(g, on_worker0, cpu_only);
  CHECK(cpu["sum"] == w0_cpu);

  const placed task1 = place_ok(g, {.default_device = "/job:worker/task:1"});
  CHECK(task1["sum"] == w1_cpu);
  // No default at all: the best device anywhere, ties broken by the lowest job and task.
  const placed anywhere = place_ok(g, {}, cpu_only);
  CHECK(anywhere["sum"] == ps0);
}

TEST_CASE("place: a reference consumer sits with its variable, either one constraining") {
  auto root = scope::new_root();
  auto v = ops::variable(root.with_op_name("v"), {2}, dtype::float32);
  auto one = ops::constant(root.with_op_name("one"), std::vector<float>{1, 1}, {2});
  ops::assign_add(root.with_op_name("inc").with_device("/job:ps"), v, one);
  auto w = ops::variable(root.with_op_name("w").with_device(w1_cpu), {2}, dtype::float32);
  ops::assign(root.with_op_name("init_w"), w, one);
  // Reading the value is no reference: the reader goes where it likes.
  ops::identity(root.with_op_name("read_w"), w);
  const graph g = build(root);
  const placed p = place_ok(g, on_worker0, cpu_only);
  CHECK(p["v"] == ps0);
  CHECK(p["inc"] == ps0);
  CHECK(p["w"] == w1_cpu);
  CHECK(p["init_w"] == w1_cpu);
  CHECK(p["read_w"] == w0_cpu);
  CHECK(p["one"] == w0_cpu);
}

TEST_CASE("place: _class colocation works in both directions") {
  auto root = scope::new_root();
  auto anchor = ops::constant(root.with_op_name("anchor").with_device("/job:ps"), 1.0f);
  // The node carrying _class follows its constrained target...
  ops::identity(root.with_op_name("follower").colocate_with(anchor), anchor);
  // ...and a constrained node carrying _class pulls its unconstrained target along.
  auto free = ops::constant(root.with_op_name("free"), 2.0f);
  ops::identity(root.with_op_name("leader").with_device("/job:worker/task:1").colocate_with(free),
                free);
  const graph g = build(root);
  const placed p = place_ok(g, on_worker0);
  CHECK(p["anchor"] == ps0);
  CHECK(p["follower"] == ps0);
  CHECK(p["free"] == w1_cpu);
  CHECK(p["leader"] == w1_cpu);
}

TEST_CASE("place: colocated nodes asking for different jobs is an error naming both") {
  auto root = scope::new_root();
  auto v = ops::variable(root.with_op_name("v").with_device("/job:ps"), {}, dtype::float32);
  auto one = ops::constant(root.with_op_name("one"), 1.0f);
  ops::assign(root.with_op_name("assign").with_device("/job:worker"), v, one);
  const graph g = build(root);
  check_error(place(g, cluster, on_worker0, {}),
              "colocation of 'v' and 'assign' asks for incompatible devices: /job:ps vs "
              "/job:worker");

  graph_def def;
  def.nodes.push_back(make_node("a", "Const", "/job:ps"));
  def.nodes.push_back(make_node("b", "Const", "/device:GPU:0"));
  def.nodes.push_back(make_node("c", "Const", "/job:worker"));
  def.nodes[1].attrs["_class"] = std::vector<std::string>{"loc:@a"};
  def.nodes[2].attrs["_class"] = std::vector<std::string>{"loc:@b"};
  // b merges with a; c conflicts with a, not with b, through the chain.
  check_error(place(build(def), cluster, on_worker0, {}),
              "colocation of 'a' and 'c' asks for incompatible devices: /job:ps vs /job:worker");
}

TEST_CASE("place: a group takes the best type with a kernel for every member") {
  auto root = scope::new_root();
  auto a = ops::constant(root.with_op_name("a"), 1.0f);
  auto sum = ops::add(root.with_op_name("sum"), a, a);
  ops::identity(root.with_op_name("copy").colocate_with(sum), sum);
  ops::mul(root.with_op_name("prod"), a, a);
  const graph g = build(root);
  const kernel_check no_gpu_identity = [](const node_def& n, std::string_view type) {
    return type == "CPU" || n.op != "Identity";
  };
  const placed p = place_ok(g, on_worker0, no_gpu_identity);
  CHECK(p["a"] == w0_gpu0);
  CHECK(p["prod"] == w0_gpu0);
  // Add has a GPU kernel, but its colocated Identity does not.
  CHECK(p["sum"] == w0_cpu);
  CHECK(p["copy"] == w0_cpu);

  const kernel_check nothing = [](const node_def&, std::string_view) { return false; };
  check_error(place(g, cluster, on_worker0, nothing),
              "no GPU kernel for op 'Const' of node 'a'; no CPU kernel for op 'Const' of node 'a'");
}

TEST_CASE("place: an explicit device type without a kernel fails, or falls back softly") {
  auto root = scope::new_root();
  auto a = ops::constant(root.with_op_name("a"), 1.0f);
  ops::identity(root.with_op_name("x").with_device("/device:GPU:0"), a);
  ops::add(root.with_op_name("far").with_device("/device:GPU:7"), a, a);
  const graph g = build(root);
  const kernel_check no_gpu_identity = [](const node_def& n, std::string_view type) {
    return type == "CPU" || n.op != "Identity";
  };
  check_error(place(g, cluster, on_worker0, no_gpu_identity),
              "no GPU kernel for op 'Identity' of node 'x'");

  placement_options soft = on_worker0;
  soft.allow_soft_placement = true;
  const placed p = place_ok(g, soft, no_gpu_identity);
  CHECK(p["x"] == w0_cpu);     // another type on the same task
  CHECK(p["far"] == w0_gpu0);  // the same type, another id
  CHECK(p["a"] == w0_gpu0);

  // Soft placement never moves a node to another task.
  auto root2 = scope::new_root();
  ops::constant(root2.with_op_name("gpu_on_ps").with_device("/job:ps/device:GPU:0"), 1.0f);
  const graph g2 = build(root2);
  const placed p2 = place_ok(g2, soft);
  CHECK(p2["gpu_on_ps"] == ps0);
  auto root3 = scope::new_root();
  ops::constant(root3.with_op_name("lost").with_device("/job:ps/task:3"), 1.0f);
  check_error(place(build(root3), cluster, soft, {}), "node 'lost' asks for '/job:ps/task:3'");
}

TEST_CASE("place: no matching device names the node, its spec and the devices") {
  auto root = scope::new_root();
  auto v = ops::variable(root.with_op_name("x").with_device("/job:ps/task:3"), {}, dtype::float32);
  ops::assign(root.with_op_name("set"), v, ops::constant(root.with_op_name("zero"), 0.0f));
  const graph g = build(root);
  check_error(place(g, cluster, on_worker0, {}),
              "node 'x' (colocated with 'set') asks for '/job:ps/task:3' but no such device "
              "exists; devices: /job:worker/replica:0/task:0/device:GPU:0, "
              "/job:worker/replica:0/task:0/device:GPU:1, " +
                  ps0);

  auto root2 = scope::new_root();
  ops::constant(root2.with_op_name("y").with_device("/task:2"), 1.0f);
  check_error(place(build(root2), cluster, on_worker0, {}),
              "node 'y' asks for '/task:2' (with the default device: "
              "'/job:worker/replica:0/task:2') but no such device exists");
}

TEST_CASE("place: malformed specs, unknown colocation targets and bad device lists") {
  graph_def def;
  def.nodes.push_back(make_node("x", "Const", "/job:ps/tsk:1"));
  check_error(place(build(def), cluster, on_worker0, {}),
              "node 'x' (Const): invalid device spec '/job:ps/tsk:1'");

  graph_def lost;
  lost.nodes.push_back(make_node("y", "Const"));
  lost.nodes[0].attrs["_class"] = std::vector<std::string>{"loc:@nowhere"};
  check_error(place(build(lost), cluster, on_worker0, {}),
              "node 'y' asks to be colocated with 'nowhere'");

  graph_def ok;
  ok.nodes.push_back(make_node("z", "Const"));
  const graph g = build(ok);
  check_error(place(g, {"/job:ps/device:CPU:0"}, on_worker0, {}),
              "device list entry '/job:ps/device:CPU:0' is not a full device name");
  check_error(place(g, {ps0, ps0}, on_worker0, {}), "device '" + ps0 + "' is listed twice");
  check_error(place(g, {}, on_worker0, {}), "no devices to place the graph on");
  check_error(place(g, cluster, {.default_device = "worker"}, {}),
              "default device: invalid device spec 'worker'");
}

TEST_CASE("place: devices are returned in canonical form, whatever the list's spelling") {
  graph_def def;
  def.nodes.push_back(make_node("c", "Const", "/job:ps/cpu:0"));
  const graph g = build(def);
  const placed p = place_ok(g, {}, {}, {"/job:ps/task:0/replica:0/device:cpu:0"});
  CHECK(p["c"] == ps0);
}

TEST_CASE("prune + place: a node colocated with a pruned node goes to that node's device") {
  auto root = scope::new_root();
  auto anchor = ops::constant(root.with_op_name("anchor").with_device("/job:ps/task:0"), 1.0f);
  auto chained = ops::identity(root.with_op_name("chained").colocate_with(anchor), anchor);
  ops::identity(root.with_op_name("follower").colocate_with(chained), ops::constant(root, 2.0f));
  const graph full = build(root);
  // The run needs only `follower`: `anchor` and `chained` are pruned away.
  auto pruned = prune_for_run(full, {.feeds = {}, .fetches = {"follower"}, .targets = {}});
  REQUIRE_MESSAGE(pruned.ok(), pruned.get_status().to_string());
  for (const node_def& n : pruned->def.nodes) {
    CHECK(n.name != "anchor");
    if (n.name != "follower") continue;
    CHECK(n.device == "/job:ps/task:0");  // found through `chained`, which asked for none
    CHECK_FALSE(n.attrs.count("_class"));
  }
  const graph g = build(pruned->def);
  const placed p = place_ok(g, on_worker0);
  CHECK(p["follower"] == ps0);
}
