#include <vector>

#include "devices/cpu_device.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

tensor select(const tensor& c, const tensor& t, const tensor& e) {
  auto r = run_kernel("Select", {c, t, e});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  REQUIRE(r->size() == 1);
  return r->at(0);
}

// Runs Select as an executor does when shapes were unknown at graph construction, so only the
// kernel's own checks stand in the way.
status select_without_shape_inference(const tensor& c, const tensor& t, const tensor& e) {
  static cpu_device dev("/job:localhost/replica:0/task:0/device:CPU:0");
  node_def n;
  n.name = "k";
  n.op = "Select";
  n.attrs["T"] = t.type();
  CAFLOW_ASSIGN_OR_RETURN(node_signature sig,
                          resolve_signature(*op_registry::global().lookup("Select"), n));
  CAFLOW_ASSIGN_OR_RETURN(auto kernel, kernel_registry::global().create(n, sig, dev));
  std::vector<kernel_value> in(3), out(1);
  in[0].value = c;
  in[1].value = t;
  in[2].value = e;
  cancellation_manager cancel;
  step_context step{1, nullptr, &cancel, nullptr};
  kernel_context ctx(*kernel, dev, step, in.data(), out.data());
  kernel->compute(ctx);
  return ctx.get_status();
}

tensor bools(const std::vector<bool>& v, const tensor_shape& s) {
  tensor t(dtype::boolean, s);
  for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i];
  return t;
}

template <class T>
tensor t_(const std::vector<T>& v, const tensor_shape& s) {
  return tensor::from_vector<T>(v, s);
}

}  // namespace

TEST_CASE("a condition of t's shape picks element by element") {
  const tensor c = bools({true, false, false, true}, {2, 2});
  check_tensor(select(c, t_<float>({1, 2, 3, 4}, {2, 2}), t_<float>({10, 20, 30, 40}, {2, 2})),
               {2, 2}, std::vector<float>{1, 20, 30, 4});
  check_tensor(select(c, t_<int32_t>({1, 2, 3, 4}, {2, 2}), t_<int32_t>({-1, -2, -3, -4}, {2, 2})),
               {2, 2}, std::vector<int32_t>{1, -2, -3, 4});
  check_tensor(
      select(bools({false, true}, {2}), t_<uint8_t>({5, 6}, {2}), t_<uint8_t>({7, 8}, {2})), {2},
      std::vector<uint8_t>{7, 6});
  check_tensor(
      select(bools({true, false}, {2}), bools({false, false}, {2}), bools({true, true}, {2})),
      bools({false, true}, {2}));
  check_tensor(select(bools({false}, {1}), t_<double>({1.5}, {1}), t_<double>({-2.5}, {1})), {1},
               std::vector<double>{-2.5});
}

TEST_CASE("a vector condition picks whole rows of t or e") {
  check_tensor(select(bools({false, true}, {2}), t_<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
                      t_<float>({10, 20, 30, 40, 50, 60}, {2, 3})),
               {2, 3}, std::vector<float>{10, 20, 30, 4, 5, 6});
  check_tensor(select(bools({true, false, true}, {3}), t_<int64_t>({1, 2, 3, 4, 5, 6}, {3, 1, 2}),
                      t_<int64_t>({0, 0, 0, 0, 0, 0}, {3, 1, 2})),
               {3, 1, 2}, std::vector<int64_t>{1, 2, 0, 0, 5, 6});
}

TEST_CASE("a scalar condition returns t or e whole, sharing its bytes") {
  const tensor t = t_<float>({1, 2, 3}, {3}), e = t_<float>({4, 5, 6}, {3});
  const tensor a = select(tensor::scalar(true), t, e);
  CHECK(a.shares_buffer_with(t));
  const tensor b = select(tensor::scalar(false), t, e);
  CHECK(b.shares_buffer_with(e));
  check_tensor(select(tensor::scalar(false), tensor::scalar(1), tensor::scalar(2)), {},
               std::vector<int32_t>{2});
}

TEST_CASE("zero-size inputs") {
  CHECK(select(bools({}, {0}), tensor(dtype::float32, {0, 3}), tensor(dtype::float32, {0, 3}))
            .shape() == tensor_shape{0, 3});
  CHECK(
      select(bools({true, false}, {2}), tensor(dtype::int32, {2, 0}), tensor(dtype::int32, {2, 0}))
          .shape() == tensor_shape{2, 0});
}

TEST_CASE("large inputs: element-wise and row-wise") {
  const int64_t n = 100'000;
  tensor c(dtype::boolean, {n}), t(dtype::int32, {n}), e(dtype::int32, {n});
  for (int64_t i = 0; i < n; ++i) {
    c.data<bool>()[i] = i % 3 == 0;
    t.data<int32_t>()[i] = int32_t(i);
    e.data<int32_t>()[i] = -int32_t(i);
  }
  const tensor out = select(c, t, e);
  for (int64_t i = 0; i < n; ++i)
    REQUIRE(out.data<int32_t>()[i] == (i % 3 == 0 ? int32_t(i) : -int32_t(i)));
  const tensor rows = select(bools({false, true, false, true}, {4}), t.reshaped({4, n / 4}),
                             e.reshaped({4, n / 4}));
  for (int64_t i = 0; i < n; ++i)
    REQUIRE(rows.data<int32_t>()[i] == ((i / (n / 4)) % 2 == 1 ? int32_t(i) : -int32_t(i)));
}

TEST_CASE("mismatched shapes are errors, at shape inference and in the kernel") {
  const tensor t2 = tensor(dtype::float32, {2}), t3 = tensor(dtype::float32, {3});
  check_error(run_kernel("Select", {bools({true, true}, {2}), t2, t3}), "'t' and 'e'");
  check_error(select_without_shape_inference(bools({true, true}, {2}), t2, t3),
              "'t' and 'e' must have the same shape: [2] vs [3]");
  const tensor m = tensor(dtype::float32, {2, 2});
  check_error(run_kernel("Select", {bools({true, true, true}, {3}), m, m}), "[3]");
  check_error(select_without_shape_inference(bools({true, true, true}, {3}), m, m), "got [3]");
  const tensor m23 = tensor(dtype::float32, {2, 3});
  check_error(run_kernel("Select", {bools({}, {3, 2}), m23, m23}), "[3,2]");
  check_error(select_without_shape_inference(bools({}, {3, 2}), m23, m23), "[2,3]");
  // A vector condition needs a non-scalar t.
  check_error(select_without_shape_inference(bools({true}, {1}), tensor::scalar(1.0f),
                                             tensor::scalar(2.0f)),
              "condition must be a scalar");
}
