// Rows updated per second on a partitioned table by 2 workers through 2 ps tasks: a [1M, 64]
// float32 table split in two shards (one per ps, train::create_partitioned_variable), each
// worker its own client on an embedded cluster (every task its own server on a loopback
// port), asynchronous. A worker's step looks up `--ids` distinct rows (nn::embedding_lookup,
// "mod") and applies the gradient of their sum with plain SGD: the IndexedSlices gradient
// reaches each shard's ps as only its rows, applied there by SparseApplyGradientDescent.
//
//   bench_sparse_update_rows_per_s [--rows N] [--dim D] [--ids N] [--steps N] [--warmup N]
//                                  [--threads T]
//       prints RESULT sparse_update_rows_per_s: both workers' updated rows over the slower
//       worker's time, --steps steps each after --warmup. Defaults: 1M x 64, 4096 ids per step,
//       300 steps, 1 intra-op thread per task.
#include <barrier>
#include <chrono>
#include <string>
#include <thread>

#include "actors/session.hpp"
#include "apps/train/embedded_cluster.hpp"
#include "bench_util.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/embedding_lookup.hpp"
#include "graph/client/train/gradient_descent_optimizer.hpp"
#include "graph/client/train/initializers.hpp"
#include "graph/client/train/replica_device_setter.hpp"

using namespace caflow;

namespace {

constexpr int workers = 2;
constexpr int ps_tasks = 2;
constexpr int id_sets = 16;  // distinct batches of ids, cycled

struct args {
  int64_t rows = 1000000;
  int dim = 64;
  int64_t ids = 4096;
  int steps = 300;
  int warmup = 5;
  int threads = 1;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: bench_sparse_update_rows_per_s [--rows N] [--dim D] [--ids N] "
               "[--steps N] [--warmup N] [--threads T]\n");
  std::exit(2);
}

args parse(int argc, char** argv) {
  args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage();
    const std::string value = argv[++i];
    if (flag == "--rows") a.rows = std::stoll(value);
    else if (flag == "--dim") a.dim = std::stoi(value);
    else if (flag == "--ids") a.ids = std::stoll(value);
    else if (flag == "--steps") a.steps = std::stoi(value);
    else if (flag == "--warmup") a.warmup = std::stoi(value);
    else if (flag == "--threads") a.threads = std::stoi(value);
    else usage();
  }
  if (a.rows < ps_tasks || a.dim < 1 || a.ids < 1 || a.ids > a.rows || a.steps < 1 ||
      a.warmup < 1 || a.threads < 1)
    usage();
  return a;
}

// `count` distinct ids in [0, rows): a stride through the table from a per-set start, so
// that both shards get about half.
tensor id_set(const args& a, int set, int worker) {
  tensor ids(dtype::int64, tensor_shape{a.ids});
  const int64_t stride = a.rows / a.ids;
  for (int64_t i = 0; i < a.ids; ++i)
    ids.data<int64_t>()[i] = (i * stride + set * 7919 + worker * 104729) % a.rows;
  return ids;
}

struct worker_graph {
  scope root = scope::new_root();
  output ids;
  operation train_op, init;
};

std::unique_ptr<worker_graph> build(const args& a, int worker) {
  auto g = std::make_unique<worker_graph>();
  const scope s = g->root.with_device_function(train::replica_device_setter(
      {.ps_tasks = ps_tasks, .worker_device = "/job:worker/task:" + std::to_string(worker)}));
  auto table = train::create_partitioned_variable(s, "table", tensor_shape{a.rows, a.dim},
                                                  dtype::float32, train::zeros_initializer(),
                                                  train::fixed_size_partitioner(ps_tasks));
  g->ids = ops::placeholder(s.with_op_name("ids"), dtype::int64, {.shape = partial_shape({-1})});
  const output loss = ops::sum(s, nn::embedding_lookup(s, table, g->ids), {0, 1});
  train::gradient_descent_optimizer sgd(0.01);
  auto op = sgd.minimize(s, loss, table.shards);
  bench::check(op.ok(), "building the update failed");
  g->train_op = *op;
  g->init = train::global_variables_initializer(g->root.with_op_name("init"), table.shards);
  bench::check(g->root.ok(), "building the graph failed");
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  const args a = parse(argc, argv);
  cpu_device_options cpu{.intra_op_threads = a.threads, .inter_op_threads = 1};
  auto cluster = train_app::embedded_cluster::start(
      {.ps_tasks = ps_tasks, .worker_tasks = workers, .cpu = cpu});
  bench::check(cluster.ok(), "starting the embedded cluster failed");
  std::vector<std::unique_ptr<worker_graph>> graphs;
  std::vector<std::unique_ptr<session>> sessions;
  for (int w = 0; w < workers; ++w) {
    graphs.push_back(build(a, w));
    session_options sopts;
    sopts.target = (*cluster)->worker_target(w);
    sopts.cpu = cpu;
    sopts.device_count[device_gpu] = 0;
    sessions.push_back(std::make_unique<session>(graphs[w]->root, sopts));
  }
  bench::check(sessions[0]->run_targets({graphs[0]->init}).ok(), "initializing the table failed");

  std::barrier timed_start(workers);
  std::vector<double> seconds(workers);
  std::vector<status> errors(workers);
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      std::vector<tensor> sets;
      for (int k = 0; k < id_sets; ++k) sets.push_back(id_set(a, k, w));
      auto step = [&](int i) {
        auto out = sessions[w]->run({{graphs[w]->ids, sets[i % id_sets]}}, {},
                                    {graphs[w]->train_op});
        if (!out.ok()) errors[w] = out.get_status();
      };
      for (int i = 0; i < a.warmup && errors[w].ok(); ++i) step(i);
      timed_start.arrive_and_wait();
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < a.steps && errors[w].ok(); ++i) step(i);
      seconds[w] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    });
  for (auto& t : threads) t.join();
  double slowest = 0;
  for (int w = 0; w < workers; ++w) {
    if (!errors[w].ok()) std::fprintf(stderr, "worker %d: %s\n", w, errors[w].to_string().c_str());
    bench::check(errors[w].ok(), "an update step failed");
    slowest = std::max(slowest, seconds[w]);
  }
  std::printf("sparse_update: [%lld, %d] table in 2 shards on 2 ps, 2 workers, %lld rows per "
              "step, %d steps per worker in %.2f s\n",
              static_cast<long long>(a.rows), a.dim, static_cast<long long>(a.ids), a.steps,
              slowest);
  bench::result("sparse_update_rows_per_s",
                static_cast<double>(workers) * static_cast<double>(a.ids) * a.steps / slowest,
                "rows/s");
  return 0;
}
