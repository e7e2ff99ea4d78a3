#include "graph/ir/passes/constant_folding.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "actors/executor/executor.hpp"
#include "actors/session/session.hpp"
#include "graph/client/node_builder.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/ir/shape_inference.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "test_util/graph_def_lookup.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::count_op;
using caflow::testing::find_node;
using caflow::testing::check_error;
using caflow::testing::check_tensor;

// Test-only ops, registered in this executable alone.
namespace {

// A pure op whose kernel always fails, as a division by zero would.
class fold_fail_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    ctx.set_status(errors::invalid_argument("cannot compute this"));
  }
};

// Identity whose op has no shape function, so its output size is known only once it runs.
class unknown_shape_identity_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override { ctx.set_output(0, ctx.input(0)); }
};

}  // namespace

CAFLOW_REGISTER_OP("TestFoldFail")
    .input("x: float32")
    .output("y: float32")
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("TestUnknownShape").input("x: T").output("y: T").attr("T: type");
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TestFoldFail").device(device_cpu), fold_fail_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TestUnknownShape").device(device_cpu),
                       unknown_shape_identity_op);

namespace {

using name_set = std::set<std::string, std::less<>>;

// The evaluator a runtime supplies, here through a throwaway local session. Counts its calls.
struct session_evaluator {
  int calls = 0;
  std::vector<graph_def> seen;

  subgraph_evaluator fn() {
    return [this](const graph_def& sub,
                  const std::vector<std::string>& fetches) -> status_or<std::vector<tensor>> {
      ++calls;
      seen.push_back(sub);
      session s;
      CAFLOW_RETURN_IF_ERROR(s.extend(sub));
      return s.run_named({}, fetches);
    };
  }
};

// The evaluator pass.hpp shows sessions: the subgraph run once by an executor on the host CPU.
subgraph_evaluator executor_evaluator(device& cpu) {
  return [&cpu](const graph_def& sub,
                const std::vector<std::string>& fetches) -> status_or<std::vector<tensor>> {
    CAFLOW_ASSIGN_OR_RETURN(graph whole, graph::build(sub));
    CAFLOW_ASSIGN_OR_RETURN(pruned_graph p, prune_for_run(whole, run_signature{{}, fetches, {}}));
    CAFLOW_ASSIGN_OR_RETURN(graph g, graph::build(std::move(p.def), {.infer_shapes = false}));
    CAFLOW_ASSIGN_OR_RETURN(auto exec,
                            executor::create(std::make_shared<const graph>(std::move(g)), cpu));
    call_frame frame;
    frame.rets.resize(fetches.size());
    cancellation_manager cancel;
    CAFLOW_RETURN_IF_ERROR(exec->run({0, &frame, &cancel, nullptr}));
    return std::move(frame.rets);
  };
}

struct optimized {
  graph_def def;
  std::vector<pass_stats> stats;
  int evaluations = 0;
  std::vector<graph_def> evaluated;
};

// The standard pipeline with a session evaluator; the result must still be a valid graph.
optimized optimize(const graph_def& g, name_set keep, optimizer_options opts = {}) {
  session_evaluator eval;
  pass_context ctx;
  ctx.options = std::move(opts);
  ctx.protected_nodes = std::move(keep);
  ctx.evaluate = eval.fn();
  optimized out{g, {}, 0, {}};
  auto stats = pass_pipeline::standard().run(out.def, ctx);
  REQUIRE_MESSAGE(stats.ok(), stats.get_status().to_string());
  auto rebuilt = graph::build(out.def);
  REQUIRE_MESSAGE(rebuilt.ok(), rebuilt.get_status().to_string());
  out.stats = std::move(*stats);
  out.evaluations = eval.calls;
  out.evaluated = std::move(eval.seen);
  return out;
}

const pass_stats& folding_stats(const optimized& o) {
  REQUIRE(!o.stats.empty());
  REQUIRE(o.stats.back().pass == "constant_folding");
  return o.stats.back();
}

const tensor& const_value(const graph_def& g, std::string_view name) {
  const node_def* n = find_node(g, name);
  REQUIRE_MESSAGE(n, name);
  REQUIRE_MESSAGE(n->op == "Const", name);
  return n->attrs.at("value").get<tensor>();
}

status_or<std::vector<tensor>> try_run(const graph_def& g, const session::named_feed_list& feeds,
                                       const std::vector<std::string>& fetches,
                                       const std::vector<std::string>& init_targets = {}) {
  session s;
  CAFLOW_RETURN_IF_ERROR(s.extend(g));
  if (!init_targets.empty()) CAFLOW_RETURN_IF_ERROR(s.run_named({}, {}, init_targets).get_status());
  return s.run_named(feeds, fetches);
}

std::vector<tensor> run_graph(const graph_def& g, const session::named_feed_list& feeds,
                              const std::vector<std::string>& fetches,
                              const std::vector<std::string>& init_targets = {}) {
  auto out = try_run(g, feeds, fetches, init_targets);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return *out;
}

// The optimized graph must give bit-identical results to the original on the same feeds.
void check_same_results(const graph_def& before, const graph_def& after,
                        const session::named_feed_list& feeds,
                        const std::vector<std::string>& fetches,
                        const std::vector<std::string>& init_targets = {}) {
  const auto want = run_graph(before, feeds, fetches, init_targets);
  const auto got = run_graph(after, feeds, fetches, init_targets);
  REQUIRE(want.size() == got.size());
  for (size_t i = 0; i < want.size(); ++i) CHECK_MESSAGE(got[i].equals(want[i]), fetches[i]);
}

}  // namespace

