// Optimizer update ops through a session (they need variables): two steps each, so the slot
// variables' state carries from one step to the next. Expected values are worked out by hand
// in the comments.
#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <thread>

#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/state_ops.hpp"
#include "graph/client/ops/training_ops.hpp"
#include "kernels/framework/in_place.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/test_variable.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::make_var;
using caflow::testing::test_var;

namespace {

template <class T>
tensor vec(std::vector<T> v) {
  return tensor::from_vector<T>(v);
}

std::vector<tensor> run_ok(session& sess, const session::feed_list& feeds,
                           const std::vector<output>& fetches) {
  auto out = sess.run(feeds, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return std::move(out).value();
}

void init_all(session& sess, const std::vector<test_var>& vars) {
  std::vector<output> inits;
  for (const auto& v : vars) inits.push_back(v.init);
  run_ok(sess, {}, inits);
}

}  // namespace

TEST_CASE("ApplyGradientDescent: var -= alpha * delta, float32 and float64") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", vec<float>({1, 2, 3}));
  auto delta = ops::placeholder(root.with_op_name("delta"), dtype::float32);
  auto step = ops::apply_gradient_descent(root, var.ref, ops::constant(root, 0.5f), delta);
  session sess(root);
  init_all(sess, {var});
  // 1 - 0.5*0.2, 2 - 0.5*(-0.4), 3 - 0.5*1
  check_tensor(run_ok(sess, {{delta, vec<float>({0.2f, -0.4f, 1})}}, {step})[0], {3},
               std::vector<float>{0.9f, 2.2f, 2.5f});
  check_tensor(run_ok(sess, {{delta, vec<float>({0.2f, 0.4f, -2})}}, {step})[0], {3},
               std::vector<float>{0.8f, 2.0f, 3.5f});
  check_tensor(run_ok(sess, {}, {var.read})[0], {3}, std::vector<float>{0.8f, 2.0f, 3.5f});

  auto root64 = scope::new_root();
  auto var64 = make_var(root64, "var", vec<double>({1, -1}));
  auto step64 = ops::apply_gradient_descent(root64, var64.ref, ops::constant(root64, 0.25),
                                            ops::constant(root64, vec<double>({4, 2})));
  session sess64(root64);
  init_all(sess64, {var64});
  run_ok(sess64, {}, {step64});
  // Two steps of -0.25*[4, 2].
  check_tensor(run_ok(sess64, {}, {step64})[0], {2}, std::vector<double>{-1, -2}, 1e-12);
}

TEST_CASE("ApplyMomentum keeps the accumulator across steps") {
  for (bool nesterov : {false, true}) {
    CAPTURE(nesterov);
    auto root = scope::new_root();
    auto var = make_var(root, "var", vec<float>({1, 2}));
    auto accum = make_var(root, "accum", vec<float>({0, 0.5f}));
    auto grad = ops::placeholder(root.with_op_name("grad"), dtype::float32);
    auto step = ops::apply_momentum(root, var.ref, accum.ref, ops::constant(root, 0.1f), grad,
                                    ops::constant(root, 0.9f), {.use_nesterov = nesterov});
    session sess(root);
    init_all(sess, {var, accum});
    // Step 1, g = [1, -2]: accum = 0.9*[0, 0.5] + g = [1, -1.55].
    //   plain:    var = [1 - 0.1*1, 2 + 0.1*1.55] = [0.9, 2.155]
    //   nesterov: var -= 0.1*g + 0.09*accum = [1 - 0.19, 2 - (-0.2 - 0.1395)] = [0.81, 2.3395]
    auto v1 = run_ok(sess, {{grad, vec<float>({1, -2})}}, {step})[0];
    check_tensor(run_ok(sess, {}, {accum.read})[0], {2}, std::vector<float>{1, -1.55f});
    // Step 2, g = [0.5, 1]: accum = 0.9*[1, -1.55] + g = [1.4, -0.395].
    //   plain:    var = [0.9 - 0.14, 2.155 + 0.0395] = [0.76, 2.1945]
    //   nesterov: var = [0.81 - (0.05 + 0.126), 2.3395 - (0.1 - 0.03555)] = [0.634, 2.27505]
    auto v2 = run_ok(sess, {{grad, vec<float>({0.5f, 1})}}, {step})[0];
    check_tensor(run_ok(sess, {}, {accum.read})[0], {2}, std::vector<float>{1.4f, -0.395f});
    if (nesterov) {
      check_tensor(v1, {2}, std::vector<float>{0.81f, 2.3395f});
      check_tensor(v2, {2}, std::vector<float>{0.634f, 2.27505f});
    } else {
      check_tensor(v1, {2}, std::vector<float>{0.9f, 2.155f});
      check_tensor(v2, {2}, std::vector<float>{0.76f, 2.1945f});
    }
  }
}

