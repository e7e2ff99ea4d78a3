#include <cmath>
#include <limits>
#include <vector>

#include "devices/cpu_device.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

tensor run1(const std::string& op, const std::vector<tensor>& inputs) {
  auto r = run_kernel(op, inputs);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  REQUIRE(r->size() == 1);
  return r->at(0);
}

// Runs a kernel as an executor does when shapes were unknown at graph construction: no shape
// function has looked at the inputs, so only the kernel's own checks stand in the way.
status run_without_shape_inference(const std::string& op, const std::vector<tensor>& inputs) {
  static cpu_device dev("/job:localhost/replica:0/task:0/device:CPU:0");
  node_def n;
  n.name = "k";
  n.op = op;
  n.attrs["T"] = inputs[0].type();
  add_default_attrs(*op_registry::global().lookup(op), n);
  CAFLOW_ASSIGN_OR_RETURN(node_signature sig,
                          resolve_signature(*op_registry::global().lookup(op), n));
  CAFLOW_ASSIGN_OR_RETURN(auto kernel, kernel_registry::global().create(n, sig, dev));
  std::vector<kernel_value> in(inputs.size()), out(sig.output_types.size());
  for (size_t i = 0; i < inputs.size(); ++i) in[i].value = inputs[i];
  cancellation_manager cancel;
  step_context step{1, nullptr, &cancel, nullptr};
  kernel_context ctx(*kernel, dev, step, in.data(), out.data());
  kernel->compute(ctx);
  return ctx.get_status();
}

template <class T>
tensor t_(const std::vector<T>& v, const tensor_shape& s) {
  return tensor::from_vector<T>(v, s);
}

// x[i] = i over `shape`, so every broadcast output element can be predicted from its index.
tensor iota(const tensor_shape& shape, float scale = 1) {
  tensor t(dtype::float32, shape);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = scale * float(i);
  return t;
}

// Index of `out_index` (row-major over out dims) in an input of `in_dims` broadcast to them.
int64_t source_index(int64_t out_index, const std::vector<int64_t>& out_dims,
                     const std::vector<int64_t>& in_dims) {
  int64_t src = 0, stride = 1;
  for (int d = static_cast<int>(out_dims.size()) - 1; d >= 0; --d) {
    const int64_t coord = out_index % out_dims[d];
    out_index /= out_dims[d];
    if (in_dims[d] != 1) src += coord * stride;
    stride *= in_dims[d];
  }
  return src;
}

// Checks Add of iota(x) and iota(y) * 1000 against the broadcasting definition, element by
// element. x and y have the output's rank here (leading 1s written out).
void check_broadcast_add(const std::vector<int64_t>& xd, const std::vector<int64_t>& yd) {
  std::vector<int64_t> od(xd.size());
  for (size_t i = 0; i < xd.size(); ++i) od[i] = std::max(xd[i], yd[i]);
  const tensor x = iota(tensor_shape(xd)), y = iota(tensor_shape(yd), 1000);
  const tensor out = run1("Add", {x, y});
  REQUIRE(out.shape() == tensor_shape(od));
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    const float expected = float(source_index(i, od, xd)) + 1000 * float(source_index(i, od, yd));
    REQUIRE_MESSAGE(out.data<float>()[i] == expected, "element ", i, " of ",
                    out.shape().to_string());
  }
}

}  // namespace

TEST_CASE("Add and AddV2 add element-wise in every integer and float dtype") {
  check_tensor(run1("Add", {t_<float>({1, 2, 3, 4}, {2, 2}), t_<float>({10, 20, 30, 40}, {2, 2})}),
               {2, 2}, std::vector<float>{11, 22, 33, 44});
  check_tensor(run1("AddV2", {t_<double>({0.5, -1.5, 2}, {3}), t_<double>({0.25, 1.5, -3}, {3})}),
               {3}, std::vector<double>{0.75, 0, -1});
  check_tensor(run1("Add", {t_<int32_t>({7, -3}, {2}), t_<int32_t>({5, 3}, {2})}), {2},
               std::vector<int32_t>{12, 0});
  check_tensor(run1("AddV2", {t_<int64_t>({int64_t{1} << 40, -5}, {2}), t_<int64_t>({1, 5}, {2})}),
               {2}, std::vector<int64_t>{(int64_t{1} << 40) + 1, 0});
  check_tensor(run1("Add", {tensor::scalar(1.5f), tensor::scalar(2.25f)}), {},
               std::vector<float>{3.75f});
}

