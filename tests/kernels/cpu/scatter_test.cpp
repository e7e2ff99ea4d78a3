// ScatterUpdate, ScatterAdd and ScatterSub through a session (they need variables): row
// updates in index order, in place when nobody else holds the variable's bytes, never
// visible to a reader holding the old value, and nothing written when an index is bad.
#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/state_ops.hpp"
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

tensor rows3x2() { return tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2}); }

}  // namespace

TEST_CASE("ScatterUpdate writes the named rows; the last of repeated indices wins") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", rows3x2());
  auto up = ops::scatter_update(
      root, var.ref, ops::constant(root, testing::vec32({2, 0})),
      ops::constant(root, tensor::from_vector<float>({10, 20, 30, 40}, {2, 2})));
  auto dup =
      ops::scatter_update(root, var.ref, ops::constant(root, testing::vec32({1, 1})),
                          ops::constant(root, tensor::from_vector<float>({7, 7, 8, 8}, {2, 2})));
  session sess(root);
  run_ok(sess, {}, {var.init});
  check_tensor<float>(run_ok(sess, {}, {up})[0], {3, 2}, {30, 40, 3, 4, 10, 20});
  check_tensor<float>(run_ok(sess, {}, {dup})[0], {3, 2}, {30, 40, 8, 8, 10, 20});
}

TEST_CASE("ScatterAdd accumulates repeated int64 indices; ScatterSub with multi-dim indices") {
  auto root = scope::new_root();
  auto ints = make_var(root, "ints", tensor::from_vector<int32_t>({1, 2, 3, 4}));
  auto add =
      ops::scatter_add(root, ints.ref, ops::constant(root, tensor::from_vector<int64_t>({0, 2, 0})),
                       ops::constant(root, tensor::from_vector<int32_t>({10, 20, 30})));
  // var [[0,1],[2,3],[4,5],[6,7]], indices [[0,1],[3,0]]: updates are [2, 2] rows of 2.
  auto dbl = make_var(root, "dbl", testing::iota<double>(tensor_shape{4, 2}));
  auto sub = ops::scatter_sub(
      root, dbl.ref, ops::constant(root, tensor::from_vector<int32_t>({0, 1, 3, 0}, {2, 2})),
      ops::constant(root, tensor::from_vector<double>({1, 1, 2, 2, 3, 3, 4, 4}, {2, 2, 2})));
  session sess(root);
  run_ok(sess, {}, {ints.init, dbl.init});
  check_tensor<int32_t>(run_ok(sess, {}, {add})[0], {4}, {41, 2, 23, 4});
  // Row 0 loses 1 and 4, row 1 loses 2, row 3 loses 3; row 2 is untouched.
  check_tensor<double>(run_ok(sess, {}, {sub})[0], {4, 2}, {-5, -4, 0, 1, 4, 5, 3, 4});
}

TEST_CASE("a scalar update applies to every named row; empty indices change nothing") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", rows3x2());
  auto fill = ops::scatter_update(root, var.ref, ops::constant(root, testing::vec32({2, 0})),
                                  ops::constant(root, 9.0f));
  auto none = ops::scatter_add(root, var.ref, ops::constant(root, testing::vec32({})),
                               ops::constant(root, tensor(dtype::float32, tensor_shape{0, 2})));
  session sess(root);
  run_ok(sess, {}, {var.init});
  check_tensor<float>(run_ok(sess, {}, {fill})[0], {3, 2}, {9, 9, 3, 4, 9, 9});
  check_tensor<float>(run_ok(sess, {}, {none})[0], {3, 2}, {9, 9, 3, 4, 9, 9});
}

TEST_CASE("scatters write in place, except into bytes a reader holds") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", rows3x2());
  auto add = ops::scatter_add(root, var.ref, ops::constant(root, testing::vec32({1})),
                              ops::constant(root, tensor::from_vector<float>({1, 1}, {1, 2})));
  session sess(root);
  run_ok(sess, {}, {var.init});
  // The first update copies: the variable shares the Const's tensor.
  run_ok(sess, {}, {add});
  const void* bytes = nullptr;
  {
    auto read = run_ok(sess, {}, {var.read});
    bytes = read[0].raw_data();
  }
  run_ok(sess, {}, {add});
  auto after = run_ok(sess, {}, {var.read});
  CHECK(after[0].raw_data() == bytes);  // nobody held the value: updated in place
  check_tensor<float>(after[0], {3, 2}, {1, 2, 5, 6, 5, 6});
  // A held snapshot keeps its values; the variable moves to new bytes.
  run_ok(sess, {}, {add});
  check_tensor<float>(after[0], {3, 2}, {1, 2, 5, 6, 5, 6});
  auto now = run_ok(sess, {}, {var.read});
  CHECK(now[0].raw_data() != after[0].raw_data());
  check_tensor<float>(now[0], {3, 2}, {1, 2, 6, 7, 5, 6});
  // Initializing again restores the Const's values: no update wrote into them.
  run_ok(sess, {}, {var.init});
  check_tensor<float>(run_ok(sess, {}, {var.read})[0], {3, 2}, {1, 2, 3, 4, 5, 6});
}

