// SparseApplyMomentum, SparseApplyAdagrad and SparseApplyFtrl through a session: the dense
// formulas on the named rows only, repeated indices applied one after the other, readers'
// snapshots untouched, and nothing written when an index or shape is bad. Expected values
// are worked out by hand in the comments. A variable is read in a run of its own: fetched
// beside an update, the read may run before or after it.
#include <doctest/doctest.h>

#include <cmath>

#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/state_ops.hpp"
#include "graph/client/ops/training_ops.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/test_variable.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::make_var;
using caflow::testing::test_var;

namespace {

std::vector<tensor> run_ok(session& sess, const session::feed_list& feeds,
                           const std::vector<output>& fetches) {
  auto out = sess.run(feeds, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return std::move(out).value();
}

template <class T>
tensor mat(std::vector<T> v, tensor_shape shape) {
  return tensor::from_vector<T>(v, shape);
}
output c(const scope& root, float x) { return ops::constant(root, x); }

}  // namespace

TEST_CASE("SparseApplyMomentum updates the named rows only, across steps") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", mat<float>({1, 1, 2, 2, 3, 3}, {3, 2}));
  auto accum = make_var(root, "accum", tensor::filled(tensor_shape{3, 2}, 0.0f));
  auto step =
      ops::sparse_apply_momentum(root, var.ref, accum.ref, c(root, 0.1f),
                                 ops::constant(root, mat<float>({1, 2, 3, 4}, {2, 2})),
                                 ops::constant(root, testing::vec32({2, 0})), c(root, 0.9f));
  session sess(root);
  run_ok(sess, {}, {var.init, accum.init});
  // Row 2: accum = [1, 2], var = 3 - 0.1 * accum; row 0: accum = [3, 4], var = 1 - 0.1 * accum.
  check_tensor<float>(run_ok(sess, {}, {step})[0], {3, 2}, {0.7f, 0.6f, 2, 2, 2.9f, 2.8f});
  // Again: row 2's accum = 0.9 * [1, 2] + [1, 2] = [1.9, 3.8], var = [2.9 - 0.19, 2.8 - 0.38];
  // row 0's accum = 0.9 * [3, 4] + [3, 4] = [5.7, 7.6], var = [0.7 - 0.57, 0.6 - 0.76].
  check_tensor<float>(run_ok(sess, {}, {step})[0], {3, 2}, {0.13f, -0.16f, 2, 2, 2.71f, 2.42f});
  check_tensor<float>(run_ok(sess, {}, {accum.read})[0], {3, 2}, {5.7f, 7.6f, 0, 0, 1.9f, 3.8f});
}

TEST_CASE("SparseApplyMomentum applies a repeated index twice; Nesterov; int64 indices") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", mat<double>({0, 1}, {2, 1}));
  auto accum = make_var(root, "accum", mat<double>({0, 0}, {2, 1}));
  auto dup = ops::sparse_apply_momentum(root, var.ref, accum.ref, ops::constant(root, 1.0),
                                        ops::constant(root, mat<double>({1, 1}, {2, 1})),
                                        ops::constant(root, testing::vec32({0, 0})),
                                        ops::constant(root, 0.5));
  auto nesterov = ops::sparse_apply_momentum(root, var.ref, accum.ref, ops::constant(root, 0.1),
                                             ops::constant(root, mat<double>({1}, {1, 1})),
                                             ops::constant(root, tensor::from_vector<int64_t>({1})),
                                             ops::constant(root, 0.9), {.use_nesterov = true});
  session sess(root);
  run_ok(sess, {}, {var.init, accum.init});
  // accum 1, var -1; then accum 0.5 + 1 = 1.5, var -1 - 1.5 = -2.5.
  check_tensor<double>(run_ok(sess, {}, {dup})[0], {2, 1}, {-2.5, 1});
  // Row 1: accum = 1; var = 1 - (1 * 0.1 + 1 * 0.9 * 0.1) = 0.81.
  check_tensor<double>(run_ok(sess, {}, {nesterov})[0], {2, 1}, {-2.5, 0.81});
}

