// Conv3D and its backprops against Conv2D (a one-plane volume is an image) and against each
// other (adjoints); ShapeN and ConcatOffset.
#include <doctest/doctest.h>

#include <cmath>

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

tensor wavy(const tensor_shape& shape, double phase) {
  std::vector<double> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.7 * static_cast<double>(i) + phase);
  return tensor::from_vector<double>(v, shape);
}

double dot(const tensor& a, const tensor& b) {
  double s = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) s += a.data<double>()[i] * b.data<double>()[i];
  return s;
}

}  // namespace

TEST_CASE("Conv3D over a single plane equals Conv2D") {
  const tensor x = wavy({2, 1, 5, 6, 3}, 0.2), w = wavy({1, 3, 2, 3, 4}, 1.0);
  for (const char* padding : {"SAME", "VALID"}) {
    CAPTURE(padding);
    auto y3 = run_kernel("Conv3D", {x, w},
                         {{"strides", std::vector<int>{1, 1, 2, 1, 1}}, {"padding", padding},
                          {"dilations", std::vector<int>{1, 1, 1, 2, 1}}});
    auto y2 = run_kernel("Conv2D", {x.reshaped({2, 5, 6, 3}), w.reshaped({3, 2, 3, 4})},
                         {{"strides", std::vector<int>{1, 2, 1, 1}}, {"padding", padding},
                          {"dilations", std::vector<int>{1, 1, 2, 1}}});
    REQUIRE(y3.ok());
    REQUIRE(y2.ok());
    tensor_shape s = y2->at(0).shape();
    s.insert_dim(1, 1);
    check_tensor(y3->at(0), y2->at(0).reshaped(s), 1e-12);
  }
}

TEST_CASE("Conv3D's backprops are its adjoints") {
  const tensor x = wavy({1, 4, 3, 5, 2}, 0.4), w = wavy({2, 2, 3, 2, 3}, 1.7);
  const attr_map a{{"strides", std::vector<int>{1, 2, 1, 2, 1}}, {"padding", "SAME"}};
  auto y = run_kernel("Conv3D", {x, w}, a);
  REQUIRE(y.ok());
  const tensor g = wavy(y->at(0).shape(), 2.2);
  auto dx = run_kernel("Conv3DBackpropInputV2", {vec32({1, 4, 3, 5, 2}), w, g}, a);
  auto dw = run_kernel("Conv3DBackpropFilterV2", {x, vec32({2, 2, 3, 2, 3}), g}, a);
  REQUIRE(dx.ok());
  REQUIRE(dw.ok());
  const double yg = dot(y->at(0), g);
  CHECK(dot(x, dx->at(0)) == doctest::Approx(yg).epsilon(1e-12));
  CHECK(dot(w, dw->at(0)) == doctest::Approx(yg).epsilon(1e-12));
}

TEST_CASE("Conv3D rejects bad depths, ranks, strides and formats") {
  const attr_map a{{"strides", std::vector<int>{1, 1, 1, 1, 1}}, {"padding", "VALID"}};
  check_error(run_kernel("Conv3D", {iota<float>({1, 2, 2, 2, 3}), iota<float>({1, 1, 1, 2, 1})}, a),
              "input depth 3 does not match filter depth 2");
  check_error(run_kernel_unchecked("Conv3D", {iota<float>({2, 2, 2, 3}), iota<float>({1, 1, 1, 3, 1})},
                                   a),
              "input must be 5-dimensional");
  check_error(run_kernel("Conv3D", {iota<float>({1, 2, 2, 2, 1}), iota<float>({1, 1, 1, 1, 1})},
                         {{"strides", std::vector<int>{2, 1, 1, 1, 1}}, {"padding", "VALID"}}),
              "strides in the batch and channel dimensions must be 1");
  auto r = run_kernel("Conv3D", {iota<float>({1, 1, 2, 2, 2}), iota<float>({1, 1, 1, 1, 1})},
                      {{"strides", std::vector<int>{1, 1, 1, 1, 1}}, {"padding", "VALID"},
                       {"data_format", "NCDHW"}});
  check_error(r, "supports only data_format NDHWC");
  CHECK(r.get_status().code() == error_code::unimplemented);
  check_error(run_kernel("Conv3DBackpropFilterV2", {iota<float>({1, 2, 2, 2, 1}), vec32({1, 1, 1, 1}),
                                                    iota<float>({1, 2, 2, 2, 1})},
                         a),
              "filter_sizes must be a vector of 5 sizes");
}

TEST_CASE("ShapeN and ConcatOffset") {
  auto s = run_kernel("ShapeN", {iota<float>({2, 3}), tensor::scalar<float>(1)},
                      {{"out_type", dtype::int64}});
  REQUIRE(s.ok());
  check_tensor<int64_t>(s->at(0), {2}, {2, 3});
  CHECK(s->at(1).shape() == tensor_shape{0});
  auto o = run_kernel("ConcatOffset", {tensor::scalar<int32_t>(1), vec32({2, 3, 5}),
                                       vec32({2, 7, 5}), vec32({2, 1, 5})});
  REQUIRE(o.ok());
  check_tensor<int32_t>(o->at(0), {3}, {0, 0, 0});
  check_tensor<int32_t>(o->at(1), {3}, {0, 3, 0});
  check_tensor<int32_t>(o->at(2), {3}, {0, 10, 0});
  check_error(run_kernel("ConcatOffset", {tensor::scalar<int32_t>(0), vec32({2, 3}), vec32({2, 4})}),
              "differs from shape[0] = [2,3] in dimension 1, not only in concat_dim 0");
}
