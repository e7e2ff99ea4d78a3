#include "graph/ir/prune.hpp"

#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "test_util/graph_def_lookup.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_tensor;
using caflow::testing::find_node;

namespace {

node_def make_node(std::string name, std::string op, std::vector<std::string> inputs,
                   std::map<std::string, attr_value> attrs) {
  node_def n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  return n;
}

// TF.js's shape of a model input: constants that hang on the Placeholder by control edge.
graph_def input_with_control_consumers() {
  graph_def g;
  g.nodes.push_back(make_node("input", "Placeholder", {},
                              {{"dtype", dtype::float32}, {"shape", partial_shape::unknown()}}));
  g.nodes.push_back(make_node("scale", "Const", {"^input"},
                              {{"dtype", dtype::float32}, {"value", tensor::scalar(3.0f)}}));
  g.nodes.push_back(make_node("scaled", "Mul", {"scale", "input"}, {{"T", dtype::float32}}));
  return g;
}

}  // namespace

TEST_CASE("a fed Placeholder does not run: its control edges wait on the feed instead") {
  auto full = graph::build(input_with_control_consumers());
  REQUIRE_MESSAGE(full.ok(), full.get_status().to_string());
  auto pruned = prune_for_run(*full, {.feeds = {"input:0"}, .fetches = {"scaled:0"}, .targets = {}});
  REQUIRE_MESSAGE(pruned.ok(), pruned.get_status().to_string());
  CHECK(find_node(pruned->def, "input") == nullptr);
  const node_def* scale = find_node(pruned->def, "scale");
  REQUIRE(scale != nullptr);
  CHECK(scale->inputs == std::vector<std::string>{"^_arg_0"});

  session sess;
  REQUIRE(sess.extend(input_with_control_consumers()).ok());
  auto out = sess.run_named({{"input:0", tensor::from_vector<float>({1, 2}, {2})}}, {"scaled:0"});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  check_tensor(out->at(0), tensor_shape{2}, std::vector<float>{3, 6});
}

TEST_CASE("an unfed Placeholder behind a control edge is still refused by name") {
  session sess;
  REQUIRE(sess.extend(input_with_control_consumers()).ok());
  auto out = sess.run_named({}, {"scale:0"});
  REQUIRE_FALSE(out.ok());
  CHECK(out.get_status().message().find("you must feed a value for placeholder 'input'") !=
        std::string::npos);
}
