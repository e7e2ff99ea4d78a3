#include "graph/ir/passes/cse.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/graph_def_lookup.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::count_op;
using caflow::testing::find_node;
using caflow::testing::check_tensor;

// A pure op with a Ref input: CSE must leave it alone although nothing marks it stateful.
CAFLOW_REGISTER_OP("TestRefRead").input("ref: Ref(T)").output("y: T").attr("T: type");

namespace {

using name_set = std::set<std::string, std::less<>>;

node_def nd(std::string name, std::string op, std::vector<std::string> inputs,
            std::map<std::string, attr_value> attrs = {}, std::string device = {}) {
  return {std::move(name), std::move(op), std::move(device), std::move(inputs), std::move(attrs)};
}

node_def float_const(std::string name, float v) {
  return nd(std::move(name), "Const", {},
            {{"value", tensor::scalar(v)}, {"dtype", dtype::float32}});
}

pass_stats run_cse(graph_def& g, name_set keep = {}) {
  return testing::run_pass<cse_pass>(g, std::move(keep));
}

std::vector<tensor> run_graph(const graph_def& g, const session::named_feed_list& feeds,
                              const std::vector<std::string>& fetches) {
  session s;
  const status st = s.extend(g);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  auto out = s.run_named(feeds, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return *out;
}

// The optimized graph must give bit-identical results to the original on the same feeds.
void check_same_results(const graph_def& before, const graph_def& after,
                        const session::named_feed_list& feeds,
                        const std::vector<std::string>& fetches) {
  const auto want = run_graph(before, feeds, fetches);
  const auto got = run_graph(after, feeds, fetches);
  REQUIRE(want.size() == got.size());
  for (size_t i = 0; i < want.size(); ++i) CHECK_MESSAGE(got[i].equals(want[i]), fetches[i]);
}

}  // namespace

TEST_CASE("cse collapses duplicate chains and keeps the results") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto y = ops::placeholder(root.with_op_name("y"), dtype::float32);
  auto a1 = ops::add(root.with_op_name("a1"), x, y);
  auto a2 = ops::add(root.with_op_name("a2"), x, y);
  auto m1 = ops::mul(root.with_op_name("m1"), a1, ops::constant(root.with_op_name("two1"), 2.0f));
  auto m2 = ops::mul(root.with_op_name("m2"), a2, ops::constant(root.with_op_name("two2"), 2.0f));
  ops::add(root.with_op_name("z"), m1, m2);
  REQUIRE(root.ok());
  const graph_def before = root.to_graph_def();
  graph_def g = before;

  const pass_stats stats = run_cse(g, {"x", "y", "z"});
  CHECK(stats.removed == 3);  // a2, two2, m2
  CHECK(g.nodes.size() == 6);
  CHECK_FALSE(find_node(g, "a2"));
  CHECK_FALSE(find_node(g, "two2"));
  CHECK_FALSE(find_node(g, "m2"));
  CHECK(find_node(g, "m1")->inputs == std::vector<std::string>{"a1", "two1"});
  CHECK(find_node(g, "z")->inputs == std::vector<std::string>{"m1", "m1"});

  const session::named_feed_list feeds = {{"x", tensor::from_vector<float>({1, 2})},
                                          {"y", tensor::from_vector<float>({3, 4})}};
  check_same_results(before, g, feeds, {"z"});
  // (x + y) * 2 twice: (1 + 3) * 4 = 16, (2 + 4) * 4 = 24.
  check_tensor(run_graph(g, feeds, {"z"})[0], tensor_shape{2}, std::vector<float>{16, 24});
}

