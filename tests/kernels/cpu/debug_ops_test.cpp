// Assert and Print, run in a session: a failed Assert fails the step naming the node and
// showing the data; Print passes its input through and writes the data to stderr.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <sstream>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

// Captures std::cerr while alive.
struct cerr_capture {
  std::ostringstream out;
  std::streambuf* old = std::cerr.rdbuf(out.rdbuf());
  ~cerr_capture() { std::cerr.rdbuf(old); }
};

}  // namespace

TEST_CASE("Assert passes when the condition holds and fails the step naming the node") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto positive = ops::greater(root, ops::min(root, x, {0}), ops::constant(root, 0.0f));
  auto check = ops::assert_that(root.with_op_name("check_positive"), positive, {x},
                                {.summarize = 2});
  REQUIRE(root.ok());
  session sess(root);
  auto ok = sess.run({{x, tensor::from_vector<float>({1, 2, 3})}}, {}, {check});
  REQUIRE_MESSAGE(ok.ok(), ok.get_status().to_string());
  auto bad = sess.run({{x, tensor::from_vector<float>({1, -2, 3})}}, {}, {check});
  check_error(bad, "check_positive");
  check_error(bad, "assertion failed: [1 -2...]");
  CHECK(bad.get_status().code() == error_code::invalid_argument);
}

TEST_CASE("Assert rejects a non-scalar condition") {
  check_error(run_kernel("Assert", {tensor::from_vector<bool>({true, true})}),
              "input 0 must have rank 0");
  auto out = run_kernel("Assert", {tensor::scalar<bool>(false), tensor::from_vector<int32_t>({4, 5}),
                                   tensor::scalar<double>(0.5)});
  check_error(out, "assertion failed: [4 5] [0.5]");
}

TEST_CASE("Print passes its input through and prints the data up to first_n times") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::int32);
  auto y = ops::print(root, x, {x, ops::constant(root, 2.5)},
                      {.message = "values: ", .first_n = 2, .summarize = 3});
  REQUIRE(root.ok());
  session sess(root);
  cerr_capture capture;
  for (int i = 0; i < 3; ++i) {
    auto out = sess.run({{x, tensor::from_vector<int32_t>({1, 2, 3, 4})}}, {y});
    REQUIRE(out.ok());
    check_tensor<int32_t>(out->at(0), {4}, {1, 2, 3, 4});
  }
  CHECK(capture.out.str() == "values: [1 2 3...][2.5]\nvalues: [1 2 3...][2.5]\n");
}

TEST_CASE("CheckNumerics passes finite tensors and names NaN and Inf") {
  auto ok = run_kernel("CheckNumerics", {tensor::from_vector<float>({1, 2})}, {{"message", "x"}});
  REQUIRE(ok.ok());
  check_tensor<float>(ok->at(0), {2}, {1, 2});
  check_error(run_kernel("CheckNumerics", {tensor::from_vector<double>({1, std::nan("")})},
                         {{"message", "logits"}}),
              "logits : Tensor had NaN values");
  check_error(run_kernel("CheckNumerics", {tensor::from_vector<float>({HUGE_VALF})},
                         {{"message", "loss"}}),
              "loss : Tensor had Inf values");
}

TEST_CASE("EnsureShape, IdentityN and Snapshot pass tensors through") {
  auto x = caflow::testing::iota<float>({2, 3});
  auto e = run_kernel("EnsureShape", {x}, {{"shape", partial_shape{-1, 3}}});
  REQUIRE(e.ok());
  CHECK(e->at(0).shares_buffer_with(x));
  check_error(run_kernel("EnsureShape", {x}, {{"shape", partial_shape{3, -1}}}),
              "input has shape [2,3], incompatible with shape [3,?]");
  check_error(caflow::testing::run_kernel_unchecked("EnsureShape", {x}, {{"shape", partial_shape{3, -1}}}),
              "shape of tensor [2,3] is not compatible with expected shape [3,?]");
  auto n = run_kernel("IdentityN", {x, tensor::scalar<int32_t>(4)});
  REQUIRE(n.ok());
  CHECK(n->at(0).shares_buffer_with(x));
  check_tensor<int32_t>(n->at(1), {}, {4});
  auto s = run_kernel("Snapshot", {x});
  REQUIRE(s.ok());
  CHECK_FALSE(s->at(0).shares_buffer_with(x));
  check_tensor(s->at(0), x);
}

TEST_CASE("DebugStall passes its input, and when it is true sleeps its seconds first") {
  const auto t0 = std::chrono::steady_clock::now();
  auto quick = run_kernel("DebugStall", {tensor::scalar<bool>(false)}, {{"seconds", 5.0f}});
  REQUIRE(quick.ok());
  CHECK(quick->at(0).scalar_value<bool>() == false);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
  const auto t1 = std::chrono::steady_clock::now();
  auto slow = run_kernel("DebugStall", {tensor::scalar<bool>(true)}, {{"seconds", 0.3f}});
  REQUIRE(slow.ok());
  CHECK(slow->at(0).scalar_value<bool>() == true);
  CHECK(std::chrono::steady_clock::now() - t1 >= std::chrono::milliseconds(300));
  check_error(run_kernel("DebugStall", {tensor::scalar<bool>(true)}, {{"seconds", -1.0f}}),
              "seconds must lie in [0, 86400], not -1");
}
