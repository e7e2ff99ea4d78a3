// Several towers per worker (caflow-train --gpus-per-worker), on the tests' ACCEL device split
// by virtual devices as one GPU would be: each worker of an in-process cluster has ACCEL:0 and
// ACCEL:1. A worker builds one tower per device, averages their gradients on ACCEL:0 and sends
// the ps one gradient per variable per step, in the between-graph and in-graph modes; the MLP
// still learns.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "apps/train/data.hpp"
#include "apps/train/embedded_cluster.hpp"
#include "apps/train/options.hpp"
#include "apps/train/replication.hpp"
#include "apps/train/run_modes.hpp"
#include "graph/client/train/variables.hpp"
#include "test_util/accel_device.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/train_app.hpp"

using namespace caflow;
using namespace caflow::train_app;
using caflow::testing::check_error;

CAFLOW_TEST_REGISTER_ACCEL_DEVICE();

namespace {

const std::string worker0_accel0 = "/job:worker/replica:0/task:0/device:ACCEL:0";
const std::string worker0_accel1 = "/job:worker/replica:0/task:0/device:ACCEL:1";

train_options two_towers(replication mode) {
  train_options o;
  o.model = model_kind::mlp;
  o.mode = mode;
  o.epochs = 2;
  o.batch_size = 50;
  o.learning_rate = 0.002;
  o.progress = false;
  o.train_limit = 4000;
  o.test_limit = 1000;
  o.device = "accel";
  o.gpus_per_worker = 2;
  o.gpu.virtual_device_memory_mb = {256, 256};
  return o;
}

const node_def* find_node(const graph_def& g, const std::string& name) {
  for (const node_def& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

// The node an input names ("x:1", "^x" and "x" all name x).
std::string input_node(std::string input) {
  if (!input.empty() && input[0] == '^') input.erase(0, 1);
  return input.substr(0, input.find(':'));
}

// Per op of the nodes placed on `device` (a prefix of their device).
std::map<std::string, int> ops_on(const graph_def& g, const std::string& device) {
  std::map<std::string, int> out;
  for (const node_def& n : g.nodes)
    if (n.device.starts_with(device)) ++out[n.op];
  return out;
}

status_or<client_result> train_on_cluster(const train_options& o, int workers) {
  auto cluster = embedded_cluster::start({.ps_tasks = 1,
                                          .worker_tasks = workers,
                                          .cpu = {.intra_op_threads = 1, .inter_op_threads = 1},
                                          .gpu = o.gpu});
  if (!cluster.ok()) return cluster.get_status();
  auto data = load_fashion_mnist(o.data_dir, o.train_limit, o.test_limit);
  if (!data.ok()) return data.get_status();
  const client_plan plan{.mode = o.mode, .ps_tasks = 1, .workers = workers};
  if (o.mode == replication::in_graph)
    return run_in_graph(o, plan, (*cluster)->worker_target(0), *data);
  std::vector<std::string> targets;
  for (int w = 0; w < workers; ++w) targets.push_back((*cluster)->worker_target(w));
  return run_replicas(o, plan, targets, *data);
}

}  // namespace

TEST_CASE("a sync worker with two towers sends its ps one averaged gradient per variable") {
  const train_options o = two_towers(replication::sync);
  REQUIRE(tower_device_type(o).ok());
  CHECK(*tower_device_type(o) == testing::device_accel);
  auto built = build_client_graph(o, {.mode = replication::sync, .ps_tasks = 1, .workers = 2});
  REQUIRE_MESSAGE(built.ok(), built.get_status().to_string());
  const client_graph& g = **built;
  REQUIRE(g.towers.size() == 2);
  const graph_def def = g.root.to_graph_def();
  CHECK(find_node(def, g.towers[0].loss.node)->device == worker0_accel0);
  CHECK(find_node(def, g.towers[1].loss.node)->device == worker0_accel1);
  // Both towers' matmuls, forward and backward, run on their own device.
  CHECK(ops_on(def, worker0_accel0)["MatMul"] == ops_on(def, worker0_accel1)["MatMul"]);
  CHECK(ops_on(def, worker0_accel1)["MatMul"] >= 6);

  const size_t variables = g.shared_vars.trainable().size();
  REQUIRE(variables == 8);  // the MLP's four layers' kernels and biases
  int applied = 0;
  for (const node_def& n : def.nodes) {
    if (n.op != "AccumulatorApplyGradient") continue;
    ++applied;
    REQUIRE(n.inputs.size() >= 3);
    const node_def* gradient = find_node(def, input_node(n.inputs[2]));
    REQUIRE(gradient != nullptr);
    CHECK_MESSAGE(gradient->device == worker0_accel0, n.name, " takes ", gradient->name);
  }
  CHECK(applied == static_cast<int>(variables));  // one per variable, not one per tower
}

TEST_CASE("sync replicas with two towers each train the MLP on a cluster of virtual devices") {
  if (!testing::have_fashion_mnist()) return;
  const int64_t violations = testing::accel_stats().guard_violations.load();
  const int64_t copies = testing::accel_stats().copies_in.load();
  auto result = train_on_cluster(two_towers(replication::sync), 2);
  REQUIRE_MESSAGE(result.ok(), result.get_status().to_string());
  // 4000 examples over 2 workers x 2 towers of 50: 20 steps an epoch.
  CHECK(result->steps == 40);
  CHECK(result->test_accuracy > 0.6);
  CHECK(testing::accel_stats().copies_in.load() > copies);
  CHECK(testing::accel_stats().guard_violations.load() == violations);
}

TEST_CASE("in-graph replication with two towers per worker") {
  if (!testing::have_fashion_mnist()) return;
  train_options o = two_towers(replication::in_graph);
  auto built = build_client_graph(o, {.mode = replication::in_graph, .ps_tasks = 1, .workers = 2});
  REQUIRE_MESSAGE(built.ok(), built.get_status().to_string());
  CHECK((*built)->towers.size() == 4);
  auto result = train_on_cluster(o, 2);
  REQUIRE_MESSAGE(result.ok(), result.get_status().to_string());
  CHECK(result->steps == 40);
  CHECK(result->test_accuracy > 0.6);
}

TEST_CASE("--gpus-per-worker asks for devices a worker has, in a replicated mode") {
  train_options o = two_towers(replication::sync);
  o.gpu.virtual_device_memory_mb = {};
  check_error(tower_device_type(o),
              "--gpus-per-worker 2, but a worker has 1 ACCEL device (--gpu-virtual-devices "
              "splits one)");
  o.device = "cpu";
  check_error(tower_device_type(o),
              "--gpus-per-worker 2: the towers run on the CPU, which is one device");
  o.device = "tpu";
  check_error(tower_device_type(o), "--device 'tpu': no such device type (auto, gpu, accel, cpu)");
}

TEST_CASE("caflow-train's flags: --gpu-virtual-devices and --gpus-per-worker") {
  auto parse = [](std::vector<std::string> args) {
    args.insert(args.begin(), "caflow-train");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    train_options o;
    bool help = false;
    std::string help_text;
    const status st =
        parse_command_line(static_cast<int>(argv.size()), argv.data(), &o, &help, &help_text);
    return std::pair{st, o};
  };
  auto [ok, o] = parse({"--mode", "sync", "--device", "accel", "--gpu-virtual-devices", "2x64",
                        "--gpus-per-worker", "2"});
  REQUIRE_MESSAGE(ok.ok(), ok.to_string());
  CHECK(o.gpus_per_worker == 2);
  CHECK(o.gpu.virtual_device_memory_mb == std::vector<int64_t>{64, 64});
  check_error(parse({"--gpu-virtual-devices", "2x"}).first,
              "--gpu-virtual-devices: virtual devices '2x': '2x' is not MB or COUNTxMB");
  check_error(parse({"--mode", "local", "--device", "accel", "--gpu-virtual-devices", "2x64",
                     "--gpus-per-worker", "2"})
                  .first,
              "--gpus-per-worker 2 is for the replicated modes (in-graph, sync, async), not local");
  check_error(parse({"--mode", "sync", "--gpus-per-worker", "0"}).first, "--gpus-per-worker");
}