TEST_CASE("a constant chain becomes one Const under the name its consumer reads") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto s = ops::add(root.with_op_name("s"), ops::constant(root.with_op_name("c1"), 1.0f),
                    ops::constant(root.with_op_name("c2"), 2.0f));
  auto m = ops::mul(root.with_op_name("m"), s, ops::constant(root.with_op_name("c3"), 3.0f));
  ops::add(root.with_op_name("y"), x, m);
  REQUIRE(root.ok());
  const graph_def before = root.to_graph_def();

  const optimized o = optimize(before, {"x", "y"});
  const pass_stats& st = folding_stats(o);
  CHECK(st.nodes_before == 7);
  CHECK(st.nodes_after == 3);
  CHECK(st.folded == 1);
  CHECK(st.removed == 4);  // c1, c2, c3, s; m is replaced in place
  CHECK(o.evaluations == 1);
  check_tensor(const_value(o.def, "m"), tensor_shape{}, std::vector<float>{9});  // (1 + 2) * 3
  CHECK(find_node(o.def, "y")->inputs == std::vector<std::string>{"x", "m"});
  CHECK_FALSE(find_node(o.def, "s"));

  const session::named_feed_list feeds = {{"x", tensor::from_vector<float>({1, 2})}};
  check_same_results(before, o.def, feeds, {"y"});
  check_tensor(run_graph(o.def, feeds, {"y"})[0], tensor_shape{2}, std::vector<float>{10, 11});
}

TEST_CASE("protected foldable nodes are replaced in place, never removed") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::int32);
  auto s = ops::add(root.with_op_name("s"), ops::constant(root.with_op_name("c1"), int32_t{4}),
                    ops::constant(root.with_op_name("c2"), int32_t{-1}));
  auto t = ops::square(root.with_op_name("t"), s);
  ops::add(root.with_op_name("y"), x, t);
  REQUIRE(root.ok());
  const graph_def before = root.to_graph_def();

  const optimized o = optimize(before, {"x", "y", "s"});
  CHECK(folding_stats(o).folded == 2);
  CHECK(folding_stats(o).removed == 2);  // c1, c2
  check_tensor(const_value(o.def, "s"), tensor_shape{}, std::vector<int32_t>{3});
  check_tensor(const_value(o.def, "t"), tensor_shape{}, std::vector<int32_t>{9});
  check_same_results(before, o.def, {{"x", tensor::scalar(int32_t{10})}}, {"s", "y"});
}

