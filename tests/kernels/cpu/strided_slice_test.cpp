#include <doctest/doctest.h>

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


struct masks {
  int begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

auto strided_slice(const tensor& x, std::vector<int32_t> begin, std::vector<int32_t> end,
                   std::vector<int32_t> strides, masks m = {}) {
  return run_kernel("StridedSlice", {x, vec32(begin), vec32(end), vec32(strides)},
                    {{"begin_mask", m.begin},
                     {"end_mask", m.end},
                     {"ellipsis_mask", m.ellipsis},
                     {"new_axis_mask", m.new_axis},
                     {"shrink_axis_mask", m.shrink}});
}

}  // namespace

// x = arange(12).reshape(3, 4):
//   [[0, 1, 2, 3],
//    [4, 5, 6, 7],
//    [8, 9, 10, 11]]
TEST_CASE("StridedSlice x[1:3] is a view of rows") {
  auto x = iota<int32_t>({3, 4});
  auto out = strided_slice(x, {1}, {3}, {1});
  REQUIRE(out.ok());
  check_tensor<int32_t>(out->at(0), {2, 4}, {4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(out->at(0).shares_buffer_with(x));
}

TEST_CASE("StridedSlice x[:, 0] shrinks a column (begin, end and shrink_axis masks)") {
  auto out = strided_slice(iota<int32_t>({3, 4}), {0, 0}, {0, 1}, {1, 1},
                           {.begin = 1, .end = 1, .shrink = 2});
  REQUIRE(out.ok());
  check_tensor<int32_t>(out->at(0), {3}, {0, 4, 8});
}

TEST_CASE("StridedSlice x[-1] and x[1, -2] index with negative positions") {
  auto last = strided_slice(iota<int32_t>({3, 4}), {-1}, {0}, {1}, {.shrink = 1});
  REQUIRE(last.ok());
  check_tensor<int32_t>(last->at(0), {4}, {8, 9, 10, 11});
  auto one = strided_slice(iota<int32_t>({3, 4}), {1, -2}, {2, -1}, {1, 1}, {.shrink = 3});
  REQUIRE(one.ok());
  check_tensor<int32_t>(one->at(0), {}, {6});
}

TEST_CASE("StridedSlice x[..., ::-1] reverses the last dim (ellipsis_mask)") {
  auto out = strided_slice(iota<int32_t>({3, 4}), {0, 0}, {0, 0}, {1, -1},
                           {.begin = 2, .end = 2, .ellipsis = 1});
  REQUIRE(out.ok());
  check_tensor<int32_t>(out->at(0), {3, 4}, {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8});
}

TEST_CASE("StridedSlice x[newaxis] and x[..., newaxis] add dims (new_axis_mask)") {
  auto x = iota<int32_t>({3, 4});
  auto front = strided_slice(x, {0}, {0}, {1}, {.new_axis = 1});
  REQUIRE(front.ok());
  check_tensor<int32_t>(front->at(0), {1, 3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(front->at(0).shares_buffer_with(x));
  auto back = strided_slice(x, {0, 0}, {0, 0}, {1, 1}, {.ellipsis = 1, .new_axis = 2});
  REQUIRE(back.ok());
  CHECK(back->at(0).shape() == tensor_shape{3, 4, 1});
  auto scalar = strided_slice(tensor::scalar<float>(2.5f), {0}, {0}, {1}, {.new_axis = 1});
  REQUIRE(scalar.ok());
  check_tensor<float>(scalar->at(0), {1}, {2.5f});
}

TEST_CASE("StridedSlice with strides, negative bounds and reversed ranges") {
  auto x = iota<int32_t>({3, 4});
  // x[::2, 1::2]
  auto every_other = strided_slice(x, {0, 1}, {0, 0}, {2, 2}, {.begin = 1, .end = 3});
  REQUIRE(every_other.ok());
  check_tensor<int32_t>(every_other->at(0), {2, 2}, {1, 3, 9, 11});
  // x[-2:, -3:-1]
  auto tail = strided_slice(x, {-2, -3}, {0, -1}, {1, 1}, {.end = 1});
  REQUIRE(tail.ok());
  check_tensor<int32_t>(tail->at(0), {2, 2}, {5, 6, 9, 10});
  // x[2:0:-1, ::-2]
  auto back = strided_slice(x, {2, 0}, {0, 0}, {-1, -2}, {.begin = 2, .end = 2});
  REQUIRE(back.ok());
  check_tensor<int32_t>(back->at(0), {2, 2}, {11, 9, 7, 5});
  // x[::-1] reverses whole rows.
  auto rows = strided_slice(x, {0}, {0}, {-1}, {.begin = 1, .end = 1});
  REQUIRE(rows.ok());
  check_tensor<int32_t>(rows->at(0), {3, 4}, {8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3});
  // x[:, 1:3] is not contiguous: a copy.
  auto cols = strided_slice(x, {0, 1}, {0, 3}, {1, 1}, {.begin = 1, .end = 1});
  REQUIRE(cols.ok());
  check_tensor<int32_t>(cols->at(0), {3, 2}, {1, 2, 5, 6, 9, 10});
  CHECK_FALSE(cols->at(0).shares_buffer_with(x));
}

TEST_CASE("StridedSlice clamps out-of-range bounds and yields empty slices") {
  auto x = iota<int32_t>({3, 4});
  auto clamped = strided_slice(x, {1, -100}, {100, 100}, {1, 1});
  REQUIRE(clamped.ok());
  check_tensor<int32_t>(clamped->at(0), {2, 4}, {4, 5, 6, 7, 8, 9, 10, 11});
  auto past = strided_slice(x, {5}, {7}, {1});
  REQUIRE(past.ok());
  CHECK(past->at(0).shape() == tensor_shape{0, 4});
  auto backwards = strided_slice(x, {0, 3}, {0, 1}, {1, 1}, {.begin = 1, .end = 1});
  REQUIRE(backwards.ok());
  CHECK(backwards->at(0).shape() == tensor_shape{3, 0});
  auto reversed_empty = strided_slice(x, {0}, {2}, {-1});
  REQUIRE(reversed_empty.ok());
  CHECK(reversed_empty->at(0).shape() == tensor_shape{0, 4});
  auto of_empty =
      strided_slice(tensor(dtype::float32, {0, 2}), {0}, {0}, {-1}, {.begin = 1, .end = 1});
  REQUIRE(of_empty.ok());
  CHECK(of_empty->at(0).shape() == tensor_shape{0, 2});
}

TEST_CASE("StridedSlice y[1, newaxis, ..., 2] mixes every kind of entry") {
  // y = arange(24).reshape(2, 3, 4); y[1, None, ..., 2] = [[14, 18, 22]].
  auto out = strided_slice(iota<int32_t>({2, 3, 4}), {1, 0, 0, 2}, {2, 0, 0, 3}, {1, 1, 1, 1},
                           {.ellipsis = 4, .new_axis = 2, .shrink = 9});
  REQUIRE(out.ok());
  check_tensor<int32_t>(out->at(0), {1, 3}, {14, 18, 22});
}

TEST_CASE("StridedSlice with int64 indices and every element size") {
  auto b = tensor::from_vector<int64_t>({3});
  auto e = tensor::from_vector<int64_t>({0});
  auto s = tensor::from_vector<int64_t>({-2});
  auto d = run_kernel("StridedSlice", {tensor::from_vector<double>({1, 2, 3, 4}), b, e, s});
  REQUIRE(d.ok());
  check_tensor<double>(d->at(0), {2}, {4, 2});
  auto u = run_kernel("StridedSlice", {tensor::from_vector<uint8_t>({1, 2, 3, 4}), b, e, s});
  REQUIRE(u.ok());
  check_tensor<uint8_t>(u->at(0), {2}, {4, 2});
  auto t =
      run_kernel("StridedSlice", {tensor::from_vector<bool>({true, false, false, true}), b, e, s});
  REQUIRE(t.ok());
  check_tensor<bool>(t->at(0), {2}, {true, false});
  auto f = run_kernel("StridedSlice", {tensor::from_vector<float>({1, 2, 3, 4}), b, e, s});
  REQUIRE(f.ok());
  check_tensor<float>(f->at(0), {2}, {4, 2});
  auto l = run_kernel("StridedSlice", {tensor::from_vector<int64_t>({1, 2, 3, 4}), b, e, s});
  REQUIRE(l.ok());
  check_tensor<int64_t>(l->at(0), {2}, {4, 2});
}

TEST_CASE("StridedSlice of a large tensor reversed in both dims") {
  const int64_t n = 300, m = 400;
  auto out = strided_slice(iota<float>({n, m}), {0, 0}, {0, 0}, {-1, -1}, {.begin = 3, .end = 3});
  REQUIRE(out.ok());
  const float* y = out->at(0).data<float>();
  int bad = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) bad += y[i * m + j] != float((n - 1 - i) * m + (m - 1 - j));
  CHECK(bad == 0);
}

TEST_CASE("StridedSlice errors name the problem") {
  auto x = iota<int32_t>({3, 4});
  check_error(strided_slice(x, {5}, {6}, {1}, {.shrink = 1}),
              "index 5 is out of bounds for dimension 0 of size 3");
  check_error(strided_slice(x, {0}, {1}, {0}), "stride of dimension 0 is 0");
  check_error(strided_slice(x, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}),
              "slice entry 2 addresses dimension 2 but the input has only 2 dimensions");
  check_error(strided_slice(x, {0, 0}, {1}, {1, 1}),
              "begin, end and strides must have the same length");
  check_error(strided_slice(x, {1}, {0}, {-1}, {.shrink = 1}), "indexing needs a positive stride");
  check_error(strided_slice(x, {0}, {1}, {1}, {.begin = -1}), "begin_mask -1 is not");
  auto two_ellipses = strided_slice(x, {0, 0}, {0, 0}, {1, 1}, {.ellipsis = 3});
  check_error(two_ellipses, "ellipsis_mask 3 has more than one bit set");
  CHECK(two_ellipses.get_status().code() == error_code::unimplemented);
}

TEST_CASE("ops::strided_slice infers shapes, even with unknown bounds") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{3, -1, 5}});
  auto a = ops::strided_slice(root, x, {1, 0}, {3, 0}, {1, 1},
                              {.end_mask = 2, .new_axis_mask = 0, .shrink_axis_mask = 0});
  CHECK(root.shape_of(a) == partial_shape{2, -1, 5});
  auto b = ops::strided_slice(root, x, {0, 2}, {0, 3}, {1, 1},
                              {.ellipsis_mask = 1, .shrink_axis_mask = 2});
  CHECK(root.shape_of(b) == partial_shape{3, -1});
  auto c = ops::strided_slice(root, x, {0}, {0}, {-2}, {.begin_mask = 1, .end_mask = 1});
  CHECK(root.shape_of(c) == partial_shape{2, -1, 5});
  auto bounds = ops::placeholder(root, dtype::int64, {.shape = partial_shape{2}});
  auto d = ops::strided_slice(root, x, bounds, bounds,
                              ops::constant(root, std::vector<int64_t>{1, 1}, tensor_shape{2}),
                              {.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2});
  CHECK(root.shape_of(d) == partial_shape{3, 5});
  auto e = ops::strided_slice(root, x, bounds, bounds, bounds);
  CHECK(root.shape_of(e) == partial_shape::unknown());
  REQUIRE(root.ok());
  ops::strided_slice(root.with_op_name("oob"), x, {3}, {4}, {1}, {.shrink_axis_mask = 1});
  check_error(root.get_status(), "node 'oob' (StridedSlice)");
  check_error(root.get_status(), "index 3 is out of bounds for dimension 0 of size 3");
}

