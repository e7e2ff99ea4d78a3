// Training samples per second of caflow-train's wide-deep click-through model on 2 ps + 2
// workers (an embedded cluster: every task its own server on a loopback port, so every step
// crosses the middleman), asynchronous between-graph replication as caflow-train --mode async
// runs it: each worker its own client, applying its own gradients with Adagrad (lr 0.1,
// accumulators from 0.001, caflow-train's wide-deep defaults) to tables split over both ps
// tasks.
//
//   bench_wide_deep_samples_per_s [--rows N] [--dim D] [--columns C] [--batch B] [--steps N]
//                                 [--dense-steps N] [--warmup N] [--threads T] [--baseline S]
//       trains twice, each on a fresh cluster: with sparse gradients (IndexedSlices, only the
//       rows looked up cross to the ps and are updated) for --steps steps per worker, then
//       with every gradient made dense (caflow-train --dense-gradients: whole tables cross and
//       are updated) for --dense-steps (0: skipped). Rates are both workers' samples over the
//       slower worker's time, after --warmup steps. Prints
//         RESULT wide_deep_samples_per_s                    sparse; with --baseline (PyTorch's
//             samples/s, bench/pytorch_wide_deep.py on the same data, batch, threads and steps
//             in the same bench/run) also the ratio. Target: >= 1.5.
//         RESULT wide_deep_dense_gradients_samples_per_s     dense
//         RESULT wide_deep_sparse_over_dense_gradients       value sparse, baseline dense:
//             what sparse updates buy
//       Defaults: 1M rows x 32 per column, 4 columns, batch 256, 600 steps (6 dense), 1
//       intra-op thread per task.
//   bench_wide_deep_samples_per_s [--rows ...] --write-data FILE
//       writes the examples (below) for bench/pytorch_wide_deep.py and exits.
//
// Data: caflow-train's generator (apps/train/ctr_data.hpp, seed 1), `batches` batches per
// worker; worker w's batch b is examples [(w * batches + b) * batch, +batch), cycled in order,
// identical on both sides. FILE, little-endian:
//   "CFWD" | uint32 columns | uint32 batch | uint32 batches | uint32 workers | uint64 rows
//          | int64 ids [workers*batches*batch, columns] | int32 labels [workers*batches*batch]
#include <barrier>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "actors/session/session.hpp"
#include "apps/train/ctr_data.hpp"
#include "apps/train/embedded_cluster.hpp"
#include "apps/train/replication.hpp"
#include "bench_util.hpp"

using namespace caflow;
using namespace caflow::train_app;

namespace {

constexpr int workers = 2;
constexpr int ps_tasks = 2;
constexpr int32_t batches = 40;  // per worker, cycled

struct args {
  int64_t rows = 1000000;
  int dim = 32;
  int columns = 4;
  int32_t batch = 256;
  int steps = 600;
  int dense_steps = 6;
  int warmup = 5;
  int threads = 1;
  double baseline = 0;
  std::string write_path;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: bench_wide_deep_samples_per_s [--rows N] [--dim D] [--columns C] "
               "[--batch B] [--steps N] [--dense-steps N] [--warmup N] [--threads T] "
               "[--baseline SAMPLES_PER_S]\n"
               "       bench_wide_deep_samples_per_s [--rows N] [--columns C] [--batch B] "
               "--write-data FILE\n");
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
    else if (flag == "--columns") a.columns = std::stoi(value);
    else if (flag == "--batch") a.batch = std::stoi(value);
    else if (flag == "--steps") a.steps = std::stoi(value);
    else if (flag == "--dense-steps") a.dense_steps = std::stoi(value);
    else if (flag == "--warmup") a.warmup = std::stoi(value);
    else if (flag == "--threads") a.threads = std::stoi(value);
    else if (flag == "--baseline") a.baseline = std::stod(value);
    else if (flag == "--write-data") a.write_path = value;
    else usage();
  }
  if (a.rows < 2 || a.dim < 1 || a.columns < 1 || a.batch < 1 || a.steps < 1 || a.dense_steps < 0 || a.warmup < 1 ||
      a.threads < 1)
    usage();
  return a;
}

ctr_data_options data_options(const args& a) {
  ctr_data_options d;
  d.columns = a.columns;
  d.rows = a.rows;
  d.train_examples = int64_t{workers} * batches * a.batch;
  d.test_examples = 0;
  d.seed = 1;
  return d;
}

void write_data(const args& a, const ctr_split& s, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  const uint32_t header[4] = {static_cast<uint32_t>(a.columns), static_cast<uint32_t>(a.batch),
                              batches, workers};
  const uint64_t rows = static_cast<uint64_t>(a.rows);
  out.write("CFWD", 4);
  out.write(reinterpret_cast<const char*>(header), sizeof(header));
  out.write(reinterpret_cast<const char*>(&rows), sizeof(rows));
  out.write(static_cast<const char*>(s.ids.raw_data()), static_cast<std::streamsize>(s.ids.byte_size()));
  out.write(static_cast<const char*>(s.labels.raw_data()),
            static_cast<std::streamsize>(s.labels.byte_size()));
  bench::check(out.good(), "cannot write the data file");
}

