// Optimizers on sparse gradients: a table read through gathers is updated by SparseApply*
// (or TF's sparse Adam) on the named rows, duplicates summed first, and the result agrees
// with the dense update where TF's would (gradient descent, Adagrad, Adam), step after step.
#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <string>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/adagrad_optimizer.hpp"
#include "graph/client/train/adam_optimizer.hpp"
#include "graph/client/train/gradient_descent_optimizer.hpp"
#include "graph/client/train/momentum_optimizer.hpp"
#include "graph/client/train/rmsprop_optimizer.hpp"
#include "graph/client/train/variables.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_tensor;

namespace {

using make_optimizer = std::function<std::unique_ptr<train::optimizer>()>;

// loss = sum(gather(table, ids) * weights) + sum(gather(table, ids)^2) / 2 on a [5, 2] table,
// ids {3, 0, 3}: rows 1, 2 and 4 get no gradient.
struct lookup_model {
  scope root = scope::new_root();
  train::variable table;
  output loss, read;

  lookup_model() {
    table = train::create_variable(
        root, "table",
        ops::constant(root, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {5, 2}));
    auto rows = ops::gather(root, table, ops::constant(root, std::vector<int32_t>{3, 0, 3}, {3}));
    auto w = ops::constant(root, std::vector<float>{1, -1, 2, 0.5f, -3, 1}, {3, 2});
    loss = ops::add(root, ops::sum(root, ops::mul(root, rows, w), {0, 1}),
                    ops::mul(root, ops::sum(root, ops::square(root, rows), {0, 1}),
                             ops::constant(root, 0.5f)));
    read = ops::identity(root.with_op_name("read"), table);
  }
};

// Trains `steps` steps with `opt`, sparse or with every gradient made dense first; returns the
// table and the node ops of the graph.
std::pair<tensor, std::string> run_training(const make_optimizer& make, bool dense, int steps) {
  lookup_model m;
  auto opt = make();
  auto grads = opt->compute_gradients(m.root, m.loss, {m.table});
  REQUIRE(grads.ok());
  REQUIRE(grads->at(0).gradient.is_sparse());
  if (dense) (*grads)[0].gradient = grad::to_dense(m.root, grads->at(0).gradient);
  auto train_op = opt->apply_gradients(m.root, *grads);
  REQUIRE_MESSAGE(train_op.ok(), train_op.get_status().to_string());
  train::variable_set vars{m.table};
  vars.add(opt->variables());
  auto init = train::global_variables_initializer(m.root, vars);
  session sess(m.root);
  REQUIRE(sess.run_targets({init}).ok());
  for (int i = 0; i < steps; ++i) REQUIRE(sess.run_targets({*train_op}).ok());
  auto out = sess.run({}, {m.read});
  REQUIRE(out.ok());
  std::string ops_seen;
  for (const node_def& n : m.root.to_graph_def().nodes) ops_seen += n.op + " ";
  return {out->at(0), ops_seen};
}

void check_same(const tensor& a, const tensor& b) {
  REQUIRE(a.shape() == b.shape());
  for (int64_t i = 0; i < a.num_elements(); ++i)
    CHECK(a.data<float>()[i] == doctest::Approx(b.data<float>()[i]).epsilon(1e-5));
}

}  // namespace

TEST_CASE("gradient descent: SparseApplyGradientDescent on the rows read, equal to dense") {
  make_optimizer gd = [] { return std::make_unique<train::gradient_descent_optimizer>(0.1); };
  auto [sparse, ops_seen] = run_training(gd, false, 3);
  CHECK(ops_seen.find("SparseApplyGradientDescent") != std::string::npos);
  CHECK(ops_seen.find("Unique") == std::string::npos);  // it adds repeated rows itself
  check_same(sparse, run_training(gd, true, 3).first);
  // One step by hand: row 0's gradient is w[1] + row = [2 + 1, 0.5 + 2] -> [0.7, 1.75]; row 3
  // is read twice: w[0] + row + w[2] + row = [12, 16] -> [5.8, 6.4].
  auto [one, unused] = run_training(gd, false, 1);
  check_tensor<float>(one, {5, 2}, {0.7f, 1.75f, 3, 4, 5, 6, 5.8f, 6.4f, 9, 10}, 1e-5);
}

TEST_CASE("Adagrad: SparseApplyAdagrad after summing repeated indices, equal to dense") {
  make_optimizer adagrad = [] { return std::make_unique<train::adagrad_optimizer>(0.1); };
  auto [sparse, ops_seen] = run_training(adagrad, false, 4);
  CHECK(ops_seen.find("SparseApplyAdagrad") != std::string::npos);
  CHECK(ops_seen.find("Unique") != std::string::npos);
  check_same(sparse, run_training(adagrad, true, 4).first);
}

TEST_CASE("Adam: TF's sparse Adam (decay everywhere, rows added) equals dense Adam") {
  make_optimizer adam = [] {
    return std::make_unique<train::adam_optimizer>(train::adam_options{.learning_rate = 0.05});
  };
  auto [sparse, ops_seen] = run_training(adam, false, 4);
  CHECK(ops_seen.find("ScatterAdd") != std::string::npos);
  CHECK(ops_seen.find("ApplyAdam") == std::string::npos);
  check_same(sparse, run_training(adam, true, 4).first);
}

TEST_CASE("momentum and RMSProp: sparse kernels; after one step equal to dense") {
  make_optimizer momentum = [] { return std::make_unique<train::momentum_optimizer>(0.1, 0.9); };
  make_optimizer rmsprop = [] { return std::make_unique<train::rmsprop_optimizer>(0.01); };
  auto [m, m_ops] = run_training(momentum, false, 1);
  CHECK(m_ops.find("SparseApplyMomentum") != std::string::npos);
  check_same(m, run_training(momentum, true, 1).first);
  auto [r, r_ops] = run_training(rmsprop, false, 1);
  CHECK(r_ops.find("SparseApplyRMSProp") != std::string::npos);
  check_same(r, run_training(rmsprop, true, 1).first);
  // Later steps differ from dense where TF's do: untouched rows keep their momentum there.
  auto [m3, unused] = run_training(momentum, false, 3);
  CHECK(m3.data<float>()[2] == 3);  // row 1 never moves
}

TEST_CASE("a step whose ids leave the table fails naming the gather and updates nothing") {
  auto root = scope::new_root();
  auto table = train::create_variable(
      root, "table", ops::constant(root, std::vector<float>{1, 2, 3, 4}, {2, 2}));
  auto ids = ops::placeholder(root.with_op_name("ids"), dtype::int32);
  auto loss = ops::sum(root, ops::gather(root.with_op_name("lookup"), table, ids), {0, 1});
  train::adagrad_optimizer opt(0.1);
  auto train_op = opt.minimize(root, loss, {table});
  REQUIRE(train_op.ok());
  train::variable_set vars{table};
  vars.add(opt.variables());
  auto init = train::global_variables_initializer(root, vars);
  auto read = ops::identity(root.with_op_name("read"), table);
  session sess(root);
  REQUIRE(sess.run_targets({init}).ok());
  for (int32_t bad : {2, -1}) {
    const status st =
        sess.run_targets({*train_op}, {{ids, tensor::from_vector<int32_t>({0, bad})}});
    REQUIRE_FALSE(st.ok());
    CHECK(st.message().find("node 'lookup'") != std::string::npos);
    CHECK(st.message().find("indices[1] = " + std::to_string(bad) + " is not in [0, 2)") !=
          std::string::npos);
  }
  check_tensor<float>(sess.run({}, {read})->at(0), {2, 2}, {1, 2, 3, 4});
}