TEST_CASE("ApplyAdam: bias-corrected moments over two steps") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", vec<float>({1, -1}));
  auto m = make_var(root, "m", vec<float>({0, 0}));
  auto v = make_var(root, "v", vec<float>({0, 0}));
  auto b1p = ops::placeholder(root.with_op_name("beta1_power"), dtype::float32);
  auto b2p = ops::placeholder(root.with_op_name("beta2_power"), dtype::float32);
  auto grad = ops::placeholder(root.with_op_name("grad"), dtype::float32);
  auto step = ops::apply_adam(root, var.ref, m.ref, v.ref, b1p, b2p, ops::constant(root, 0.1f),
                              ops::constant(root, 0.5f), ops::constant(root, 0.75f),
                              ops::constant(root, 0.0f), grad);
  session sess(root);
  init_all(sess, {var, m, v});
  // Step 1: lr_t = 0.1*sqrt(1 - 0.75)/(1 - 0.5) = 0.1; g = [2, -4]: m = 0.5*g = [1, -2],
  // v = 0.25*g^2 = [1, 4], var = [1 - 0.1*1/1, -1 + 0.1*2/2] = [0.9, -0.9].
  check_tensor(run_ok(sess, {{b1p, tensor::scalar(0.5f)}, {b2p, tensor::scalar(0.75f)},
                             {grad, vec<float>({2, -4})}},
                      {step})[0],
               {2}, std::vector<float>{0.9f, -0.9f});
  // Step 2: lr_t = 0.1*sqrt(1 - 0.5625)/(1 - 0.25); g = [2, 0]: m = [1.5, -1], v = [1.75, 3].
  // var0 = 0.9 - lr_t*1.5/sqrt(1.75) = 0.9 - 0.1 (sqrt(0.4375)/sqrt(1.75) = 0.5) = 0.8,
  // var1 = -0.9 + lr_t/sqrt(3).
  const double lr_t = 0.1 * std::sqrt(0.4375) / 0.75;
  check_tensor(run_ok(sess, {{b1p, tensor::scalar(0.25f)}, {b2p, tensor::scalar(0.5625f)},
                             {grad, vec<float>({2, 0})}},
                      {step})[0],
               {2}, std::vector<float>{0.8f, float(-0.9 + lr_t / std::sqrt(3.0))});
  auto slots = run_ok(sess, {}, {m.read, v.read});
  check_tensor(slots[0], {2}, std::vector<float>{1.5f, -1});
  check_tensor(slots[1], {2}, std::vector<float>{1.75f, 3});
}

TEST_CASE("ApplyAdam: Nesterov direction, epsilon outside the square root, float64") {
  for (bool nesterov : {false, true}) {
    CAPTURE(nesterov);
    auto root = scope::new_root();
    auto var = make_var(root, "var", vec<double>({1, -1}));
    auto m = make_var(root, "m", vec<double>({0, 0}));
    auto v = make_var(root, "v", vec<double>({0, 0}));
    auto c = [&](double x) { return ops::constant(root, x); };
    auto step = ops::apply_adam(root, var.ref, m.ref, v.ref, c(0.5), c(0.75), c(0.1), c(0.5),
                                c(0.75), c(1.0), ops::constant(root, vec<double>({2, -4})),
                                {.use_nesterov = nesterov});
    session sess(root);
    init_all(sess, {var, m, v});
    // m = [1, -2], v = [1, 4], lr_t = 0.1, sqrt(v) + 1 = [2, 3].
    //   plain:    var = [1 - 0.1*1/2, -1 + 0.1*2/3]
    //   nesterov: direction = 0.5*m + 0.5*g = [1.5, -3]: var = [1 - 0.15/2, -1 + 0.3/3]
    auto out = run_ok(sess, {}, {step})[0];
    if (nesterov)
      check_tensor(out, {2}, std::vector<double>{0.925, -0.9}, 1e-12);
    else
      check_tensor(out, {2}, std::vector<double>{0.95, -1 + 0.2 / 3}, 1e-12);
  }
}

