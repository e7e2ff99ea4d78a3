#include <cmath>
#include <limits>

#include "devices/cpu_device.hpp"
#include "graph/client/ops/ops.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;
using caflow::testing::iota;
using caflow::testing::run_kernel_unchecked;

namespace {

// [[1, 2, 3], [4, 5, 6]]
tensor two_by_three() { return tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}); }

tensor axes(std::vector<int32_t> v) { return tensor::from_vector<int32_t>(v); }

// A tensor whose element at index (i, j, k, ...) is its row-major position.
tensor reduce(const std::string& op, const tensor& x, const tensor& axis, bool keep_dims = false) {
  auto r = run_kernel(op, {x, axis}, {{"keep_dims", keep_dims}});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

}  // namespace

TEST_CASE("Sum over rows, columns, everything, with and without keep_dims") {
  const tensor x = two_by_three();
  check_tensor<float>(reduce("Sum", x, axes({0})), {3}, {5, 7, 9});
  check_tensor<float>(reduce("Sum", x, axes({1})), {2}, {6, 15});
  check_tensor<float>(reduce("Sum", x, axes({-1})), {2}, {6, 15});
  check_tensor<float>(reduce("Sum", x, axes({-2})), {3}, {5, 7, 9});
  check_tensor<float>(reduce("Sum", x, axes({0, 1})), {}, {21});
  check_tensor<float>(reduce("Sum", x, axes({1, 0})), {}, {21});
  check_tensor<float>(reduce("Sum", x, axes({1}), true), {2, 1}, {6, 15});
  check_tensor<float>(reduce("Sum", x, axes({0}), true), {1, 3}, {5, 7, 9});
  check_tensor<float>(reduce("Sum", x, axes({0, -1}), true), {1, 1}, {21});
}

TEST_CASE("a scalar axis and int64 axes work like a one-element vector") {
  const tensor x = two_by_three();
  check_tensor<float>(reduce("Sum", x, tensor::scalar<int32_t>(1)), {2}, {6, 15});
  check_tensor<float>(reduce("Sum", x, tensor::scalar<int64_t>(-2)), {3}, {5, 7, 9});
  check_tensor<float>(reduce("Max", x, tensor::from_vector<int64_t>({0, 1})), {}, {6});
}

TEST_CASE("Mean, Max, Min and Prod") {
  const tensor x = two_by_three();
  check_tensor<float>(reduce("Mean", x, axes({0})), {3}, {2.5f, 3.5f, 4.5f});
  check_tensor<float>(reduce("Mean", x, axes({1})), {2}, {2, 5});
  check_tensor<float>(reduce("Mean", x, axes({0, 1})), {}, {3.5f});
  check_tensor<float>(reduce("Max", x, axes({1})), {2}, {3, 6});
  check_tensor<float>(reduce("Max", x, axes({0}), true), {1, 3}, {4, 5, 6});
  check_tensor<float>(reduce("Min", x, axes({0})), {3}, {1, 2, 3});
  check_tensor<float>(reduce("Min", x, axes({-1})), {2}, {1, 4});
  check_tensor<float>(reduce("Prod", x, axes({0})), {3}, {4, 10, 18});
  check_tensor<float>(reduce("Prod", x, axes({0, 1})), {}, {720});
}

