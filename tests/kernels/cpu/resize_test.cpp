// ResizeBilinear, ResizeNearestNeighbor and their gradient kernels.
#include <doctest/doctest.h>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::vec32;

TEST_CASE("ResizeBilinear upsamples, with and without aligned corners") {
  auto x = iota<int32_t>({1, 2, 2, 1});
  auto out = run_kernel("ResizeBilinear", {x, vec32({4, 4})});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {1, 4, 4, 1},
                      {0, 0.5f, 1, 1, 1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 2, 2.5f, 3, 3});
  auto aligned = run_kernel("ResizeBilinear", {x, vec32({3, 3})}, {{"align_corners", true}});
  REQUIRE(aligned.ok());
  check_tensor<float>(aligned->at(0), {1, 3, 3, 1}, {0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3});
  // Half-pixel centres: 2 -> 4 samples at -0.25 (clamped), 0.25, 0.75, 1.25 (upper clamped).
  auto half = run_kernel("ResizeBilinear", {iota<float>({1, 1, 2, 1}), vec32({1, 4})},
                         {{"half_pixel_centers", true}});
  REQUIRE(half.ok());
  check_tensor<float>(half->at(0), {1, 1, 4, 1}, {0, 0.25f, 0.75f, 1});
}

TEST_CASE("ResizeNearestNeighbor copies pixels") {
  auto x = iota<uint8_t>({1, 2, 2, 2});
  auto out = run_kernel("ResizeNearestNeighbor", {x, vec32({4, 3})});
  REQUIRE(out.ok());
  // Rows 0,0,1,1; columns floor(0 * 2/3), floor(2/3), floor(4/3) = 0, 0, 1.
  check_tensor<uint8_t>(out->at(0), {1, 4, 3, 2},
                        {0, 1, 0, 1, 2, 3, 0, 1, 0, 1, 2, 3, 4, 5, 4, 5, 6, 7, 4, 5, 4, 5, 6, 7});
  check_error(run_kernel("ResizeNearestNeighbor", {x, vec32({0, 3})}), "size must be positive");
  check_error(run_kernel("ResizeNearestNeighbor", {x, vec32({3})}), "size must have 2 entries");
  check_error(run_kernel("ResizeBilinear", {iota<float>({2, 2}), vec32({3, 3})}),
              "input 0 must have rank 4");
  check_error(run_kernel("ResizeBilinear", {iota<float>({1, 2, 2, 1}), vec32({3, 3})},
                         {{"align_corners", true}, {"half_pixel_centers", true}}),
              "cannot both be true");
}

TEST_CASE("The resize gradients are the resizes' adjoints") {
  auto x = iota<float>({2, 3, 5, 2}, -4.0f);
  for (bool aligned : {false, true}) {
    CAPTURE(aligned);
    std::map<std::string, attr_value> a{{"align_corners", aligned}};
    auto y = run_kernel("ResizeBilinear", {x, vec32({4, 7})}, a);
    REQUIRE(y.ok());
    const tensor g = iota<float>({2, 4, 7, 2}, 1.0f);
    auto dx = run_kernel("ResizeBilinearGrad", {g, x}, a);
    REQUIRE(dx.ok());
    auto n = run_kernel("ResizeNearestNeighbor", {x, vec32({4, 7})}, a);
    auto dn = run_kernel("ResizeNearestNeighborGrad", {g, vec32({3, 5})}, a);
    REQUIRE(n.ok());
    REQUIRE(dn.ok());
    auto dot = [](const tensor& p, const tensor& q) {
      double s = 0;
      for (int64_t i = 0; i < p.num_elements(); ++i)
        s += double{p.data<float>()[i]} * q.data<float>()[i];
      return s;
    };
    CHECK(dot(y->at(0), g) == doctest::Approx(dot(x, dx->at(0))).epsilon(1e-5));
    CHECK(dot(n->at(0), g) == doctest::Approx(dot(x, dn->at(0))).epsilon(1e-5));
  }
}
