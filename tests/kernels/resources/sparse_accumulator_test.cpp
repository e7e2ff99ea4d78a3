// SparseConditionalAccumulator and its ops through sessions: rows summed per index, MEAN
// dividing each row by the gradients that named it (TF's rule), stale gradients dropped,
// and every bad gradient refused before anything is added.
#include <doctest/doctest.h>

#include <chrono>
#include <future>

#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/data_flow_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using namespace std::chrono_literals;
using caflow::testing::check_error;
using caflow::testing::check_tensor;

namespace {

std::vector<tensor> run_ok(session& sess, const session::feed_list& feeds,
                           const std::vector<output>& fetches) {
  auto out = sess.run(feeds, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return std::move(out).value();
}

// An accumulator of [4, 2] float rows with feedable apply and take.
struct sparse_acc {
  output handle, step, indices, values, shape, required, count, new_step;
  operation apply, apply_unshaped, set_step;
  std::vector<output> take;

  sparse_acc(const scope& root, const std::string& reduction = "MEAN",
             const partial_shape& declared = partial_shape({4, 2})) {
    handle = ops::sparse_conditional_accumulator(root.with_op_name("acc"), dtype::float32,
                                                 declared, {.reduction_type = reduction});
    step = ops::placeholder(root.with_op_name("step"), dtype::int64);
    indices = ops::placeholder(root.with_op_name("indices"), dtype::int64);
    values = ops::placeholder(root.with_op_name("values"), dtype::float32);
    shape = ops::placeholder(root.with_op_name("shape"), dtype::int64);
    required = ops::placeholder(root.with_op_name("required"), dtype::int32);
    new_step = ops::placeholder(root.with_op_name("new_step"), dtype::int64);
    apply = ops::sparse_accumulator_apply_gradient(root.with_op_name("apply"), handle, step,
                                                   indices, values, shape);
    apply_unshaped = ops::sparse_accumulator_apply_gradient(root.with_op_name("apply_unshaped"),
                                                            handle, step, indices, values, {});
    take = ops::sparse_accumulator_take_gradient(root.with_op_name("take"), handle, required,
                                                 dtype::float32);
    count = ops::accumulator_num_accumulated(root.with_op_name("count"), handle);
    set_step = ops::accumulator_set_global_step(root.with_op_name("set_step"), handle, new_step);
  }
  status add(session& sess, int64_t local_step, std::vector<int64_t> idx, std::vector<float> v,
             std::vector<int64_t> dense = {4, 2}) const {
    const int64_t n = static_cast<int64_t>(idx.size());
    return sess.run_targets(
        {apply}, {{step, tensor::scalar(local_step)},
                  {indices, tensor::from_vector<int64_t>(idx)},
                  {values, tensor::from_vector<float>(v, tensor_shape{n, 2})},
                  {shape, tensor::from_vector<int64_t>(dense)}});
  }
};

}  // namespace

TEST_CASE("SparseConditionalAccumulator: rows summed per index, each averaged by its own count") {
  auto root = scope::new_root();
  sparse_acc acc(root);
  session sess(root);
  REQUIRE(acc.add(sess, 0, {2, 0}, {1, 2, 3, 4}).ok());
  // The second gradient names row 2 twice (counted once) and row 3.
  REQUIRE(acc.add(sess, 0, {3, 2, 2}, {5, 6, 10, 20, 1, 1}).ok());
  CHECK(run_ok(sess, {}, {acc.count})[0].scalar_value<int32_t>() == 2);
  auto out = run_ok(sess, {{acc.required, tensor::scalar(int32_t{2})}}, acc.take);
  check_tensor<int64_t>(out[0], {3}, {0, 2, 3});
  // Row 0: one gradient; row 2: (1 + 10 + 1) / 2, (2 + 20 + 1) / 2; row 3: one gradient.
  check_tensor<float>(out[1], {3, 2}, {3, 4, 6, 11.5f, 5, 6});
  check_tensor<int64_t>(out[2], {2}, {4, 2});
  CHECK(run_ok(sess, {}, {acc.count})[0].scalar_value<int32_t>() == 0);
}

TEST_CASE("SUM adds rows; without gradient_shape the declared shape is given back") {
  auto root = scope::new_root();
  sparse_acc acc(root, "SUM");
  session sess(root);
  for (int i = 0; i < 2; ++i) {
    const status st = sess.run_targets({acc.apply_unshaped},
                                       {{acc.step, tensor::scalar(int64_t{0})},
                                        {acc.indices, tensor::from_vector<int64_t>({1})},
                                        {acc.values, tensor::from_vector<float>({1, 2}, {1, 2})}});
    REQUIRE_MESSAGE(st.ok(), st.to_string());
  }
  auto out = run_ok(sess, {{acc.required, tensor::scalar(int32_t{2})}}, acc.take);
  check_tensor<int64_t>(out[0], {1}, {1});
  check_tensor<float>(out[1], {1, 2}, {2, 4});
  check_tensor<int64_t>(out[2], {2}, {4, 2});
}

TEST_CASE("stale sparse gradients are dropped; a take waits for enough fresh ones") {
  auto root = scope::new_root();
  sparse_acc acc(root);
  session sess(root);
  REQUIRE(sess.run_targets({acc.set_step}, {{acc.new_step, tensor::scalar(int64_t{5})}}).ok());
  REQUIRE(acc.add(sess, 4, {0}, {1, 1}).ok());  // stale: dropped without an error
  CHECK(run_ok(sess, {}, {acc.count})[0].scalar_value<int32_t>() == 0);
  auto waiting = std::async(std::launch::async, [&] {
    return sess.run({{acc.required, tensor::scalar(int32_t{1})}}, acc.take);
  });
  CHECK(waiting.wait_for(200ms) == std::future_status::timeout);
  REQUIRE(acc.add(sess, 5, {1}, {7, 8}).ok());
  REQUIRE(waiting.wait_for(10s) == std::future_status::ready);
  auto out = waiting.get();
  REQUIRE(out.ok());
  check_tensor<int64_t>(out->at(0), {1}, {1});
  check_tensor<float>(out->at(1), {1, 2}, {7, 8});
}

TEST_CASE("bad sparse gradients are refused before anything is added") {
  auto root = scope::new_root();
  sparse_acc acc(root);
  session sess(root);
  REQUIRE(acc.add(sess, 0, {0}, {1, 1}).ok());
  check_error(acc.add(sess, 0, {-1}, {1, 1}), "gradient indices[0] = -1 is negative");
  check_error(acc.add(sess, 0, {4}, {1, 1}), "indices[0] = 4 is not below the 4 rows");
  check_error(acc.add(sess, 0, {0}, {1, 1}, {5, 2}), "gradient_shape [5,2] does not match");
  check_error(sess.run_targets({acc.apply}, {{acc.step, tensor::scalar(int64_t{0})},
                                             {acc.indices, tensor::from_vector<int64_t>({0})},
                                             {acc.values, tensor::from_vector<float>({1, 1, 1}, {1, 3})},
                                             {acc.shape, tensor::from_vector<int64_t>({4, 2})}}),
              "do not match the rows of float32[2] accumulated so far");
  // Only the first gradient is in.
  auto out = run_ok(sess, {{acc.required, tensor::scalar(int32_t{1})}}, acc.take);
  check_tensor<int64_t>(out[0], {1}, {0});
  check_tensor<float>(out[1], {1, 2}, {1, 1});
}

TEST_CASE("a dense op on a sparse accumulator and the reverse are errors naming it") {
  auto root = scope::new_root();
  sparse_acc acc(root);
  auto dense_take = ops::accumulator_take_gradient(root.with_op_name("dense_take"), acc.handle,
                                                   ops::constant(root, int32_t{1}), dtype::float32);
  session sess(root);
  check_error(sess.run({}, {dense_take}), "accumulator 'acc' is sparse");
}
