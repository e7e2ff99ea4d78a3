#include <doctest/doctest.h>

#include <limits>

#include "actors/session/session.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;
using caflow::testing::iota;
using caflow::testing::vec32;

namespace {


}  // namespace

// x = arange(12).reshape(3, 4):
//   [[0, 1, 2, 3],
//    [4, 5, 6, 7],
//    [8, 9, 10, 11]]
TEST_CASE("Slice takes a box, size -1 running to the end") {
  auto x = iota<float>({3, 4});
  auto box = run_kernel("Slice", {x, vec32({1, 1}), vec32({2, 2})});
  REQUIRE(box.ok());
  check_tensor<float>(box->at(0), {2, 2}, {5, 6, 9, 10});
  CHECK_FALSE(box->at(0).shares_buffer_with(x));
  auto tail = run_kernel("Slice", {x, vec32({0, 2}), vec32({-1, -1})});
  REQUIRE(tail.ok());
  check_tensor<float>(tail->at(0), {3, 2}, {2, 3, 6, 7, 10, 11});
}

TEST_CASE("Slice of whole trailing dims is a view of the input") {
  auto x = iota<int32_t>({3, 4});
  auto rows = run_kernel("Slice", {x, vec32({1, 0}), vec32({2, -1})});
  REQUIRE(rows.ok());
  check_tensor<int32_t>(rows->at(0), {2, 4}, {4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(rows->at(0).shares_buffer_with(x));
  // y = arange(24).reshape(2, 3, 4); y[1:2, 1:3, :] is one contiguous run.
  auto y = iota<int32_t>({2, 3, 4});
  auto run = run_kernel("Slice", {y, vec32({1, 1, 0}), vec32({1, 2, 4})});
  REQUIRE(run.ok());
  check_tensor<int32_t>(run->at(0), {1, 2, 4}, {16, 17, 18, 19, 20, 21, 22, 23});
  CHECK(run->at(0).shares_buffer_with(y));
  // A part of one row is contiguous too.
  auto part = run_kernel("Slice", {y, vec32({0, 2, 1}), vec32({1, 1, 2})});
  REQUIRE(part.ok());
  check_tensor<int32_t>(part->at(0), {1, 1, 2}, {9, 10});
  CHECK(part->at(0).shares_buffer_with(y));
  // A view of a view keeps its offset.
  auto again = run_kernel("Slice", {rows->at(0), vec32({1, 0}), vec32({1, 4})});
  REQUIRE(again.ok());
  check_tensor<int32_t>(again->at(0), {1, 4}, {8, 9, 10, 11});
}

TEST_CASE("Slice with int64 indices and every element size") {
  auto b = tensor::from_vector<int64_t>({1});
  auto s = tensor::from_vector<int64_t>({2});
  auto d = run_kernel("Slice", {tensor::from_vector<double>({1.5, 2.5, 3.5, 4.5}), b, s});
  REQUIRE(d.ok());
  check_tensor<double>(d->at(0), {2}, {2.5, 3.5});
  auto u = run_kernel("Slice", {tensor::from_vector<uint8_t>({1, 2, 3, 4, 5, 6}, {2, 3}),
                                vec32({0, 1}), vec32({2, 1})});
  REQUIRE(u.ok());
  check_tensor<uint8_t>(u->at(0), {2, 1}, {2, 5});
  auto t = run_kernel("Slice", {tensor::from_vector<bool>({true, false, true, true}, {2, 2}),
                                vec32({0, 1}), vec32({2, 1})});
  REQUIRE(t.ok());
  check_tensor<bool>(t->at(0), {2, 1}, {false, true});
  auto l = run_kernel("Slice", {tensor::from_vector<int64_t>({-1, -2, -3, -4}, {2, 2}),
                                vec32({1, 0}), vec32({1, 2})});
  REQUIRE(l.ok());
  check_tensor<int64_t>(l->at(0), {1, 2}, {-3, -4});
}

TEST_CASE("Slice of zero size, of an empty input and of a scalar") {
  auto x = iota<float>({3, 4});
  auto none = run_kernel("Slice", {x, vec32({1, 4}), vec32({2, 0})});
  REQUIRE(none.ok());
  CHECK(none->at(0).shape() == tensor_shape{2, 0});
  auto empty = run_kernel("Slice", {tensor(dtype::float32, {0, 3}), vec32({0, 1}), vec32({-1, 2})});
  REQUIRE(empty.ok());
  CHECK(empty->at(0).shape() == tensor_shape{0, 2});
  auto s = run_kernel("Slice", {tensor::scalar<int32_t>(5), vec32({}), vec32({})});
  REQUIRE(s.ok());
  check_tensor<int32_t>(s->at(0), {}, {5});
}

TEST_CASE("Slice of a large tensor copies the right rows") {
  auto x = iota<float>({512, 300});
  auto out = run_kernel("Slice", {x, vec32({10, 7}), vec32({400, 250})});
  REQUIRE(out.ok());
  const float* y = out->at(0).data<float>();
  int bad = 0;
  for (int64_t r = 0; r < 400; ++r)
    for (int64_t c = 0; c < 250; ++c) bad += y[r * 250 + c] != float((r + 10) * 300 + c + 7);
  CHECK(bad == 0);
}

TEST_CASE("Slice rejects out-of-range begin and size") {
  auto x = iota<float>({3, 4});
  check_error(run_kernel("Slice", {x, vec32({4, 0}), vec32({1, 1})}),
              "begin[0] = 4 is out of range [0, 3]");
  check_error(run_kernel("Slice", {x, vec32({1, 2}), vec32({1, 3})}),
              "size[1] = 3 is out of range [0, 2] (or -1) for begin[1] = 2");
  check_error(run_kernel("Slice", {x, vec32({-1, 0}), vec32({1, 1})}), "begin[0] = -1");
  check_error(run_kernel("Slice", {x, vec32({0, 0}), vec32({-2, 1})}), "size[0] = -2");
  check_error(
      run_kernel("Slice", {x, tensor::from_vector<int64_t>({1, 0}),
                           tensor::from_vector<int64_t>({std::numeric_limits<int64_t>::max(), 1})}),
      "size[0] = 9223372036854775807 is out of range [0, 2]");
  check_error(run_kernel("Slice", {x, vec32({0}), vec32({1})}),
              "begin and size have 1 entries but the input has rank 2");
  check_error(run_kernel("Slice", {x, vec32({0, 0}), vec32({1})}),
              "begin has 2 entries but size has 1");
}

TEST_CASE("ops::slice infers shapes from constant begin and size") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 5}});
  auto y = ops::slice(root, x, {1, 2}, {-1, 2});
  CHECK(root.shape_of(y) == partial_shape{-1, 2});
  auto z = ops::slice(root, x, {0, 1}, {3, -1});
  CHECK(root.shape_of(z) == partial_shape{3, 4});
  auto b = ops::placeholder(root, dtype::int64, {.shape = partial_shape{2}});
  auto w = ops::slice(root, x, b, b);
  CHECK(root.shape_of(w) == partial_shape{-1, -1});
  REQUIRE(root.ok());
  ops::slice(root.with_op_name("too_far"), x, {0, 4}, {1, 2});
  check_error(root.get_status(), "node 'too_far' (Slice)");
  check_error(root.get_status(), "size[1] = 2 is out of range [0, 1]");
}

TEST_CASE("Slice checks fed begin and size at run time") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32);
  auto begin = ops::placeholder(root, dtype::int32);
  auto size = ops::placeholder(root, dtype::int32);
  auto y = ops::slice(root, x, begin, size);
  REQUIRE(root.ok());
  session sess(root);
  auto m = iota<float>({3, 4});
  auto ok = sess.run({{x, m}, {begin, vec32({2, 1})}, {size, vec32({1, -1})}}, {y});
  REQUIRE(ok.ok());
  check_tensor<float>(ok->at(0), {1, 3}, {9, 10, 11});
  check_error(sess.run({{x, m}, {begin, vec32({3, 5})}, {size, vec32({0, 0})}}, {y}),
              "begin[1] = 5 is out of range [0, 4] for input shape [3,4]");
  check_error(sess.run({{x, m}, {begin, vec32({1, 0})}, {size, vec32({3, 1})}}, {y}),
              "size[0] = 3 is out of range [0, 2] (or -1) for begin[0] = 1");
  check_error(sess.run({{x, m}, {begin, vec32({0})}, {size, vec32({1})}}, {y}),
              "begin and size must be vectors with one entry per input dimension; input shape "
              "[3,4], begin shape [1], size shape [1]");
}