TEST_CASE("outputs of a multi-output node become fresh Consts that own their bytes") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto v = ops::constant(root.with_op_name("v"), std::vector<float>{1, 2, 3, 4}, tensor_shape{4});
  auto parts = ops::split(root.with_op_name("parts"),
                          ops::constant(root.with_op_name("axis"), int32_t{0}), v, 2);
  ops::add(root.with_op_name("y0"), x, parts[0]);
  ops::mul(root.with_op_name("y1"), x, parts[1]);
  // Takes the name the pass would try first for output 1.
  auto taken = ops::constant(root.with_op_name("parts/_folded_1"), std::vector<float>{9, 9},
                             tensor_shape{2});
  ops::sub(root.with_op_name("y2"), x, taken);
  REQUIRE(root.ok());
  const graph_def before = root.to_graph_def();
  REQUIRE(find_node(before, "parts/_folded_1"));

  const optimized o = optimize(before, {"x", "y0", "y1", "y2"});
  CHECK(folding_stats(o).folded == 2);
  CHECK(folding_stats(o).removed == 3);  // parts, v, axis
  CHECK_FALSE(find_node(o.def, "parts"));
  CHECK(find_node(o.def, "y0")->inputs == std::vector<std::string>{"x", "parts/_folded_0"});
  CHECK(find_node(o.def, "y1")->inputs == std::vector<std::string>{"x", "parts/_folded_1_1"});
  const tensor& first = const_value(o.def, "parts/_folded_0");
  const tensor& second = const_value(o.def, "parts/_folded_1_1");
  check_tensor(first, tensor_shape{2}, std::vector<float>{1, 2});
  check_tensor(second, tensor_shape{2}, std::vector<float>{3, 4});
  // Split's outputs are views of one buffer: a folded half must not keep the whole alive.
  CHECK(first.buf()->size() == first.byte_size());
  CHECK(second.buf()->size() == second.byte_size());

  check_same_results(before, o.def, {{"x", tensor::from_vector<float>({2, 3})}},
                     {"y0", "y1", "y2"});
}

TEST_CASE("stateful ops, and nodes that read or wait on them, are not folded") {
  auto root = scope::new_root();
  auto v = ops::variable(root.with_op_name("v"), tensor_shape{2}, dtype::float32);
  auto init = ops::assign(
      root.with_op_name("init"), v,
      ops::constant(root.with_op_name("init_value"), std::vector<float>{1, 2}, tensor_shape{2}));
  auto two = ops::constant(root.with_op_name("two"), std::vector<float>{2, 2}, tensor_shape{2});
  ops::add(root.with_op_name("a"), v, two);
  auto r =
      ops::random_uniform(root.with_op_name("r"), {2}, dtype::float32, {.seed = 3, .seed2 = 4});
  ops::mul(root.with_op_name("b"), r, two);
  auto after_init = root.with_control_dependencies(std::vector<output>{init});
  ops::add(after_init.with_op_name("k"), two, two);
  ops::square(root.with_op_name("f"), two);
  REQUIRE(root.ok());
  const graph_def before = root.to_graph_def();

  const optimized o = optimize(before, {"init", "a", "b", "k", "f"});
  CHECK(folding_stats(o).folded == 1);
  check_tensor(const_value(o.def, "f"), tensor_shape{2}, std::vector<float>{4, 4});
  CHECK(find_node(o.def, "a")->op == "Add");
  CHECK(find_node(o.def, "b")->op == "Mul");
  CHECK(find_node(o.def, "k")->op == "Add");
  CHECK(count_op(o.def, "RandomUniform") == 1);
  CHECK(count_op(o.def, "VariableV2") == 1);
  CHECK(count_op(o.def, "Assign") == 1);

  // Seeded, so both sessions draw the same numbers.
  check_same_results(before, o.def, {}, {"a", "b", "k", "f"}, {"init"});
  const auto out = run_graph(o.def, {}, {"a", "k"}, {"init"});
  check_tensor(out[0], tensor_shape{2}, std::vector<float>{3, 4});
  check_tensor(out[1], tensor_shape{2}, std::vector<float>{4, 4});
}

TEST_CASE("placeholders, with or without a default, are not constants") {
  auto root = scope::new_root();
  auto d = ops::placeholder_with_default(
      root.with_op_name("d"), ops::constant(root.with_op_name("dv"), 5.0f), partial_shape{});
  ops::neg(root.with_op_name("nd"), d);
  auto p = ops::placeholder(root.with_op_name("p"), dtype::float32);
  ops::neg(root.with_op_name("np"), p);
  REQUIRE(root.ok());
  const graph_def before = root.to_graph_def();
  const optimized o = optimize(before, {"nd", "np", "p"});
  CHECK(o.def == before);
  CHECK(o.evaluations == 0);
  check_same_results(before, o.def, {{"d", tensor::scalar(7.0f)}, {"p", tensor::scalar(1.0f)}},
                     {"nd", "np"});
}