TEST_CASE("SparseApplyAdagrad: accum += g^2, var -= lr * g / sqrt(accum), row by row") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", mat<float>({1, 2, 3, 4}, {2, 2}));
  auto accum = make_var(root, "accum", tensor::filled(tensor_shape{2, 2}, 1.0f));
  auto step = ops::sparse_apply_adagrad(root, var.ref, accum.ref, c(root, 0.5f),
                                        ops::constant(root, mat<float>({1, 2}, {1, 2})),
                                        ops::constant(root, tensor::from_vector<int64_t>({1})));
  auto dup = ops::sparse_apply_adagrad(root, var.ref, accum.ref, c(root, 1.0f),
                                       ops::constant(root, mat<float>({1, 1, 1, 1}, {2, 2})),
                                       ops::constant(root, testing::vec32({0, 0})));
  auto frozen = ops::sparse_apply_adagrad(
      root, var.ref, accum.ref, c(root, 1.0f), ops::constant(root, mat<float>({2, 2}, {1, 2})),
      ops::constant(root, testing::vec32({1})), {.update_slots = false});
  session sess(root);
  run_ok(sess, {}, {var.init, accum.init});
  // Row 1: accum = [2, 5]; var = [3 - 0.5/sqrt(2), 4 - 1/sqrt(5)].
  check_tensor<float>(run_ok(sess, {}, {step})[0], {2, 2}, {1, 2, 2.6464466f, 3.5527864f});
  check_tensor<float>(run_ok(sess, {}, {accum.read})[0], {2, 2}, {1, 1, 2, 5});
  // Row 0 twice: accum 2, var 1 - 1/sqrt(2); accum 3, var -= 1/sqrt(3).
  check_tensor<float>(run_ok(sess, {}, {dup})[0], {2, 2},
                      {-0.2844571f, 0.7155429f, 2.6464466f, 3.5527864f});
  check_tensor<float>(run_ok(sess, {}, {accum.read})[0], {2, 2}, {3, 3, 2, 5});
  // update_slots = false: accum stays [2, 5]; var row 1 -= 2 / sqrt(accum).
  check_tensor<float>(run_ok(sess, {}, {frozen})[0], {2, 2},
                      {-0.2844571f, 0.7155429f, 2.6464466f - 1.4142136f, 3.5527864f - 0.8944272f});
  check_tensor<float>(run_ok(sess, {}, {accum.read})[0], {2, 2}, {3, 3, 2, 5});
}

TEST_CASE("SparseApplyFtrl: TF's FTRL-Proximal on the named rows") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", mat<float>({1, 2, 1.2f, 7}, {4, 1}));
  auto accum = make_var(root, "accum", tensor::filled(tensor_shape{4, 1}, 1.0f));
  auto linear = make_var(root, "linear", tensor::filled(tensor_shape{4, 1}, 0.0f));
  auto g = ops::placeholder(root.with_op_name("g"), dtype::float32);
  auto idx = ops::placeholder(root.with_op_name("idx"), dtype::int32);
  auto lr_power = ops::placeholder(root.with_op_name("lr_power"), dtype::float32);
  auto step = ops::sparse_apply_ftrl(root, var.ref, accum.ref, linear.ref, g, idx, c(root, 0.5f),
                                     c(root, 0.1f), c(root, 0.2f), lr_power);
  session sess(root);
  run_ok(sess, {}, {var.init, accum.init, linear.init});
  // Each row: accum 1 -> 2, linear = 1 - (sqrt(2) - 1) / 0.5 * var, quadratic = sqrt(2) / 0.5
  // + 0.4; var = (sign(linear) * 0.1 - linear) / quadratic, or 0 when |linear| <= 0.1 (row 2:
  // linear = 0.00589). Row 3 is not named.
  auto out = run_ok(sess,
                    {{g, mat<float>({1, 1, 1}, {3, 1})},
                     {idx, testing::vec32({0, 1, 2})},
                     {lr_power, tensor::scalar(-0.5f)}},
                    {step});
  check_tensor<float>(out[0], {4, 1}, {-0.0221696f, 0.1724847f, 0, 7});
  check_tensor<float>(run_ok(sess, {}, {linear.read})[0], {4, 1},
                      {0.1715729f, -0.6568542f, 0.0058875f, 0});
  // Row 0 again with g = 0.5 (accum 2 -> 2.25), and lr_power = -1 on fresh variables below.
  out = run_ok(sess,
               {{g, mat<float>({0.5f}, {1, 1})},
                {idx, testing::vec32({0})},
                {lr_power, tensor::scalar(-0.5f)}},
               {step});
  check_tensor<float>(out[0], {4, 1}, {-0.1692284f, 0.1724847f, 0, 7});
  check_tensor<float>(run_ok(sess, {}, {accum.read})[0], {4, 1}, {2.25f, 2, 2, 1});
  run_ok(sess, {}, {var.init, accum.init, linear.init});
  // lr_power = -1: linear = 1 - (2 - 1) / 0.5 = -1, quadratic = 2 / 0.5 + 0.4, var = 0.9 / 4.4.
  out = run_ok(
      sess,
      {{g, mat<float>({1}, {1, 1})}, {idx, testing::vec32({0})}, {lr_power, tensor::scalar(-1.0f)}},
      {step});
  check_tensor<float>(out[0], {4, 1}, {0.2045455f, 2, 1.2f, 7});
  check_error(sess.run({{g, mat<float>({1}, {1, 1})},
                        {idx, testing::vec32({0})},
                        {lr_power, tensor::scalar(0.5f)}},
                       {step}),
              "lr_power must not be positive, got 0.5");
}

