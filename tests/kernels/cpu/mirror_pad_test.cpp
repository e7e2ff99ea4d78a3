// PadV2, MirrorPad and MirrorPadGrad kernels and shape functions.
#include <doctest/doctest.h>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

namespace {

tensor pads32(std::vector<int32_t> v) {
  return tensor::from_vector<int32_t>(v, {static_cast<int64_t>(v.size() / 2), 2});
}

std::map<std::string, attr_value> mode(const char* m) { return {{"mode", attr_value(m)}}; }

}  // namespace

TEST_CASE("MirrorPad REFLECT and SYMMETRIC on a matrix, as tf.pad documents") {
  auto x = tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto r = run_kernel("MirrorPad", {x, pads32({1, 1, 2, 2})}, mode("REFLECT"));
  REQUIRE(r.ok());
  check_tensor<int32_t>(r->at(0), {4, 7},
                        {6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1,
                         6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1});
  auto s = run_kernel("MirrorPad", {x, pads32({1, 1, 2, 2})}, mode("SYMMETRIC"));
  REQUIRE(s.ok());
  check_tensor<int32_t>(s->at(0), {4, 7},
                        {2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2,
                         5, 4, 4, 5, 6, 6, 5, 5, 4, 4, 5, 6, 6, 5});
}

TEST_CASE("MirrorPad of vectors, 3-D tensors and every element size") {
  auto v = run_kernel("MirrorPad", {tensor::from_vector<double>({1, 2, 3}), pads32({2, 1})},
                      mode("REFLECT"));
  REQUIRE(v.ok());
  check_tensor<double>(v->at(0), {6}, {3, 2, 1, 2, 3, 2});
  auto b = run_kernel("MirrorPad", {tensor::from_vector<bool>({true, false}), pads32({2, 0})},
                      mode("SYMMETRIC"));
  REQUIRE(b.ok());
  check_tensor<bool>(b->at(0), {4}, {false, true, true, false});
  // The middle dimension padded only; the last moves whole.
  auto t = run_kernel("MirrorPad",
                      {iota<int64_t>({1, 2, 2}), tensor::from_vector<int64_t>({0, 0, 1, 0, 0, 0},
                                                                              {3, 2})},
                      mode("REFLECT"));
  REQUIRE(t.ok());
  check_tensor<int64_t>(t->at(0), {1, 3, 2}, {2, 3, 0, 1, 2, 3});
  auto same = run_kernel("MirrorPad", {iota<uint8_t>({2, 2}), pads32({0, 0, 0, 0})},
                         mode("SYMMETRIC"));
  REQUIRE(same.ok());
  check_tensor<uint8_t>(same->at(0), {2, 2}, {0, 1, 2, 3});
}

TEST_CASE("MirrorPad rejects pads that do not fit, a bad mode and bad paddings") {
  auto x = iota<float>({2, 3});
  check_error(run_kernel("MirrorPad", {x, pads32({2, 0, 0, 0})}, mode("REFLECT")),
              "paddings[0] = [2, 0] must be at most 1 in REFLECT mode for dimension 0 of size 2");
  check_error(run_kernel_unchecked("MirrorPad", {x, pads32({0, 0, 0, 4})}, mode("SYMMETRIC")),
              "must be at most 3 in SYMMETRIC mode");
  check_error(run_kernel("MirrorPad", {x, pads32({0, 0, -1, 0})}, mode("REFLECT")),
              "paddings must be non-negative");
  check_error(run_kernel("MirrorPad", {x, pads32({0, 0})}, mode("REFLECT")),
              "paddings has shape [1,2] but the input has rank 2");
  check_error(run_kernel_unchecked("MirrorPad", {x, pads32({0, 0})}, mode("REFLECT")),
              "paddings must have shape [2,2]");
  check_error(run_kernel("MirrorPad", {x, pads32({0, 0, 0, 0})}, mode("CONSTANT")),
              "mode must be \"REFLECT\" or \"SYMMETRIC\", got \"CONSTANT\"");
}

TEST_CASE("MirrorPadGrad folds the mirrored parts back") {
  // [1, 2, 3] REFLECT-padded by [2, 1] reads x[2], x[1], x[0], x[1], x[2], x[1].
  auto g = tensor::from_vector<float>({1, 10, 100, 1000, 10000, 100000});
  auto r = run_kernel("MirrorPadGrad", {g, pads32({2, 1})}, mode("REFLECT"));
  REQUIRE(r.ok());
  check_tensor<float>(r->at(0), {3}, {100, 100000 + 1000 + 10, 10000 + 1});
  // SYMMETRIC by [1, 1] on [2, 2]: rows 0 and 1 of the grad go to row 0.
  auto s = run_kernel("MirrorPadGrad", {iota<double>({4, 2}), pads32({1, 1, 0, 0})},
                      mode("SYMMETRIC"));
  REQUIRE(s.ok());
  check_tensor<double>(s->at(0), {2, 2}, {0 + 2, 1 + 3, 4 + 6, 5 + 7});
  check_error(run_kernel_unchecked("MirrorPadGrad", {iota<double>({3}), pads32({2, 2})},
                                   mode("REFLECT")),
              "do not fit dimension 0");
  check_error(run_kernel("MirrorPadGrad", {iota<double>({3}), pads32({2, 2})}, mode("REFLECT")),
              "paddings[0] = [2, 2] do not fit dimension 0 of the padded input [3]");
}

TEST_CASE("PadV2 pads with the given constant") {
  auto x = tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  auto out = run_kernel("PadV2", {x, pads32({1, 0, 0, 1}), tensor::scalar<float>(-1)});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {3, 3}, {-1, -1, -1, 1, 2, -1, 3, 4, -1});
  auto u = run_kernel("PadV2", {tensor::from_vector<uint8_t>({7}), pads32({1, 2}),
                                tensor::scalar<uint8_t>(9)});
  REQUIRE(u.ok());
  check_tensor<uint8_t>(u->at(0), {4}, {9, 7, 9, 9});
  check_error(run_kernel("PadV2", {x, pads32({1, 0, 0, 1}), tensor::from_vector<float>({1, 2})}),
              "input 2 must have rank 0");
  check_error(run_kernel("PadV2", {x, pads32({1, 0, -2, 1}), tensor::scalar<float>(0)}),
              "paddings must be non-negative");
}