TEST_CASE("ApplyAdagrad accumulates squared gradients") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", vec<float>({1, 2}));
  auto accum = make_var(root, "accum", vec<float>({0, 9}));
  auto grad = ops::placeholder(root.with_op_name("grad"), dtype::float32);
  auto step = ops::apply_adagrad(root, var.ref, accum.ref, ops::constant(root, 0.5f), grad);
  session sess(root);
  init_all(sess, {var, accum});
  // g = [2, 4]: accum = [4, 25], var = [1 - 0.5*2/2, 2 - 0.5*4/5] = [0.5, 1.6]
  check_tensor(run_ok(sess, {{grad, vec<float>({2, 4})}}, {step})[0], {2},
               std::vector<float>{0.5f, 1.6f});
  // g = [1.5, -12]: accum = [6.25, 169], var = [0.5 - 0.5*1.5/2.5, 1.6 + 0.5*12/13]
  check_tensor(run_ok(sess, {{grad, vec<float>({1.5f, -12})}}, {step})[0], {2},
               std::vector<float>{0.2f, 1.6f + 6.0f / 13.0f});
  check_tensor(run_ok(sess, {}, {accum.read})[0], {2}, std::vector<float>{6.25f, 169});
}

TEST_CASE("ApplyAdagrad with update_slots = false leaves the accumulator alone") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", vec<double>({1, 2}));
  auto accum = make_var(root, "accum", vec<double>({4, 9}));
  auto step = ops::apply_adagrad(root, var.ref, accum.ref, ops::constant(root, 0.5),
                                 ops::constant(root, vec<double>({2, 3})),
                                 {.update_slots = false});
  session sess(root);
  init_all(sess, {var, accum});
  // var = [1 - 0.5*2/2, 2 - 0.5*3/3], twice.
  run_ok(sess, {}, {step});
  check_tensor(run_ok(sess, {}, {step})[0], {2}, std::vector<double>{0, 1}, 1e-12);
  check_tensor(run_ok(sess, {}, {accum.read})[0], {2}, std::vector<double>{4, 9}, 1e-12);
}

TEST_CASE("ApplyRMSProp keeps mean square and momentum across steps") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", vec<float>({1, 2}));
  auto ms = make_var(root, "ms", vec<float>({0, 0}));
  auto mom = make_var(root, "mom", vec<float>({0, 1}));
  auto grad = ops::placeholder(root.with_op_name("grad"), dtype::float32);
  auto c = [&](float x) { return ops::constant(root, x); };
  auto step = ops::apply_rms_prop(root, var.ref, ms.ref, mom.ref, c(0.1f), c(0.75f), c(0.5f),
                                  c(0.0f), grad);
  session sess(root);
  init_all(sess, {var, ms, mom});
  // g = [2, -4]: ms = 0.25*g^2 = [1, 4]; mom = 0.5*[0, 1] + 0.1*g/sqrt(ms) = [0.2, 0.3];
  // var = [0.8, 1.7]
  check_tensor(run_ok(sess, {{grad, vec<float>({2, -4})}}, {step})[0], {2},
               std::vector<float>{0.8f, 1.7f});
  // g = [-1, 2]: ms = 0.75*ms + 0.25*g^2 = [1, 4]; mom = 0.5*[0.2, 0.3] + 0.1*[-1, 1]
  // = [0, 0.25]; var = [0.8, 1.45]
  check_tensor(run_ok(sess, {{grad, vec<float>({-1, 2})}}, {step})[0], {2},
               std::vector<float>{0.8f, 1.45f});
  auto slots = run_ok(sess, {}, {ms.read, mom.read});
  check_tensor(slots[0], {2}, std::vector<float>{1, 4});
  check_tensor(slots[1], {2}, std::vector<float>{0, 0.25f});
}

TEST_CASE("ApplyRMSProp adds epsilon inside the square root") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", tensor::scalar(1.0));
  auto ms = make_var(root, "ms", tensor::scalar(0.0));
  auto mom = make_var(root, "mom", tensor::scalar(0.0));
  auto c = [&](double x) { return ops::constant(root, x); };
  auto step = ops::apply_rms_prop(root, var.ref, ms.ref, mom.ref, c(0.1), c(0.75), c(0.5), c(3),
                                  c(2));
  session sess(root);
  init_all(sess, {var, ms, mom});
  // ms = 0.25*4 = 1; mom = 0.1*2/sqrt(1 + 3) = 0.1; var = 0.9 (a scalar variable)
  check_tensor(run_ok(sess, {}, {step})[0], tensor::scalar(0.9), 1e-12);
}

