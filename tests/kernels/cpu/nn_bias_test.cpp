// BiasAdd and BiasAddGrad kernels.
#include <vector>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

namespace {

tensor run(const std::string& op, const std::vector<tensor>& inputs,
           std::map<std::string, attr_value> attrs = {}) {
  auto r = run_kernel(op, inputs, std::move(attrs));
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  REQUIRE(r->size() == 1);
  return r->at(0);
}

template <class T>
tensor t_(const std::vector<T>& v) {
  return tensor::from_vector<T>(v);
}

}  // namespace

TEST_CASE("BiasAdd adds the bias along the last dimension") {
  check_tensor(run("BiasAdd", {iota<float>({2, 3}), t_<float>({10, 20, 30})}), {2, 3},
               std::vector<float>{10, 21, 32, 13, 24, 35});
  check_tensor(run("BiasAdd", {iota<double>({2, 2, 2}), t_<double>({0.5, -1})}), {2, 2, 2},
               std::vector<double>{0.5, 0, 2.5, 2, 4.5, 4, 6.5, 6});
  check_tensor(run("BiasAdd", {iota<float>({3, 1}), t_<float>({-1})},
                   {{"data_format", std::string("NHWC")}}),
               {3, 1}, std::vector<float>{-1, 0, 1});
  check_tensor(run("BiasAdd", {tensor(dtype::float32, {0, 4}), t_<float>({1, 2, 3, 4})}), {0, 4},
               std::vector<float>{});
  check_tensor(run("BiasAdd", {tensor(dtype::float32, {2, 0}), tensor(dtype::float32, {0})}),
               {2, 0}, std::vector<float>{});
}

TEST_CASE("BiasAdd over the intra-op pool: every element of a large input") {
  // 1000 rows of 67 (an odd width, so each row has a scalar tail): x[r][c] = r, bias[c] = c.
  const int64_t rows = 1000, cols = 67;
  std::vector<float> x(rows * cols), b(cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) x[r * cols + c] = static_cast<float>(r);
  for (int64_t c = 0; c < cols; ++c) b[c] = static_cast<float>(c) * 1000;
  const tensor y = run("BiasAdd", {tensor::from_vector<float>(x, {rows, cols}), t_<float>(b)});
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      if (y.data<float>()[r * cols + c] != static_cast<float>(r + c * 1000))
        FAIL("row ", r, " column ", c, ": ", y.data<float>()[r * cols + c]);
}

TEST_CASE("BiasAdd refuses a bias that does not match, naming both shapes") {
  check_error(run_kernel("BiasAdd", {iota<float>({2, 3}), t_<float>({1, 2})}),
              "bias of shape [2] must have as many elements as dimension 1 of value of shape "
              "[2,3]");
  check_error(run_kernel_unchecked("BiasAdd", {iota<float>({2, 3}), t_<float>({1, 2})}),
              "bias of shape [2] must be a vector as long as the last dimension of value of shape "
              "[2,3]");
  check_error(run_kernel("BiasAdd", {iota<float>({2, 3}), iota<float>({1, 3})}),
              "bias must have rank 1, got shape [1,3]");
  check_error(run_kernel_unchecked("BiasAdd", {iota<float>({2, 3}), iota<float>({1, 3})}),
              "bias of shape [1,3] must be a vector");
  check_error(run_kernel("BiasAdd", {t_<float>({1, 2}), t_<float>({1, 2})}),
              "value must have rank at least 2, got shape [2]");
  check_error(run_kernel_unchecked("BiasAdd", {t_<float>({1, 2}), t_<float>({1, 2})}),
              "value must have at least two dimensions, got shape [2]");
}

TEST_CASE("BiasAdd NCHW adds along dimension 1 at any rank") {
  const std::map<std::string, attr_value> nchw{{"data_format", std::string("NCHW")}};
  // [2, 3, 2]: value[n][c][w] = 6n + 2c + w, bias 10, 20, 30 by channel.
  check_tensor(run("BiasAdd", {iota<float>({2, 3, 2}), t_<float>({10, 20, 30})}, nchw),
               {2, 3, 2}, std::vector<float>{10, 11, 22, 23, 34, 35, 16, 17, 28, 29, 40, 41});
  // Rank 4: [1, 2, 2, 2], channel c adds c + 0.5 to its four pixels.
  check_tensor(run("BiasAdd", {iota<double>({1, 2, 2, 2}), t_<double>({0.5, 1.5})}, nchw),
               {1, 2, 2, 2}, std::vector<double>{0.5, 1.5, 2.5, 3.5, 5.5, 6.5, 7.5, 8.5});
  // Rank 5 (NCDHW): still dimension 1, as TensorFlow's kernel.
  check_tensor(run("BiasAdd", {iota<float>({1, 2, 1, 1, 3}), t_<float>({-1, 1})}, nchw),
               {1, 2, 1, 1, 3}, std::vector<float>{-1, 0, 1, 4, 5, 6});
  check_tensor(run("BiasAdd", {tensor(dtype::float32, {0, 2, 3}), t_<float>({1, 2})}, nchw),
               {0, 2, 3}, std::vector<float>{});
  check_error(run_kernel("BiasAdd", {iota<float>({2, 3, 4}), t_<float>({1, 2, 3, 4})}, nchw),
              "bias of shape [4] must have as many elements as dimension 1 of value of shape "
              "[2,3,4]");
  check_error(
      run_kernel_unchecked("BiasAdd", {iota<float>({2, 3, 4}), t_<float>({1, 2, 3, 4})}, nchw),
      "bias of shape [4] must be a vector as long as dimension 1 (the channels of NCHW) of value "
      "of shape [2,3,4]");
  check_error(run_kernel("BiasAdd", {iota<float>({2, 3}), t_<float>({1, 2, 3})}, nchw),
              "value must have rank at least 3, got shape [2,3]");
}

