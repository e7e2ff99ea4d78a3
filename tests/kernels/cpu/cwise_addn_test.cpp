#include <vector>

#include "devices/cpu_device.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

tensor add_n(const std::vector<tensor>& inputs) {
  auto r = run_kernel("AddN", inputs);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  REQUIRE(r->size() == 1);
  return r->at(0);
}

// Runs AddN as an executor does when shapes were unknown at graph construction, so only the
// kernel's own checks stand in the way.
status add_n_without_shape_inference(const std::vector<tensor>& inputs) {
  static cpu_device dev("/job:localhost/replica:0/task:0/device:CPU:0");
  node_def n;
  n.name = "k";
  n.op = "AddN";
  n.attrs["T"] = inputs[0].type();
  n.attrs["N"] = static_cast<int64_t>(inputs.size());
  CAFLOW_ASSIGN_OR_RETURN(node_signature sig,
                          resolve_signature(*op_registry::global().lookup("AddN"), n));
  CAFLOW_ASSIGN_OR_RETURN(auto kernel, kernel_registry::global().create(n, sig, dev));
  std::vector<kernel_value> in(inputs.size()), out(1);
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

}  // namespace

TEST_CASE("AddN sums N tensors of one shape") {
  check_tensor(add_n({t_<float>({1, 2, 3, 4}, {2, 2}), t_<float>({10, 20, 30, 40}, {2, 2}),
                      t_<float>({100, 200, 300, 400}, {2, 2})}),
               {2, 2}, std::vector<float>{111, 222, 333, 444});
  check_tensor(add_n({t_<int32_t>({1, -1}, {2}), t_<int32_t>({2, -2}, {2})}), {2},
               std::vector<int32_t>{3, -3});
  check_tensor(add_n({tensor::scalar<int64_t>(1), tensor::scalar<int64_t>(int64_t{1} << 40),
                      tensor::scalar<int64_t>(-3), tensor::scalar<int64_t>(10)}),
               {}, std::vector<int64_t>{(int64_t{1} << 40) + 8});
  check_tensor(add_n({t_<double>({0.25}, {1}), t_<double>({0.5}, {1})}), {1},
               std::vector<double>{0.75});
}

TEST_CASE("AddN of one input returns it without copying") {
  const tensor x = t_<float>({1, 2}, {2});
  CHECK(add_n({x}).shares_buffer_with(x));
}

TEST_CASE("AddN of zero-size and large inputs") {
  CHECK(add_n({tensor(dtype::float32, {0, 3}), tensor(dtype::float32, {0, 3})}).shape() ==
        tensor_shape{0, 3});
  const int64_t n = 100'003;  // not a multiple of the block size
  std::vector<tensor> inputs;
  for (int k = 1; k <= 5; ++k) {
    tensor t(dtype::float32, {n});
    for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = float(k) * float(i % 1000);
    inputs.push_back(t);
  }
  const tensor sum = add_n(inputs);  // (1 + 2 + 3 + 4 + 5) * (i % 1000)
  for (int64_t i = 0; i < n; ++i) REQUIRE(sum.data<float>()[i] == 15 * float(i % 1000));
}

TEST_CASE("AddN inputs of different shapes are errors, at shape inference and in the kernel") {
  const tensor a = tensor(dtype::float32, {2}), b = tensor(dtype::float32, {3});
  check_error(run_kernel("AddN", {a, a, b}), "[3]");
  check_error(add_n_without_shape_inference({a, a, b}),
              "inputs must have the same shape: input 0 is [2] but input 2 is [3]");
  check_error(run_kernel("AddN", {tensor::scalar(true), tensor::scalar(true)}), "bool");
}