TEST_CASE("a reader's snapshot keeps the old rows; unheld variables update in place") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", mat<float>({1, 2, 3, 4}, {2, 2}));
  auto accum = make_var(root, "accum", tensor::filled(tensor_shape{2, 2}, 0.0f));
  auto step = ops::sparse_apply_momentum(root, var.ref, accum.ref, c(root, 1.0f),
                                         ops::constant(root, mat<float>({1, 1}, {1, 2})),
                                         ops::constant(root, testing::vec32({1})), c(root, 0.0f));
  session sess(root);
  run_ok(sess, {}, {var.init, accum.init});
  auto held = run_ok(sess, {}, {var.read, accum.read});
  run_ok(sess, {}, {step});  // row 1: accum [1, 1], var [2, 3]
  check_tensor<float>(held[0], {2, 2}, {1, 2, 3, 4});
  check_tensor<float>(held[1], {2, 2}, {0, 0, 0, 0});
  const void* bytes = nullptr;
  {
    auto read = run_ok(sess, {}, {var.read});
    check_tensor<float>(read[0], {2, 2}, {1, 2, 2, 3});
    bytes = read[0].raw_data();
  }
  run_ok(sess, {}, {step});  // row 1: var [1, 2]; row 0 kept through the copy, then in place
  auto now = run_ok(sess, {}, {var.read});
  CHECK(now[0].raw_data() == bytes);
  check_tensor<float>(now[0], {2, 2}, {1, 2, 1, 2});
}

TEST_CASE("bad indices and shapes are named; nothing is written") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", mat<float>({1, 2, 3, 4, 5, 6}, {3, 2}));
  auto accum = make_var(root, "accum", tensor::filled(tensor_shape{3, 2}, 1.0f));
  auto g = ops::placeholder(root.with_op_name("g"), dtype::float32);
  auto idx = ops::placeholder(root.with_op_name("idx"), dtype::int64);
  auto step = ops::sparse_apply_adagrad(root, var.ref, accum.ref, c(root, 0.1f), g, idx);
  session sess(root);
  run_ok(sess, {}, {var.init, accum.init});
  const tensor two_rows = mat<float>({1, 1, 1, 1}, {2, 2});
  check_error(sess.run({{g, two_rows}, {idx, tensor::from_vector<int64_t>({0, 5})}}, {step}),
              "indices[1] = 5 is not in [0, 3), the first dimension of var 'var' of shape [3,2]");
  check_error(sess.run({{g, two_rows}, {idx, tensor::from_vector<int64_t>({-1, 0})}}, {step}),
              "indices[0] = -1 is not in [0, 3)");
  check_error(sess.run({{g, two_rows}, {idx, tensor::from_vector<int64_t>({0})}}, {step}),
              "grad of shape [2,2] must have one row per index, but indices has shape [1]");
  check_error(
      sess.run({{g, mat<float>({1, 1, 1}, {1, 3})}, {idx, tensor::from_vector<int64_t>({0})}},
               {step}),
      "grad of shape [1,3] does not match var 'var' of shape [3,2] in dimensions 1 and up");
  check_error(
      sess.run({{g, two_rows}, {idx, tensor::from_vector<int64_t>({0, 1}, {1, 2})}}, {step}),
      "indices must be a vector, got shape [1,2]");
  auto out = run_ok(sess, {}, {var.read, accum.read});
  check_tensor<float>(out[0], {3, 2}, {1, 2, 3, 4, 5, 6});
  check_tensor<float>(out[1], {3, 2}, {1, 1, 1, 1, 1, 1});
}