TEST_CASE("Sub, Mul and RealDiv, with IEEE results for division by zero") {
  check_tensor(run1("Sub", {t_<float>({5, 0, -2}, {3}), t_<float>({1, 4, -2}, {3})}), {3},
               std::vector<float>{4, -4, 0});
  check_tensor(run1("Sub", {t_<int64_t>({10, -10}, {2}), t_<int64_t>({20, -30}, {2})}), {2},
               std::vector<int64_t>{-10, 20});
  check_tensor(run1("Mul", {t_<int32_t>({3, -4, 0}, {3}), t_<int32_t>({5, 6, 7}, {3})}), {3},
               std::vector<int32_t>{15, -24, 0});
  check_tensor(run1("Mul", {t_<double>({1.5, -2}, {2}), t_<double>({4, 0.25}, {2})}), {2},
               std::vector<double>{6, -0.5});
  const tensor q =
      run1("RealDiv", {t_<float>({1, -6, 1, -1, 0}, {5}), t_<float>({4, 3, 0, 0, 0}, {5})});
  const float* v = q.data<float>();
  CHECK(v[0] == 0.25f);
  CHECK(v[1] == -2.0f);
  CHECK((std::isinf(v[2]) && v[2] > 0));
  CHECK((std::isinf(v[3]) && v[3] < 0));
  CHECK(std::isnan(v[4]));
  check_tensor(run1("RealDiv", {t_<double>({1, 9}, {2}), t_<double>({3, -4}, {2})}), {2},
               std::vector<double>{1.0 / 3, -2.25}, 1e-12);
}

TEST_CASE("Maximum and Minimum propagate NaN") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const tensor x = t_<float>({1, -2, nan, 3}, {4}), y = t_<float>({0, 5, 1, nan}, {4});
  check_tensor(run1("Maximum", {x, y}), {4}, std::vector<float>{1, 5, nan, nan});
  check_tensor(run1("Minimum", {x, y}), {4}, std::vector<float>{0, -2, nan, nan});
  check_tensor(run1("Maximum", {t_<int64_t>({1, 5, -3, 7}, {2, 2}), tensor::scalar<int64_t>(2)}),
               {2, 2}, std::vector<int64_t>{2, 5, 2, 7});
  check_tensor(run1("Minimum", {t_<int32_t>({4, -1, 9}, {3}), t_<int32_t>({2}, {1})}), {3},
               std::vector<int32_t>{2, -1, 2});
  check_tensor(run1("Maximum", {t_<double>({0.5}, {1, 1}), t_<double>({-1, 2}, {2})}), {1, 2},
               std::vector<double>{0.5, 2});
}

TEST_CASE("Pow follows std::pow, including NaN for a negative base and fractional exponent") {
  check_tensor(run1("Pow", {t_<float>({2, 3, 4, 0, -8}, {5}), t_<float>({3, 2, 0.5f, 0, 2}, {5})}),
               {5}, std::vector<float>{8, 9, 2, 1, 64});
  // [2] ^ [2,1]: row 0 raises to 1, row 1 to -1.
  check_tensor(run1("Pow", {t_<double>({2, 10}, {2}), t_<double>({1, -1}, {2, 1})}), {2, 2},
               std::vector<double>{2, 10, 0.5, 0.1}, 1e-12);
  const tensor r = run1("Pow", {tensor::scalar(-8.0), tensor::scalar(1.0 / 3)});
  CHECK(std::isnan(r.scalar_value<double>()));
}

TEST_CASE("broadcasting: trailing vector, outer product, scalars on either side") {
  check_tensor(run1("Add", {t_<float>({1, 2, 3, 4, 5, 6}, {2, 3}), t_<float>({10, 20, 30}, {3})}),
               {2, 3}, std::vector<float>{11, 22, 33, 14, 25, 36});
  check_tensor(run1("Mul", {t_<float>({2, 3}, {2, 1}), t_<float>({1, 10, 100}, {1, 3})}), {2, 3},
               std::vector<float>{2, 20, 200, 3, 30, 300});
  check_tensor(run1("Add", {t_<int32_t>({1, 2}, {2, 1}), t_<int32_t>({10, 20, 30}, {3})}), {2, 3},
               std::vector<int32_t>{11, 21, 31, 12, 22, 32});
  // Order matters for Sub and RealDiv, so the scalar goes on each side once.
  check_tensor(run1("Sub", {tensor::scalar(10.0f), t_<float>({1, 2, 3, 4}, {2, 2})}), {2, 2},
               std::vector<float>{9, 8, 7, 6});
  check_tensor(run1("RealDiv", {t_<double>({2, 4, 6, 8}, {2, 2}), tensor::scalar(2.0)}), {2, 2},
               std::vector<double>{1, 2, 3, 4});
  check_tensor(run1("Sub", {t_<int64_t>({5, 6}, {2}), tensor::scalar<int64_t>(1)}), {2},
               std::vector<int64_t>{4, 5});
  // One element of higher rank still adds a dim: [1,1] + [3] is [1,3].
  check_tensor(run1("Add", {t_<float>({5}, {1, 1}), t_<float>({1, 2, 3}, {3})}), {1, 3},
               std::vector<float>{6, 7, 8});
  // Same element count, different ranks.
  check_tensor(run1("Sub", {t_<float>({1, 2, 3}, {3}), t_<float>({3, 2, 1}, {1, 3})}), {1, 3},
               std::vector<float>{-2, 0, 2});
}

