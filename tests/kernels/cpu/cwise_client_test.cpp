// The ops:: client functions of the element-wise ops: node, attrs and inferred shapes.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"

using namespace caflow;

namespace {

// A copy: the graph_def a scope hands out is a temporary.
node_def find(const scope& s, const std::string& name) {
  for (const auto& n : s.to_graph_def().nodes)
    if (n.name == name) return n;
  FAIL("no node ", name);
  return {};
}

output placeholder(const scope& s, dtype t, partial_shape shape) {
  return ops::placeholder(s, t, {.shape = std::move(shape)});
}

}  // namespace

TEST_CASE("binary ops build their TF op with T inferred and broadcast shapes") {
  using binary_fn = std::function<output(const scope&, const output&, const output&)>;
  const std::vector<std::pair<std::string, binary_fn>> fns = {
      {"Add", ops::add},         {"AddV2", ops::add_v2},     {"Sub", ops::sub},
      {"Mul", ops::mul},         {"RealDiv", ops::real_div}, {"Maximum", ops::maximum},
      {"Minimum", ops::minimum}, {"Pow", ops::pow},
  };
  for (const auto& [op, fn] : fns) {
    CAPTURE(op);
    auto root = scope::new_root();
    auto x = placeholder(root, dtype::float64, partial_shape{-1, 3});
    auto y = ops::constant(root, std::vector<double>{1, 2, 3}, {3});
    auto z = fn(root, x, y);
    REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
    CHECK(z.type == dtype::float64);
    CHECK(root.shape_of(z) == partial_shape{-1, 3});
    const node_def n = find(root, z.node);
    CHECK(n.op == op);
    CHECK(n.attrs.at("T") == attr_value(dtype::float64));
    CHECK(n.inputs == std::vector<std::string>{x.node, y.node});
  }
}

TEST_CASE("unary ops keep shape and dtype") {
  using unary_fn = std::function<output(const scope&, const output&)>;
  const std::vector<std::pair<std::string, unary_fn>> fns = {
      {"Neg", ops::neg},     {"Square", ops::square}, {"Sqrt", ops::sqrt},
      {"Rsqrt", ops::rsqrt}, {"Exp", ops::exp},       {"Log", ops::log},
      {"Abs", ops::abs},     {"Sign", ops::sign},     {"Reciprocal", ops::reciprocal},
      {"Floor", ops::floor},
  };
  for (const auto& [op, fn] : fns) {
    CAPTURE(op);
    auto root = scope::new_root();
    auto y = fn(root, placeholder(root, dtype::float32, partial_shape{2, -1}));
    REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
    CHECK(y.type == dtype::float32);
    CHECK(root.shape_of(y) == partial_shape{2, -1});
    CHECK(find(root, y.node).op == op);
  }
}

TEST_CASE("comparisons give bool; Equal carries incompatible_shape_error") {
  auto root = scope::new_root();
  auto a = placeholder(root, dtype::int32, partial_shape{4, 1});
  auto b = placeholder(root, dtype::int32, partial_shape{5});
  for (const output& o :
       {ops::greater(root, a, b), ops::less(root, a, b), ops::equal(root, a, b)}) {
    CHECK(o.type == dtype::boolean);
    CHECK(root.shape_of(o) == partial_shape{4, 5});
  }
  auto loose = ops::equal(root, a, placeholder(root, dtype::int32, partial_shape{2, 2}),
                          {.incompatible_shape_error = false});
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  CHECK_FALSE(root.shape_of(loose).rank_known());
  CHECK(find(root, loose.node).attrs.at("incompatible_shape_error") == attr_value(false));
}

TEST_CASE("add_n, select and cast") {
  auto root = scope::new_root();
  auto x = placeholder(root, dtype::float32, partial_shape{-1, 3});
  auto y = placeholder(root, dtype::float32, partial_shape{2, -1});
  auto sum = ops::add_n(root, {x, y, x});
  CHECK(root.shape_of(sum) == partial_shape{2, 3});
  CHECK(find(root, sum.node).attrs.at("N") == attr_value(int64_t{3}));

  auto cond = placeholder(root, dtype::boolean, partial_shape{4});
  auto rows = ops::select(root, cond, x, x);
  CHECK(rows.type == dtype::float32);
  CHECK(root.shape_of(rows) == partial_shape{4, 3});  // the condition fixes t's first dim

  auto c = ops::cast(root, x, dtype::int32);
  CHECK(c.type == dtype::int32);
  CHECK(root.shape_of(c) == partial_shape{-1, 3});
  const node_def n = find(root, c.node);
  CHECK(n.attrs.at("SrcT") == attr_value(dtype::float32));
  CHECK(n.attrs.at("DstT") == attr_value(dtype::int32));
  CHECK(n.attrs.at("Truncate") == attr_value(false));
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
}

TEST_CASE("definite shape clashes fail at graph construction, naming the node and shapes") {
  {
    auto root = scope::new_root();
    ops::mul(root.with_op_name("scale"), ops::constant(root, std::vector<float>(6), {2, 3}),
             ops::constant(root, std::vector<float>(4), {4}));
    REQUIRE_FALSE(root.ok());
    const std::string msg = root.get_status().message();
    CHECK(msg.find("scale") != std::string::npos);
    CHECK(msg.find("[2,3]") != std::string::npos);
    CHECK(msg.find("[4]") != std::string::npos);
  }
  {
    auto root = scope::new_root();
    auto t = placeholder(root, dtype::float32, partial_shape{2, 3});
    auto e = placeholder(root, dtype::float32, partial_shape{3, 3});
    ops::select(root.with_op_name("pick"), placeholder(root, dtype::boolean, tensor_shape{}), t, e);
    REQUIRE_FALSE(root.ok());
    CHECK(root.get_status().message().find("pick") != std::string::npos);
    CHECK(root.get_status().message().find("'t' and 'e'") != std::string::npos);
  }
  {
    auto root = scope::new_root();
    auto t = placeholder(root, dtype::float32, partial_shape{2, 3});
    ops::select(root, placeholder(root, dtype::boolean, partial_shape{3}), t, t);
    REQUIRE_FALSE(root.ok());
    CHECK(root.get_status().message().find("first dimension") != std::string::npos);
  }
  {
    auto root = scope::new_root();
    ops::sqrt(root, placeholder(root, dtype::int32, tensor_shape{}));
    REQUIRE_FALSE(root.ok());
    CHECK(root.get_status().message().find("int32") != std::string::npos);
  }
}

TEST_CASE("unknown shapes stay unknown") {
  auto root = scope::new_root();
  auto u = ops::placeholder(root, dtype::float32);
  auto k = placeholder(root, dtype::float32, partial_shape{3});
  CHECK_FALSE(root.shape_of(ops::add(root, u, k)).rank_known());
  CHECK(root.shape_of(ops::add(root, placeholder(root, dtype::float32, partial_shape{-1, 1}), k)) ==
        partial_shape{-1, 3});
  CHECK_FALSE(
      root.shape_of(ops::select(root, ops::placeholder(root, dtype::boolean), u, u)).rank_known());
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
}
