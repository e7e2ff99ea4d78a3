// ConditionalAccumulator and its ops through sessions; waiting takes run on std::threads and
// are seen still running after a pause, then finishing (bounded) once served.
#include <doctest/doctest.h>

#include <chrono>
#include <future>

#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/data_flow_ops.hpp"
#include "kernels/resources/conditional_accumulator.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using namespace std::chrono_literals;
using caflow::testing::check_error;
using caflow::testing::check_tensor;

namespace {

using run_result = status_or<std::vector<tensor>>;

std::vector<tensor> run_ok(session& sess, const session::feed_list& feeds,
                           const std::vector<output>& fetches,
                           const std::vector<operation>& targets = {}) {
  auto out = sess.run(feeds, fetches, targets);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return std::move(out).value();
}

// An accumulator with feedable apply (local step, gradient), take (num_required),
// set_global_step and its count.
struct test_accumulator {
  output handle, step, grad, required, new_step, count, take;
  operation apply, set_step;

  test_accumulator(const scope& root, dtype type, const partial_shape& shape,
                   const ops::conditional_accumulator_attrs& attrs = {}, std::string name = "acc") {
    handle = ops::conditional_accumulator(root.with_op_name(name), type, shape, attrs);
    step = ops::placeholder(root.with_op_name(name + "/step"), dtype::int64);
    grad = ops::placeholder(root.with_op_name(name + "/grad"), type);
    required = ops::placeholder(root.with_op_name(name + "/required"), dtype::int32);
    new_step = ops::placeholder(root.with_op_name(name + "/new_step"), dtype::int64);
    apply = ops::accumulator_apply_gradient(root.with_op_name(name + "/apply"), handle, step, grad);
    take = ops::accumulator_take_gradient(root.with_op_name(name + "/take"), handle, required, type);
    set_step = ops::accumulator_set_global_step(root.with_op_name(name + "/set_step"), handle,
                                                new_step);
    count = ops::accumulator_num_accumulated(root.with_op_name(name + "/count"), handle);
  }

  status apply_grad(session& sess, int64_t local_step, const tensor& g) const {
    return sess.run_targets({apply}, {{step, tensor::scalar(local_step)}, {grad, g}});
  }
  int32_t num_accumulated(session& sess) const {
    return run_ok(sess, {}, {count}).at(0).scalar_value<int32_t>();
  }
  session::feed_list take_feed(int32_t n) const { return {{required, tensor::scalar(n)}}; }
};

template <class T>
tensor vec(std::vector<T> v) {
  return tensor::from_vector<T>(v);
}

const session_options bounded{.operation_timeout = 20s};

}  // namespace

TEST_CASE("ConditionalAccumulator: the mean of three gradients, then empty again") {
  auto root = scope::new_root();
  test_accumulator acc(root, dtype::float32, partial_shape{2});
  REQUIRE(root.ok());
  session sess(root, bounded);
  CHECK(acc.num_accumulated(sess) == 0);
  REQUIRE(acc.apply_grad(sess, 0, vec<float>({1, 2})).ok());
  REQUIRE(acc.apply_grad(sess, 0, vec<float>({3, 4})).ok());
  REQUIRE(acc.apply_grad(sess, 0, vec<float>({5, 9})).ok());
  CHECK(acc.num_accumulated(sess) == 3);
  // (1 + 3 + 5) / 3 = 3, (2 + 4 + 9) / 3 = 5
  check_tensor(run_ok(sess, acc.take_feed(3), {acc.take}).at(0), {2}, std::vector<float>{3, 5});
  CHECK(acc.num_accumulated(sess) == 0);
  // The next round (step 1: the take moved the step) starts from zero: a single gradient is
  // its own mean.
  REQUIRE(acc.apply_grad(sess, 1, vec<float>({-1, 0.5f})).ok());
  check_tensor(run_ok(sess, acc.take_feed(1), {acc.take}).at(0), {2}, std::vector<float>{-1, 0.5f});
}

TEST_CASE("reduction_type SUM gives the sum (float64)") {
  auto root = scope::new_root();
  test_accumulator acc(root, dtype::float64, partial_shape{2, 1}, {.reduction_type = "SUM"});
  session sess(root, bounded);
  REQUIRE(acc.apply_grad(sess, 0, tensor::from_vector<double>({1.25, 2}, {2, 1})).ok());
  REQUIRE(acc.apply_grad(sess, 0, tensor::from_vector<double>({3, -4.5}, {2, 1})).ok());
  check_tensor(run_ok(sess, acc.take_feed(2), {acc.take}).at(0), {2, 1},
               std::vector<double>{4.25, -2.5});
}

