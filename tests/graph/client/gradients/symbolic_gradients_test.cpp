// add_symbolic_gradients itself: which nodes it differentiates, how it sums, where it stops,
// and what it refuses. Values are worked out by hand.
#include <doctest/doctest.h>

#include <algorithm>

#include "actors/session/session.hpp"
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/node_builder.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_tensor;

namespace {

output vec_placeholder(const scope& s, const char* name, dtype type = dtype::float32) {
  return ops::placeholder(s.with_op_name(name), type, {.shape = partial_shape{3}});
}

tensor fvec(const std::vector<float>& v) { return tensor::from_vector<float>(v); }

std::vector<tensor> run(const scope& root, const session::feed_list& feeds,
                        const std::vector<output>& fetches) {
  session sess(root);
  auto out = sess.run(feeds, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return *out;
}

operation op_of(const output& o) { return {o.node, {o.type}}; }

int count_ops(const scope& root, std::string_view op, std::string_view prefix) {
  int n = 0;
  for (const node_def& d : root.to_graph_def().nodes)
    if (d.op == op && d.name.starts_with(prefix)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a tensor used twice gets the sum of both gradients through AddN") {
  auto root = scope::new_root();
  auto x = vec_placeholder(root, "x");
  auto y = ops::add(root, ops::mul(root, x, x), x);  // dy/dx = 2x + 1
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {y}, {x}, &grads).ok());
  REQUIRE(grads.size() == 1);
  // x feeds Mul twice and Add once: three shares, one AddN.
  CHECK(count_ops(root, "AddN", "gradients/") == 1);
  auto out = run(root, {{x, fvec({1, 2, -3})}}, grads);
  check_tensor(out[0], tensor_shape{3}, std::vector<float>{3, 5, -5});
}

TEST_CASE("a single gradient is used as is, without AddN") {
  auto root = scope::new_root();
  auto x = vec_placeholder(root, "x");
  auto y = ops::exp(root, x);
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {y}, {x}, &grads).ok());
  CHECK(count_ops(root, "AddN", "") == 0);
  CHECK(grads[0].node.starts_with("gradients/"));
  auto out = run(root, {{x, fvec({0, 1, -1})}}, grads);
  check_tensor(out[0], tensor_shape{3}, std::vector<float>{1, 2.7182817f, 0.36787945f});
}

TEST_CASE("inputs the outputs do not depend on get zeros shaped like them") {
  auto root = scope::new_root();
  auto x = vec_placeholder(root, "x");
  auto z = ops::placeholder(root.with_op_name("z"), dtype::float64);
  auto y = ops::square(root, x);
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {y}, {x, z}, &grads).ok());
  auto out = run(root, {{x, fvec({1, 2, 3})}, {z, tensor::filled<double>({2, 2}, 7.0)}}, grads);
  check_tensor(out[0], tensor_shape{3}, std::vector<float>{2, 4, 6});
  check_tensor(out[1], tensor_shape{2, 2}, std::vector<double>{0, 0, 0, 0});
}

TEST_CASE("total derivatives by default, as tf.gradients; stop_gradients hold tensors fixed") {
  auto root = scope::new_root();
  auto x = vec_placeholder(root, "x");
  auto u = ops::mul(root.with_op_name("u"), x, ops::constant(root, 3.0f));
  // y = u^2 + x with u = 3x: dy/du = 2u; the total dy/dx = 18x + 1.
  auto y = ops::add(root, ops::square(root, u), x);
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {y}, {u, x}, &grads).ok());
  auto out = run(root, {{x, fvec({1, 2, 3})}}, grads);
  check_tensor(out[0], tensor_shape{3}, std::vector<float>{6, 12, 18});
  check_tensor(out[1], tensor_shape{3}, std::vector<float>{19, 37, 55});
  // Holding u fixed (TF's stop_gradients=[u]): dy/dx = 1, dy/du still 2u.
  std::vector<output> held;
  REQUIRE(add_symbolic_gradients(root, {y}, {u, x}, {}, {.stop_gradients = {u}}, &held).ok());
  auto fixed = run(root, {{x, fvec({1, 2, 3})}}, held);
  check_tensor(fixed[0], tensor_shape{3}, std::vector<float>{6, 12, 18});
  check_tensor(fixed[1], tensor_shape{3}, std::vector<float>{1, 1, 1});
  // A stop_gradients entry that is not in the graph is an error naming it.
  std::vector<output> bad;
  auto other = scope::new_root();
  auto stray = vec_placeholder(other, "stray");
  const status st = add_symbolic_gradients(root, {y}, {x}, {}, {.stop_gradients = {stray}}, &bad);
  CHECK(st.message().find("stop_gradients[0] ('stray') is not an output") != std::string::npos);
}

TEST_CASE("several outputs: the gradients of their sum") {
  auto root = scope::new_root();
  auto x = vec_placeholder(root, "x");
  auto y1 = ops::square(root, x);                          // 2x
  auto y2 = ops::mul(root, x, ops::constant(root, 5.0f));  // 5
  auto y3 = ops::neg(root, y1);                            // -2x, through y1 again
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {y1, y2, y3}, {x}, &grads).ok());
  check_tensor(run(root, {{x, fvec({1, 2, 3})}}, grads)[0], tensor_shape{3},
               std::vector<float>{5, 5, 5});
}