TEST_CASE("updates never change a tensor a reader holds, nor the initial value") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", vec<float>({1, 2}));
  auto accum = make_var(root, "accum", vec<float>({0, 0}));
  auto step = ops::apply_momentum(root, var.ref, accum.ref, ops::constant(root, 1.0f),
                                  ops::constant(root, vec<float>({1, 1})),
                                  ops::constant(root, 0.5f));
  session sess(root);
  init_all(sess, {var, accum});
  auto held = run_ok(sess, {}, {var.read, accum.read});
  run_ok(sess, {}, {step});  // accum = [1, 1], var = [0, 1]
  run_ok(sess, {}, {step});  // accum = [1.5, 1.5], var = [-1.5, -0.5]
  check_tensor(held[0], {2}, std::vector<float>{1, 2});
  check_tensor(held[1], {2}, std::vector<float>{0, 0});
  check_tensor(run_ok(sess, {}, {accum.read})[0], {2}, std::vector<float>{1.5f, 1.5f});
  // Initializing again restores the Consts' values: the updates did not write into them.
  init_all(sess, {var, accum});
  auto again = run_ok(sess, {}, {var.read, accum.read});
  check_tensor(again[0], {2}, std::vector<float>{1, 2});
  check_tensor(again[1], {2}, std::vector<float>{0, 0});
}

TEST_CASE("large updates run on the intra-op pool with the same result") {
  const int64_t n = 200 * 1000;
  std::vector<float> start(n), grad(n);
  for (int64_t i = 0; i < n; ++i) {
    start[i] = float(i % 100);
    grad[i] = float(i % 7) - 3;
  }
  auto root = scope::new_root();
  auto var = make_var(root, "var", vec<float>(start));
  auto accum = make_var(root, "accum", tensor::filled(tensor_shape{n}, 1.0f));
  auto step = ops::apply_momentum(root, var.ref, accum.ref, ops::constant(root, 0.5f),
                                  ops::constant(root, vec<float>(grad)), ops::constant(root, 2.0f));
  session sess(root, {.cpu = {.intra_op_threads = 4, .inter_op_threads = 2}});
  init_all(sess, {var, accum});
  run_ok(sess, {}, {step});
  auto out = run_ok(sess, {}, {step})[0];
  // accum: 2*1 + g, then 2*(2 + g) + g = 4 + 3g; var: start - 0.5*(2 + g) - 0.5*(4 + 3g)
  std::vector<float> expected(n);
  for (int64_t i = 0; i < n; ++i) expected[i] = start[i] - 3 - 2 * grad[i];
  check_tensor(out, tensor_shape{n}, expected);
}

TEST_CASE("empty variables update to empty values") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", tensor(dtype::float32, tensor_shape{0, 3}));
  auto step = ops::apply_gradient_descent(root, var.ref, ops::constant(root, 1.0f),
                                          ops::constant(root, tensor(dtype::float32, {0, 3})));
  session sess(root);
  init_all(sess, {var});
  CHECK(run_ok(sess, {}, {step})[0].shape() == tensor_shape{0, 3});
}

TEST_CASE("uninitialized variables and slots are named") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", vec<float>({1, 2}));
  auto accum = make_var(root, "accum", vec<float>({0, 0}));
  auto step = ops::apply_adagrad(root, var.ref, accum.ref, ops::constant(root, 0.1f),
                                 ops::constant(root, vec<float>({1, 1})));
  session sess(root);
  check_error(sess.run({step}), "attempting to use uninitialized variable 'var'");
  run_ok(sess, {}, {var.init});
  check_error(sess.run({step}), "attempting to use uninitialized variable 'accum'");
}

