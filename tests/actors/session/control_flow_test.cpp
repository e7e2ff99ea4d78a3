// cond and while_loop built with the client API and run by a local session: values, deadness,
// frames, nesting, parallel iterations, variables in loops, and the errors that name a bad
// cond or loop (a non-bool predicate, branches or a body that change a dtype or shape, a loop
// that never ends).
#include <doctest/doctest.h>

#include <atomic>

#include "actors/session/session.hpp"
#include "graph/client/node_builder.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/control_flow_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/state_ops.hpp"
#include "graph/ir/shape_inference.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;

namespace {

// Counts its runs: proves which branch ran, and how often a loop body ran.
std::atomic<int> counted_runs{0};
class count_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    counted_runs.fetch_add(1);
    ctx.set_output(0, ctx.input(0));
  }
};

}  // namespace

CAFLOW_REGISTER_OP("TestCount").input("x: T").output("y: T").attr("T: type")
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TestCount").device(device_cpu), count_op);

namespace {

output counted(const scope& s, const output& x) {
  return node_builder(s, "TestCount").input(x).finalize().out();
}

output f32(const scope& s, float v) { return ops::constant(s, tensor::scalar<float>(v)); }
output i32(const scope& s, int32_t v) { return ops::constant(s, tensor::scalar<int32_t>(v)); }

}  // namespace

TEST_CASE("cond runs only the taken branch and merges its value") {
  auto root = scope::new_root();
  auto pred = ops::placeholder(root.with_op_name("pred"), dtype::boolean, {.shape = {}});
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {2}});
  auto out = ops::cond(
      root, pred,
      [&](const scope& t) { return std::vector{counted(t, ops::mul(t, x, f32(t, 2)))}; },
      [&](const scope& f) { return std::vector{ops::add(f, x, f32(f, 10))}; });
  REQUIRE(root.ok());
  REQUIRE(out.size() == 1);
  CHECK(root.shape_of(out[0]) == partial_shape({2}));
  session sess(root);
  const tensor xv = tensor::from_vector<float>({1, 2});
  counted_runs = 0;
  auto t = sess.run({{pred, tensor::scalar(true)}, {x, xv}}, {out[0]});
  REQUIRE(t.ok());
  check_tensor(t->at(0), tensor_shape{2}, std::vector<float>{2, 4});
  CHECK(counted_runs == 1);
  auto f = sess.run({{pred, tensor::scalar(false)}, {x, xv}}, {out[0]});
  REQUIRE(f.ok());
  check_tensor(f->at(0), tensor_shape{2}, std::vector<float>{11, 12});
  CHECK(counted_runs == 1);  // the true branch did not run
}

TEST_CASE("cond branches made of constants, returning outside values, and nested") {
  auto root = scope::new_root();
  auto a = ops::placeholder(root.with_op_name("a"), dtype::boolean, {.shape = {}});
  auto b = ops::placeholder(root.with_op_name("b"), dtype::boolean, {.shape = {}});
  auto outside = ops::placeholder(root.with_op_name("outside"), dtype::int32, {.shape = {}});
  auto out = ops::cond(
      root, a,
      [&](const scope& t) {
        return ops::cond(
            t, b, [&](const scope& tt) { return std::vector{i32(tt, 1)}; },
            [&](const scope&) { return std::vector{outside}; });
      },
      [&](const scope& f) { return std::vector{i32(f, 3)}; });
  REQUIRE(root.ok());
  session sess(root);
  auto run = [&](bool av, bool bv) {
    auto r = sess.run({{a, tensor::scalar(av)}, {b, tensor::scalar(bv)},
                       {outside, tensor::scalar<int32_t>(2)}},
                      {out[0]});
    REQUIRE(r.ok());
    return r->at(0).scalar_value<int32_t>();
  };
  CHECK(run(true, true) == 1);
  CHECK(run(true, false) == 2);
  CHECK(run(false, true) == 3);
  CHECK(run(false, false) == 3);
}

