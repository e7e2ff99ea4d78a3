#include <doctest/doctest.h>

#include <numeric>

#include "actors/session/session.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;
using caflow::testing::iota;

namespace {

tensor perm32(std::vector<int32_t> p) { return tensor::from_vector<int32_t>(p); }

}  // namespace

TEST_CASE("Transpose swaps the dims of a matrix") {
  auto x = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto out = run_kernel("Transpose", {x, perm32({1, 0})});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {3, 2}, {1, 4, 2, 5, 3, 6});
}

TEST_CASE("Transpose rotates three dims") {
  // y[k][i][j] = x[i][j][k] with x = arange(24).reshape(2, 3, 4).
  auto out = run_kernel("Transpose", {iota<int32_t>({2, 3, 4}), perm32({2, 0, 1})});
  REQUIRE(out.ok());
  check_tensor<int32_t>(out->at(0), {4, 2, 3}, {0, 4, 8,  12, 16, 20, 1, 5, 9,  13, 17, 21,
                                                2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
}

TEST_CASE("Transpose keeping the inner dim copies whole rows") {
  // x = arange(12).reshape(2, 3, 2); y = x.transpose(1, 0, 2).
  auto out = run_kernel("Transpose", {iota<int64_t>({2, 3, 2}), perm32({1, 0, 2})});
  REQUIRE(out.ok());
  check_tensor<int64_t>(out->at(0), {3, 2, 2}, {0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11});
}

TEST_CASE("Transpose accepts int64 perm and every element size") {
  auto p = tensor::from_vector<int64_t>({1, 0});
  auto d = run_kernel("Transpose", {tensor::from_vector<double>({1, 2, 3, 4}, {2, 2}), p});
  REQUIRE(d.ok());
  check_tensor<double>(d->at(0), {2, 2}, {1, 3, 2, 4});
  auto u = run_kernel("Transpose", {tensor::from_vector<uint8_t>({1, 2, 3, 4, 5, 6}, {3, 2}), p});
  REQUIRE(u.ok());
  check_tensor<uint8_t>(u->at(0), {2, 3}, {1, 3, 5, 2, 4, 6});
  auto b =
      run_kernel("Transpose", {tensor::from_vector<bool>({true, false, false, false}, {2, 2}), p});
  REQUIRE(b.ok());
  check_tensor<bool>(b->at(0), {2, 2}, {true, false, false, false});
  auto b2 =
      run_kernel("Transpose", {tensor::from_vector<bool>({false, true, false, false}, {2, 2}), p});
  REQUIRE(b2.ok());
  check_tensor<bool>(b2->at(0), {2, 2}, {false, false, true, false});
}

TEST_CASE("Transpose of large tensors matches the definition") {
  SUBCASE("matrix, tiled and on the pool") {
    const int64_t m = 300, n = 517;
    auto out = run_kernel("Transpose", {iota<float>({m, n}), perm32({1, 0})});
    REQUIRE(out.ok());
    REQUIRE(out->at(0).shape() == tensor_shape{n, m});
    const float* y = out->at(0).data<float>();
    int bad = 0;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) bad += y[j * m + i] != static_cast<float>(i * n + j);
    CHECK(bad == 0);
  }
  SUBCASE("NCHW to NHWC") {
    const int64_t N = 3, C = 5, H = 40, W = 70;
    auto out = run_kernel("Transpose", {iota<int32_t>({N, C, H, W}), perm32({0, 2, 3, 1})});
    REQUIRE(out.ok());
    REQUIRE(out->at(0).shape() == tensor_shape{N, H, W, C});
    const int32_t* y = out->at(0).data<int32_t>();
    int bad = 0;
    for (int64_t a = 0; a < N; ++a)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w)
          for (int64_t c = 0; c < C; ++c)
            bad += y[((a * H + h) * W + w) * C + c] != ((a * C + c) * H + h) * W + w;
    CHECK(bad == 0);
  }
  SUBCASE("swapping outer dims of a wide tensor") {
    const int64_t A = 64, B = 48, C = 100;
    auto out = run_kernel("Transpose", {iota<uint8_t>({A, B, C}), perm32({1, 0, 2})});
    REQUIRE(out.ok());
    const uint8_t* y = out->at(0).data<uint8_t>();
    int bad = 0;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t a = 0; a < A; ++a)
        for (int64_t c = 0; c < C; ++c)
          bad += y[(b * A + a) * C + c] != static_cast<uint8_t>((a * B + b) * C + c);
    CHECK(bad == 0);
  }
}

