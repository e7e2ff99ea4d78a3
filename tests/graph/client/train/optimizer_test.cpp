// The train:: optimizers on loss = sum((w - target)^2), whose gradient is 2 (w - target):
// the first two updates against values worked out by hand (w0 = [1, 2], target = [3, -1],
// so the first gradient is [-4, 6]), then convergence, the global step, slots, colocation and
// the errors.
#include <doctest/doctest.h>

#include <cmath>

#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"
#include "graph/client/train/adagrad_optimizer.hpp"
#include "graph/client/train/adam_optimizer.hpp"
#include "graph/client/train/global_step.hpp"
#include "graph/client/train/gradient_descent_optimizer.hpp"
#include "graph/client/train/momentum_optimizer.hpp"
#include "graph/client/train/rmsprop_optimizer.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;

namespace {

struct quadratic {
  scope root = scope::new_root();
  train::variable w;
  output loss, read_w;

  quadratic() {
    w = train::create_variable(root, "w", ops::constant(root, std::vector<float>{1, 2}, {2}));
    const output target = ops::constant(root, std::vector<float>{3, -1}, {2});
    loss = ops::sum(root, ops::square(root, ops::sub(root, w, target)), {0});
    read_w = ops::identity(root.with_op_name("read_w"), w);
  }
};

std::vector<tensor> run_ok(session& sess, const std::vector<output>& fetches,
                           const session::feed_list& feeds = {}) {
  auto out = sess.run(feeds, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return std::move(out).value();
}

void run_targets_ok(session& sess, const std::vector<operation>& targets,
                    const session::feed_list& feeds = {}) {
  const status st = sess.run_targets(targets, feeds);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
}

// Minimizes the quadratic with `opt`, checking the first two values of w, then that `steps`
// more steps reach the target within `tol`, and that the global step counted every step.
void check_minimizes(train::optimizer& opt, const std::vector<float>& after1,
                     const std::vector<float>& after2, int steps, double tol) {
  quadratic q;
  const train::variable step = train::create_global_step(q.root);
  auto train_op = opt.minimize(q.root, q.loss, step, {q.w});
  REQUIRE_MESSAGE(train_op.ok(), train_op.get_status().to_string());
  train::variable_set vars{q.w, step};
  vars.add(opt.variables());
  const operation init = train::global_variables_initializer(q.root, vars);
  const output read_step = ops::identity(q.root, step);
  REQUIRE_MESSAGE(q.root.ok(), q.root.get_status().to_string());

  session sess(q.root);
  run_targets_ok(sess, {init});
  run_targets_ok(sess, {*train_op});
  check_tensor(run_ok(sess, {q.read_w})[0], {2}, after1);
  run_targets_ok(sess, {*train_op});
  check_tensor(run_ok(sess, {q.read_w})[0], {2}, after2);
  for (int i = 0; i < steps; ++i) run_targets_ok(sess, {*train_op});
  auto end = run_ok(sess, {q.read_w, read_step});
  check_tensor(end[0], {2}, std::vector<float>{3, -1}, tol);
  CHECK(end[1].scalar_value<int64_t>() == steps + 2);
}

const node_def& find(const scope& s, const std::string& name, node_def& storage) {
  auto n = s.find_node(name);
  REQUIRE_MESSAGE(n.has_value(), "no node '", name, "'");
  storage = *n;
  return storage;
}

std::vector<std::string> colocation_of(const scope& s, const std::string& name) {
  node_def n;
  find(s, name, n);
  auto it = n.attrs.find("_class");
  if (it == n.attrs.end()) return {};
  return it->second.get<std::vector<std::string>>();
}

}  // namespace

TEST_CASE("gradient descent: w -= 0.1 * 2 (w - target)") {
  train::gradient_descent_optimizer opt(0.1);
  // g0 = [-4, 6]: w1 = [1.4, 1.4]; g1 = [-3.2, 4.8]: w2 = [1.72, 0.92]. The error shrinks by
  // 0.8 per step.
  check_minimizes(opt, {1.4f, 1.4f}, {1.72f, 0.92f}, 100, 1e-5);
  CHECK(opt.variables().empty());
}

TEST_CASE("momentum: the accumulator carries the first gradient into the second step") {
  train::momentum_optimizer opt(0.1, 0.9);
  // accum1 = g0 = [-4, 6], w1 = [1.4, 1.4]; g1 = [-3.2, 4.8], accum2 = 0.9*accum1 + g1 =
  // [-6.8, 10.2], w2 = w1 - 0.1*accum2 = [2.08, 0.38].
  check_minimizes(opt, {1.4f, 1.4f}, {2.08f, 0.38f}, 300, 1e-4);
  REQUIRE(opt.variables().size() == 1);
  CHECK(opt.variables()[0].name() == "w/Momentum");
  CHECK_FALSE(opt.variables()[0].trainable);
  CHECK(opt.get_slot_names() == std::vector<std::string>{"momentum"});
}

TEST_CASE("Nesterov momentum looks ahead along the accumulator") {
  train::momentum_optimizer opt(0.1, 0.9, {.use_nesterov = true});
  // accum1 = [-4, 6]; w1 = w0 - 0.1*(g0 + 0.9*accum1) = [1 + 0.76, 2 - 1.14] = [1.76, 0.86];
  // g1 = 2*([1.76, 0.86] - [3, -1]) = [-2.48, 3.72], accum2 = [-6.08, 9.12];
  // w2 = w1 - 0.1*(g1 + 0.9*accum2) = [1.76 + 0.7952, 0.86 - 1.1928] = [2.5552, -0.3328].
  check_minimizes(opt, {1.76f, 0.86f}, {2.5552f, -0.3328f}, 300, 1e-4);
}

TEST_CASE("Adam: bias-corrected first steps and decaying beta powers") {
  train::adam_optimizer opt({.learning_rate = 0.1});
  // Step 1: m = 0.1 g0, v = 0.001 g0^2, lr_t = 0.1 sqrt(0.001) / 0.1: each element moves by
  // 0.1 against its gradient's sign (up to epsilon): w1 = [1.1, 1.9].
  // Step 2: g1 = [-3.8, 5.8]; m = 0.09 g0 + 0.1 g1 = [-0.74, 1.12];
  // v = 0.000999 g0^2 + 0.001 g1^2 = [0.030424, 0.069604];
  // lr_t = 0.1 sqrt(1 - 0.998001) / (1 - 0.81) = 0.0235317;
  // w2 = w1 - lr_t m / sqrt(v) = [1.1 + 0.0998335, 1.9 - 0.0998973].
  check_minimizes(opt, {1.1f, 1.9f}, {1.1998335f, 1.8001027f}, 500, 1e-4);
  // Slots m, v and the two powers.
  CHECK(opt.get_slot_names() == std::vector<std::string>{"m", "v"});
  REQUIRE(opt.variables().size() == 4);
  CHECK(opt.beta1_power().name() == "beta1_power");
  CHECK(opt.beta2_power().name() == "beta2_power");
}

TEST_CASE("Adam's beta powers are multiplied once per step, after the updates") {
  quadratic q;
  train::adam_optimizer opt({.learning_rate = 0.1});
  auto train_op = opt.minimize(q.root, q.loss, {q.w});
  REQUIRE(train_op.ok());
  train::variable_set vars{q.w};
  vars.add(opt.variables());
  const operation init = train::global_variables_initializer(q.root, vars);
  const output p1 = ops::identity(q.root, opt.beta1_power());
  const output p2 = ops::identity(q.root, opt.beta2_power());
  const output m = ops::identity(q.root, opt.get_slot(q.w, "m"));
  session sess(q.root);
  run_targets_ok(sess, {init});
  auto before = run_ok(sess, {p1, p2});
  CHECK(before[0].scalar_value<float>() == doctest::Approx(0.9));
  CHECK(before[1].scalar_value<float>() == doctest::Approx(0.999));
  run_targets_ok(sess, {*train_op});
  run_targets_ok(sess, {*train_op});
  auto after = run_ok(sess, {p1, p2, m});
  CHECK(after[0].scalar_value<float>() == doctest::Approx(0.729));
  CHECK(after[1].scalar_value<float>() == doctest::Approx(0.997002999));
  // The second step used beta1^2 = 0.81: m after two steps is 0.09 g0 + 0.1 g1.
  check_tensor(after[2], {2}, std::vector<float>{-0.74f, 1.12f});
}

TEST_CASE("Adagrad: steps shrink with the accumulated squares") {
  train::adagrad_optimizer opt(0.5);
  // accum1 = 0.1 + g0^2 = [16.1, 36.1]; w1 = w0 - 0.5 g0 / sqrt(accum1)
  //   = [1 + 2/4.0124805, 2 - 3/6.0083276] = [1.4984448, 1.5006930];
  // g1 = [-3.0031104, 5.0013860], accum2 = [25.1186719, 61.1138630];
  // w2 = w1 - 0.5 g1 / sqrt(accum2) = [1.7980456, 1.1808105].
  check_minimizes(opt, {1.4984448f, 1.5006930f}, {1.7980456f, 1.1808105f}, 300, 1e-4);
  REQUIRE(opt.variables().size() == 1);
  CHECK(opt.variables()[0].name() == "w/Adagrad");
}

TEST_CASE("RMSProp: mean squares start at one, momentum carries over") {
  train::rmsprop_optimizer opt(0.01, {.momentum = 0.5});
  // rms1 = 0.9 + 0.1 g0^2 = [2.5, 4.5]; mom1 = 0.01 g0 / sqrt(rms1) = [-0.0252982, 0.0282843];
  // w1 = [1.0252982, 1.9717157]; g1 = [-3.9494036, 5.9434315];
  // rms2 = 0.9 rms1 + 0.1 g1^2 = [3.8097690, 7.5824778];
  // mom2 = 0.5 mom1 + 0.01 g1 / sqrt(rms2) = [-0.0328831, 0.0357262];
  // w2 = [1.0581813, 1.9359895].
  check_minimizes(opt, {1.0252982f, 1.9717157f}, {1.0581813f, 1.9359895f}, 1500, 1e-2);
  REQUIRE(opt.variables().size() == 2);
  CHECK(opt.variables()[0].name() == "w/RMSProp");
  CHECK(opt.variables()[1].name() == "w/RMSProp_1");
}

TEST_CASE("apply_gradients: updates and slots colocated with their variables, step after") {
  auto root = scope::new_root();
  auto a = train::create_variable(root, "a", ops::constant(root, std::vector<float>{1, 2}, {2}));
  auto b = train::create_variable(root, "b", ops::constant(root, 10.0f));
  const train::variable step = train::create_global_step(root);
  train::momentum_optimizer opt(0.5, 0.5);
  auto train_op = opt.apply_gradients(
      root,
      {{ops::constant(root, std::vector<float>{2, 4}, {2}), a}, {ops::constant(root, 4.0f), b}},
      step);
  REQUIRE_MESSAGE(train_op.ok(), train_op.get_status().to_string());
  CHECK(train_op->node == "Momentum/increment_global_step");

  const std::vector<std::string> on_a{"loc:@a"}, on_b{"loc:@b"};
  CHECK(colocation_of(root, "Momentum/update_a/ApplyMomentum") == on_a);
  CHECK(colocation_of(root, "Momentum/update_b/ApplyMomentum") == on_b);
  CHECK(colocation_of(root, "a/Momentum") == on_a);
  CHECK(colocation_of(root, "b/Momentum") == on_b);
  CHECK(colocation_of(root, "a/Momentum/Assign") == on_a);
  CHECK(colocation_of(root, "Momentum/increment_global_step") ==
        std::vector<std::string>{"loc:@global_step"});
  CHECK(opt.get_slot(a, "momentum").name() == "a/Momentum");
  CHECK_FALSE(opt.get_slot(a, "nope").valid());

  train::variable_set vars{a, b, step};
  vars.add(opt.variables());
  CHECK(vars.size() == 5);
  CHECK(vars.trainable().size() == 2);
  const operation init = train::global_variables_initializer(root, vars);
  const output ra = ops::identity(root, a), rb = ops::identity(root, b),
               rs = ops::identity(root, step),
               slot_b = ops::identity(root, opt.get_slot(b, "momentum"));
  session sess(root);
  run_targets_ok(sess, {init});
  run_targets_ok(sess, {*train_op});
  run_targets_ok(sess, {*train_op});
  auto out = run_ok(sess, {ra, rb, rs, slot_b});
  // accum: g, then 1.5 g; var -= 0.5 g, then 0.75 g: 1.25 g in all.
  check_tensor(out[0], {2}, std::vector<float>{1 - 2.5f, 2 - 5});
  CHECK(out[1].scalar_value<float>() == doctest::Approx(10 - 5));
  CHECK(out[2].scalar_value<int64_t>() == 2);
  CHECK(out[3].scalar_value<float>() == doctest::Approx(6));
}

TEST_CASE("hyperparameters may be tensors; float64 variables get them cast") {
  auto root = scope::new_root();
  auto w32 = train::create_variable(root, "w32", ops::constant(root, 1.0f));
  auto w64 = train::create_variable(root, "w64", ops::constant(root, 1.0));
  const output lr = ops::placeholder(root.with_op_name("lr"), dtype::float32);
  // loss = 3 w32 + 5 w64: constant gradients 3 and 5.
  const output loss = ops::add(root, ops::mul(root, ops::constant(root, 3.0f), w32),
                               ops::cast(root, ops::mul(root, ops::constant(root, 5.0), w64),
                                         dtype::float32));
  train::gradient_descent_optimizer opt(lr);
  auto train_op = opt.minimize(root, loss, {w32, w64});
  REQUIRE_MESSAGE(train_op.ok(), train_op.get_status().to_string());
  const operation init = train::global_variables_initializer(root, {w32, w64});
  const output r32 = ops::identity(root, w32), r64 = ops::identity(root, w64);
  session sess(root);
  run_targets_ok(sess, {init});
  run_targets_ok(sess, {*train_op}, {{lr, tensor::scalar(0.5f)}});
  run_targets_ok(sess, {*train_op}, {{lr, tensor::scalar(0.25f)}});
  auto out = run_ok(sess, {r32, r64});
  CHECK(out[0].scalar_value<float>() == doctest::Approx(1 - 3 * 0.75));
  CHECK(out[1].type() == dtype::float64);
  CHECK(out[1].scalar_value<double>() == doctest::Approx(1 - 5 * 0.75));
}

TEST_CASE("Adam over float32 and float64 variables casts its powers for the other dtype") {
  auto root = scope::new_root();
  auto a = train::create_variable(root, "a", ops::constant(root, 1.0f));
  auto b = train::create_variable(root, "b", ops::constant(root, 1.0));
  train::adam_optimizer opt({.learning_rate = 0.1});
  auto train_op = opt.apply_gradients(
      root, {{ops::constant(root, 2.0f), a}, {ops::constant(root, -3.0), b}});
  REQUIRE_MESSAGE(train_op.ok(), train_op.get_status().to_string());
  // The powers take the dtype of the first variable by name.
  CHECK(opt.beta1_power().type() == dtype::float32);
  train::variable_set vars{a, b};
  vars.add(opt.variables());
  const operation init = train::global_variables_initializer(root, vars);
  const output ra = ops::identity(root, a), rb = ops::identity(root, b);
  session sess(root);
  run_targets_ok(sess, {init});
  run_targets_ok(sess, {*train_op});
  auto out = run_ok(sess, {ra, rb});
  // A first Adam step moves each element by the learning rate against its gradient's sign.
  CHECK(out[0].scalar_value<float>() == doctest::Approx(0.9).epsilon(1e-6));
  CHECK(out[1].scalar_value<double>() == doctest::Approx(1.1).epsilon(1e-6));
}

TEST_CASE("a variable the loss does not depend on gets no gradient (TF's None), or zeros") {
  quadratic q;
  auto other = train::create_variable(q.root, "other", ops::constant(q.root, 7.0f));
  train::adam_optimizer opt({.learning_rate = 0.1});
  auto grads = opt.compute_gradients(q.root, q.loss, {q.w, other});
  REQUIRE(grads.ok());
  REQUIRE(grads->size() == 2);
  CHECK(grads->at(1).var.name() == "other");
  CHECK_FALSE(grads->at(1).gradient.valid());
  auto train_op = opt.apply_gradients(q.root, *grads);
  REQUIRE(train_op.ok());
  // No update (and no slots) for it: Adam would otherwise move it on its momentum.
  CHECK_FALSE(opt.get_slot(other, "m").valid());
  auto zeros = opt.compute_gradients(q.root, q.loss, {q.w, other},
                                     {.unconnected = unconnected_gradients::zero});
  REQUIRE(zeros.ok());
  train::variable_set vars{q.w, other};
  vars.add(opt.variables());
  const operation init = train::global_variables_initializer(q.root, vars);
  const output ro = ops::identity(q.root, other);
  session sess(q.root);
  run_targets_ok(sess, {init});
  auto g = run_ok(sess, {zeros->at(0).gradient.dense(), zeros->at(1).gradient.dense()});
  check_tensor(g[0], {2}, std::vector<float>{-4, 6});
  CHECK(g[1].scalar_value<float>() == 0);
  run_targets_ok(sess, {*train_op});
  CHECK(run_ok(sess, {ro})[0].scalar_value<float>() == 7);
}

TEST_CASE("pairs without a gradient are skipped; none at all is an error") {
  quadratic q;
  auto other = train::create_variable(q.root, "other", ops::constant(q.root, 7.0f));
  train::gradient_descent_optimizer opt(0.1);
  auto grads = opt.compute_gradients(q.root, q.loss, {q.w});
  REQUIRE(grads.ok());
  auto with_skip = *grads;
  with_skip.push_back({output{}, other});
  CHECK(opt.apply_gradients(q.root, with_skip).ok());
  CHECK(q.root.find_node("GradientDescent/update_w/ApplyGradientDescent"));
  CHECK_FALSE(q.root.find_node("GradientDescent/update_other/ApplyGradientDescent"));
  check_error(opt.apply_gradients(q.root, {{output{}, q.w}, {output{}, other}}),
              "no gradients provided for any variable: 'w', 'other'");
}

TEST_CASE("optimizer argument errors name what is wrong") {
  quadratic q;
  auto counter = train::create_variable(q.root, "counter", ops::constant(q.root, int32_t{0}));
  auto f = train::create_variable(q.root, "f", ops::constant(q.root, 0.0f));
  train::gradient_descent_optimizer opt(0.1);
  check_error(opt.compute_gradients(q.root, q.loss, {}), "var_list is empty");
  check_error(opt.compute_gradients(q.root, q.loss, {counter}),
              "GradientDescent.compute_gradients: variable 'counter' is int32; only float32 and "
              "float64 variables can be trained");
  check_error(opt.compute_gradients(q.root, output{}, {q.w}), "the loss is an invalid output");
  check_error(opt.apply_gradients(q.root, {}), "grads_and_vars is empty");
  const output g = ops::constant(q.root, std::vector<float>{1, 1}, {2});
  check_error(opt.apply_gradients(q.root, {{g, q.w}, {g, q.w}}),
              "variable 'w' appears more than once");
  check_error(opt.apply_gradients(q.root, {{ops::constant(q.root, 1.0), f}}),
              "of variable 'f' is float64, expected float32");
  check_error(opt.apply_gradients(q.root, {{g, q.w}}, f),
              "global_step 'f' is float32; it must be int32 or int64");
  // A gradient of the wrong shape is caught by the update op's shape function.
  auto bad = opt.apply_gradients(q.root, {{ops::constant(q.root, 1.0f), q.w}});
  check_error(bad, "delta of shape [] does not match var of shape [2]");
}

TEST_CASE("the global step starts at zero, is int64, not trainable, and made once") {
  auto root = scope::new_root();
  const train::variable step = train::create_global_step(root);
  CHECK(step.name() == "global_step");
  CHECK(step.type() == dtype::int64);
  CHECK_FALSE(step.trainable);
  const output read = ops::identity(root, step);
  session sess(root);
  run_targets_ok(sess, {train::global_variables_initializer(root, {step})});
  CHECK(run_ok(sess, {read})[0].scalar_value<int64_t>() == 0);

  CHECK_FALSE(train::create_global_step(root).valid());
  check_error(root.get_status(), "a global step already exists");
}

TEST_CASE("variables: names, initializers, shapes and the variable set") {
  auto root = scope::new_root();
  auto sub = root.new_sub_scope("layer");
  auto w = train::create_variable(sub, "w", ops::constant(root, std::vector<float>{1, 2}, {2}));
  auto w2 = train::create_variable(sub, "w", ops::constant(root, 3.0f), {.trainable = false});
  CHECK(w.name() == "layer/w");
  CHECK(w.initializer.node == "layer/w/Assign");
  CHECK(w2.name() == "layer/w_1");
  CHECK(w2.initializer.node == "layer/w_1/Assign");
  CHECK(root.shape_of(w) == partial_shape{2});

  train::variable_set set{w, w2, w};
  CHECK(set.size() == 2);
  CHECK(set.trainable().size() == 1);
  const output read = ops::identity(root, w);
  const operation init = train::global_variables_initializer(root, set);
  CHECK(init.node == "init");
  session sess(root);
  check_error(sess.run({read}), "uninitialized");
  run_targets_ok(sess, {init});
  check_tensor(run_ok(sess, {read})[0], {2}, std::vector<float>{1, 2});

  // An initial value of unknown shape needs validate_shape = false.
  auto p = ops::placeholder(root.with_op_name("p"), dtype::float32);
  auto loose = train::create_variable(root, "loose", p, {.validate_shape = false});
  CHECK(loose.valid());
  CHECK(root.ok());
  CHECK_FALSE(train::create_variable(root, "strict", p).valid());
  check_error(root.get_status(),
              "variable 'strict': the initial value 'p' has shape <unknown>; a variable needs a "
              "fully known shape, or validate_shape = false");
}