TEST_CASE("cond errors: a non-bool pred, branches that disagree, a dead fetch") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {}});
  ops::cond(root, x, [&](const scope&) { return std::vector{x}; },
            [&](const scope&) { return std::vector{x}; });
  check_error(root.get_status(), "pred is float32, must be bool");

  auto r2 = scope::new_root();
  auto p = ops::placeholder(r2.with_op_name("p"), dtype::boolean, {.shape = {}});
  ops::cond(r2, p, [&](const scope& t) { return std::vector{i32(t, 1)}; },
            [&](const scope& f) { return std::vector{f32(f, 1)}; });
  check_error(r2.get_status(), "output 0 is int32 in the true branch but float32 in the false");

  // A value of one branch fetched directly is dead when the other branch is taken.
  auto r3 = scope::new_root();
  auto q = ops::placeholder(r3.with_op_name("q"), dtype::boolean, {.shape = {}});
  output inner;
  ops::cond(r3, q,
            [&](const scope& t) {
              inner = ops::identity(t.with_op_name("only_if_true"), i32(t, 1));
              return std::vector{inner};
            },
            [&](const scope& f) { return std::vector{i32(f, 0)}; });
  REQUIRE(r3.ok());
  session sess(r3);
  auto live = sess.run({{q, tensor::scalar(true)}}, {inner});
  REQUIRE(live.ok());
  CHECK(live->at(0).scalar_value<int32_t>() == 1);
  check_error(sess.run({{q, tensor::scalar(false)}}, {inner}), "the fetched value is dead");
}

TEST_CASE("while_loop counts, doubles, and reads an outside value in every iteration") {
  auto root = scope::new_root();
  auto n = ops::placeholder(root.with_op_name("n"), dtype::int32, {.shape = {}});
  auto step = ops::placeholder(root.with_op_name("step"), dtype::float32, {.shape = {}});
  auto out = ops::while_loop(
      root, {i32(root, 0), f32(root, 1)},
      [&](const scope& c, const std::vector<output>& v) { return ops::less(c, v[0], n); },
      [&](const scope& b, const std::vector<output>& v) {
        return std::vector{ops::add(b, v[0], i32(b, 1)),
                           counted(b, ops::add(b, ops::mul(b, v[1], f32(b, 2)), step))};
      });
  REQUIRE(root.ok());
  REQUIRE(out.size() == 2);
  session sess(root);
  counted_runs = 0;
  auto r = sess.run({{n, tensor::scalar<int32_t>(10)}, {step, tensor::scalar<float>(0)}},
                    {out[0], out[1]});
  REQUIRE(r.ok());
  CHECK(r->at(0).scalar_value<int32_t>() == 10);
  CHECK(r->at(1).scalar_value<float>() == 1024.0f);
  CHECK(counted_runs == 10);
  // Zero iterations: the loop variables come out as they went in.
  auto zero = sess.run({{n, tensor::scalar<int32_t>(0)}, {step, tensor::scalar<float>(1)}},
                       {out[0], out[1]});
  REQUIRE(zero.ok());
  CHECK(zero->at(0).scalar_value<int32_t>() == 0);
  CHECK(zero->at(1).scalar_value<float>() == 1.0f);
  // x -> 2x + 1, three times from 1: 3, 7, 15.
  auto three = sess.run({{n, tensor::scalar<int32_t>(3)}, {step, tensor::scalar<float>(1)}},
                        {out[1]});
  REQUIRE(three.ok());
  CHECK(three->at(0).scalar_value<float>() == 15.0f);
}

TEST_CASE("a long loop gives the same result at every parallel_iterations") {
  for (int64_t parallel : {1, 2, 10, 32}) {
    CAPTURE(parallel);
    auto root = scope::new_root();
    auto out = ops::while_loop(
        root, {i32(root, 0), ops::constant(root, tensor::scalar<int64_t>(0))},
        [&](const scope& c, const std::vector<output>& v) {
          return ops::less(c, v[0], i32(c, 1000));
        },
        [&](const scope& b, const std::vector<output>& v) {
          return std::vector{ops::add(b, v[0], i32(b, 1)),
                             ops::add(b, v[1], ops::cast(b, v[0], dtype::int64))};
        },
        {.parallel_iterations = parallel, .maximum_iterations = {}, .shape_invariants = {}});
    REQUIRE(root.ok());
    session sess(root);
    for (int rep = 0; rep < 3; ++rep) {
      auto r = sess.run({out[0], out[1]});
      REQUIRE(r.ok());
      CHECK(r->at(0).scalar_value<int32_t>() == 1000);
      CHECK(r->at(1).scalar_value<int64_t>() == 999 * 1000 / 2);
    }
  }
}