TEST_CASE("cse ignores input order for commutative ops only") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto y = ops::placeholder(root.with_op_name("y"), dtype::float32);
  auto a1 = ops::add(root.with_op_name("a1"), x, y);
  auto a2 = ops::add(root.with_op_name("a2"), y, x);
  auto s1 = ops::sub(root.with_op_name("s1"), x, y);
  auto s2 = ops::sub(root.with_op_name("s2"), y, x);
  auto n1 = ops::add_n(root.with_op_name("n1"), {x, y, x});
  auto n2 = ops::add_n(root.with_op_name("n2"), {x, x, y});
  auto n3 = ops::add_n(root.with_op_name("n3"), {x, y, y});
  ops::pack(root.with_op_name("p"), {a1, a2, s1, s2, n1, n2, n3});
  REQUIRE(root.ok());
  const graph_def before = root.to_graph_def();
  graph_def g = before;

  CHECK(run_cse(g, {"x", "y", "p"}).removed == 2);
  CHECK_FALSE(find_node(g, "a2"));
  CHECK_FALSE(find_node(g, "n2"));
  CHECK(find_node(g, "s2"));
  CHECK(find_node(g, "n3"));
  // Kept nodes keep their own input order; only their consumers are rewired.
  CHECK(find_node(g, "n1")->inputs == std::vector<std::string>{"x", "y", "x"});
  CHECK(find_node(g, "p")->inputs ==
        std::vector<std::string>{"a1", "a1", "s1", "s2", "n1", "n1", "n3"});

  const session::named_feed_list feeds = {{"x", tensor::scalar(5.0f)}, {"y", tensor::scalar(2.0f)}};
  check_same_results(before, g, feeds, {"p"});
  check_tensor(run_graph(g, feeds, {"p"})[0], tensor_shape{7},
               std::vector<float>{7, 7, 3, -3, 12, 12, 9});
}

TEST_CASE("cse never merges random ops, placeholders or variables") {
  auto root = scope::new_root();
  auto r1 = ops::random_uniform(root.with_op_name("r1"), {64}, dtype::float32);
  auto r2 = ops::random_uniform(root.with_op_name("r2"), {64}, dtype::float32);
  ops::sub(root.with_op_name("dr"), r1, r2);
  auto p1 = ops::placeholder(root.with_op_name("p1"), dtype::float32);
  auto p2 = ops::placeholder(root.with_op_name("p2"), dtype::float32);
  ops::sub(root.with_op_name("dp"), p1, p2);
  auto v1 = ops::variable(root.with_op_name("v1"), tensor_shape{2}, dtype::float32);
  auto v2 = ops::variable(root.with_op_name("v2"), tensor_shape{2}, dtype::float32);
  auto init = ops::constant(root.with_op_name("init"), std::vector<float>{1, 2}, tensor_shape{2});
  ops::assign(root.with_op_name("i1"), v1, init);
  ops::assign(root.with_op_name("i1_again"), v1, init);
  ops::assign(root.with_op_name("i2"), v2,
              ops::constant(root.with_op_name("init2"), std::vector<float>{5, 6}, tensor_shape{2}));
  ops::identity(root.with_op_name("read1"), v1);
  ops::identity(root.with_op_name("read2"), v2);
  REQUIRE(root.ok());
  graph_def g = root.to_graph_def();
  const size_t nodes_before = g.nodes.size();

  // Only the two shape constants of the random ops are pure duplicates.
  CHECK(run_cse(g, {"dr", "dp", "i1", "i1_again", "i2", "read1", "read2"}).removed == 1);
  CHECK(g.nodes.size() == nodes_before - 1);
  CHECK(count_op(g, "RandomUniform") == 2);
  CHECK(count_op(g, "Placeholder") == 2);
  CHECK(count_op(g, "VariableV2") == 2);
  CHECK(count_op(g, "Assign") == 3);
  CHECK(find_node(g, "r1")->inputs == find_node(g, "r2")->inputs);  // one shape for both

  session s;
  REQUIRE(s.extend(g).ok());
  // Two unseeded streams: merged, their difference would be all zeros.
  auto dr = s.run_named({}, {"dr"});
  REQUIRE(dr.ok());
  const auto diffs = dr->at(0).to_vector<float>();
  CHECK(std::any_of(diffs.begin(), diffs.end(), [](float d) { return d != 0; }));
  auto dp = s.run_named({{"p1", tensor::scalar(3.0f)}, {"p2", tensor::scalar(1.0f)}}, {"dp"});
  REQUIRE(dp.ok());
  check_tensor(dp->at(0), tensor_shape{}, std::vector<float>{2});
  REQUIRE(s.run_named({}, {}, {"i1", "i2"}).ok());
  auto reads = s.run_named({}, {"read1", "read2"});
  REQUIRE(reads.ok());
  check_tensor(reads->at(0), tensor_shape{2}, std::vector<float>{1, 2});
  check_tensor(reads->at(1), tensor_shape{2}, std::vector<float>{5, 6});
}

