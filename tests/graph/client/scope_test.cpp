#include <doctest/doctest.h>

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"

using namespace caflow;

namespace {
const node_def* find(const graph_def& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}
}  // namespace

TEST_CASE("names are unique and follow name scopes") {
  auto root = scope::new_root();
  auto a = ops::constant(root, 1.0f);
  auto b = ops::constant(root, 2.0f);
  auto layer = root.new_sub_scope("layer");
  auto c = ops::constant(layer, 3.0f);
  auto named = ops::constant(layer.with_op_name("bias"), 4.0f);
  auto again = ops::constant(layer.with_op_name("bias"), 5.0f);
  auto layer2 = root.new_sub_scope("layer");
  auto d = ops::constant(layer2, 6.0f);
  CHECK(a.node == "Const");
  CHECK(b.node == "Const_1");
  CHECK(c.node == "layer/Const");
  CHECK(named.node == "layer/bias");
  CHECK(again.node == "layer/bias_1");
  CHECK(d.node == "layer_1/Const");
  CHECK(root.ok());
}

TEST_CASE("device, control dependency and colocation scopes annotate nodes") {
  auto root = scope::new_root();
  auto a = ops::constant(root.with_op_name("a"), 1.0f);
  auto ps = root.with_device("/job:ps/task:0");
  auto v = ops::identity(ps.with_op_name("v"), a);
  auto init = ops::no_op(root.with_op_name("init"));
  auto after = root.with_control_dependencies({init});
  auto r = ops::identity(after.with_op_name("r").colocate_with(v), a);
  auto plain = ops::identity(after.with_no_control_dependencies().with_op_name("plain"), a);
  graph_def g = root.to_graph_def();
  CHECK(find(g, "v")->device == "/job:ps/task:0");
  CHECK(find(g, "a")->device.empty());
  CHECK(find(g, "r")->inputs == std::vector<std::string>{"a", "^init"});
  CHECK(find(g, "r")->attrs.at("_class").get<std::vector<std::string>>() ==
        std::vector<std::string>{"loc:@v"});
  CHECK(find(g, "plain")->inputs == std::vector<std::string>{"a"});
  CHECK(r.valid());
}

TEST_CASE("type attrs are inferred from inputs; shapes are inferred as nodes are added") {
  auto root = scope::new_root();
  auto a = ops::constant(root.with_op_name("a"), tensor::from_vector<int32_t>({1, 2, 3}));
  auto i = ops::identity(root.with_op_name("i"), a);
  CHECK(i.type == dtype::int32);
  CHECK(root.shape_of(i).to_string() == "[3]");
  graph_def g = root.to_graph_def();
  CHECK(find(g, "i")->attrs.at("T").get<dtype>() == dtype::int32);
  auto p = ops::placeholder(root.with_op_name("p"), dtype::float32, {.shape = {-1, 4}});
  CHECK(root.shape_of(p).to_string() == "[?,4]");
}

TEST_CASE("the first error sticks and names the node; later nodes are skipped") {
  auto root = scope::new_root();
  auto a = ops::constant(root.with_op_name("a"), 1.0f);
  auto bad = node_builder(root.with_op_name("nope"), "NotAnOp").finalize();
  CHECK_FALSE(bad.valid());
  auto later = ops::identity(root, a);
  CHECK_FALSE(later.valid());
  REQUIRE_FALSE(root.ok());
  CHECK(root.get_status().message() == "op 'NotAnOp' is not registered");
  auto r2 = scope::new_root();
  auto x = ops::constant(r2, 1.0f);
  auto wrong = node_builder(r2.with_op_name("w"), "Identity").input(x).input(x).finalize();
  CHECK_FALSE(wrong.valid());
  CHECK(r2.get_status().message() == "node 'w' (Identity): expects 1 input args, got 2");
  auto r3 = scope::new_root();
  auto y = ops::constant(r3, std::vector<float>{1, 2, 3}, {3});
  ops::placeholder_with_default(r3.with_op_name("pwd"), y, partial_shape{2});
  CHECK(r3.get_status().message().find("node 'pwd' (PlaceholderWithDefault): default value of shape [3]") == 0);
}