TEST_CASE("broadcasting over ranks 3 to 8, including patterns that cannot be collapsed") {
  check_broadcast_add({2, 3, 4}, {1, 3, 1});
  check_broadcast_add({4, 1, 3}, {1, 5, 1});
  check_broadcast_add({1, 2, 3}, {4, 1, 3});
  check_broadcast_add({2, 1, 2, 1, 2}, {1, 3, 1, 3, 1});        // rank 5 after collapsing
  check_broadcast_add({2, 1, 2, 1, 2, 1}, {1, 3, 1, 2, 1, 2});  // rank 6
  check_broadcast_add({2, 1, 2, 1, 2, 1, 2, 1}, {1, 2, 1, 2, 1, 2, 1, 2});  // rank 8
  check_broadcast_add({3, 1, 1, 2, 2}, {1, 1, 4, 2, 1});
}

TEST_CASE("zero-size dims broadcast to zero-size outputs") {
  CHECK(run1("Add", {tensor(dtype::float32, {0, 3}), t_<float>({1, 2, 3}, {3})}).shape() ==
        tensor_shape{0, 3});
  CHECK(run1("Mul", {tensor(dtype::int32, {2, 0}), tensor(dtype::int32, {2, 1})}).shape() ==
        tensor_shape{2, 0});
  CHECK(run1("Sub", {tensor(dtype::float64, {0}), tensor::scalar(1.0)}).shape() == tensor_shape{0});
  CHECK(run1("Add", {tensor(dtype::float32, {0}), t_<float>({1}, {1})}).shape() == tensor_shape{0});
  CHECK(run1("Maximum", {tensor(dtype::int64, {3, 1}), tensor(dtype::int64, {0})}).shape() ==
        tensor_shape{3, 0});
}

TEST_CASE("large inputs take the thread-pool paths and stay exact") {
  const int64_t n = 100'000;
  const tensor a = iota({n}), b = iota({n}, 2);
  const tensor sum = run1("AddV2", {a, b});
  for (int64_t i = 0; i < n; ++i) REQUIRE(sum.data<float>()[i] == 3 * float(i));
  const tensor scaled = run1("Mul", {tensor::scalar(4.0f), a});
  for (int64_t i = 0; i < n; ++i) REQUIRE(scaled.data<float>()[i] == 4 * float(i));
  const tensor shifted = run1("Sub", {a, tensor::scalar(1.0f)});
  for (int64_t i = 0; i < n; ++i) REQUIRE(shifted.data<float>()[i] == float(i) - 1);
  check_broadcast_add({300, 200}, {1, 200});
  check_broadcast_add({300, 1}, {1, 200});
}

TEST_CASE("incompatible shapes name both shapes, at shape inference and in the kernel") {
  const tensor x = tensor(dtype::float32, {2, 3}), y = tensor(dtype::float32, {4});
  auto r = run_kernel("Add", {x, y});
  check_error(r, "[2,3]");
  check_error(r, "[4]");
  const status st = run_without_shape_inference("Mul", {x, y});
  check_error(st, "incompatible shapes for broadcasting: [2,3] and [4]");
  check_error(run_without_shape_inference(
                  "Sub", {tensor(dtype::int32, {2, 1, 3}), tensor(dtype::int32, {5, 2})}),
              "[2,1,3] and [5,2]");
}

TEST_CASE("dtypes outside the op's list are refused; allowed dtypes without a kernel say so") {
  check_error(run_kernel("RealDiv", {tensor::scalar(true), tensor::scalar(false)}), "bool");
  check_error(run_kernel("Pow", {tensor::scalar(2), tensor::scalar(3)}), "no CPU kernel");
}