TEST_CASE("cse leaves ops with a ref edge alone") {
  graph_def g;
  g.nodes = {nd("v", "VariableV2", {}, {{"shape", partial_shape{2}}, {"dtype", dtype::float32}}),
             nd("t1", "TestRefRead", {"v"}, {{"T", dtype::float32}}),
             nd("t2", "TestRefRead", {"v"}, {{"T", dtype::float32}})};
  CHECK(run_cse(g).removed == 0);
  CHECK(g.nodes.size() == 3);
}

TEST_CASE("cse keeps protected duplicates and prefers them as survivors") {
  auto build = [] {
    auto root = scope::new_root();
    auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
    auto a1 = ops::add(root.with_op_name("a1"), x, x);
    auto a2 = ops::add(root.with_op_name("a2"), x, x);
    ops::neg(root.with_op_name("n1"), a1);
    ops::neg(root.with_op_name("n2"), a2);
    return root.to_graph_def();
  };
  graph_def both = build();
  CHECK(run_cse(both, {"x", "a1", "a2", "n1", "n2"}).removed == 0);
  CHECK(both == build());

  // Only the later duplicate is protected: it survives, the earlier one's consumer reads it.
  graph_def later = build();
  CHECK(run_cse(later, {"x", "a2", "n1", "n2"}).removed == 1);
  CHECK_FALSE(find_node(later, "a1"));
  CHECK(find_node(later, "n1")->inputs == std::vector<std::string>{"a2"});

  // The earlier one is protected: the later one goes, its consumer reads the survivor.
  graph_def earlier = build();
  CHECK(run_cse(earlier, {"x", "a1", "n1", "n2"}).removed == 1);
  CHECK_FALSE(find_node(earlier, "a2"));
  CHECK(find_node(earlier, "n2")->inputs == std::vector<std::string>{"a1"});
}

TEST_CASE("cse compares control inputs as a set and rewires control consumers") {
  graph_def g;
  g.nodes = {float_const("c", 1),
             float_const("d", 2),
             nd("g1", "NoOp", {"^c"}),
             nd("g2", "NoOp", {"^d"}),
             nd("a1", "Add", {"c", "d", "^g1", "^g2"}, {{"T", dtype::float32}}),
             nd("a2", "Add", {"c", "d", "^g2", "^g1"}, {{"T", dtype::float32}}),
             nd("a3", "Add", {"c", "d", "^g1"}, {{"T", dtype::float32}}),
             nd("u", "Identity", {"a2", "^a3"}, {{"T", dtype::float32}}),
             nd("k", "NoOp", {"^a1", "^a2"})};
  const graph_def before = g;
  CHECK(run_cse(g, {"u", "k"}).removed == 1);
  CHECK_FALSE(find_node(g, "a2"));
  CHECK(find_node(g, "a3"));  // waits on g1 only
  CHECK(find_node(g, "g2"));  // waits on another node than g1
  CHECK(find_node(g, "u")->inputs == std::vector<std::string>{"a1", "^a3"});
  CHECK(find_node(g, "k")->inputs == std::vector<std::string>{"^a1"});
  check_same_results(before, g, {}, {"u"});
}

