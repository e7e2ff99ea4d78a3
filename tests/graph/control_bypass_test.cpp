// Bypassing a NoOp that sits on another device than everything it orders
// (graph/ir/control_bypass.hpp): the consumer waits on the NoOp's inputs directly, so the
// partitions lose the round trip of control _Send/_Recv pairs, and the NoOp stays for whoever
// targets it.
#include "graph/ir/control_bypass.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "graph/ir/partition.hpp"

using namespace caflow;

namespace {

const std::string ps = "/job:ps/replica:0/task:0/device:CPU:0";
const std::string w0 = "/job:worker/replica:0/task:0/device:CPU:0";

node_def noop(std::string name, std::string device, std::vector<std::string> inputs = {}) {
  return node_def{std::move(name), "NoOp", std::move(device), std::move(inputs), {}};
}

graph build(graph_def def) {
  auto g = graph::build(std::move(def));
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  return std::move(g).value();
}

std::vector<std::string> placement_of(const graph& g) {
  std::vector<std::string> out;
  for (const graph_node& n : g.nodes()) out.push_back(n.def->device);
  return out;
}

const node_def& node(const graph_def& def, std::string_view name) {
  for (const node_def& n : def.nodes)
    if (n.name == name) return n;
  FAIL("no node ", name);
  return def.nodes.front();
}

// How many control _Send nodes the partitions of `g` hold.
size_t control_sends(const graph& g) {
  auto parts = partition(g, placement_of(g), {.incarnations = {{ps, 1}, {w0, 2}}});
  REQUIRE_MESSAGE(parts.ok(), parts.get_status().to_string());
  size_t sends = 0;
  for (const auto& [device, def] : parts->partitions)
    sends += static_cast<size_t>(std::count_if(def.nodes.begin(), def.nodes.end(),
                                               [](const node_def& n) { return n.op == "_Send"; }));
  return sends;
}

}  // namespace

TEST_CASE("control bypass: a worker's NoOp between ps nodes leaves the ps's consumer waiting on "
          "the ps") {
  // update_a, update_b (ps) -> group (worker) -> step (ps), and group -> train (worker).
  graph_def def;
  def.nodes = {noop("update_a", ps), noop("update_b", ps),
               noop("group", w0, {"^update_a", "^update_b"}), noop("step", ps, {"^group"}),
               noop("train", w0, {"^group"})};
  const graph g = build(def);
  CHECK(control_sends(g) == 3);  // two to the worker, one back

  bypassed_graph b = bypass_remote_noops(g, placement_of(g));
  CHECK(b.rewired == 1);
  CHECK(node(b.def, "step").inputs == std::vector<std::string>{"^update_a", "^update_b"});
  // The NoOp and its consumer on its own device are as they were.
  CHECK(node(b.def, "group").inputs == std::vector<std::string>{"^update_a", "^update_b"});
  CHECK(node(b.def, "train").inputs == std::vector<std::string>{"^group"});
  const graph after = build(b.def);
  CHECK(control_sends(after) == 2);  // the round trip is gone; `group` still hears from the ps
}

TEST_CASE("control bypass: nothing changes where it would add a crossing or lose an order") {
  SUBCASE("inputs on two devices") {
    graph_def def;
    def.nodes = {noop("a", ps), noop("b", w0), noop("group", w0, {"^a", "^b"}),
                 noop("step", ps, {"^group"})};
    const graph g = build(def);
    bypassed_graph b = bypass_remote_noops(g, placement_of(g));
    CHECK(b.rewired == 0);
    CHECK(b.def == g.def());
  }
  SUBCASE("a NoOp without inputs orders nothing to bypass") {
    graph_def def;
    def.nodes = {noop("group", w0), noop("step", ps, {"^group"})};
    const graph g = build(def);
    CHECK(bypass_remote_noops(g, placement_of(g)).rewired == 0);
  }
  SUBCASE("a consumer that already waits on an input gets it once") {
    graph_def def;
    def.nodes = {noop("a", ps), noop("group", w0, {"^a"}), noop("step", ps, {"^a", "^group"})};
    const graph g = build(def);
    bypassed_graph b = bypass_remote_noops(g, placement_of(g));
    CHECK(b.rewired == 1);
    CHECK(node(b.def, "step").inputs == std::vector<std::string>{"^a"});
  }
}