TEST_CASE("sparse update shapes are checked when the graph is built") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", mat<float>({1, 2, 3, 4, 5, 6}, {3, 2}));
  auto accum = make_var(root, "accum", tensor::filled(tensor_shape{3, 2}, 1.0f));
  auto ok = ops::sparse_apply_adagrad(root, var.ref, accum.ref, c(root, 0.1f),
                                      ops::constant(root, mat<float>({1, 1}, {1, 2})),
                                      ops::constant(root, testing::vec32({2})));
  REQUIRE(root.ok());
  CHECK(root.shape_of(ok) == partial_shape{3, 2});
  ops::sparse_apply_momentum(root.with_op_name("m"), var.ref, accum.ref, c(root, 0.1f),
                             ops::constant(root, mat<float>({1, 1, 1}, {1, 3})),
                             ops::constant(root, testing::vec32({2})), c(root, 0.9f));
  check_error(root.get_status(),
              "node 'm' (SparseApplyMomentum): grad of shape [1,3] does not "
              "match var of shape [3,2] in dimensions 1 and up");
  auto root2 = scope::new_root();
  auto v2 = make_var(root2, "var", mat<float>({1, 2}, {1, 2}));
  auto a2 = make_var(root2, "accum", mat<float>({1, 2}, {1, 2}));
  auto l2 = make_var(root2, "linear", mat<float>({1, 2}, {1, 2}));
  ops::sparse_apply_ftrl(root2.with_op_name("f"), v2.ref, a2.ref, l2.ref,
                         ops::constant(root2, mat<float>({1, 1, 1, 1}, {2, 2})),
                         ops::constant(root2, testing::vec32({0})), c(root2, 0.1f), c(root2, 0.0f),
                         c(root2, 0.0f), c(root2, -0.5f));
  check_error(root2.get_status(),
              "grad of shape [2,2] must have one row per index, but indices has shape [1]");
  auto root3 = scope::new_root();
  auto v3 = make_var(root3, "var", mat<float>({1, 2}, {1, 2}));
  auto a3 = make_var(root3, "accum", mat<float>({1, 2, 3}, {1, 3}));
  ops::sparse_apply_adagrad(root3, v3.ref, a3.ref, c(root3, 0.1f),
                            ops::constant(root3, mat<float>({1, 1}, {1, 2})),
                            ops::constant(root3, testing::vec32({0})));
  check_error(root3.get_status(), "accum of shape [1,3] does not match var of shape [1,2]");
}

TEST_CASE("SparseApplyGradientDescent: var[i] -= alpha * g row by row; a repeated index adds up") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", mat<float>({1, 2, 3, 4, 5, 6}, {3, 2}));
  auto step = ops::sparse_apply_gradient_descent(
      root, var.ref, c(root, 0.5f), ops::constant(root, mat<float>({2, 4, 1, 1, 2, 2}, {3, 2})),
      ops::constant(root, tensor::from_vector<int64_t>({2, 0, 2})));
  auto bad = ops::sparse_apply_gradient_descent(
      root, var.ref, c(root, 0.5f), ops::constant(root, mat<float>({1, 1}, {1, 2})),
      ops::constant(root, testing::vec32({3})));
  session sess(root);
  run_ok(sess, {}, {var.init});
  // Row 2: 5 - 0.5 * (2 + 2), 6 - 0.5 * (4 + 2); row 0: 1 - 0.5, 2 - 0.5; row 1 untouched.
  check_tensor<float>(run_ok(sess, {}, {step})[0], {3, 2}, {0.5f, 1.5f, 3, 4, 3, 3});
  check_error(sess.run({}, {bad}), "indices[0] = 3 is not in [0, 3), the first dimension of var 'var'");
  check_tensor<float>(run_ok(sess, {}, {var.read})[0], {3, 2}, {0.5f, 1.5f, 3, 4, 3, 3});
}

TEST_CASE("SparseApplyRMSProp: the dense formula on the named rows only") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", mat<double>({1, 2}, {2, 1}));
  auto ms = make_var(root, "ms", mat<double>({1, 1}, {2, 1}));
  auto mom = make_var(root, "mom", mat<double>({0, 0}, {2, 1}));
  auto step = ops::sparse_apply_rms_prop(
      root, var.ref, ms.ref, mom.ref, ops::constant(root, 0.1), ops::constant(root, 0.9),
      ops::constant(root, 0.5), ops::constant(root, 0.0),
      ops::constant(root, mat<double>({2}, {1, 1})), ops::constant(root, testing::vec32({1})));
  session sess(root);
  run_ok(sess, {}, {var.init, ms.init, mom.init});
  // Row 1: ms = 1 + (4 - 1) * 0.1 = 1.3; mom = 0.1 * 2 / sqrt(1.3); var = 2 - mom.
  const double mom1 = 0.2 / std::sqrt(1.3);
  check_tensor<double>(run_ok(sess, {}, {step})[0], {2, 1}, {1, 2 - mom1});
  check_tensor<double>(run_ok(sess, {}, {ms.read})[0], {2, 1}, {1, 1.3});
  // Again: ms = 1.3 + (4 - 1.3) * 0.1 = 1.57; mom = 0.5 * mom1 + 0.2 / sqrt(1.57).
  const double mom2 = 0.5 * mom1 + 0.2 / std::sqrt(1.57);
  check_tensor<double>(run_ok(sess, {}, {step})[0], {2, 1}, {1, 2 - mom1 - mom2});
  check_tensor<double>(run_ok(sess, {}, {mom.read})[0], {2, 1}, {0, mom2});
}
