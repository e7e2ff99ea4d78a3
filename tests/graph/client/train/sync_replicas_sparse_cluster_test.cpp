// Synchronous replicas with sparse gradients on an in-process cluster (1 ps, 2 workers,
// between-graph): each worker's gradient of a table it reads through a gather goes to a
// SparseConditionalAccumulator on the ps, and the chief's update moves each row by the mean of
// the gradients that named it (TF's rule) and leaves the other rows alone.
#include <doctest/doctest.h>

#include <future>

#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/global_step.hpp"
#include "graph/client/train/gradient_descent_optimizer.hpp"
#include "graph/client/train/replica_device_setter.hpp"
#include "graph/client/train/sync_replicas_optimizer.hpp"
#include "graph/client/train/variables.hpp"
#include "test_util/in_process_cluster.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_tensor;

namespace {

// One worker's graph: loss = sum(gather(table, ids) * weights), so the gradient of the rows
// read is `weights`.
struct replica {
  scope root;
  train::variable table, step;
  train::gradient_descent_optimizer sgd{1.0};
  train::sync_replicas_optimizer sync;
  operation train_op, init;
  output read;

  replica(int task, std::vector<int32_t> ids, std::vector<float> weights)
      : root(scope::new_root().with_device_function(train::replica_device_setter(
            {.ps_tasks = 1, .worker_device = "/job:worker/task:" + std::to_string(task)}))),
        sync(sgd, {.replicas_to_aggregate = 2,
                   .is_chief = task == 0,
                   .local_device = "/job:worker/task:" + std::to_string(task)}) {
    table = train::create_variable(root, "table",
                                   ops::constant(root, std::vector<float>(8, 10.0f), {4, 2}));
    step = train::create_global_step(root);
    const int64_t n = static_cast<int64_t>(ids.size());
    auto rows = ops::gather(root, table, ops::constant(root, ids, {n}));
    auto loss = ops::sum(root, ops::mul(root, rows, ops::constant(root, weights, {n, 2})), {0, 1});
    auto op = sync.minimize(root, loss, step, {table});
    REQUIRE_MESSAGE(op.ok(), op.get_status().to_string());
    train_op = *op;
    init = train::global_variables_initializer(root, train::variable_set{table, step});
    read = ops::identity(root.with_op_name("read"), table);
  }
};

bool has_op(const scope& root, std::string_view op) {
  for (const node_def& n : root.to_graph_def().nodes)
    if (n.op == op) return true;
  return false;
}

}  // namespace

TEST_CASE("sparse gradients of two workers are averaged per row on the ps, sync") {
  auto cluster = caflow::testing::start_in_process_cluster(1, 2);
  REQUIRE_MESSAGE(cluster.ok(), cluster.get_status().to_string());
  const auto& servers = *cluster;  // ps 0, worker 0, worker 1

  replica chief(0, {0, 1}, {1, 2, 3, 4});
  replica other(1, {1, 2}, {5, 6, 7, 8});
  CHECK(has_op(chief.root, "SparseConditionalAccumulator"));
  CHECK(has_op(chief.root, "SparseAccumulatorTakeGradient"));
  CHECK_FALSE(has_op(chief.root, "ConditionalAccumulator"));
  CHECK(has_op(chief.root, "SparseApplyGradientDescent"));

  session s0(chief.root, {.target = servers[1]->target()});
  session s1(other.root, {.target = servers[2]->target()});
  REQUIRE(s0.run_targets({chief.init}).ok());
  REQUIRE(s0.run_targets({chief.sync.chief_initializer()}).ok());
  REQUIRE(s0.run_targets({chief.sync.local_initializer()}).ok());
  REQUIRE(s1.run_targets({other.sync.local_initializer()}).ok());

  auto worker = std::async(std::launch::async, [&] { return s1.run_targets({other.train_op}); });
  const status chief_step = s0.run_targets({chief.train_op});
  REQUIRE_MESSAGE(chief_step.ok(), chief_step.to_string());
  REQUIRE(worker.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  const status worker_step = worker.get();
  REQUIRE_MESSAGE(worker_step.ok(), worker_step.to_string());

  auto out = s0.run({chief.read});
  REQUIRE(out.ok());
  // Row 0: only the chief's [1, 2]; row 1: the mean of [3, 4] and [5, 6]; row 2: only the
  // other worker's [7, 8]; row 3 untouched.
  check_tensor<float>(out->at(0), {4, 2}, {9, 8, 6, 5, 3, 2, 10, 10});
}