TEST_CASE("grad_outputs weight each output") {
  auto root = scope::new_root();
  auto x = vec_placeholder(root, "x");
  auto y = ops::mul(root, x, ops::constant(root, 3.0f));
  auto w = ops::constant(root, std::vector<float>{1, 2, -1}, {3});
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {y}, {x}, {w}, &grads).ok());
  check_tensor(run(root, {{x, fvec({4, 5, 6})}}, grads)[0], tensor_shape{3},
               std::vector<float>{3, 6, -3});
}

TEST_CASE("an output that is itself a requested input gets its own grad_output") {
  auto root = scope::new_root();
  auto x = vec_placeholder(root, "x");
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {x}, {x}, &grads).ok());
  check_tensor(run(root, {{x, fvec({4, 5, 6})}}, grads)[0], tensor_shape{3},
               std::vector<float>{1, 1, 1});
}

TEST_CASE("integer paths carry no gradient") {
  auto root = scope::new_root();
  auto x = vec_placeholder(root, "x");
  // trunc(x) computed through int32: a step function, so only the direct factor counts.
  auto truncated = ops::cast(root, ops::cast(root, x, dtype::int32), dtype::float32);
  auto y = ops::mul(root, x, truncated);
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {y}, {x}, &grads).ok());
  check_tensor(run(root, {{x, fvec({1.5f, 2.5f, -3.5f})}}, grads)[0], tensor_shape{3},
               std::vector<float>{1, 2, -3});

  // Only through integers: zeros.
  std::vector<output> none;
  REQUIRE(add_symbolic_gradients(root, {truncated}, {x}, &none).ok());
  check_tensor(run(root, {{x, fvec({1.5f, 2.5f, -3.5f})}}, none)[0], tensor_shape{3},
               std::vector<float>{0, 0, 0});
}

// An op registered here, with no gradient function, so the test does not depend on which real
// ops lack one.
CAFLOW_REGISTER_OP("TestOpWithoutGradient")
    .input("x: float")
    .output("y: float")
    .set_shape_fn(shape_fns::unchanged);

output without_gradient(const scope& s, const output& x) {
  return node_builder(s, "TestOpWithoutGradient").input(x).finalize().out();
}

TEST_CASE("an op without a gradient function on the path is named in the error") {
  auto root = scope::new_root();
  auto x = vec_placeholder(root, "x");
  auto p = without_gradient(root.with_op_name("my_op"), x);
  auto y = ops::mul(root, p, ops::constant(root, 2.0f));
  std::vector<output> grads;
  status st = add_symbolic_gradients(root, {y}, {x}, &grads);
  CHECK(st.code() == error_code::not_found);
  CHECK_MESSAGE(st.message().find("node 'my_op' (TestOpWithoutGradient)") != std::string::npos,
                st.message());
  CHECK(grads.empty());

  // Off the path it does not matter.
  auto z = vec_placeholder(root, "z");
  auto w = ops::add(root, ops::square(root, z), ops::sum(root, without_gradient(root, x), {0}));
  REQUIRE(add_symbolic_gradients(root, {w}, {z}, &grads).ok());
}

TEST_CASE("bad arguments are refused, naming what is wrong") {
  auto root = scope::new_root();
  auto x = vec_placeholder(root, "x");
  auto y = ops::square(root.with_op_name("y"), x);
  std::vector<output> grads;

  auto two = add_symbolic_gradients(root, {y}, {x}, {y, y}, &grads);
  CHECK(two.code() == error_code::invalid_argument);
  CHECK_MESSAGE(two.message().find("2 grad_outputs given for 1 outputs") != std::string::npos,
                two.message());

  auto dy64 = ops::placeholder(root.with_op_name("dy64"), dtype::float64);
  auto wrong_type = add_symbolic_gradients(root, {y}, {x}, {dy64}, &grads);
  CHECK_MESSAGE(wrong_type.message().find("grad_outputs[0] ('dy64') is float64 but outputs[0] "
                                          "('y') is float32") != std::string::npos,
                wrong_type.message());

  auto n = vec_placeholder(root, "n", dtype::int32);
  auto int_input = add_symbolic_gradients(root, {y}, {n}, &grads);
  CHECK_MESSAGE(int_input.message().find("inputs[0] ('n') is int32") != std::string::npos,
                int_input.message());
  auto int_output = add_symbolic_gradients(root, {ops::square(root, n)}, {x}, &grads);
  CHECK_MESSAGE(int_output.message().find("outputs[0]") != std::string::npos, int_output.message());
  CHECK(int_output.message().find("int32") != std::string::npos);

  auto missing = add_symbolic_gradients(root, {y}, {output{"nowhere", 0, dtype::float32}}, &grads);
  CHECK_MESSAGE(missing.message().find("('nowhere') is not an output") != std::string::npos,
                missing.message());
  CHECK(grads.empty());
  // None of these poisoned the scope.
  CHECK(root.ok());
}