TEST_CASE("integer and double reductions") {
  const tensor i32 = tensor::from_vector<int32_t>({1, 2, 3, 5, -7, 4}, {3, 2});
  check_tensor<int32_t>(reduce("Sum", i32, axes({0})), {2}, {-3, 11});
  // Integer Mean truncates: 3/2 = 1, 8/2 = 4, -3/2 = -1.
  check_tensor<int32_t>(reduce("Mean", i32, axes({1})), {3}, {1, 4, -1});
  check_tensor<int32_t>(reduce("Max", i32, axes({1})), {3}, {2, 5, 4});
  check_tensor<int32_t>(reduce("Min", i32, axes({0})), {2}, {-7, 2});
  check_tensor<int32_t>(reduce("Prod", i32, axes({0, 1})), {}, {-840});

  const tensor i64 = tensor::from_vector<int64_t>({1000000000000LL, 3, 2000000000000LL, 4}, {2, 2});
  check_tensor<int64_t>(reduce("Sum", i64, axes({0})), {2}, {3000000000000LL, 7});
  check_tensor<int64_t>(reduce("Max", i64, axes({1}), true), {2, 1},
                        {1000000000000LL, 2000000000000LL});

  const tensor f64 = tensor::from_vector<double>({0.5, 4, 1.5, -2}, {2, 2});
  check_tensor<double>(reduce("Prod", f64, axes({1})), {2}, {2, -3});
  check_tensor<double>(reduce("Mean", f64, axes({0})), {2}, {1, 1});
}

TEST_CASE("patterns of kept and reduced dims that take several passes") {
  // x[i][j][k] = 12i + 4j + k over [2, 3, 4].
  const tensor x = iota<float>({2, 3, 4});
  // The middle dim: 36i + 12 + 3k.
  check_tensor<float>(reduce("Sum", x, axes({1})), {2, 4}, {12, 15, 18, 21, 48, 51, 54, 57});
  // The first dim: 12 + 8j + 2k.
  check_tensor<float>(reduce("Sum", x, axes({0})), {3, 4},
                      {12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34});
  // Outer and inner dims together: 60 + 32j, over 8 elements each.
  check_tensor<float>(reduce("Sum", x, axes({0, 2})), {3}, {60, 92, 124});
  check_tensor<float>(reduce("Sum", x, axes({2, 0}), true), {1, 3, 1}, {60, 92, 124});
  check_tensor<float>(reduce("Mean", x, axes({0, -1})), {3}, {7.5f, 11.5f, 15.5f});
  check_tensor<float>(reduce("Max", x, axes({0, 2})), {3}, {15, 19, 23});
  check_tensor<float>(reduce("Min", x, axes({0, 2})), {3}, {0, 4, 8});

  // y[a][b][c][d] = 8a + 4b + 2c + d over [2, 2, 2, 2].
  const tensor y = iota<int64_t>({2, 2, 2, 2});
  // Kept, reduced, kept, reduced: 32a + 8c + 10.
  check_tensor<int64_t>(reduce("Sum", y, axes({1, 3})), {2, 2}, {10, 18, 42, 50});
  // Reduced, kept, reduced, kept: 16b + 4d + 20.
  check_tensor<int64_t>(reduce("Sum", y, axes({0, 2})), {2, 2}, {20, 24, 36, 40});
  check_tensor<int64_t>(reduce("Sum", y, axes({0, 2}), true), {1, 2, 1, 2}, {20, 24, 36, 40});
  check_tensor<int64_t>(reduce("Max", y, axes({-4, -2})), {2, 2}, {10, 11, 14, 15});
  check_tensor<int64_t>(reduce("Sum", y, axes({0, 1, 2, 3})), {}, {120});
}

TEST_CASE("large inputs reduce on the thread pool") {
  // x[i][j] = j over [300, 200]: 60000 elements.
  tensor x(dtype::float32, {300, 200});
  for (int64_t i = 0; i < 300; ++i)
    for (int64_t j = 0; j < 200; ++j) x.data<float>()[i * 200 + j] = static_cast<float>(j);
  const tensor cols = reduce("Sum", x, axes({0}));
  REQUIRE(cols.shape() == tensor_shape{200});
  for (int64_t j = 0; j < 200; ++j) CHECK(cols.data<float>()[j] == 300.0f * j);
  const tensor rows = reduce("Sum", x, axes({1}));
  REQUIRE(rows.shape() == tensor_shape{300});
  for (int64_t i = 0; i < 300; ++i) CHECK(rows.data<float>()[i] == 19900.0f);  // 0 + ... + 199
  check_tensor<float>(reduce("Sum", x, axes({0, 1})), {}, {5970000.0f});
  check_tensor<float>(reduce("Max", x, axes({0, 1})), {}, {199});

  // z[i][j][k] = j over [40, 30, 50]; reducing [0, 2] gives 2000 j, the Mean gives j.
  tensor z(dtype::int32, {40, 30, 50});
  for (int64_t i = 0; i < z.num_elements(); ++i)
    z.data<int32_t>()[i] = static_cast<int32_t>(i / 50 % 30);
  const tensor s = reduce("Sum", z, axes({0, 2}));
  const tensor m = reduce("Mean", z, axes({2, 0}));
  REQUIRE(s.shape() == tensor_shape{30});
  for (int32_t j = 0; j < 30; ++j) {
    CHECK(s.data<int32_t>()[j] == 2000 * j);
    CHECK(m.data<int32_t>()[j] == j);
  }
}