TEST_CASE("BiasAddGrad NCHW sums over every dimension but dimension 1") {
  const std::map<std::string, attr_value> nchw{{"data_format", std::string("NCHW")}};
  // [2, 3, 2] of 0..11: channel c holds 2c, 2c+1, 6+2c, 7+2c.
  check_tensor(run("BiasAddGrad", {iota<float>({2, 3, 2})}, nchw), {3},
               std::vector<float>{14, 22, 30});
  // [1, 2, 1, 2, 2] of 0..7: channel 0 holds 0..3, channel 1 4..7.
  check_tensor(run("BiasAddGrad", {iota<double>({1, 2, 1, 2, 2})}, nchw), {2},
               std::vector<double>{6, 22}, 1e-12);
  check_tensor(run("BiasAddGrad", {tensor(dtype::float32, {0, 3, 2})}, nchw), {3},
               std::vector<float>{0, 0, 0});
  // A large one over the pool: 64 x 5 x 300, element (n, c, i) = c.
  const int64_t outer = 64, channels = 5, inner = 300;
  std::vector<double> x(outer * channels * inner);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i / inner % channels);
  check_tensor(run("BiasAddGrad", {tensor::from_vector<double>(x, {outer, channels, inner})}, nchw),
               {channels}, std::vector<double>{0, 19200, 38400, 57600, 76800}, 1e-12);
}

TEST_CASE("an unknown data_format is refused") {
  check_error(run_kernel("BiasAdd", {iota<float>({2, 3}), t_<float>({1, 2, 3})},
                         {{"data_format", std::string("NWHC")}}),
              "data_format must be \"NHWC\" or \"NCHW\", got \"NWHC\"");
  check_error(run_kernel_unchecked("BiasAddGrad", {iota<float>({2, 3})},
                                   {{"data_format", std::string("nhwc")}}),
              "data_format must be \"NHWC\" or \"NCHW\", got \"nhwc\"");
}

TEST_CASE("BiasAddGrad sums over every dimension but the last") {
  check_tensor(run("BiasAddGrad", {iota<float>({2, 3}, 1.0f)}), {3}, std::vector<float>{5, 7, 9});
  // [2, 2, 2] of 0..7: columns hold 0+2+4+6 and 1+3+5+7.
  check_tensor(run("BiasAddGrad", {iota<double>({2, 2, 2})}), {2}, std::vector<double>{12, 16},
               1e-12);
  check_tensor(run("BiasAddGrad", {iota<float>({4, 1})}), {1}, std::vector<float>{6});
  check_tensor(run("BiasAddGrad", {tensor(dtype::float32, {0, 3})}), {3},
               std::vector<float>{0, 0, 0});
  check_tensor(run("BiasAddGrad", {tensor(dtype::float64, {3, 0})}), {0}, std::vector<double>{});
  check_error(run_kernel("BiasAddGrad", {t_<float>({1, 2})}),
              "out_backprop must have rank at least 2, got shape [2]");
  check_error(run_kernel_unchecked("BiasAddGrad", {tensor::scalar<float>(1)}),
              "out_backprop must have at least two dimensions, got shape []");
}

TEST_CASE("BiasAddGrad of a large input over the intra-op pool") {
  // 2000 rows of 33: column c holds c in every row.
  const int64_t rows = 2000, cols = 33;
  std::vector<double> x(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) x[i] = static_cast<double>(i % cols);
  const tensor g = run("BiasAddGrad", {tensor::from_vector<double>(x, {rows, cols})});
  std::vector<double> expected(cols);
  for (int64_t c = 0; c < cols; ++c) expected[c] = static_cast<double>(c * rows);
  check_tensor(g, {cols}, expected, 1e-12);
}