TEST_CASE("values over max_constant_bytes stay computed at run time") {
  SUBCASE("known shape: not even evaluated") {
    auto root = scope::new_root();
    auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
    auto big = ops::fill(
        root.with_op_name("big"),
        ops::constant(root.with_op_name("dims"), std::vector<int32_t>{1000}, tensor_shape{1}),
        ops::constant(root.with_op_name("one"), 1.0f));
    ops::add(root.with_op_name("y"), x, big);
    const graph_def before = root.to_graph_def();

    const optimized capped = optimize(before, {"x", "y"}, {.max_constant_bytes = 3999});
    CHECK(capped.def == before);
    CHECK(capped.evaluations == 0);
    CHECK(folding_stats(capped).folded == 0);

    const optimized fits = optimize(before, {"x", "y"}, {.max_constant_bytes = 4000});
    CHECK(folding_stats(fits).folded == 1);
    CHECK(const_value(fits.def, "big").shape() == tensor_shape{1000});
    check_same_results(before, fits.def, {{"x", tensor::scalar(2.0f)}}, {"y"});
  }
  SUBCASE("unknown shape: evaluated, then left as it is") {
    auto root = scope::new_root();
    auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
    auto ten =
        ops::constant(root.with_op_name("ten"), std::vector<float>(10, 0.5f), tensor_shape{10});
    const operation u =
        node_builder(root.with_op_name("u"), "TestUnknownShape").input(ten).finalize();
    auto sq = ops::square(root.with_op_name("sq"), u.out());
    ops::add(root.with_op_name("y"), x, sq);
    ops::sum(root.with_op_name("small"), sq, {0});
    REQUIRE(root.ok());
    const graph_def before = root.to_graph_def();

    const optimized capped = optimize(before, {"x", "y", "small"}, {.max_constant_bytes = 39});
    CHECK(capped.evaluations == 1);
    // sq (40 bytes) stays for y; the scalar sum fits and is folded.
    CHECK(folding_stats(capped).folded == 1);
    CHECK(find_node(capped.def, "sq")->op == "Square");
    check_tensor(const_value(capped.def, "small"), tensor_shape{}, std::vector<float>{2.5f});
    check_same_results(before, capped.def, {{"x", tensor::scalar(1.0f)}}, {"y", "small"});

    const optimized fits = optimize(before, {"x", "y", "small"}, {.max_constant_bytes = 40});
    CHECK(folding_stats(fits).folded == 2);
    check_tensor(const_value(fits.def, "sq"), tensor_shape{10}, std::vector<float>(10, 0.25f));
    CHECK_FALSE(find_node(fits.def, "u"));
  }
}

TEST_CASE("a subgraph the evaluator fails on is left to fail at run time under its own name") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  const operation bad = node_builder(root.with_op_name("bad"), "TestFoldFail")
                            .input(ops::constant(root.with_op_name("c1"), 1.0f))
                            .finalize();
  ops::add(root.with_op_name("y1"), x, bad.out());
  auto good = ops::mul(root.with_op_name("good"), ops::constant(root.with_op_name("c2"), 2.0f),
                       ops::constant(root.with_op_name("c3"), 3.0f));
  ops::add(root.with_op_name("y2"), x, good);
  REQUIRE(root.ok());
  const graph_def before = root.to_graph_def();

  const optimized o = optimize(before, {"x", "y1", "y2"});
  CHECK(o.evaluations == 3);  // all together, then each subgraph alone
  CHECK(folding_stats(o).folded == 1);
  check_tensor(const_value(o.def, "good"), tensor_shape{}, std::vector<float>{6});
  CHECK(find_node(o.def, "bad")->op == "TestFoldFail");
  CHECK(find_node(o.def, "c1"));
  check_tensor(run_graph(o.def, {{"x", tensor::scalar(1.0f)}}, {"y2"})[0], tensor_shape{},
               std::vector<float>{7});
  const auto failed = try_run(o.def, {{"x", tensor::scalar(1.0f)}}, {"y1"});
  check_error(failed, "cannot compute this");
  check_error(failed, "'bad'");

  // A failing subgraph alone: the graph comes back unchanged.
  auto lone = scope::new_root();
  node_builder(lone.with_op_name("bad"), "TestFoldFail")
      .input(ops::constant(lone.with_op_name("c"), 1.0f))
      .finalize();
  const graph_def lone_before = lone.to_graph_def();
  const optimized l = optimize(lone_before, {"bad"});
  CHECK(l.evaluations == 1);
  CHECK(l.def == lone_before);
}