TEST_CASE("reducing nothing shares the input's buffer") {
  const tensor x = two_by_three();
  const tensor same = reduce("Sum", x, tensor::from_vector<int32_t>({}));
  check_tensor<float>(same, {2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(same.shares_buffer_with(x));
  // A reduced dim of size 1 changes no value either.
  const tensor y = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 1, 3});
  const tensor squeezed = reduce("Prod", y, axes({1}));
  check_tensor<float>(squeezed, {2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(squeezed.shares_buffer_with(y));
  const tensor kept = reduce("Mean", y, axes({1}), true);
  check_tensor<float>(kept, {2, 1, 3}, {1, 2, 3, 4, 5, 6});
  check_tensor<int32_t>(reduce("Sum", tensor::scalar<int32_t>(7), tensor::from_vector<int32_t>({})),
                        {}, {7});
}

TEST_CASE("reducing over an empty dim gives the identity") {
  const tensor e = tensor(dtype::float32, {0, 3});
  const float inf = std::numeric_limits<float>::infinity();
  check_tensor<float>(reduce("Sum", e, axes({0})), {3}, {0, 0, 0});
  check_tensor<float>(reduce("Prod", e, axes({0})), {3}, {1, 1, 1});
  // Compared by hand: check_tensor's tolerance test computes inf - inf.
  const tensor max = reduce("Max", e, axes({0}));
  REQUIRE(max.shape() == tensor_shape{3});
  for (int i = 0; i < 3; ++i) CHECK(max.data<float>()[i] == -inf);
  const tensor min = reduce("Min", e, axes({0}), true);
  REQUIRE(min.shape() == tensor_shape{1, 3});
  for (int i = 0; i < 3; ++i) CHECK(min.data<float>()[i] == inf);
  const tensor mean = reduce("Mean", e, axes({0}));
  REQUIRE(mean.shape() == tensor_shape{3});
  for (int i = 0; i < 3; ++i) CHECK(std::isnan(mean.data<float>()[i]));
  check_tensor<float>(reduce("Sum", e, axes({0, 1})), {}, {0});
  // Reducing the non-empty dim leaves an empty result.
  check_tensor<float>(reduce("Sum", e, axes({1})), {0}, {});
  check_tensor<float>(reduce("Max", e, axes({1}), true), {0, 1}, {});

  const tensor ei = tensor(dtype::int32, {2, 0});
  check_tensor<int32_t>(
      reduce("Max", ei, axes({1})), {2},
      {std::numeric_limits<int32_t>::lowest(), std::numeric_limits<int32_t>::lowest()});
  check_tensor<int32_t>(reduce("Mean", ei, axes({1})), {2}, {0, 0});
  check_tensor<int32_t>(reduce("Prod", ei, axes({-1}), true), {2, 1}, {1, 1});
}

TEST_CASE("a NaN makes Max and Min NaN") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const tensor x = tensor::from_vector<float>({1, nan, 3, 4}, {2, 2});
  const tensor mx = reduce("Max", x, axes({1}));
  CHECK(std::isnan(mx.data<float>()[0]));
  CHECK(mx.data<float>()[1] == 4);
  const tensor mn = reduce("Min", x, axes({0}));
  CHECK(mn.data<float>()[0] == 1);
  CHECK(std::isnan(mn.data<float>()[1]));
}

TEST_CASE("bad axes are errors that name the axis and the rank") {
  const tensor x = two_by_three();
  check_error(run_kernel("Sum", {x, axes({2})}), "invalid reduction axis 2 for input of rank 2");
  check_error(run_kernel("Mean", {x, axes({-3})}), "invalid reduction axis -3 for input of rank 2");
  check_error(run_kernel("Max", {x, axes({1, -1})}),
              "reduction axis 1 appears twice in reduction_indices [1,-1]");
  check_error(run_kernel("Prod", {x, axes({0, 0})}), "appears twice");
  check_error(run_kernel("Sum", {x, tensor::from_vector<int32_t>({0, 1}, {1, 2})}),
              "reduction_indices must be a scalar or a vector, got shape [1,2]");
  check_error(run_kernel("Sum", {tensor::scalar<float>(1), axes({0})}),
              "invalid reduction axis 0 for input of rank 0");
  check_error(run_kernel("Sum", {x, tensor::from_vector<float>({0})}), "Tidx");
}

TEST_CASE("the kernel checks axes that shape inference never saw") {
  const std::map<std::string, attr_value> attrs{
      {"T", dtype::float32}, {"Tidx", dtype::int32}, {"keep_dims", false}};
  check_error(run_kernel_unchecked("Sum", {two_by_three(), axes({5})}, attrs),
              "invalid reduction axis 5 for input of rank 2");
  check_error(run_kernel_unchecked("Max", {two_by_three(), axes({0, -2})}, attrs),
              "reduction axis 0 appears twice");
  check_error(run_kernel_unchecked(
                  "Min", {two_by_three(), tensor::from_vector<int32_t>({0}, {1, 1})}, attrs),
              "must be a scalar or a vector");
}

TEST_CASE("ops:: reductions build nodes with inferred shapes") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{2, -1, 4}});
  auto total = ops::sum(root.with_op_name("total"), x, {0, -1});
  CHECK(total.node == "total");
  CHECK(root.shape_of(total).to_string() == "[?]");
  auto kept = ops::mean(root, x, std::vector<int>{1}, {.keep_dims = true});
  CHECK(root.shape_of(kept).to_string() == "[2,1,4]");
  auto everything = ops::prod(root, x, std::vector<int>{});
  CHECK(root.shape_of(everything).to_string() == "[2,?,4]");
  auto fed_axes = ops::placeholder(root, dtype::int32);
  auto unknown = ops::max(root, x, fed_axes);
  CHECK_FALSE(root.shape_of(unknown).rank_known());
  auto unknown_kept = ops::min(root, x, fed_axes, {.keep_dims = true});
  CHECK(root.shape_of(unknown_kept).to_string() == "[?,?,?]");
  auto scalar_axis = ops::sum(root, x, ops::constant(root, int64_t{1}));
  CHECK(root.shape_of(scalar_axis).to_string() == "[2,4]");
  CHECK(root.ok());

  auto graph = root.to_graph_def();
  bool found = false;
  for (const auto& n : graph.nodes) {
    if (n.name != "total") continue;
    found = true;
    CHECK(n.op == "Sum");
    CHECK(n.attrs.at("keep_dims") == attr_value(false));
    CHECK(n.attrs.at("Tidx") == attr_value(dtype::int32));
  }
  CHECK(found);

  ops::sum(root, x, {3});
  check_error(root.get_status(), "invalid reduction axis 3 for input of rank 3");
}

TEST_CASE("ops:: reductions reject a repeated axis at graph construction") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::int64, {.shape = partial_shape{2, 3}});
  ops::max(root.with_op_name("m"), x, {0, -2});
  check_error(root.get_status(), "node 'm' (Max)");
  check_error(root.get_status(), "reduction axis 0 appears twice");
}
