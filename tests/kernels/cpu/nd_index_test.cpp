// GatherNd, ScatterNd and SplitV kernels and shape functions.
#include <doctest/doctest.h>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;
using caflow::testing::vec32;

namespace {
tensor idx(std::vector<int32_t> v, tensor_shape s) { return tensor::from_vector<int32_t>(v, s); }
}  // namespace

TEST_CASE("GatherNd picks elements and slices by coordinate tuples") {
  auto params = iota<float>({2, 3});
  auto elems = run_kernel("GatherNd", {params, idx({1, 0, 0, 2}, {2, 2})});
  REQUIRE(elems.ok());
  check_tensor<float>(elems->at(0), {2}, {3, 2});
  auto rows = run_kernel("GatherNd", {params, idx({1, 0}, {2, 1})});
  REQUIRE(rows.ok());
  check_tensor<float>(rows->at(0), {2, 3}, {3, 4, 5, 0, 1, 2});
  auto batched = run_kernel("GatherNd", {iota<int64_t>({2, 2, 2}),
                                         tensor::from_vector<int64_t>({1, 1, 0, 1}, {2, 1, 2})});
  REQUIRE(batched.ok());
  check_tensor<int64_t>(batched->at(0), {2, 1, 2}, {6, 7, 2, 3});
}

TEST_CASE("ScatterNd adds updates into zeros, duplicates summed") {
  auto out = run_kernel("ScatterNd", {idx({4, 3, 1, 4}, {4, 1}), tensor::from_vector<float>({9, 10, 11, 12}),
                                      vec32({8})});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {8}, {0, 11, 0, 10, 21, 0, 0, 0});
  auto rows = run_kernel("ScatterNd", {idx({1}, {1, 1}), iota<double>({1, 2}, 1.0), vec32({2, 2})});
  REQUIRE(rows.ok());
  check_tensor<double>(rows->at(0), {2, 2}, {0, 0, 1, 2});
}

TEST_CASE("GatherNd and ScatterNd reject out-of-range indices and bad shapes") {
  check_error(run_kernel("GatherNd", {iota<float>({2, 3}), idx({1, 3}, {1, 2})}),
              "index tuple 0 of indices [1,2] = [1,3] does not index into shape [2,3]");
  check_error(run_kernel("GatherNd", {iota<float>({2, 3}), idx({0, 0, 0}, {1, 3})}),
              "index innermost dimension 3 exceeds the rank of params [2,3]");
  check_error(run_kernel("ScatterNd", {idx({-1}, {1, 1}), tensor::from_vector<float>({1}), vec32({3})}),
              "index tuple 0 of indices [1,1] = [-1] does not index into shape [3]");
  check_error(run_kernel("ScatterNd", {idx({0}, {1, 1}), tensor::from_vector<float>({1, 2}), vec32({3})}),
              "updates has shape [2] but indices [1,1] and shape [3] need [1]");
}

TEST_CASE("SplitV cuts pieces of given sizes, one of them -1") {
  auto x = iota<int32_t>({2, 5});
  auto out = run_kernel("SplitV", {x, tensor::from_vector<int64_t>({2, -1, 1}),
                                   tensor::scalar<int32_t>(1)},
                        {{"num_split", int64_t{3}}});
  REQUIRE(out.ok());
  check_tensor<int32_t>(out->at(0), {2, 2}, {0, 1, 5, 6});
  check_tensor<int32_t>(out->at(1), {2, 2}, {2, 3, 7, 8});
  check_tensor<int32_t>(out->at(2), {2, 1}, {4, 9});
  auto rows = run_kernel("SplitV", {x, vec32({0, 2}), tensor::scalar<int32_t>(-2)},
                         {{"num_split", int64_t{2}}});
  REQUIRE(rows.ok());
  CHECK(rows->at(0).shape() == tensor_shape{0, 5});
  check_tensor(rows->at(1), x);
  check_error(run_kernel("SplitV", {x, vec32({2, 2}), tensor::scalar<int32_t>(1)},
                         {{"num_split", int64_t{2}}}),
              "size_splits [2,2] add up to 4 but the split dimension has size 5");
  check_error(run_kernel_unchecked("SplitV", {x, vec32({-1, -1}), tensor::scalar<int32_t>(1)},
                                   {{"num_split", int64_t{2}}}),
              "has more than one -1");
  check_error(run_kernel("SplitV", {x, vec32({5}), tensor::scalar<int32_t>(2)},
                         {{"num_split", int64_t{1}}}),
              "split_dim 2 is out of range");
}