TEST_CASE("gradients older than the global step are dropped and counted") {
  auto root = scope::new_root();
  test_accumulator acc(root, dtype::float32, partial_shape{1});
  session sess(root, bounded);
  REQUIRE(sess.run_targets({acc.set_step}, {{acc.new_step, tensor::scalar<int64_t>(5)}}).ok());
  REQUIRE(acc.apply_grad(sess, 4, vec<float>({100})).ok());  // stale: dropped without an error
  CHECK(acc.num_accumulated(sess) == 0);
  REQUIRE(acc.apply_grad(sess, 5, vec<float>({2})).ok());
  REQUIRE(acc.apply_grad(sess, 6, vec<float>({4})).ok());
  CHECK(acc.num_accumulated(sess) == 2);
  auto resource = sess.cpu().resources().lookup<conditional_accumulator>("", "acc");
  REQUIRE(resource);
  CHECK(resource->num_dropped() == 1);
  CHECK(resource->global_step() == 5);
  check_tensor(run_ok(sess, acc.take_feed(2), {acc.take}).at(0), {1}, std::vector<float>{3});
  // The take moved the global step to 6, as TF's does: a gradient of step 5 arriving now (a
  // late backup's, while the chief applies the update) is dropped, not averaged into step 6.
  CHECK(resource->global_step() == 6);
  REQUIRE(acc.apply_grad(sess, 5, vec<float>({100})).ok());
  CHECK(acc.num_accumulated(sess) == 0);
  CHECK(resource->num_dropped() == 2);
  REQUIRE(acc.apply_grad(sess, 6, vec<float>({1})).ok());
  CHECK(acc.num_accumulated(sess) == 1);
  // The chief then sets the step its update reached: the same, so nothing is dropped.
  REQUIRE(sess.run_targets({acc.set_step}, {{acc.new_step, tensor::scalar<int64_t>(6)}}).ok());
  CHECK(acc.num_accumulated(sess) == 1);
  CHECK(resource->global_step() == 6);
}

TEST_CASE("a global step set back (a restore) drops what was summed and later gradients beyond it") {
  auto root = scope::new_root();
  test_accumulator acc(root, dtype::float32, partial_shape{1});
  session sess(root, bounded);
  auto set_step = [&](int64_t step) {
    REQUIRE(sess.run_targets({acc.set_step}, {{acc.new_step, tensor::scalar(step)}}).ok());
  };
  set_step(450);
  REQUIRE(acc.apply_grad(sess, 450, vec<float>({100})).ok());
  REQUIRE(acc.apply_grad(sess, 451, vec<float>({100})).ok());  // no restore yet: kept
  CHECK(acc.num_accumulated(sess) == 2);
  auto resource = sess.cpu().resources().lookup<conditional_accumulator>("", "acc");
  REQUIRE(resource);
  set_step(450);  // the same step: nothing is dropped
  CHECK(acc.num_accumulated(sess) == 2);
  set_step(400);  // the chief restored step 400: both were computed for undone steps
  CHECK(acc.num_accumulated(sess) == 0);
  CHECK(resource->num_dropped() == 2);
  // A worker that took its step before the restore is still at 451: dropped, as is 399.
  REQUIRE(acc.apply_grad(sess, 451, vec<float>({100})).ok());
  REQUIRE(acc.apply_grad(sess, 399, vec<float>({100})).ok());
  CHECK(acc.num_accumulated(sess) == 0);
  CHECK(resource->num_dropped() == 4);
  REQUIRE(acc.apply_grad(sess, 400, vec<float>({2})).ok());
  REQUIRE(acc.apply_grad(sess, 400, vec<float>({4})).ok());
  check_tensor(run_ok(sess, acc.take_feed(2), {acc.take}).at(0), {1}, std::vector<float>{3});
  set_step(401);  // the next update: forward again
  REQUIRE(acc.apply_grad(sess, 401, vec<float>({1})).ok());
  CHECK(acc.num_accumulated(sess) == 1);
}

TEST_CASE("a take waits for num_required gradients, holding no thread") {
  auto root = scope::new_root();
  test_accumulator acc(root, dtype::float32, partial_shape{2});
  session sess(root, {.cpu = {.intra_op_threads = 1, .inter_op_threads = 1},
                      .operation_timeout = 20s});
  auto take = std::async(std::launch::async, [&] { return sess.run(acc.take_feed(2), {acc.take}); });
  REQUIRE(acc.apply_grad(sess, 0, vec<float>({1, 10})).ok());
  CHECK(take.wait_for(150ms) == std::future_status::timeout);
  REQUIRE(acc.apply_grad(sess, 0, vec<float>({3, 20})).ok());
  REQUIRE(take.wait_for(10s) == std::future_status::ready);
  auto got = take.get();
  REQUIRE_MESSAGE(got.ok(), got.get_status().to_string());
  check_tensor(got->at(0), {2}, std::vector<float>{2, 15});
  CHECK(acc.num_accumulated(sess) == 0);
}

TEST_CASE("a take with enough gradients in completes at once with all of them") {
  auto root = scope::new_root();
  test_accumulator acc(root, dtype::float32, partial_shape::unknown());
  session sess(root, bounded);
  for (float g : {1.0f, 2.0f, 6.0f}) REQUIRE(acc.apply_grad(sess, 0, vec<float>({g})).ok());
  check_tensor(run_ok(sess, acc.take_feed(2), {acc.take}).at(0), {1}, std::vector<float>{3});
}

