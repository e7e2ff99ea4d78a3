// MaxPoolWithArgmax and its gradient kernels; SparseToDense.
#include <doctest/doctest.h>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;
using caflow::testing::vec32;
using attr_map = std::map<std::string, attr_value>;

namespace {
attr_map pool2x2(bool with_batch = false) {
  return {{"ksize", std::vector<int>{1, 2, 2, 1}}, {"strides", std::vector<int>{1, 2, 2, 1}},
          {"padding", "VALID"}, {"include_batch_in_index", with_batch}};
}
}  // namespace

TEST_CASE("MaxPoolWithArgmax gives each maximum and its flat index") {
  // Two images [2, 2, 2, 1]: maxima 4 at (1, 0) and 7 at (0, 1).
  auto x = tensor::from_vector<float>({1, 2, 4, 3, 5, 7, 6, 0}, {2, 2, 2, 1});
  auto out = run_kernel("MaxPoolWithArgmax", {x}, pool2x2());
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {2, 1, 1, 1}, {4, 7});
  check_tensor<int64_t>(out->at(1), {2, 1, 1, 1}, {2, 1});
  auto batched = run_kernel("MaxPoolWithArgmax", {x}, pool2x2(true));
  REQUIRE(batched.ok());
  check_tensor<int64_t>(batched->at(1), {2, 1, 1, 1}, {2, 5});
}

TEST_CASE("MaxPoolGradWithArgmax scatters, MaxPoolGradGradWithArgmax gathers") {
  auto x = tensor::from_vector<float>({1, 2, 4, 3, 5, 7, 6, 0}, {2, 2, 2, 1});
  auto argmax = tensor::from_vector<int64_t>({2, 1}, {2, 1, 1, 1});
  auto g = run_kernel("MaxPoolGradWithArgmax",
                      {x, tensor::from_vector<float>({10, 20}, {2, 1, 1, 1}), argmax}, pool2x2());
  REQUIRE(g.ok());
  check_tensor<float>(g->at(0), {2, 2, 2, 1}, {0, 0, 10, 0, 0, 20, 0, 0});
  auto gg = run_kernel("MaxPoolGradGradWithArgmax", {x, iota<float>({2, 2, 2, 1}), argmax},
                       pool2x2());
  REQUIRE(gg.ok());
  check_tensor<float>(gg->at(0), {2, 1, 1, 1}, {2, 5});
  check_error(run_kernel("MaxPoolGradWithArgmax",
                         {x, tensor::from_vector<float>({10, 20}, {2, 1, 1, 1}),
                          tensor::from_vector<int64_t>({2, 9}, {2, 1, 1, 1})},
                         pool2x2()),
              "argmax element 1 = 9 is not in [0, 4)");
  check_error(run_kernel_unchecked("MaxPoolGradWithArgmax",
                                   {x, tensor::from_vector<float>({10}, {1, 1, 1, 1}), argmax},
                                   pool2x2()),
              "grad has shape [1,1,1,1] but the input and window give [2,1,1,1]");
  check_error(run_kernel("MaxPoolWithArgmax", {x},
                         {{"ksize", std::vector<int>{1, 2, 2, 2}},
                          {"strides", std::vector<int>{1, 2, 2, 1}},
                          {"padding", "VALID"}}),
              "pooling over the batch or depth dimension is not supported");
}

TEST_CASE("SparseToDense fills a default around the given values") {
  auto m = run_kernel("SparseToDense", {tensor::from_vector<int32_t>({0, 1, 2, 0}, {2, 2}),
                                        vec32({3, 2}), tensor::from_vector<float>({5, 6}),
                                        tensor::scalar<float>(-1)});
  REQUIRE(m.ok());
  check_tensor<float>(m->at(0), {3, 2}, {-1, 5, -1, -1, 6, -1});
  auto v = run_kernel("SparseToDense", {tensor::from_vector<int64_t>({1, 3}),
                                        tensor::from_vector<int64_t>({5}),
                                        tensor::scalar<int32_t>(1), tensor::scalar<int32_t>(0)});
  REQUIRE(v.ok());
  check_tensor<int32_t>(v->at(0), {5}, {0, 1, 0, 1, 0});
  check_error(run_kernel("SparseToDense", {vec32({3, 1}), vec32({5}), tensor::scalar<int32_t>(1),
                                           tensor::scalar<int32_t>(0)}),
              "sparse_indices[1] is out of order");
  check_error(run_kernel("SparseToDense", {vec32({1, 1}), vec32({5}), tensor::scalar<int32_t>(1),
                                           tensor::scalar<int32_t>(0)}),
              "sparse_indices[1] is repeated");
  auto unchecked = run_kernel("SparseToDense", {vec32({3, 1}), vec32({5}), tensor::scalar<int32_t>(1),
                                                tensor::scalar<int32_t>(0)},
                              {{"validate_indices", false}});
  REQUIRE(unchecked.ok());
  check_error(run_kernel("SparseToDense", {vec32({7}), vec32({5}), tensor::scalar<int32_t>(1),
                                           tensor::scalar<int32_t>(0)}),
              "does not index into shape [5]");
  check_error(run_kernel("SparseToDense", {vec32({1, 2}), vec32({5}), vec32({1, 2, 3}),
                                           tensor::scalar<int32_t>(0)}),
              "sparse_values must be a scalar or have 2 entries");
}
