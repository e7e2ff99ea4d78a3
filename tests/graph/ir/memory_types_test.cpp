// graph/ir/memory_types: on the partition of a device with memory of its own, every edge ends
// up between an output and an input in the same memory. The query stands in for the kernel
// registry: Sum reads its axes, Shape writes its output, _Arg and _Retval move feeds and
// fetches, all in host memory; everything else is in device memory.
#include "graph/ir/memory_types.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "graph/ir/serialization.hpp"

using namespace caflow;

namespace {

const std::string dev = "/job:localhost/replica:0/task:0/device:ACCEL:0";
const std::string cpu = "/job:localhost/replica:0/task:0/device:CPU:0";

node_def node(std::string name, std::string op, std::vector<std::string> inputs,
              std::map<std::string, attr_value> attrs) {
  return {std::move(name), std::move(op), dev, std::move(inputs), std::move(attrs)};
}
node_def arg(const std::string& name, int64_t index = 0) {
  return node(name, "_Arg", {}, {{"T", dtype::float32}, {"index", index}});
}
node_def retval(const std::string& name, const std::string& input, int64_t index = 0,
                dtype t = dtype::float32) {
  return node(name, "_Retval", {input}, {{"T", t}, {"index", index}});
}
node_def relu(const std::string& name, const std::string& input) {
  return node(name, "Relu", {input}, {{"T", dtype::float32}});
}
node_def axes(const std::string& name) {
  return node(name, "Const", {},
              {{"value", tensor::from_vector<int32_t>({0})}, {"dtype", dtype::int32}});
}
node_def sum(const std::string& name, const std::string& x, const std::string& axes) {
  return node(name, "Sum", {x, axes},
              {{"T", dtype::float32}, {"Tidx", dtype::int32}, {"keep_dims", false}});
}
node_def edge(node_def n, const std::string& from, const std::string& to) {
  n.attrs["tensor_name"] = std::string("e");
  n.attrs["send_device"] = from;
  n.attrs["send_device_incarnation"] = int64_t{1};
  n.attrs["recv_device"] = to;
  return n;
}
node_def recv(const std::string& name, dtype t) {
  return edge(node(name, "_Recv", {}, {{"tensor_type", t}}), cpu, dev);
}
node_def send(const std::string& name, const std::string& input) {
  return edge(node(name, "_Send", {input}, {{"T", dtype::float32}}), dev, cpu);
}

memory_type_query device_query() {
  memory_type_query q;
  q.host_device = false;
  q.types = [](const node_def& n, std::vector<bool>& in, std::vector<bool>& out) {
    if (n.op == "Sum") in = {false, true};
    if (n.op == "_Retval" || n.op == "_CopyFromHost") in = {true};
    if (n.op == "Shape" || n.op == "_Arg" || n.op == "HostConst" || n.op == "_CopyToHost")
      out = {true};
  };
  return q;
}

graph_def run_pass(std::vector<node_def> nodes, const memory_type_query& q = device_query()) {
  graph_def g{graph_def::current_version, std::move(nodes)};
  status st = ensure_memory_types(g, q);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  // What the pass made still builds.
  auto built = graph::build(g, {.infer_shapes = false});
  REQUIRE_MESSAGE(built.ok(), built.get_status().to_string());
  return g;
}

const node_def& find(const graph_def& g, const std::string& name) {
  auto it = std::find_if(g.nodes.begin(), g.nodes.end(),
                         [&](const node_def& n) { return n.name == name; });
  REQUIRE_MESSAGE(it != g.nodes.end(), ("no node " + name));
  return *it;
}

std::vector<const node_def*> of_op(const graph_def& g, const std::string& op) {
  std::vector<const node_def*> out;
  for (const node_def& n : g.nodes)
    if (n.op == op) out.push_back(&n);
  return out;
}

bool recv_on_host(const node_def& n) {
  auto it = n.attrs.find("recv_on_host");
  return it != n.attrs.end() && it->second.get<bool>();
}

}  // namespace

TEST_CASE("a Const read only in host memory becomes a HostConst, and feeds get copied in") {
  //   x = _Arg ─▶ Relu ─▶ Sum ─▶ _Retval        axes = Const ─▶ Sum (host arg)
  const graph_def g =
      run_pass({arg("x"), relu("r", "x"), axes("axes"), sum("s", "r", "axes"), retval("y", "s")});
  CHECK(find(g, "axes").op == "HostConst");
  CHECK(find(g, "s").inputs == std::vector<std::string>{"r", "axes"});  // no copy for the axes
  // The feed goes into device memory once, the result out of it once.
  const auto from_host = of_op(g, "_CopyFromHost");
  REQUIRE(from_host.size() == 1);
  CHECK(from_host[0]->inputs == std::vector<std::string>{"x"});
  CHECK(from_host[0]->device == dev);
  CHECK(from_host[0]->attrs.at("T").get<dtype>() == dtype::float32);
  CHECK(find(g, "r").inputs == std::vector<std::string>{from_host[0]->name});
  const auto to_host = of_op(g, "_CopyToHost");
  REQUIRE(to_host.size() == 1);
  CHECK(to_host[0]->inputs == std::vector<std::string>{"s"});
  CHECK(find(g, "y").inputs == std::vector<std::string>{to_host[0]->name});
  CHECK(g.nodes.size() == 7);
}