// A two-layer linear model with a bias, trained on a squared error, differentiated with
// respect to its variables (read through their Ref edges):
//   h = x W + b = [[2, 2], [4, 4]],  o = h v = [[4], [8]],  e = o - t = [[3], [6]]
//   loss = mean(e^2) = 22.5;  dloss/do = e
//   dv = h^T e = [[30], [30]];  dh = e v^T = [[3, 3], [6, 6]]
//   dW = x^T dh = [[21, 21], [30, 30]];  db = column sums of dh = [9, 9]
TEST_CASE("the loss of a small model differentiated with respect to its variables") {
  auto root = scope::new_root();
  auto x = ops::constant(root, std::vector<float>{1, 2, 3, 4}, {2, 2});
  auto t = ops::constant(root, std::vector<float>{1, 2}, {2, 1});
  auto w = ops::variable(root.with_op_name("W"), partial_shape{2, 2}, dtype::float32);
  auto b = ops::variable(root.with_op_name("b"), partial_shape{2}, dtype::float32);
  auto v = ops::variable(root.with_op_name("v"), partial_shape{2, 1}, dtype::float32);
  auto init = ops::group(
      root,
      {op_of(ops::assign(root, w, ops::constant(root, std::vector<float>{1, -1, 0, 2}, {2, 2}))),
       op_of(ops::assign(root, b, ops::constant(root, std::vector<float>{1, -1}, {2}))),
       op_of(ops::assign(root, v, ops::constant(root, std::vector<float>{1, 1}, {2, 1})))});
  auto h = ops::add(root, ops::mat_mul(root, x, w), b);
  auto e = ops::sub(root, ops::mat_mul(root, h, v), t);
  auto loss = ops::mean(root.with_op_name("loss"), ops::square(root, e), {0, 1});

  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {loss}, {w, b, v}, &grads).ok());
  session sess(root);
  REQUIRE(sess.run_targets({init}).ok());
  auto out = sess.run({loss, grads[0], grads[1], grads[2]});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  check_tensor(out->at(0), tensor_shape{}, std::vector<float>{22.5f});
  check_tensor(out->at(1), tensor_shape{2, 2}, std::vector<float>{21, 21, 30, 30});
  check_tensor(out->at(2), tensor_shape{2}, std::vector<float>{9, 9});
  check_tensor(out->at(3), tensor_shape{2, 1}, std::vector<float>{30, 30});
}

TEST_CASE("colocate_gradients_with_ops puts each gradient node with its forward node") {
  auto root = scope::new_root().with_device("/job:worker/task:0");
  auto x = vec_placeholder(root, "x");
  auto sq = ops::square(root.with_device("/job:worker/task:1").with_op_name("sq"), x);
  auto y = ops::sum(root.with_op_name("y"), sq, {0});
  std::vector<output> plain, colocated;
  REQUIRE(add_symbolic_gradients(root, {y}, {x}, {}, {}, &plain).ok());
  REQUIRE(add_symbolic_gradients(root, {y}, {x}, {}, {.colocate_gradients_with_ops = true},
                                 &colocated)
              .ok());
  int checked = 0;
  for (const node_def& d : root.to_graph_def().nodes) {
    const bool sq_grad = d.name.find("sq_grad/") != std::string::npos;
    if (!sq_grad) continue;
    auto cls = d.attrs.find("_class");
    if (d.name.starts_with("gradients_1/")) {
      // Wherever the forward node runs: no device of its own, colocated with "sq".
      CHECK(d.device.empty());
      REQUIRE(cls != d.attrs.end());
      const auto& locs = std::get<std::vector<std::string>>(cls->second.value());
      CHECK(std::find(locs.begin(), locs.end(), "loc:@sq") != locs.end());
      ++checked;
    } else {
      CHECK(d.device == "/job:worker/task:0");
      CHECK(cls == d.attrs.end());
    }
  }
  CHECK(checked > 0);
}

TEST_CASE("aggregation_method: experimental_tree sums pairwise with Add, to the same value") {
  auto root = scope::new_root();
  auto x = vec_placeholder(root, "x");
  // x reaches y along four paths: dy/dx = 1 + 2 + 3 + 4 = 10.
  auto y = ops::add_n(root, {x, ops::mul(root, x, ops::constant(root, 2.0f)),
                             ops::mul(root, x, ops::constant(root, 3.0f)),
                             ops::mul(root, x, ops::constant(root, 4.0f))});
  std::vector<output> tree;
  REQUIRE(add_symbolic_gradients(root, {y}, {x}, {},
                                 {.aggregation = aggregation_method::experimental_tree}, &tree)
              .ok());
  CHECK(count_ops(root, "AddN", "gradients/") == 0);
  CHECK(count_ops(root, "Add", "gradients/") == 3);
  check_tensor(run(root, {{x, fvec({1, 2, 3})}}, {tree[0]})[0], {3},
               std::vector<float>{10, 10, 10});
}
