// A table larger than one ps task's memory budget (the CPU device's memory_limit_bytes,
// caflow-server --cpu-memory-limit-mb): on one ps its initialization fails with
// RESOURCE_EXHAUSTED naming the variable; split over two ps tasks it fits, is filled there (its
// initializer is colocated with it) and trains with sparse updates in place.
// Constant folding is capped low: folded, the fill would be a second copy of each shard kept
// by its Const (as in TF, only values up to max_constant_bytes are folded; 10 MiB by default).
#include <doctest/doctest.h>

#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/embedding_lookup.hpp"
#include "graph/client/train/gradient_descent_optimizer.hpp"
#include "graph/client/train/initializers.hpp"
#include "graph/client/train/partitioned_variable.hpp"
#include "graph/client/train/replica_device_setter.hpp"
#include "test_util/in_process_cluster.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;

namespace {

constexpr int64_t rows = 4096, dim = 64;                      // 1 MiB of float32
constexpr int64_t budget = (rows * dim * 4) * 3 / 4;          // 0.75 MiB per ps task

struct table_graph {
  scope root;
  train::partitioned_variable table;
  output ids, first_row;
  operation init;
  status_or<operation> train_op = errors::internal("not built");

  explicit table_graph(int ps_tasks)
      : root(scope::new_root().with_device_function(train::replica_device_setter(
            {.ps_tasks = ps_tasks, .worker_device = "/job:worker/task:0"}))) {
    table = train::create_partitioned_variable(root, "table", tensor_shape{rows, dim},
                                               dtype::float32, train::ones_initializer(),
                                               train::fixed_size_partitioner(ps_tasks));
    ids = ops::placeholder(root.with_op_name("ids"), dtype::int64);
    auto loss = ops::sum(root, nn::embedding_lookup(root, table, ids), {0, 1});
    train::gradient_descent_optimizer sgd(0.5);
    auto grads = sgd.compute_gradients(root, loss, table.shards);
    REQUIRE(grads.ok());
    train_op = sgd.apply_gradients(root, *grads);
    REQUIRE(train_op.ok());
    train::variable_set vars;
    vars.add(table.shards);
    init = train::global_variables_initializer(root, vars);
    first_row = ops::strided_slice(root, table.shards[0], {0, 0}, {1, 2}, {1, 1});
  }
};

session_options on(const std::string& target) {
  session_options o;
  o.target = target;
  o.optimizer.max_constant_bytes = 4096;
  return o;
}

session::feed_list ids_feed(const table_graph& g) {
  return {{g.ids, tensor::from_vector<int64_t>({0, 1, 0})}};
}

}  // namespace

TEST_CASE("a table over one ps task's budget fails to initialize, naming it") {
  auto cluster = caflow::testing::start_in_process_cluster(1, 1, budget);
  REQUIRE_MESSAGE(cluster.ok(), cluster.get_status().to_string());
  table_graph g(1);
  session sess(g.root, on((*cluster)[1]->target()));
  const status st = sess.run_targets({g.init});
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == error_code::resource_exhausted);
  INFO(st.to_string());
  CHECK(st.message().find("table") != std::string::npos);
}

TEST_CASE("sharded over two ps tasks it fits and trains with sparse updates") {
  auto cluster = caflow::testing::start_in_process_cluster(2, 1, budget);
  REQUIRE_MESSAGE(cluster.ok(), cluster.get_status().to_string());
  const std::string target = (*cluster)[2]->target();
  table_graph g(2);
  session sess(g.root, on(target));
  REQUIRE(sess.run_targets({g.init}).ok());
  for (int i = 0; i < 3; ++i) {
    const status st = sess.run_targets({*g.train_op}, ids_feed(g));
    REQUIRE_MESSAGE(st.ok(), st.to_string());
  }
  // Row 0 is read twice a step: 1 - 3 * 0.5 * 2 = -2.
  caflow::testing::check_tensor<float>(sess.run({g.first_row})->at(0), {1, 2}, {-2, -2});
}