TEST_CASE("shape mismatches are caught when building, and at run time when unknown") {
  {
    auto root = scope::new_root();
    auto var = make_var(root, "var", vec<float>({1, 2}));
    ops::apply_gradient_descent(root.with_op_name("gd"), var.ref, ops::constant(root, 1.0f),
                                ops::constant(root, vec<float>({1, 2, 3})));
    check_error(root.get_status(),
                "node 'gd' (ApplyGradientDescent): delta of shape [3] does not match var of shape [2]");
  }
  {
    auto root = scope::new_root();
    auto var = make_var(root, "var", vec<float>({1, 2}));
    auto accum = make_var(root, "accum", vec<float>({1, 2, 3}));
    ops::apply_momentum(root, var.ref, accum.ref, ops::constant(root, 1.0f), ops::constant(root, vec<float>({1, 2})),
                        ops::constant(root, 1.0f));
    check_error(root.get_status(), "accum of shape [3] does not match var of shape [2]");
  }
  {
    auto root = scope::new_root();
    auto var = make_var(root, "var", vec<float>({1, 2}));
    auto accum = make_var(root, "accum", vec<float>({1, 2}));
    ops::apply_adagrad(root, var.ref, accum.ref, ops::constant(root, vec<float>({1, 2})),
                       ops::constant(root, vec<float>({1, 2})));
    check_error(root.get_status(), "lr must be a scalar but has shape [2]");
  }
  {
    // Unknown shapes at construction: the kernel checks.
    auto root = scope::new_root();
    auto var = make_var(root, "var", vec<float>({1, 2}), partial_shape::unknown());
    auto ms = make_var(root, "ms", vec<float>({1, 2, 3}), partial_shape::unknown());
    auto mom = make_var(root, "mom", vec<float>({0, 0}));
    auto grad = ops::placeholder(root.with_op_name("grad"), dtype::float32);
    auto lr = ops::placeholder(root.with_op_name("lr"), dtype::float32);
    auto c = [&](float x) { return ops::constant(root, x); };
    auto step = ops::apply_rms_prop(root, var.ref, ms.ref, mom.ref, lr, c(0.9f), c(0), c(1e-7f),
                                    grad);
    REQUIRE(root.ok());
    session sess(root);
    init_all(sess, {var, ms, mom});
    check_error(sess.run({{lr, tensor::scalar(0.1f)}, {grad, vec<float>({1, 1})}}, {step}),
                "ms 'ms' of shape [3] does not match var 'var' of shape [2]");
    run_ok(sess, {}, {ops::assign(root, ms.ref, ops::constant(root, vec<float>({0, 0})))});
    check_error(sess.run({{lr, tensor::scalar(0.1f)}, {grad, vec<float>({1, 1, 1})}}, {step}),
                "gradient of shape [3] does not match var 'var' of shape [2]");
    check_error(sess.run({{lr, vec<float>({0.1f})}, {grad, vec<float>({1, 1})}}, {step}),
                "lr must be a scalar but has shape [1]");
    // Nothing was written by the failed steps.
    check_tensor(run_ok(sess, {}, {var.read})[0], {2}, std::vector<float>{1, 2});
  }
}

TEST_CASE("a variable given as its own slot is refused") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", vec<float>({1, 2}));
  auto step = ops::apply_momentum(root, var.ref, var.ref, ops::constant(root, 1.0f),
                                  ops::constant(root, vec<float>({1, 1})), ops::constant(root, 0.5f));
  session sess(root);
  init_all(sess, {var});
  check_error(sess.run({step}), "variable 'var' is given as both var and accum");
}

TEST_CASE("integer variables are refused when the graph is built") {
  auto root = scope::new_root();
  auto var = make_var(root, "var", vec<int32_t>({1, 2}));
  ops::apply_gradient_descent(root, var.ref, ops::constant(root, 1),
                              ops::constant(root, vec<int32_t>({1, 1})));
  check_error(root.get_status(), "int32");
}

TEST_CASE("a variable's bytes are mutable in place only once no snapshot shares them") {
  tensor value = tensor::from_vector<float>({1, 2, 3, 4});
  CHECK(mutable_in_place(value));
  std::optional<tensor> snapshot = value;
  CHECK_FALSE(mutable_in_place(value));
  // The last snapshot reads on another thread and lets go; the writer sees it gone and writes.
  // Under ThreadSanitizer this is the race the check must order: the reads before the writes.
  float sum = 0;
  std::thread reader([&] {
    const float* p = snapshot->data<float>();
    for (int i = 0; i < 4; ++i) sum += p[i];
    snapshot.reset();
  });
  while (!mutable_in_place(value)) std::this_thread::yield();
  value.data<float>()[0] = 10;
  reader.join();
  CHECK(sum == 10.0f);
  CHECK(value.to_vector<float>() == std::vector<float>{10, 2, 3, 4});
}
