// Bypassing a NoOp that sits on another device than everything it orders
// (graph/ir/control_bypass.hpp): the consumer waits on the NoOp's inputs directly, so the
// partitions lose the round trip of control _Send/_Recv pairs, and the NoOp stays for whoever
// targets it.
#include "graph/ir/control_bypass.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "test_util/placed_graph.hpp"

using namespace caflow;

namespace {

using testing::build_graph;
using testing::noop;
using testing::node_named;
using testing::placement_of;
using testing::send_nodes;
const std::string& ps = testing::ps_cpu;
const std::string& w0 = testing::worker0_cpu;

}  // namespace

TEST_CASE("control bypass: a worker's NoOp between ps nodes leaves the ps's consumer waiting on "
          "the ps") {
  // update_a, update_b (ps) -> group (worker) -> step (ps), and group -> train (worker).
  graph_def def;
  def.nodes = {noop("update_a", ps), noop("update_b", ps),
               noop("group", w0, {"^update_a", "^update_b"}), noop("step", ps, {"^group"}),
               noop("train", w0, {"^group"})};
  const graph g = build_graph(def);
  CHECK(send_nodes(g, placement_of(g)) == 3);  // two to the worker, one back

  bypassed_graph b = bypass_remote_noops(g, placement_of(g));
  CHECK(b.rewired == 1);
  CHECK(node_named(b.def, "step").inputs == std::vector<std::string>{"^update_a", "^update_b"});
  // The NoOp and its consumer on its own device are as they were.
  CHECK(node_named(b.def, "group").inputs == std::vector<std::string>{"^update_a", "^update_b"});
  CHECK(node_named(b.def, "train").inputs == std::vector<std::string>{"^group"});
  const graph after = build_graph(b.def);
  CHECK(send_nodes(after, placement_of(after)) == 2);  // the round trip is gone; `group` still hears from the ps
}

TEST_CASE("control bypass: nothing changes where it would add a crossing or lose an order") {
  SUBCASE("inputs on two devices") {
    graph_def def;
    def.nodes = {noop("a", ps), noop("b", w0), noop("group", w0, {"^a", "^b"}),
                 noop("step", ps, {"^group"})};
    const graph g = build_graph(def);
    bypassed_graph b = bypass_remote_noops(g, placement_of(g));
    CHECK(b.rewired == 0);
    CHECK(b.def.nodes.empty());  // nothing to rebuild
  }
  SUBCASE("a NoOp without inputs orders nothing to bypass") {
    graph_def def;
    def.nodes = {noop("group", w0), noop("step", ps, {"^group"})};
    const graph g = build_graph(def);
    CHECK(bypass_remote_noops(g, placement_of(g)).rewired == 0);
  }
  SUBCASE("a consumer that already waits on an input gets it once") {
    graph_def def;
    def.nodes = {noop("a", ps), noop("group", w0, {"^a"}), noop("step", ps, {"^a", "^group"})};
    const graph g = build_graph(def);
    bypassed_graph b = bypass_remote_noops(g, placement_of(g));
    CHECK(b.rewired == 1);
    CHECK(node_named(b.def, "step").inputs == std::vector<std::string>{"^a"});
  }
}
