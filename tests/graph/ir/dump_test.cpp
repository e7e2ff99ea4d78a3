#include "graph/ir/dump.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/ops.hpp"

using namespace caflow;

namespace {

const std::string worker_cpu = "/job:w/replica:0/task:0/device:CPU:0";
const std::string ps_cpu = "/job:ps/replica:0/task:0/device:CPU:0";

node_def nd(std::string name, std::string op, std::vector<std::string> inputs,
            std::map<std::string, attr_value> attrs = {}, std::string device = {}) {
  return {std::move(name), std::move(op), std::move(device), std::move(inputs), std::move(attrs)};
}

// Defined out of order ("sum" before its inputs) on two devices, with a control edge.
graph_def small_graph() {
  graph_def g;
  g.nodes = {
      nd("sum", "Add", {"a", "b"}, {{"T", dtype::float32}}, worker_cpu),
      nd("a", "Const", {}, {{"value", tensor::scalar(1.0f)}, {"dtype", dtype::float32}},
         worker_cpu),
      nd("b", "Const", {},
         {{"value", tensor::from_vector<float>({2.5f, -1.0f})}, {"dtype", dtype::float32}}, ps_cpu),
      nd("init", "NoOp", {"^sum"}),
  };
  return g;
}

// The contents of every double-quoted DOT string in `dot`, unescaped; fails the test on an
// unterminated string.
std::vector<std::string> quoted_strings(const std::string& dot) {
  std::vector<std::string> out;
  for (size_t i = 0; i < dot.size(); ++i) {
    if (dot[i] != '"') continue;
    std::string s;
    for (++i; i < dot.size() && dot[i] != '"'; ++i) {
      if (dot[i] == '\\' && i + 1 < dot.size()) {
        ++i;
        s += dot[i] == 'n' ? '\n' : dot[i];
      } else {
        s += dot[i];
      }
    }
    REQUIRE_MESSAGE(i < dot.size(), "unterminated string in " << dot);
    out.push_back(std::move(s));
  }
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Runs Graphviz on `dot` when it is installed; true when it accepted the input (or is absent).
bool graphviz_accepts(const std::string& dot) {
  if (std::system("command -v dot > /dev/null 2>&1") != 0) {
    MESSAGE("Graphviz is not installed: DOT syntax checked by the tokenizer only");
    return true;
  }
  const std::string path = "caflow_dump_test_" + std::to_string(::getpid()) + ".dot";
  std::ofstream(path) << dot;
  const int rc = std::system(("dot -Tsvg " + path + " -o /dev/null").c_str());
  std::remove(path.c_str());
  return rc == 0;
}

}  // namespace

TEST_CASE("to_text: one line per node, inputs first, attrs sorted, device last") {
  CHECK(to_text(small_graph()) ==
        "a = Const[dtype=float32, value=float32[] {1}]() @/job:w/replica:0/task:0/device:CPU:0\n"
        "b = Const[dtype=float32, value=float32[2] {2.5, -1}]() "
        "@/job:ps/replica:0/task:0/device:CPU:0\n"
        "sum = Add[T=float32](a, b) @/job:w/replica:0/task:0/device:CPU:0\n"
        "init = NoOp(^sum)\n");
  CHECK(to_text(graph_def{}).empty());
}

TEST_CASE("to_text shows graphs that graph::build would reject") {
  graph_def g;
  g.nodes = {nd("c1", "NoSuchOp", {"c2:1"}), nd("c2", "NoSuchOp", {"c1"}),
             nd("d", "NoSuchOp", {"missing", "^c1"}, {{"label", "x"}})};
  // c1 and c2 form a cycle, so they come last; d waits on c1 so it follows them.
  CHECK(to_text(g) ==
        "c1 = NoSuchOp(c2:1)\nc2 = NoSuchOp(c1)\nd = NoSuchOp[label=\"x\"](missing, ^c1)\n");
}

TEST_CASE("to_dot: clusters per device, dtype labels, dashed control edges") {
  const std::string dot = to_dot(small_graph());
  CHECK(dot ==
        "digraph \"caflow\" {\n"
        "  node [shape=box];\n"
        "  \"init\" [label=\"init\\nNoOp\"];\n"
        "  subgraph \"cluster_0\" {\n"
        "    label=\"/job:ps/replica:0/task:0/device:CPU:0\";\n"
        "    \"b\" [label=\"b\\nConst\"];\n"
        "  }\n"
        "  subgraph \"cluster_1\" {\n"
        "    label=\"/job:w/replica:0/task:0/device:CPU:0\";\n"
        "    \"sum\" [label=\"sum\\nAdd\"];\n"
        "    \"a\" [label=\"a\\nConst\"];\n"
        "  }\n"
        "  \"a\" -> \"sum\" [label=\"float32\"];\n"
        "  \"b\" -> \"sum\" [label=\"float32\"];\n"
        "  \"sum\" -> \"init\" [style=dashed];\n"
        "}\n");
  CHECK(graphviz_accepts(dot));

  const std::string flat =
      to_dot(small_graph(), {.graph_name = "g", .cluster_by_device = false, .edge_dtypes = false});
  CHECK(flat.find("subgraph") == std::string::npos);
  CHECK(flat.find("  \"a\" -> \"sum\";\n") != std::string::npos);
  CHECK(flat.starts_with("digraph \"g\" {\n"));
}

TEST_CASE("to_dot labels outputs other than 0 with their port") {
  auto root = scope::new_root();
  auto parts = ops::split(root.with_op_name("parts"), 0,
                          ops::constant(root, std::vector<int32_t>{1, 2}, tensor_shape{2}), 2);
  ops::add(root.with_op_name("sum"), parts[0], parts[1]);
  REQUIRE(root.ok());
  const std::string dot = to_dot(root.to_graph_def());
  CHECK(dot.find("  \"parts\" -> \"sum\" [label=\"int32\"];\n") != std::string::npos);
  CHECK(dot.find("  \"parts\" -> \"sum\" [label=\"1: int32\"];\n") != std::string::npos);
  CHECK(graphviz_accepts(dot));
}

TEST_CASE("to_dot escapes quotes and backslashes in names, devices and attrs") {
  graph_def g;
  g.nodes = {nd("say \"hi\"", "NoOp", {}, {{"_note", "a \"quoted\" \\ value"}}, "/job:\"odd\""),
             nd("back\\slash", "NoOp", {"^say \"hi\""})};
  const std::string dot = to_dot(g, {.show_attrs = true});
  const auto strings = quoted_strings(dot);
  CHECK(contains(strings, "say \"hi\""));
  CHECK(contains(strings, "back\\slash"));
  CHECK(contains(strings, "/job:\"odd\""));
  CHECK(contains(strings, "say \"hi\"\nNoOp\n_note=\"a \"quoted\" \\ value\""));
  CHECK(dot.find("\"say \\\"hi\\\"\" -> \"back\\\\slash\" [style=dashed];") != std::string::npos);
  CHECK(graphviz_accepts(dot));
}

TEST_CASE("to_dot with attrs cuts long values") {
  graph_def g;
  g.nodes = {nd("n", "NoOp", {}, {{"_long", std::string(100, 'x')}})};
  const auto strings = quoted_strings(to_dot(g, {.show_attrs = true}));
  CHECK(contains(strings, "n\nNoOp\n_long=\"" + std::string(50, 'x') + "..."));
}

TEST_CASE("placement_table: aligned columns sorted by device then name") {
  CHECK(placement_table(small_graph()) ==
        "node  op     device\n"
        "init  NoOp   (none)\n"
        "b     Const  /job:ps/replica:0/task:0/device:CPU:0\n"
        "a     Const  /job:w/replica:0/task:0/device:CPU:0\n"
        "sum   Add    /job:w/replica:0/task:0/device:CPU:0\n");
  CHECK(placement_table(graph_def{}) == "node  op  device\n");
}