TEST_CASE("the evaluator gets a host-only subgraph; folded Consts keep the device") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto cpu = root.with_device("/device:CPU:0");
  auto s =
      ops::add(cpu.colocate_with(x).with_op_name("s"), ops::constant(cpu.with_op_name("c1"), 1.0f),
               ops::constant(cpu.with_op_name("c2"), 2.0f));
  ops::add(root.with_op_name("y"), x, s);
  REQUIRE(root.ok());
  const graph_def before = root.to_graph_def();
  REQUIRE(find_node(before, "s")->attrs.contains("_class"));

  const optimized o = optimize(before, {"x", "y"});
  REQUIRE(o.evaluated.size() == 1);
  const graph_def& sub = o.evaluated[0];
  CHECK(sub.nodes.size() == 3);
  for (const node_def& n : sub.nodes) {
    CHECK_MESSAGE(n.device.empty(), n.name);
    CHECK_MESSAGE(!n.attrs.contains("_class"), n.name);
  }
  CHECK(find_node(o.def, "s")->device == "/device:CPU:0");
  check_tensor(const_value(o.def, "s"), tensor_shape{}, std::vector<float>{3});
}

TEST_CASE("without an evaluator, or switched off, folding leaves the graph alone") {
  auto root = scope::new_root();
  ops::neg(root.with_op_name("n"), ops::constant(root.with_op_name("c"), 1.0f));
  const graph_def before = root.to_graph_def();

  graph_def g = before;
  pass_context ctx;
  ctx.protected_nodes = {"n"};
  auto stats = pass_pipeline::standard().run(g, ctx);
  REQUIRE(stats.ok());
  CHECK(g == before);

  const optimized off = optimize(before, {"n"}, {.constant_folding = false});
  CHECK(off.def == before);
  REQUIRE(off.stats.size() == 1);
  CHECK(off.stats[0].pass == "cse");
}

TEST_CASE("the pipeline on a pruned graph keeps the call frame and runs in an executor") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  // Two copies of the same constant chain: CSE merges them, folding computes the survivor.
  auto k1 = ops::mul(root.with_op_name("k1"), ops::constant(root.with_op_name("c1"), 3.0f),
                     ops::constant(root.with_op_name("c2"), 4.0f));
  auto k2 = ops::mul(root.with_op_name("k2"), ops::constant(root.with_op_name("c3"), 3.0f),
                     ops::constant(root.with_op_name("c4"), 4.0f));
  auto y = ops::add(root.with_op_name("y"), ops::mul(root.with_op_name("xk"), x, k1), k2);
  REQUIRE(root.ok());
  auto full = graph::build(root.to_graph_def());
  REQUIRE(full.ok());
  const run_signature sig{{"x"}, {"y", "k1"}, {}};
  auto pruned = prune_for_run(*full, sig);
  REQUIRE(pruned.ok());

  cpu_device dev("/job:localhost/replica:0/task:0/device:CPU:0");
  pass_context ctx;
  ctx.protected_nodes = protected_nodes_for(pruned->def, sig);
  ctx.evaluate = executor_evaluator(dev);
  auto stats = pass_pipeline::standard().run(pruned->def, ctx);
  REQUIRE(stats.ok());
  CHECK(summarize(*stats) ==
        "cse: 11 -> 8 nodes (3 removed); constant_folding: 8 -> 6 nodes (2 removed, 1 folded)");
  CHECK(find_node(pruned->def, "_arg_0"));
  CHECK(find_node(pruned->def, "_retval_0"));
  CHECK(find_node(pruned->def, "_retval_1"));
  check_tensor(const_value(pruned->def, "k1"), tensor_shape{}, std::vector<float>{12});
  CHECK(find_node(pruned->def, "y")->inputs == std::vector<std::string>{"xk", "k1"});

  auto g = graph::build(std::move(pruned->def), {.infer_shapes = false});
  REQUIRE(g.ok());
  auto exec = executor::create(std::make_shared<const graph>(std::move(*g)), dev);
  REQUIRE(exec.ok());
  call_frame frame;
  frame.args = {tensor::from_vector<float>({1, 2})};
  frame.rets.resize(2);
  cancellation_manager cancel;
  const step_context step{1, &frame, &cancel, nullptr};
  REQUIRE((*exec)->run(step).ok());
  check_tensor(frame.rets[0], tensor_shape{2}, std::vector<float>{24, 36});  // x * 12 + 12
  check_tensor(frame.rets[1], tensor_shape{}, std::vector<float>{12});
}
