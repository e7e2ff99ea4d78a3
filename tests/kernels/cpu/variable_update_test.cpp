// ScatterMul/Div/Min/Max, ScatterNdUpdate/Add/Sub and CountUpTo through a session (they need
// variables).
#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/state_ops.hpp"
#include "graph/client/ops/variable_update_ops.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/test_variable.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::make_var;

namespace {

std::vector<tensor> run_ok(session& sess, const std::vector<output>& fetches) {
  auto out = sess.run({}, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return std::move(out).value();
}

tensor rows3x2() { return tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2}); }

}  // namespace

TEST_CASE("ScatterMul, ScatterDiv, ScatterMin and ScatterMax combine rows in index order") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", rows3x2());
  auto idx = ops::constant(root, testing::vec32({2, 0, 2}));
  auto upd = ops::constant(root, tensor::from_vector<float>({2, 2, 10, 0, 3, 0.5f}, {3, 2}));
  auto mul = ops::scatter_mul(root, var.ref, idx, upd);
  session sess(root);
  run_ok(sess, {var.init});
  check_tensor<float>(run_ok(sess, {mul})[0], {3, 2}, {10, 0, 3, 4, 30, 6});
  auto div = ops::scatter_div(root, var.ref, ops::constant(root, testing::vec32({1})),
                              ops::constant(root, 2.0f));
  auto mn = ops::scatter_min(root, var.ref, idx, upd);
  auto mx = ops::scatter_max(root, var.ref, ops::constant(root, testing::vec32({0})),
                             ops::constant(root, tensor::from_vector<float>({-1, 7}, {1, 2})));
  session sess2(root);
  run_ok(sess2, {var.init});
  check_tensor<float>(run_ok(sess2, {div})[0], {3, 2}, {1, 2, 1.5f, 2, 5, 6});
  check_tensor<float>(run_ok(sess2, {mn})[0], {3, 2}, {1, 0, 1.5f, 2, 2, 0.5f});
  check_tensor<float>(run_ok(sess2, {mx})[0], {3, 2}, {1, 7, 1.5f, 2, 2, 0.5f});
}

TEST_CASE("ScatterNdUpdate, ScatterNdAdd and ScatterNdSub write slices named by tuples") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", testing::iota<int32_t>({2, 3}));
  auto up = ops::scatter_nd_update(
      root, var.ref, ops::constant(root, tensor::from_vector<int64_t>({1, 2, 0, 0}, {2, 2})),
      ops::constant(root, testing::vec32({50, 60})));
  auto add = ops::scatter_nd_add(root, var.ref,
                                 ops::constant(root, tensor::from_vector<int32_t>({1}, {1, 1})),
                                 ops::constant(root, tensor::from_vector<int32_t>({1, 1, 1}, {1, 3})));
  auto sub = ops::scatter_nd_sub(root, var.ref,
                                 ops::constant(root, tensor::from_vector<int32_t>({0, 1, 0, 1}, {2, 2})),
                                 ops::constant(root, testing::vec32({5, 5})));
  session sess(root);
  run_ok(sess, {var.init});
  check_tensor<int32_t>(run_ok(sess, {up})[0], {2, 3}, {60, 1, 2, 3, 4, 50});
  check_tensor<int32_t>(run_ok(sess, {add})[0], {2, 3}, {60, 1, 2, 4, 5, 51});
  check_tensor<int32_t>(run_ok(sess, {sub})[0], {2, 3}, {60, -9, 2, 4, 5, 51});
  auto bad = ops::scatter_nd_add(root, var.ref,
                                 ops::constant(root, tensor::from_vector<int32_t>({0, 3}, {1, 2})),
                                 ops::constant(root, testing::vec32({1})));
  session sess2(root);
  run_ok(sess2, {var.init});
  check_error(sess2.run({}, {bad}), "index tuple 0 of indices [1,2] = [0,3] does not index into shape [2,3]");
  // Nothing was written.
  check_tensor<int32_t>(run_ok(sess2, {var.read})[0], {2, 3}, {0, 1, 2, 3, 4, 5});
  auto wrong = ops::scatter_nd_update(root, var.ref,
                                      ops::constant(root, tensor::from_vector<int32_t>({0}, {1, 1})),
                                      ops::constant(root, testing::vec32({1, 2})));
  check_error(root.get_status(), "updates has shape [2] but indices [1,1] and shape [2,3] need [1,3]");
}

TEST_CASE("CountUpTo counts to its limit, then fails with OUT_OF_RANGE") {
  auto root = scope::new_root();
  auto counter = make_var(root, "counter", tensor::scalar<int64_t>(0));
  auto next = ops::count_up_to(root, counter.ref, 2);
  session sess(root);
  run_ok(sess, {counter.init});
  check_tensor<int64_t>(run_ok(sess, {next})[0], {}, {0});
  check_tensor<int64_t>(run_ok(sess, {next})[0], {}, {1});
  auto done = sess.run({}, {next});
  check_error(done, "Reached limit of 2");
  CHECK(done.get_status().code() == error_code::out_of_range);
}