TEST_CASE("operation_timeout cancels a waiting take; the gradients stay") {
  auto root = scope::new_root();
  test_accumulator acc(root, dtype::float32, partial_shape{1});
  session sess(root, {.operation_timeout = 200ms});
  REQUIRE(acc.apply_grad(sess, 0, vec<float>({4})).ok());
  const auto start = std::chrono::steady_clock::now();
  auto timed_out = sess.run(acc.take_feed(2), {acc.take});
  check_error(timed_out, "did not finish within 200 ms and was cancelled");
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  CHECK(acc.num_accumulated(sess) == 1);
  REQUIRE(acc.apply_grad(sess, 0, vec<float>({8})).ok());
  check_tensor(run_ok(sess, acc.take_feed(2), {acc.take}).at(0), {1}, std::vector<float>{6});
}

TEST_CASE("accumulators with one shared_name are one accumulator") {
  auto root = scope::new_root();
  test_accumulator a(root, dtype::float32, partial_shape{1}, {.shared_name = "grads"}, "a");
  test_accumulator b(root, dtype::float32, partial_shape{1}, {.shared_name = "grads"}, "b");
  auto c = ops::conditional_accumulator(root.with_op_name("c"), dtype::float32, partial_shape{2},
                                        {.shared_name = "grads"});
  auto c_count = ops::accumulator_num_accumulated(root, c);
  session sess(root, bounded);
  REQUIRE(a.apply_grad(sess, 0, vec<float>({1})).ok());
  REQUIRE(b.apply_grad(sess, 0, vec<float>({3})).ok());
  CHECK(a.num_accumulated(sess) == 2);
  check_tensor(run_ok(sess, b.take_feed(2), {b.take}).at(0), {1}, std::vector<float>{2});
  check_error(sess.run({c_count}),
              "shared accumulator 'grads' holds float32[1] MEAN, but this node asks for float32[2] MEAN");
}

TEST_CASE("accumulator errors: shapes, dtypes, num_required, reduction_type") {
  auto root = scope::new_root();
  test_accumulator fixed(root, dtype::float32, partial_shape{2}, {}, "fixed");
  test_accumulator open(root, dtype::float32, partial_shape::unknown(), {}, "open");
  auto wrong_grad = ops::placeholder(root.with_op_name("wrong_grad"), dtype::float64);
  auto wrong_apply = ops::accumulator_apply_gradient(root, fixed.handle,
                                                     ops::constant(root, int64_t{0}), wrong_grad);
  auto wrong_take = ops::accumulator_take_gradient(root, fixed.handle,
                                                   ops::constant(root, int32_t{1}), dtype::float64);
  REQUIRE(root.ok());
  session sess(root, bounded);
  check_error(fixed.apply_grad(sess, 0, vec<float>({1, 2, 3})),
              "gradient of shape [3] does not match accumulator 'fixed' of shape [2]");
  REQUIRE(open.apply_grad(sess, 0, vec<float>({1, 2})).ok());
  check_error(open.apply_grad(sess, 0, vec<float>({1, 2, 3})),
              "gradient of shape [3] does not match the 1 gradient(s) of shape [2] accumulated "
              "so far in 'open'");
  check_error(sess.run_targets({wrong_apply}, {{wrong_grad, vec<double>({1, 2})}}),
              "accumulator 'fixed' takes float32 gradients, got float64");
  check_error(sess.run({wrong_take}), "accumulator 'fixed' holds float32 gradients, this take gives float64");
  check_error(sess.run(fixed.take_feed(0), {fixed.take}), "num_required must be positive, got 0");
  check_error(sess.run({{fixed.required, vec<int32_t>({1})}}, {fixed.take}),
              "num_required must be a scalar, got shape [1]");
  check_error(sess.run_targets({fixed.apply}, {{fixed.step, vec<int64_t>({0})},
                                               {fixed.grad, vec<float>({1, 2})}}),
              "local_step must be a scalar, got shape [1]");
  // The failed applies added nothing.
  CHECK(fixed.num_accumulated(sess) == 0);
  CHECK(open.num_accumulated(sess) == 1);

  auto bad = scope::new_root();
  ops::conditional_accumulator(bad.with_op_name("acc"), dtype::float32, partial_shape{1},
                               {.reduction_type = "MAX"});
  check_error(bad.get_status(), "reduction_type must be 'MEAN' or 'SUM', got 'MAX'");
  auto bad2 = scope::new_root();
  auto h = ops::conditional_accumulator(bad2.with_op_name("acc"), dtype::float32, partial_shape{1});
  ops::accumulator_take_gradient(bad2, h, ops::constant(bad2, int32_t{0}), dtype::float32);
  check_error(bad2.get_status(), "num_required must be positive, got 0");
  auto bad3 = scope::new_root();
  ops::conditional_accumulator(bad3.with_op_name("acc"), dtype::int32, partial_shape{1});
  check_error(bad3.get_status(), "attr 'dtype' is int32, not one of {float32, float64}");
}