TEST_CASE("nested loops, a cond in a loop body and a loop in an untaken branch") {
  auto root = scope::new_root();
  // sum over i < 3, j < 4 of (i odd ? 10 : 1)
  auto out = ops::while_loop(
      root, {i32(root, 0), i32(root, 0)},
      [&](const scope& c, const std::vector<output>& v) { return ops::less(c, v[0], i32(c, 3)); },
      [&](const scope& b, const std::vector<output>& v) {
        const output i = v[0];
        auto inner = ops::while_loop(
            b, {i32(b, 0), v[1]},
            [&](const scope& c, const std::vector<output>& w) {
              return ops::less(c, w[0], i32(c, 4));
            },
            [&](const scope& ib, const std::vector<output>& w) {
              auto odd = ops::equal(ib, ops::floor_mod(ib, i, i32(ib, 2)), i32(ib, 1));
              auto add = ops::cond(
                  ib, odd, [&](const scope& t) { return std::vector{i32(t, 10)}; },
                  [&](const scope& f) { return std::vector{i32(f, 1)}; });
              return std::vector{ops::add(ib, w[0], i32(ib, 1)), ops::add(ib, w[1], add[0])};
            });
        return std::vector{ops::add(b, i, i32(b, 1)), inner[1]};
      });
  REQUIRE(root.ok());
  auto p = ops::placeholder(root.with_op_name("p"), dtype::boolean, {.shape = {}});
  auto picked = ops::cond(
      root, p,
      [&](const scope& t) {
        return ops::while_loop(
            t, {i32(t, 0)},
            [&](const scope& c, const std::vector<output>& v) {
              return ops::less(c, v[0], i32(c, 5));
            },
            [&](const scope& b, const std::vector<output>& v) {
              return std::vector{counted(b, ops::add(b, v[0], i32(b, 1)))};
            });
      },
      [&](const scope& f) { return std::vector{i32(f, -1)}; });
  REQUIRE(root.ok());
  session sess(root);
  auto r = sess.run({out[1]});
  REQUIRE(r.ok());
  CHECK(r->at(0).scalar_value<int32_t>() == 4 * (1 + 10 + 1));
  counted_runs = 0;
  auto untaken = sess.run({{p, tensor::scalar(false)}}, {picked[0]});
  REQUIRE(untaken.ok());
  CHECK(untaken->at(0).scalar_value<int32_t>() == -1);
  CHECK(counted_runs == 0);
  auto taken = sess.run({{p, tensor::scalar(true)}}, {picked[0]});
  REQUIRE(taken.ok());
  CHECK(taken->at(0).scalar_value<int32_t>() == 5);
  CHECK(counted_runs == 5);
}

TEST_CASE("maximum_iterations stops a loop, as TF's does") {
  auto root = scope::new_root();
  auto out = ops::while_loop(
      root, {i32(root, 0)},
      [&](const scope& c, const std::vector<output>&) {
        return ops::constant(c, tensor::scalar(true));
      },
      [&](const scope& b, const std::vector<output>& v) {
        return std::vector{ops::add(b, v[0], i32(b, 3))};
      },
      {.parallel_iterations = 10, .maximum_iterations = 7, .shape_invariants = {}});
  REQUIRE(root.ok());
  session sess(root);
  auto r = sess.run({out[0]});
  REQUIRE(r.ok());
  CHECK(r->at(0).scalar_value<int32_t>() == 21);
}

TEST_CASE("a loop body updates a variable once per iteration") {
  auto root = scope::new_root();
  auto v = ops::variable(root.with_op_name("v"), partial_shape({}), dtype::float32);
  auto init = ops::assign(root.with_op_name("init"), v, f32(root, 0));
  auto out = ops::while_loop(
      root, {i32(root, 0)},
      [&](const scope& c, const std::vector<output>& w) { return ops::less(c, w[0], i32(c, 6)); },
      [&](const scope& b, const std::vector<output>& w) {
        auto bumped = ops::assign_add(b, v, f32(b, 0.5f));
        return std::vector{
            ops::add(b.with_control_dependencies(std::vector<output>{bumped}), w[0], i32(b, 1))};
      },
      {.parallel_iterations = 1, .maximum_iterations = {}, .shape_invariants = {}});
  REQUIRE(root.ok());
  session sess(root);
  REQUIRE(sess.run({init}).ok());
  REQUIRE(sess.run({out[0]}).ok());
  auto value = sess.run({v});
  REQUIRE(value.ok());
  CHECK(value->at(0).scalar_value<float>() == 3.0f);
}