TEST_CASE("a Const read in both memories stays on the device and is copied out once") {
  const graph_def g = run_pass({arg("x"), relu("r", "x"), axes("axes"), sum("s", "r", "axes"),
                                retval("y", "s", 0), retval("a", "axes", 1, dtype::int32),
                                node("n", "Neg", {"axes"}, {{"T", dtype::int32}}),
                                retval("m", "n", 2, dtype::int32)});
  CHECK(find(g, "axes").op == "Const");
  const auto to_host = of_op(g, "_CopyToHost");
  REQUIRE(to_host.size() == 3);  // the axes (shared by Sum and the fetch), s and n
  std::string axes_copy;
  for (const node_def* c : to_host)
    if (c->inputs[0] == "axes") axes_copy = c->name;
  REQUIRE(!axes_copy.empty());
  CHECK(find(g, "s").inputs[1] == axes_copy);
  CHECK(find(g, "a").inputs[0] == axes_copy);
  CHECK(find(g, "n").inputs[0] == "axes");
}

TEST_CASE("a device output read in host memory by two consumers gets one _CopyToHost") {
  const graph_def g = run_pass({arg("x"), relu("r", "x"), retval("y0", "r", 0),
                                retval("y1", "r", 1), relu("r2", "r"), retval("y2", "r2", 2)});
  const auto to_host = of_op(g, "_CopyToHost");
  REQUIRE(to_host.size() == 2);
  const node_def* of_r = to_host[0]->inputs[0] == "r" ? to_host[0] : to_host[1];
  CHECK(of_r->inputs == std::vector<std::string>{"r"});
  CHECK(find(g, "y0").inputs[0] == of_r->name);
  CHECK(find(g, "y1").inputs[0] == of_r->name);
  CHECK(find(g, "r2").inputs[0] == "r");  // a device consumer keeps the device value
  // Names are unique even when the natural one is taken.
  std::set<std::string> names;
  for (const node_def& n : g.nodes) CHECK(names.insert(n.name).second);
}

TEST_CASE("copy names never collide with nodes of the partition") {
  // "_to_host_r_0" is what the pass would call the copy of r:0.
  const graph_def g = run_pass({arg("x"), relu("r", "x"), relu("_to_host_r_0", "r"),
                                retval("y0", "r", 0), retval("y1", "_to_host_r_0", 1)});
  std::set<std::string> names;
  for (const node_def& n : g.nodes) CHECK(names.insert(n.name).second);
  CHECK(find(g, "_to_host_r_0").op == "Relu");
  CHECK(find(g, find(g, "y0").inputs[0]).op == "_CopyToHost");
  CHECK(find(g, find(g, "y0").inputs[0]).inputs[0] == "r");
}

TEST_CASE("a _Recv produces where all its consumers read") {
  //   recv_axes ─▶ Sum (host arg)       recv_x ─▶ Relu (device)      recv_both ─▶ both
  const graph_def g =
      run_pass({recv("recv_x", dtype::float32), recv("recv_axes", dtype::int32),
                recv("recv_both", dtype::int32), relu("r", "recv_x"), sum("s", "r", "recv_axes"),
                sum("s2", "r", "recv_both"), node("n", "Neg", {"recv_both"}, {{"T", dtype::int32}}),
                retval("y", "s", 0), retval("y2", "s2", 1), retval("m", "n", 2, dtype::int32)});
  CHECK(recv_on_host(find(g, "recv_axes")));
  CHECK_FALSE(recv_on_host(find(g, "recv_x")));
  CHECK_FALSE(recv_on_host(find(g, "recv_both")));
  CHECK(find(g, "s").inputs[1] == "recv_axes");
  CHECK(find(g, "r").inputs[0] == "recv_x");
  // recv_both arrives in device memory: Neg reads it there, Sum through a copy.
  CHECK(find(g, "n").inputs[0] == "recv_both");
  const node_def& axes_copy = find(g, find(g, "s2").inputs[1]);
  CHECK(axes_copy.op == "_CopyToHost");
  CHECK(axes_copy.inputs[0] == "recv_both");
  CHECK(of_op(g, "_CopyFromHost").empty());
}

TEST_CASE("a _Send takes a value in either memory: no copy before it") {
  const graph_def g =
      run_pass({arg("x"), relu("r", "x"), send("send_r", "r"), send("send_x", "x"), axes("axes"),
                edge(node("send_axes", "_Send", {"axes"}, {{"T", dtype::int32}}), dev, cpu)});
  CHECK(find(g, "send_r").inputs[0] == "r");
  CHECK(find(g, "send_x").inputs[0] == "x");
  // Only the feed's device consumer needs a copy.
  CHECK(of_op(g, "_CopyFromHost").size() == 1);
  CHECK(of_op(g, "_CopyToHost").empty());
  // A Const sent away only can stay in host memory.
  CHECK(find(g, "axes").op == "HostConst");
}

TEST_CASE("the partition of a host-memory device is left as it is") {
  const std::vector<node_def> nodes = {arg("x"), relu("r", "x"), axes("axes"),
                                       sum("s", "r", "axes"), retval("y", "s")};
  graph_def g{graph_def::current_version, nodes};
  const std::string before = serialize_graph(g);
  memory_type_query host = device_query();
  host.host_device = true;
  REQUIRE(ensure_memory_types(g, host).ok());
  CHECK(serialize_graph(g) == before);
  CHECK(g.nodes.size() == 5);
  // So is one that needs no copy at all.
  graph_def same{graph_def::current_version,
                 {recv("recv_x", dtype::float32), relu("r", "recv_x"), send("send_r", "r")}};
  const std::string plain = serialize_graph(same);
  REQUIRE(ensure_memory_types(same, device_query()).ok());
  CHECK(serialize_graph(same) == plain);
}

TEST_CASE("a partition that does not build is an error naming the node") {
  graph_def g{graph_def::current_version, {relu("r", "nowhere")}};
  const status st = ensure_memory_types(g, device_query());
  REQUIRE_FALSE(st.ok());
  CHECK(st.message().find("'r'") != std::string::npos);
}