TEST_CASE("an index out of range is named and nothing is written") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", rows3x2());
  auto idx = ops::placeholder(root.with_op_name("idx"), dtype::int64);
  auto up = ops::scatter_update(
      root, var.ref, idx, ops::constant(root, tensor::from_vector<float>({0, 0, 0, 0}, {2, 2})));
  auto add = ops::scatter_add(root, var.ref, idx, ops::constant(root, 1.0f));
  session sess(root);
  run_ok(sess, {}, {var.init});
  // Row 0 would be written before index 3 is reached: all indices are checked first.
  check_error(sess.run({{idx, tensor::from_vector<int64_t>({0, 3})}}, {up}),
              "indices[1] = 3 is not in [0, 3), the first dimension of variable 'var' of shape "
              "[3,2]");
  check_error(sess.run({{idx, tensor::from_vector<int64_t>({-1})}}, {add}),
              "indices[0] = -1 is not in [0, 3)");
  check_error(sess.run({{idx, tensor::from_vector<int64_t>({1, 7}, {1, 2})}}, {add}),
              "indices[0,1] = 7 is not in [0, 3)");
  check_tensor<float>(run_ok(sess, {}, {var.read})[0], {3, 2}, {1, 2, 3, 4, 5, 6});
}

TEST_CASE("updates of the wrong shape are refused when building, else at run time") {
  {
    auto root = scope::new_root();
    auto var = make_var(root, "var", rows3x2());
    ops::scatter_add(root.with_op_name("sa"), var.ref, ops::constant(root, testing::vec32({0, 1})),
                     ops::constant(root, tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3})));
    check_error(root.get_status(),
                "node 'sa' (ScatterAdd): updates of shape [2,3] must be a "
                "scalar or [2,2] (indices.shape [2] + ref.shape[1:]");
  }
  auto root = scope::new_root();
  auto var = make_var(root, "var", rows3x2(), partial_shape::unknown());
  auto upd = ops::placeholder(root.with_op_name("upd"), dtype::float32);
  auto up = ops::scatter_update(root, var.ref, ops::constant(root, testing::vec32({0, 1})), upd);
  REQUIRE(root.ok());
  CHECK_FALSE(root.shape_of(up).rank_known());
  session sess(root);
  check_error(sess.run({{upd, tensor::from_vector<float>({1, 2})}}, {up}),
              "attempting to use uninitialized variable 'var'");
  run_ok(sess, {}, {var.init});
  check_error(sess.run({{upd, tensor::from_vector<float>({1, 2, 3}, {1, 3})}}, {up}),
              "updates of shape [1,3] must be a scalar or [2,2] (indices.shape [2] + the shape "
              "of variable 'var' [3,2] from dimension 1)");
  check_tensor<float>(run_ok(sess, {}, {var.read})[0], {3, 2}, {1, 2, 3, 4, 5, 6});
}

TEST_CASE("scatter shapes: the output is the variable's; a scalar variable is refused") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", rows3x2());
  auto up = ops::scatter_sub(root, var.ref, ops::constant(root, testing::vec32({0})),
                             ops::constant(root, tensor::from_vector<float>({1, 1}, {1, 2})));
  REQUIRE(root.ok());
  CHECK(root.shape_of(up) == partial_shape{3, 2});
  CHECK(up.type == dtype::float32);
  auto scalar = make_var(root, "scalar", tensor::scalar<float>(1));
  ops::scatter_update(root.with_op_name("su"), scalar.ref, ops::constant(root, testing::vec32({0})),
                      ops::constant(root, 2.0f));
  check_error(root.get_status(), "node 'su' (ScatterUpdate)");
}