TEST_CASE("cse compares attrs with defaults filled in, tensors in full, and devices") {
  auto iota20 = [](float last) {
    std::vector<float> v(20);
    for (int i = 0; i < 20; ++i) v[i] = static_cast<float>(i);
    v[19] = last;
    return tensor::from_vector<float>(v);
  };
  const auto vec_const = [](std::string name, const tensor& t) {
    return nd(std::move(name), "Const", {}, {{"value", t}, {"dtype", dtype::float32}});
  };
  graph_def g;
  g.nodes = {
      vec_const("t1", iota20(19)),
      vec_const("t2", iota20(-1)),
      vec_const("t3", iota20(19)),
      float_const("x", 1),
      float_const("y", 2),
      nd("e1", "Equal", {"x", "y"}, {{"T", dtype::float32}}),
      nd("e2", "Equal", {"x", "y"}, {{"T", dtype::float32}, {"incompatible_shape_error", true}}),
      nd("e3", "Equal", {"x", "y"}, {{"T", dtype::float32}, {"incompatible_shape_error", false}}),
      nd("m1", "Mul", {"x", "y"}, {{"T", dtype::float32}}, "/device:CPU:0"),
      nd("m2", "Mul", {"x", "y"}, {{"T", dtype::float32}}),
      nd("m3", "Mul", {"y", "x"}, {{"T", dtype::float32}}, "/device:CPU:0")};
  CHECK(run_cse(g).removed == 3);
  CHECK(find_node(g, "t1"));
  CHECK(find_node(g, "t2"));  // differs from t1 only after the elements to_string shows
  CHECK_FALSE(find_node(g, "t3"));
  CHECK_FALSE(find_node(g, "e2"));  // spells out e1's default
  CHECK(find_node(g, "e3"));
  CHECK(find_node(g, "m2"));  // asks for no device
  CHECK_FALSE(find_node(g, "m3"));
}

TEST_CASE("cse through the pipeline reports node counts and can be switched off") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  ops::add(root.with_op_name("z"), ops::square(root.with_op_name("q1"), x),
           ops::square(root.with_op_name("q2"), x));
  graph_def g = root.to_graph_def();
  const graph_def before = g;

  pass_context ctx;
  ctx.protected_nodes = {"x", "z"};
  auto stats = pass_pipeline::standard().run(g, ctx);
  REQUIRE(stats.ok());
  // No evaluator: constant folding runs and changes nothing.
  REQUIRE(stats->size() == 2);
  const pass_stats& cse = stats->at(0);
  CHECK(cse.pass == "cse");
  CHECK(cse.nodes_before == 4);
  CHECK(cse.nodes_after == 3);
  CHECK(cse.removed == 1);
  CHECK(cse.folded == 0);
  CHECK(stats->at(1).pass == "constant_folding");
  CHECK(stats->at(1).nodes_after == 3);
  CHECK(summarize(*stats) ==
        "cse: 4 -> 3 nodes (1 removed); constant_folding: 3 -> 3 nodes (0 removed)");

  graph_def untouched = before;
  ctx.options.cse = false;
  ctx.options.disabled = {"constant_folding"};
  stats = pass_pipeline::standard().run(untouched, ctx);
  REQUIRE(stats.ok());
  CHECK(stats->empty());
  CHECK(untouched == before);
}

TEST_CASE("the pipeline reports a pass that drops a protected node") {
  // A deliberately broken pass: the pipeline must name it and keep the input graph.
  class drop_first final : public graph_pass {
   public:
    std::string name() const override { return "drop_first"; }
    status run(graph_def& g, pass_context&, pass_stats&) override {
      g.nodes.erase(g.nodes.begin());
      return {};
    }
  };
  graph_def g;
  g.nodes = {float_const("c", 1), float_const("d", 2)};
  const graph_def before = g;
  pass_pipeline p;
  p.add(std::make_unique<drop_first>());
  CHECK(p.pass_names() == std::vector<std::string>{"drop_first"});
  pass_context ctx;
  ctx.protected_nodes = {"c", "not_in_graph"};
  auto r = p.run(g, ctx);
  REQUIRE_FALSE(r.ok());
  CHECK(r.get_status().code() == error_code::internal);
  CHECK(r.get_status().message() == "graph pass 'drop_first' removed protected node 'c'");
  CHECK(g == before);
}

TEST_CASE("protected_nodes_for names the run signature's nodes and every stateful node") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto v = ops::variable(root.with_op_name("v"), tensor_shape{}, dtype::float32);
  auto init =
      ops::assign(root.with_op_name("init"), v, ops::constant(root.with_op_name("c"), 1.0f));
  ops::add(root.with_op_name("y"), x, ops::square(root.with_op_name("sq"), x));
  auto full = graph::build(root.to_graph_def());
  REQUIRE(full.ok());
  const run_signature sig{{"x:0"}, {"y"}, {"init"}};
  auto pruned = prune_for_run(*full, sig);
  REQUIRE(pruned.ok());
  CHECK(protected_nodes_for(pruned->def, sig) ==
        name_set{"_arg_0", "_retval_0", "init", "v", "x", "y"});
}