TEST_CASE("StridedSlice checks fed bounds at run time") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::int32);
  auto begin = ops::placeholder(root, dtype::int32);
  auto end = ops::placeholder(root, dtype::int32);
  auto strides = ops::placeholder(root, dtype::int32);
  auto row = ops::strided_slice(root, x, begin, end, strides, {.shrink_axis_mask = 1});
  REQUIRE(root.ok());
  session sess(root);
  auto m = iota<int32_t>({3, 4});
  auto ok =
      sess.run({{x, m}, {begin, vec32({-2})}, {end, vec32({0})}, {strides, vec32({1})}}, {row});
  REQUIRE(ok.ok());
  check_tensor<int32_t>(ok->at(0), {4}, {4, 5, 6, 7});
  check_error(
      sess.run({{x, m}, {begin, vec32({-4})}, {end, vec32({0})}, {strides, vec32({1})}}, {row}),
      "index -4 is out of bounds for dimension 0 of size 3");
  check_error(
      sess.run({{x, m}, {begin, vec32({0})}, {end, vec32({0})}, {strides, vec32({0})}}, {row}),
      "stride of dimension 0 is 0");
  check_error(sess.run({{x, tensor::scalar<int32_t>(1)},
                        {begin, vec32({0})},
                        {end, vec32({0})},
                        {strides, vec32({1})}},
                       {row}),
              "slice entry 0 addresses dimension 0 but the input has only 0 dimensions");
  check_error(
      sess.run(
          {{x, m}, {begin, tensor::scalar<int32_t>(0)}, {end, vec32({0})}, {strides, vec32({1})}},
          {row}),
      "begin must be a vector, got shape []");
}
