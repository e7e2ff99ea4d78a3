// Rows of a partitioned embedding table updated per second by 2 workers through 2 ps tasks
// (four caflow-server processes on loopback, between-graph, async): each worker looks up a
// batch of ids in a [rows, dim] table split over both ps tasks and applies gradient descent to
// the rows it read. With sparse gradients (IndexedSlices, SparseApplyGradientDescent on each
// shard's ps) only those rows travel; the baseline is the same training with every gradient
// made dense first, as it was before sparse gradients (a full shard crosses per step).
//
//   bench_sparse_update_rows_per_s [--rows N] [--dim N] [--batch N] [--seconds S]
//
// Value: ids applied per second by both workers together (uniform ids: repeats are rare).
#include <atomic>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include "actors/session/session.hpp"
#include "bench_util.hpp"
#include "forked_servers.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/embedding_lookup.hpp"
#include "graph/client/train/gradient_descent_optimizer.hpp"
#include "graph/client/train/initializers.hpp"
#include "graph/client/train/partitioned_variable.hpp"
#include "graph/client/train/replica_device_setter.hpp"

using namespace caflow;

namespace {

struct config {
  int64_t rows = 1'000'000, dim = 32, batch = 4096;
  double seconds = 5;
};

struct worker_graph {
  scope root;
  output ids{};
  operation train_op{}, init{};
};

worker_graph build(const config& c, int task, bool dense) {
  worker_graph g{scope::new_root().with_device_function(train::replica_device_setter(
      {.ps_tasks = 2, .worker_device = "/job:worker/task:" + std::to_string(task)}))};
  const scope& root = g.root;
  auto emb = train::create_partitioned_variable(root, "emb", tensor_shape{c.rows, c.dim},
                                                dtype::float32, train::zeros_initializer(),
                                                train::fixed_size_partitioner(2));
  g.ids =
      ops::placeholder(root.with_op_name("ids"), dtype::int64, {.shape = partial_shape{c.batch}});
  auto rows = nn::embedding_lookup(root, emb, g.ids);
  auto loss = ops::sum(root, ops::mul(root, rows, ops::constant(root, 1e-3f)), {0, 1});
  train::gradient_descent_optimizer sgd(0.1);
  auto grads = sgd.compute_gradients(root, loss, emb.shards);
  bench::check(grads.ok(), "compute_gradients");
  if (dense)
    for (auto& gv : *grads) gv.gradient = grad::to_dense(root, gv.gradient);
  auto op = sgd.apply_gradients(root, *grads);
  bench::check(op.ok(), "apply_gradients");
  g.train_op = *op;
  train::variable_set vars;
  vars.add(emb.shards);
  g.init = train::global_variables_initializer(root, vars);
  bench::check(root.ok(), "graph");
  return g;
}

// Both workers train for c.seconds; returns ids applied per second.
double rows_per_s(const config& c, const std::vector<std::string>& targets, bool dense) {
  std::vector<worker_graph> graphs;
  std::vector<std::unique_ptr<session>> sessions;
  for (int t = 0; t < 2; ++t) {
    graphs.push_back(build(c, t, dense));
    session_options o;
    o.target = targets[t];
    o.connect_timeout = std::chrono::seconds(30);
    sessions.push_back(std::make_unique<session>(graphs.back().root, o));
  }
  bench::check(sessions[0]->run_targets({graphs[0].init}).ok(), "init");
  std::atomic<int64_t> steps{0};
  std::atomic<bool> failed{false};
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto until = start + std::chrono::duration<double>(c.seconds);
  auto loop = [&](int t) {
    std::mt19937_64 rng(1234 + t);
    std::uniform_int_distribution<int64_t> pick(0, c.rows - 1);
    tensor ids(dtype::int64, tensor_shape{c.batch});
    do {
      for (int64_t i = 0; i < c.batch; ++i) ids.data<int64_t>()[i] = pick(rng);
      const status st = sessions[t]->run_targets({graphs[t].train_op}, {{graphs[t].ids, ids}});
      if (!st.ok()) {
        std::fprintf(stderr, "worker %d: %s\n", t, st.to_string().c_str());
        failed = true;
        return;
      }
      ++steps;
    } while (clock::now() < until);
  };
  std::thread w1(loop, 1);
  loop(0);
  w1.join();
  bench::check(!failed, "training steps");
  const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
  return static_cast<double>(steps.load() * c.batch) / elapsed;
}

// A process's resident set (VmRSS) in MiB, -1 when unreadable.
double rss_mib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  config c;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rows")
      c.rows = std::stoll(argv[i + 1]);
    else if (flag == "--dim")
      c.dim = std::stoll(argv[i + 1]);
    else if (flag == "--batch")
      c.batch = std::stoll(argv[i + 1]);
    else if (flag == "--seconds")
      c.seconds = std::stod(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  const auto ports = bench::free_ports(4);
  auto addr = [&](int i) { return "127.0.0.1:" + std::to_string(ports[i]); };
  const std::string cluster =
      "ps=" + addr(0) + "," + addr(1) + ";worker=" + addr(2) + "," + addr(3);
  // Forked before this process starts any thread.
  bench::forked_server ps0(cluster, "ps", 0), ps1(cluster, "ps", 1), w0(cluster, "worker", 0),
      w1(cluster, "worker", 1);
  const std::vector<std::string> targets{"caflow://" + addr(2), "caflow://" + addr(3)};
  const double sparse = rows_per_s(c, targets, false);
  // Each ps task holds its own shard: half the table, plus its runtime.
  std::printf("after sparse training: ps RSS task 0 %.0f MiB, task 1 %.0f MiB (table %.0f MiB)\n",
              rss_mib(ps0.pid()), rss_mib(ps1.pid()),
              static_cast<double>(c.rows * c.dim * 4) / (1 << 20));
  const double dense = rows_per_s(c, targets, true);
  std::printf("table %lldx%lld in 2 shards, batch %lld per worker, %.1f s each\n",
              static_cast<long long>(c.rows), static_cast<long long>(c.dim),
              static_cast<long long>(c.batch), c.seconds);
  bench::result("sparse_update_rows_per_s", sparse, "rows/s", dense);
  return 0;
}