train_options model_options(const args& a, bool dense) {
  train_options o;
  o.model = model_kind::wide_deep;
  o.mode = replication::async;
  o.optimizer = "adagrad";
  o.learning_rate = 0.1;
  o.adagrad_initial_accumulator = 0.001;
  o.batch_size = a.batch;
  o.threads = a.threads;
  o.device = "cpu";
  o.dense_gradients = dense;
  o.wide_deep.rows = a.rows;
  o.wide_deep.dim = a.dim;
  o.wide_deep.columns = a.columns;
  return o;
}

struct worker_run {
  double seconds = 0;
  float first_loss = 0, last_loss = 0;
  status st;
};

// Both workers' samples per second over `steps` steps each (after the warmup), on a cluster
// of their own.
double measure(const args& a, const ctr_split& data, bool dense, int steps) {
  cpu_device_options cpu{.intra_op_threads = a.threads, .inter_op_threads = 1};
  auto cluster = embedded_cluster::start({.ps_tasks = ps_tasks, .worker_tasks = workers, .cpu = cpu});
  bench::check(cluster.ok(), "starting the embedded cluster failed");
  const train_options o = model_options(a, dense);

  std::vector<std::unique_ptr<client_graph>> graphs;
  std::vector<std::unique_ptr<session>> sessions;
  for (int w = 0; w < workers; ++w) {
    auto g = build_client_graph(o, {.mode = replication::async, .ps_tasks = ps_tasks,
                                    .workers = workers, .worker_index = w});
    bench::check(g.ok(), "building the training graph failed");
    session_options sopts;
    sopts.target = (*cluster)->worker_target(w);
    sopts.cpu = cpu;
    sopts.device_count[device_gpu] = 0;
    sessions.push_back(std::make_unique<session>((*g)->root, sopts));
    graphs.push_back(std::move(*g));
  }
  // The chief initializes the shared tables (drawing 1M-row tables takes a moment).
  bench::check(sessions[0]->run_targets({graphs[0]->shared_init}).ok(),
               "initializing the variables failed");

  std::barrier timed_start(workers);
  std::vector<worker_run> runs(workers);
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      const client_graph& g = *graphs[w];
      const tower& t = g.towers.at(0);
      std::vector<session::feed_list> feeds;
      for (int64_t b = 0; b < batches; ++b) {
        const int64_t begin = (int64_t{w} * batches + b) * a.batch;
        feeds.push_back({{t.inputs, data.ids.slice_dim0(begin, begin + a.batch)},
                         {t.labels, data.labels.slice_dim0(begin, begin + a.batch)}});
      }
      worker_run& r = runs[w];
      auto step = [&](int i) {
        auto out = sessions[w]->run(feeds[i % batches], {t.loss}, {g.train_op});
        if (!out.ok()) {
          r.st = out.get_status();
          return;
        }
        const float loss = out->at(0).data<float>()[0];
        if (i == 0) r.first_loss = loss;
        r.last_loss = loss;
      };
      for (int i = 0; i < a.warmup && r.st.ok(); ++i) step(i);
      timed_start.arrive_and_wait();
      const auto start = std::chrono::steady_clock::now();
      for (int i = a.warmup; i < a.warmup + steps && r.st.ok(); ++i) step(i);
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    });
  for (auto& t : threads) t.join();
  double seconds = 0;
  for (const auto& r : runs) {
    if (!r.st.ok()) std::fprintf(stderr, "worker: %s\n", r.st.to_string().c_str());
    bench::check(r.st.ok(), "a training step failed");
    seconds = std::max(seconds, r.seconds);
  }
  std::printf("wide_deep: %s gradients, 2 ps + 2 workers (async), %d columns of %lld x %d, "
              "batch %d, %d thread%s per task, %d steps per worker in %.2f s, chief's loss %.4f "
              "-> %.4f\n",
              dense ? "dense" : "sparse", a.columns, static_cast<long long>(a.rows), a.dim,
              a.batch, a.threads, a.threads == 1 ? "" : "s", steps, seconds, runs[0].first_loss,
              runs[0].last_loss);
  return static_cast<double>(workers) * steps * a.batch / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const args a = parse(argc, argv);
  auto generated = generate_ctr_data(data_options(a));
  bench::check(generated.ok(), "generating the data failed");
  const ctr_split& data = generated->train;
  if (!a.write_path.empty()) {
    write_data(a, data, a.write_path);
    return 0;
  }

  const double sparse = measure(a, data, false, a.steps);
  if (a.baseline > 0)
    bench::result("wide_deep_samples_per_s", sparse, "samples/s", a.baseline);
  else
    bench::result("wide_deep_samples_per_s", sparse, "samples/s");
  if (a.dense_steps == 0) return 0;
  const double dense = measure(a, data, true, a.dense_steps);
  bench::result("wide_deep_dense_gradients_samples_per_s", dense, "samples/s");
  bench::result("wide_deep_sparse_over_dense_gradients", sparse, "samples/s", dense);
  return 0;
}
