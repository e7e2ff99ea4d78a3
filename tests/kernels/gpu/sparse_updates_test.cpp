// Scatter* and SparseApply* with their variables on the GPU against the same graphs on the CPU:
// repeated indices apply in index order on both, so the results must agree bit for bit; a bad
// index is an error naming it, with nothing written. Runs its checks when a GPU is visible,
// else each case says why it skipped.
#include <functional>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/ops/state_ops.hpp"
#include "graph/client/ops/training_ops.hpp"
#include "test_util/gpu_test_util.hpp"
#include "test_util/test_variable.hpp"

namespace caflow::testing {
namespace {

constexpr const char* on_gpu = "/job:localhost/replica:0/task:0/device:GPU:0";
constexpr const char* on_cpu = "/job:localhost/replica:0/task:0/device:CPU:0";

// Builds the update with its variables on `where` (fed: the values to start from), runs the
// initializers, then the update `steps` times, and returns the variables' values.
using build_fn = std::function<std::pair<std::vector<test_var>, output>(const scope&)>;

status_or<std::vector<tensor>> run_on(const char* where, const build_fn& build, int steps) {
  auto root = scope::new_root();
  auto [vars, update] = build(root.with_device(where));
  session_options opts;
  opts.allow_soft_placement = false;
  session sess(root, opts);
  std::vector<output> inits, reads;
  for (const test_var& v : vars) {
    inits.push_back(v.init);
    reads.push_back(v.read);
  }
  CAFLOW_RETURN_IF_ERROR(sess.run({}, inits).get_status());
  for (int i = 0; i < steps; ++i) CAFLOW_RETURN_IF_ERROR(sess.run({}, {update}).get_status());
  return sess.run({}, reads);
}

void check_same_on_both(const build_fn& build, int steps = 1) {
  auto gpu = run_on(on_gpu, build, steps);
  REQUIRE_MESSAGE(gpu.ok(), gpu.get_status().to_string());
  auto cpu = run_on(on_cpu, build, steps);
  REQUIRE_MESSAGE(cpu.ok(), cpu.get_status().to_string());
  REQUIRE(gpu->size() == cpu->size());
  for (size_t i = 0; i < cpu->size(); ++i) check_tensor((*gpu)[i], (*cpu)[i], 0);
}

tensor table() { return random_tensor<float>(tensor_shape{6, 3}, 0.5f, 2.0f, 11); }
// Row 4 three times, row 1 once, row 0 once: order matters for every kind but add's sum.
tensor repeated() { return tensor::from_vector<int32_t>({4, 1, 4, 0, 4}); }
tensor five_rows() { return random_tensor<float>(tensor_shape{5, 3}, 0.5f, 2.0f, 12); }

using scatter_fn = output (*)(const scope&, const output&, const output&, const output&,
                              const ops::scatter_attrs&);

TEST_CASE("every Scatter kind on the GPU gives the CPU's rows, repeated indices in order") {
  CAFLOW_REQUIRE_GPU(gpu);
  const std::pair<const char*, scatter_fn> kinds[] = {
      {"update", ops::scatter_update}, {"add", ops::scatter_add}, {"sub", ops::scatter_sub},
      {"mul", ops::scatter_mul},       {"div", ops::scatter_div}, {"min", ops::scatter_min},
      {"max", ops::scatter_max}};
  for (const auto& [name, scatter] : kinds) {
    INFO("Scatter " << name);
    check_same_on_both([&](const scope& s) {
      auto var = make_var(s, "var", table());
      auto up = scatter(s, var.ref, ops::constant(s, repeated()), ops::constant(s, five_rows()), {});
      return std::pair{std::vector<test_var>{var}, up};
    }, 2);
  }
  // A scalar update for every named row, and int64 indices.
  check_same_on_both([](const scope& s) {
    auto var = make_var(s, "var", table());
    auto up = ops::scatter_add(s, var.ref, ops::constant(s, tensor::from_vector<int64_t>({5, 5, 2})),
                               ops::constant(s, tensor::scalar(0.25f)));
    return std::pair{std::vector<test_var>{var}, up};
  });
}

TEST_CASE("a Scatter index out of range on the GPU names it and writes nothing") {
  CAFLOW_REQUIRE_GPU(gpu);
  auto root = scope::new_root();
  auto s = root.with_device(on_gpu);
  auto var = make_var(s, "var", table());
  auto bad = ops::scatter_add(s, var.ref, ops::constant(s, tensor::from_vector<int32_t>({1, 0, 6})),
                              ops::constant(s, random_tensor<float>(tensor_shape{3, 3}, 0, 1, 3)));
  session sess(root);
  REQUIRE(sess.run({}, {var.init}).ok());
  auto r = sess.run({}, {bad});
  REQUIRE_FALSE(r.ok());
  check_error(r.get_status(), "indices[2] = 6 is not in [0, 6), the first dimension of variable 'var'");
  auto after = sess.run({}, {var.read});
  REQUIRE(after.ok());
  check_tensor(after->at(0), table(), 0);
}

TEST_CASE("every SparseApply rule on the GPU gives the CPU's var and slots") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor grad = random_tensor<float>(tensor_shape{5, 3}, -1.0f, 1.0f, 21);
  auto c = [](const scope& s, float v) { return ops::constant(s, tensor::scalar(v)); };
  auto slot = [](const scope& s, const char* name, float v) {
    return make_var(s, name, random_tensor<float>(tensor_shape{6, 3}, v, v + 0.5f, 31));
  };
  SUBCASE("gradient descent") {
    check_same_on_both([&](const scope& s) {
      auto var = make_var(s, "var", table());
      auto up = ops::sparse_apply_gradient_descent(s, var.ref, c(s, 0.1f), ops::constant(s, grad),
                                                   ops::constant(s, repeated()));
      return std::pair{std::vector<test_var>{var}, up};
    }, 3);
  }
  SUBCASE("momentum, plain and Nesterov") {
    for (bool nesterov : {false, true}) {
      check_same_on_both([&](const scope& s) {
        auto var = make_var(s, "var", table());
        auto accum = slot(s, "accum", 0.0f);
        auto up = ops::sparse_apply_momentum(s, var.ref, accum.ref, c(s, 0.1f),
                                             ops::constant(s, grad), ops::constant(s, repeated()),
                                             c(s, 0.9f), {.use_nesterov = nesterov});
        return std::pair{std::vector<test_var>{var, accum}, up};
      }, 3);
    }
  }
  SUBCASE("adagrad, with and without slot updates") {
    for (bool update_slots : {true, false}) {
      check_same_on_both([&](const scope& s) {
        auto var = make_var(s, "var", table());
        auto accum = slot(s, "accum", 0.1f);
        auto up = ops::sparse_apply_adagrad(s, var.ref, accum.ref, c(s, 0.1f),
                                            ops::constant(s, grad), ops::constant(s, repeated()),
                                            {.update_slots = update_slots});
        return std::pair{std::vector<test_var>{var, accum}, up};
      }, 3);
    }
  }
  SUBCASE("RMSProp") {
    check_same_on_both([&](const scope& s) {
      auto var = make_var(s, "var", table());
      auto ms = slot(s, "ms", 0.1f);
      auto mom = slot(s, "mom", 0.0f);
      auto up = ops::sparse_apply_rms_prop(s, var.ref, ms.ref, mom.ref, c(s, 0.01f), c(s, 0.9f),
                                           c(s, 0.5f), c(s, 1e-6f), ops::constant(s, grad),
                                           ops::constant(s, repeated()));
      return std::pair{std::vector<test_var>{var, ms, mom}, up};
    }, 3);
  }
  SUBCASE("FTRL, square-root and general powers") {
    for (float lr_power : {-0.5f, -0.3f}) {
      check_same_on_both([&](const scope& s) {
        auto var = make_var(s, "var", table());
        auto accum = slot(s, "accum", 0.1f);
        auto linear = slot(s, "linear", -0.2f);
        auto up = ops::sparse_apply_ftrl(s, var.ref, accum.ref, linear.ref, ops::constant(s, grad),
                                         ops::constant(s, repeated()), c(s, 0.1f), c(s, 0.01f),
                                         c(s, 0.02f), c(s, lr_power));
        return std::pair{std::vector<test_var>{var, accum, linear}, up};
      }, 3);
    }
  }
}

TEST_CASE("UnsortedSegmentSum on the GPU sums rows in id order; negative ids drop rows") {
  CAFLOW_REQUIRE_GPU(gpu);
  auto sum_on = [](const char* where) -> status_or<std::vector<tensor>> {
    auto root = scope::new_root();
    auto s = root.with_device(where);
    auto data = ops::constant(s, random_tensor<float>(tensor_shape{7, 2, 3}, -1, 1, 41));
    auto ids = ops::constant(s, tensor::from_vector<int64_t>({3, -1, 0, 3, 3, 5, -2}));
    auto out = ops::unsorted_segment_sum(s, data, ids, ops::constant(s, tensor::scalar<int32_t>(6)));
    session sess(root);
    return sess.run({}, {out});
  };
  auto gpu_out = sum_on(on_gpu);
  REQUIRE_MESSAGE(gpu_out.ok(), gpu_out.get_status().to_string());
  auto cpu_out = sum_on(on_cpu);
  REQUIRE_MESSAGE(cpu_out.ok(), cpu_out.get_status().to_string());
  CHECK(gpu_out->at(0).shape() == tensor_shape{6, 2, 3});
  check_tensor(gpu_out->at(0), cpu_out->at(0), 0);
}

}  // namespace
}  // namespace caflow::testing
