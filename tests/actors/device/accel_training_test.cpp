// Training on a second device type, as caflow-train trains on a GPU, without one: a "local"
// session whose process has the tests' ACCEL device (tests/test_util/accel_device.hpp) runs
// through a one-task cluster in the process, places the variables and their updates on ACCEL:0,
// the ops ACCEL has no kernel for (the cross entropy, its gradient) on CPU:0, and copies values
// between the two memories every step. Its losses and final weights must be the CPU's.
#include <doctest/doctest.h>

#include <iostream>
#include <sstream>
#include <vector>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/global_step.hpp"
#include "graph/client/train/gradient_descent_optimizer.hpp"
#include "graph/client/train/variables.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "test_util/accel_device.hpp"

using namespace caflow;

CAFLOW_TEST_REGISTER_ACCEL_DEVICE();

namespace {

// The update kernel too, so that a variable's colocation group (VariableV2, Assign, its
// update) has an ACCEL kernel for every member and lands there, as on a GPU.
const bool accel_updates = [] {
  kernel_registry::global().alias("ApplyGradientDescent", device_cpu, testing::device_accel);
  return true;
}();

struct stderr_capture {
  std::ostringstream text;
  std::streambuf* old = std::cerr.rdbuf(text.rdbuf());
  ~stderr_capture() { std::cerr.rdbuf(old); }
};

struct run_result {
  std::vector<int64_t> steps;
  std::vector<float> losses;
  std::vector<float> weights;
  std::string log;
};

// A softmax regression of 4 examples of 3 features into 2 classes, 6 steps of plain SGD.
run_result train_six_steps(const session_options& opts) {
  REQUIRE(accel_updates);
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto labels = ops::placeholder(root.with_op_name("labels"), dtype::int32);
  auto w = train::create_variable(
      root, "w", ops::constant(root, tensor::from_vector<float>({0.1f, -0.2f, 0.3f, 0.0f, -0.1f, 0.2f},
                                                                tensor_shape{3, 2})));
  auto b = train::create_variable(root, "b", ops::constant(root, tensor::from_vector<float>({0, 0})));
  auto logits = ops::bias_add(root.with_op_name("logits"), ops::mat_mul(root.with_op_name("m"), x, w), b);
  auto xent = ops::sparse_softmax_cross_entropy_with_logits(root.with_op_name("xent"), logits, labels);
  auto loss = ops::mean(root.with_op_name("loss"), xent.loss, std::vector<int>{0});
  // An int64 global step has no ACCEL update kernel (AssignAdd): it stays on CPU:0, and each
  // step fetches it across devices, as caflow-train does.
  train::variable step_var = train::create_global_step(root);
  train::gradient_descent_optimizer opt(0.5);
  auto train_op = opt.minimize(root, loss, step_var, {w, b});
  REQUIRE_MESSAGE(train_op.ok(), train_op.get_status().to_string());
  train::variable_set vars{w, b, step_var};
  auto init = train::global_variables_initializer(root, vars);

  run_result r;
  stderr_capture err;
  {
    session sess(root, opts);
    auto done = sess.run_targets({init});
    REQUIRE_MESSAGE(done.ok(), done.to_string());
    const session::feed_list feeds{
        {x, tensor::from_vector<float>({1, 0, 2, 0, 1, -1, 2, 2, 0, -1, 0, 1}, tensor_shape{4, 3})},
        {labels, tensor::from_vector<int32_t>({0, 1, 1, 0})}};
    for (int step = 0; step < 6; ++step) {
      auto out = sess.run(feeds, {loss}, {*train_op});
      REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
      r.losses.push_back(out->at(0).scalar_value<float>());
      // Read in a run of its own: fetched beside the train op, nothing orders the read
      // before or after the increment (as in TensorFlow), and a loaded machine showed both.
      auto counted = sess.run({}, {step_var.ref});
      REQUIRE_MESSAGE(counted.ok(), counted.get_status().to_string());
      r.steps.push_back(counted->at(0).scalar_value<int64_t>());
    }
    auto final_w = sess.run({}, {w});
    REQUIRE_MESSAGE(final_w.ok(), final_w.get_status().to_string());
    const tensor& t = final_w->at(0);
    REQUIRE(t.space() == nullptr);  // a fetch arrives in host memory
    r.weights.assign(t.data<float>(), t.data<float>() + t.num_elements());
  }
  r.log = err.text.str();
  return r;
}

}  // namespace

TEST_CASE("SGD with its variables on ACCEL:0 computes what the CPU computes") {
  session_options on_accel;
  on_accel.log_device_placement = true;
  const run_result accel = train_six_steps(on_accel);
  session_options cpu_only;
  cpu_only.device_count[testing::device_accel] = 0;
  const run_result cpu = train_six_steps(cpu_only);

  INFO(accel.log);
  // The variables and their updates went to ACCEL:0, the cross entropy to CPU:0.
  const std::string accel0 = "/job:localhost/replica:0/task:0/device:ACCEL:0";
  const std::string cpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
  auto placed_on = [&](const std::string& node) {
    const size_t at = accel.log.find("\n" + node + " ");
    if (at == std::string::npos) return std::string("(not in the table)");
    const size_t end = accel.log.find('\n', at + 1);
    const std::string row = accel.log.substr(at + 1, end - at - 1);
    return row.substr(row.find_last_of(' ') + 1);
  };
  CHECK(placed_on("w") == accel0);
  CHECK(placed_on("b") == accel0);
  CHECK(placed_on("m") == accel0);
  CHECK(placed_on("xent") == cpu0);

  CHECK(placed_on("global_step") == cpu0);
  CHECK(accel.steps == cpu.steps);
  CHECK(cpu.steps == std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  REQUIRE(accel.losses.size() == cpu.losses.size());
  for (size_t i = 0; i < cpu.losses.size(); ++i) CHECK(accel.losses[i] == doctest::Approx(cpu.losses[i]).epsilon(1e-6));
  CHECK(cpu.losses.back() < cpu.losses.front());  // it learns
  REQUIRE(accel.weights.size() == 6);
  for (size_t i = 0; i < cpu.weights.size(); ++i)
    CHECK(accel.weights[i] == doctest::Approx(cpu.weights[i]).epsilon(1e-6));
}

TEST_CASE("no ACCEL arena block was overrun or freed wrongly by the training above") {
  CHECK(testing::accel_stats().guard_violations.load() == 0);
}