TEST_CASE("while_loop errors name the loop") {
  SUBCASE("no loop variables") {
    auto root = scope::new_root();
    ops::while_loop(
        root, {}, [&](const scope& c, const std::vector<output>&) { return i32(c, 0); },
        [&](const scope&, const std::vector<output>& v) { return v; });
    check_error(root.get_status(), "needs at least one loop variable");
  }
  SUBCASE("a cond that is not bool") {
    auto root = scope::new_root();
    ops::while_loop(
        root, {i32(root, 0)}, [&](const scope&, const std::vector<output>& v) { return v[0]; },
        [&](const scope&, const std::vector<output>& v) { return v; });
    check_error(root.get_status(), "its cond returns int32, must return a bool scalar");
  }
  SUBCASE("a body that changes a dtype") {
    auto root = scope::new_root();
    ops::while_loop(
        root, {i32(root, 0)},
        [&](const scope& c, const std::vector<output>& v) { return ops::less(c, v[0], i32(c, 3)); },
        [&](const scope& b, const std::vector<output>&) { return std::vector{f32(b, 1)}; });
    check_error(root.get_status(), "its body changes loop variable 0 from int32 to float32");
  }
  SUBCASE("a body that changes a shape, unless a shape invariant allows it") {
    auto build = [](std::vector<partial_shape> invariants) {
      auto root = scope::new_root();
      auto out = ops::while_loop(
          root, {i32(root, 0), ops::constant(root, tensor::from_vector<float>({1}, {1}))},
          [&](const scope& c, const std::vector<output>& v) {
            return ops::less(c, v[0], i32(c, 3));
          },
          [&](const scope& b, const std::vector<output>& v) {
            return std::vector{ops::add(b, v[0], i32(b, 1)),
                               ops::concat(b, {v[1], v[1]}, 0)};
          },
          ops::while_loop_options{.parallel_iterations = 10, .maximum_iterations = {},
                                  .shape_invariants = std::move(invariants)});
      return std::make_pair(root, out);
    };
    auto [bad, bad_out] = build({});
    check_error(bad.get_status(),
                "its body changes the shape of loop variable 1 from [1] to [2]; declare a shape "
                "invariant");
    auto [good, out] = build({partial_shape{}, partial_shape({-1})});
    REQUIRE(good.ok());
    session sess(good);
    auto r = sess.run({out[1]});
    REQUIRE(r.ok());
    CHECK(r->at(0).shape() == tensor_shape{8});
  }
  SUBCASE("a loop that never ends is cancelled at operation_timeout, naming the loop") {
    auto root = scope::new_root();
    auto out = ops::while_loop(
        root, {i32(root, 0)},
        [&](const scope& c, const std::vector<output>&) {
          return ops::constant(c, tensor::scalar(true));
        },
        [&](const scope& b, const std::vector<output>& v) {
          return std::vector{ops::add(b, v[0], i32(b, 1))};
        });
    REQUIRE(root.ok());
    session sess(root, {.operation_timeout = std::chrono::milliseconds(300)});
    auto r = sess.run({out[0]});
    REQUIRE_FALSE(r.ok());
    CHECK(r.get_status().message().find("while loop 'while/while_context'") != std::string::npos);
  }
  SUBCASE("a value used inside a loop without the loop's scope") {
    auto root = scope::new_root();
    auto outside = i32(root, 5);
    auto out = ops::while_loop(
        root, {i32(root, 0)},
        [&](const scope& c, const std::vector<output>& v) { return ops::less(c, v[0], i32(c, 3)); },
        [&](const scope&, const std::vector<output>& v) {
          // Built through the outer scope: neither routed in nor in the frame.
          return std::vector{ops::add(root.with_op_name("stray"), v[0], outside)};
        });
    REQUIRE(root.ok());
    session sess(root);
    // The stray Add runs in the root frame on a value of the loop's: the graph is refused,
    // naming where the frames disagree.
    check_error(sess.run({out[0]}), "frame 'while/while_context'");
  }
}