TEST_CASE("Transpose that keeps the memory order shares the input's bytes") {
  auto x = tensor::from_vector<float>({1, 2, 3}, {1, 3});
  auto moved = run_kernel("Transpose", {x, perm32({1, 0})});
  REQUIRE(moved.ok());
  check_tensor<float>(moved->at(0), {3, 1}, {1, 2, 3});
  CHECK(moved->at(0).shares_buffer_with(x));
  auto y = iota<float>({2, 3});
  auto same = run_kernel("Transpose", {y, perm32({0, 1})});
  REQUIRE(same.ok());
  CHECK(same->at(0).shares_buffer_with(y));
  auto swapped = run_kernel("Transpose", {y, perm32({1, 0})});
  REQUIRE(swapped.ok());
  CHECK_FALSE(swapped->at(0).shares_buffer_with(y));
}

TEST_CASE("Transpose of zero-size and scalar tensors") {
  auto empty = run_kernel("Transpose", {tensor(dtype::float32, {0, 3}), perm32({1, 0})});
  REQUIRE(empty.ok());
  CHECK(empty->at(0).shape() == tensor_shape{3, 0});
  auto s = run_kernel("Transpose", {tensor::scalar<int32_t>(7), tensor(dtype::int32, {0})});
  REQUIRE(s.ok());
  check_tensor<int32_t>(s->at(0), {}, {7});
}

TEST_CASE("Transpose rejects a perm that is not a permutation") {
  auto x = iota<float>({2, 3});
  check_error(run_kernel("Transpose", {x, perm32({0, 0})}), "perm [0,0] is not a permutation");
  check_error(run_kernel("Transpose", {x, perm32({0, 2})}), "is not a permutation of 0..1");
  check_error(run_kernel("Transpose", {x, perm32({1, 0, 2})}), "perm has 3 entries");
  check_error(run_kernel("Transpose", {x, tensor::scalar<int32_t>(0)}), "rank 1");
}

TEST_CASE("ops::transpose infers shapes and reports bad perms at construction") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{2, -1, 5}});
  auto y = ops::transpose(root, x, {2, 0, 1});
  CHECK(root.shape_of(y) == partial_shape{5, 2, -1});
  auto p = ops::placeholder(root, dtype::int32, {.shape = partial_shape{3}});
  auto z = ops::transpose(root, x, p);
  CHECK(root.shape_of(z) == partial_shape{-1, -1, -1});
  REQUIRE(root.ok());

  auto bad = ops::transpose(root.with_op_name("bad"), x, std::vector<int>{0, 0, 1});
  CHECK_FALSE(bad.valid());
  check_error(root.get_status(), "node 'bad' (Transpose)");
  check_error(root.get_status(), "not a permutation");

  auto root2 = scope::new_root();
  auto x2 = ops::placeholder(root2, dtype::float32, {.shape = partial_shape{2, 3}});
  ops::transpose(root2, x2, {1, 0, 2});
  check_error(root2.get_status(), "perm has 3 entries but x has rank 2");
}

TEST_CASE("Transpose checks fed perms at run time") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32);
  auto p = ops::placeholder(root, dtype::int64);
  auto y = ops::transpose(root, x, p);
  REQUIRE(root.ok());
  session sess(root);
  auto m = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto ok = sess.run({{x, m}, {p, tensor::from_vector<int64_t>({1, 0})}}, {y});
  REQUIRE(ok.ok());
  check_tensor<float>(ok->at(0), {3, 2}, {1, 4, 2, 5, 3, 6});
  check_error(sess.run({{x, m}, {p, tensor::from_vector<int64_t>({1, 1})}}, {y}),
              "perm [1,1] is not a permutation of 0..1");
  check_error(sess.run({{x, m}, {p, tensor::from_vector<int64_t>({0, 1, 2})}}, {y}),
              "perm [0,1,2] has 3 entries but the input has rank 2");
  check_error(sess.run({{x, m}, {p, tensor::scalar<int64_t>(0)}}, {y}),
              "perm must be a vector, got shape []");
}
