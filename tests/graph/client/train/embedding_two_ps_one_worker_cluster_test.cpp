// An in-process cluster of 2 ps tasks and 1 worker (three servers on free ports): a table
// partitioned by replica_device_setter over both ps tasks, looked up from the worker. The
// session's placement table (log_device_placement) shows each shard's GatherV2 on its
// shard's ps task, so only looked-up rows cross the network; the values are checked too.
#include <doctest/doctest.h>

#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/embedding_lookup.hpp"
#include "graph/client/train/gradient_descent_optimizer.hpp"
#include "graph/client/train/replica_device_setter.hpp"
#include "graph/core/device_name.hpp"
#include "test_util/in_process_cluster.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/process.hpp"

using namespace caflow;
using caflow::testing::check_tensor;

namespace {

// Captures what the session prints to stderr while alive.
struct stderr_capture {
  std::ostringstream text;
  std::streambuf* old = std::cerr.rdbuf(text.rdbuf());
  ~stderr_capture() { std::cerr.rdbuf(old); }
};

// node -> device, from the rows "node  op  device" of the placement table.
std::map<std::string, std::string> placement_of(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string node, op, device;
    if (words >> node >> op >> device) out[node] = device;
  }
  return out;
}

}  // namespace

TEST_CASE("each shard's gather runs on its shard's ps task; the rows come back right") {
  auto cluster = caflow::testing::start_in_process_cluster(2, 1);
  REQUIRE_MESSAGE(cluster.ok(), cluster.get_status().to_string());
  const auto& servers = *cluster;  // ps 0, ps 1, worker 0

  auto root = scope::new_root().with_device_function(
      train::replica_device_setter({.ps_tasks = 2, .worker_device = "/job:worker/task:0"}));
  // A [7, 2] table: row r is (r, 10 r); shard 0 rows 0..3 on ps 0, shard 1 rows 4..6 on ps 1.
  std::vector<float> values;
  for (int r = 0; r < 7; ++r) values.insert(values.end(), {float(r), 10.0f * float(r)});
  auto emb = train::create_partitioned_variable(root, "emb", ops::constant(root, values, {7, 2}),
                                                train::fixed_size_partitioner(2));
  auto ids = ops::constant(root, tensor::from_vector<int64_t>({6, 1, 4, 4, 0, 3}, {2, 3}));
  auto div = nn::embedding_lookup(root, emb, ids, {.partition_strategy = "div"});
  // "mod" reads the same shards as ids 2 r (shard 0) and 2 r + 1 (shard 1): id 5 is row 2 of
  // shard 1, i.e. row 6 of the table.
  auto mod = nn::embedding_lookup(
      root, emb, ops::constant(root, tensor::from_vector<int64_t>({5, 0, 2}, {3})));
  train::variable_set vars;
  vars.add(emb.shards);
  auto init = train::global_variables_initializer(root, vars);
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());

  stderr_capture err;
  session sess(root, {.target = servers[2]->target(), .log_device_placement = true});
  REQUIRE(sess.run_targets({init}).ok());
  auto out = sess.run({div, mod});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  check_tensor(out->at(0), {2, 3, 2}, std::vector<float>{6, 60, 1, 10, 4, 40, 4, 40, 0, 0, 3, 30});
  check_tensor(out->at(1), {3, 2}, std::vector<float>{6, 60, 0, 0, 1, 10});

  const auto placed = placement_of(err.text.str());
  const std::string ps0 = full_device_name("ps", 0, "CPU", 0);
  const std::string ps1 = full_device_name("ps", 1, "CPU", 0);
  const std::string worker = full_device_name("worker", 0, "CPU", 0);
  REQUIRE(placed.count("embedding_lookup/GatherV2"));
  REQUIRE(placed.count("embedding_lookup/GatherV2_1"));
  CHECK(placed.at("emb/part_0") == ps0);
  CHECK(placed.at("emb/part_1") == ps1);
  CHECK(placed.at("embedding_lookup/GatherV2") == ps0);
  CHECK(placed.at("embedding_lookup/GatherV2_1") == ps1);
  CHECK(placed.at("embedding_lookup_1/GatherV2") == ps0);
  CHECK(placed.at("embedding_lookup_1/GatherV2_1") == ps1);
  // Partitioning the ids and stitching the rows happen on the worker.
  CHECK(placed.at("embedding_lookup/DynamicPartition") == worker);
  CHECK(placed.at("embedding_lookup/DynamicStitch") == worker);
}

TEST_CASE("training the partitioned table updates each shard on its ps with only its rows") {
  auto cluster = caflow::testing::start_in_process_cluster(2, 1);
  REQUIRE_MESSAGE(cluster.ok(), cluster.get_status().to_string());
  const auto& servers = *cluster;

  auto root = scope::new_root().with_device_function(
      train::replica_device_setter({.ps_tasks = 2, .worker_device = "/job:worker/task:0"}));
  auto emb = train::create_partitioned_variable(
      root, "emb", ops::constant(root, std::vector<float>(14, 1.0f), {7, 2}),
      train::fixed_size_partitioner(2));
  // Rows 6, 1 and 6 again: the gradient of a row is the sum of its weights.
  auto rows = nn::embedding_lookup(root, emb, ops::constant(root, tensor::from_vector<int64_t>({6, 1, 6})),
                                   {.partition_strategy = "div"});
  auto loss = ops::sum(
      root, ops::mul(root, rows, ops::constant(root, std::vector<float>{1, 2, 3, 4, 5, 6}, {3, 2})),
      {0, 1});
  train::gradient_descent_optimizer sgd(0.5);
  auto grads = sgd.compute_gradients(root, loss, emb.shards);
  REQUIRE(grads.ok());
  for (const auto& gv : *grads) CHECK(gv.gradient.is_sparse());
  auto train_op = sgd.apply_gradients(root, *grads);
  REQUIRE(train_op.ok());
  train::variable_set vars;
  vars.add(emb.shards);
  auto init = train::global_variables_initializer(root, vars);
  auto whole = emb.as_tensor(root);

  stderr_capture err;
  session sess(root, {.target = servers[2]->target(), .log_device_placement = true});
  REQUIRE(sess.run_targets({init}).ok());
  REQUIRE(sess.run_targets({*train_op}).ok());
  auto out = sess.run({whole});
  REQUIRE(out.ok());
  // Row 1 -= 0.5 [3, 4]; row 6 -= 0.5 ([1, 2] + [5, 6]).
  check_tensor(out->at(0), {7, 2},
               std::vector<float>{1, 1, -0.5f, -1, 1, 1, 1, 1, 1, 1, 1, 1, -2, -3});

  const auto placed = placement_of(err.text.str());
  const std::string ps0 = full_device_name("ps", 0, "CPU", 0);
  const std::string ps1 = full_device_name("ps", 1, "CPU", 0);
  int updates = 0, dense_rows = 0;
  for (const auto& [node, device] : placed) {
    if (node.find("SparseApplyGradientDescent") != std::string::npos) {
      ++updates;
      CHECK(device == (node.find("emb/part_0") != std::string::npos ? ps0 : ps1));
    }
    // A dense gradient would be an UnsortedSegmentSum of the table's rows.
    if (node.find("UnsortedSegmentSum") != std::string::npos) ++dense_rows;
  }
  CHECK(updates == 2);
  CHECK(dense_rows == 0);
}
