#pragma once
// Shared by the training benchmarks on embedded clusters (train_sync_overhead, train_scaling):
// the data (the first examples of Fashion-MNIST, or synthetic images of the same shape where the
// dataset is not installed) and a between-graph training run of caflow-train's MLP, one client
// thread per worker, returning the global samples per second.
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "apps/console/admin_client.hpp"
#include "apps/train/embedded_cluster.hpp"
#include "apps/train/trainer.hpp"
#include "bench_util.hpp"
#include "graph/client/data/fashion_mnist.hpp"

namespace caflow::bench {

// The flags both training benches take: [--steps N] [--threads-per-task N]. Exits 2, printing
// `usage`, on anything else.
inline void parse_steps_and_threads(int argc, char** argv, const char* usage, int* steps,
                                    int* threads) {
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 < argc && flag == "--steps") {
      *steps = std::stoi(argv[i + 1]);
    } else if (i + 1 < argc && flag == "--threads-per-task") {
      *threads = std::stoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: %s\n", usage);
      std::exit(2);
    }
  }
}

inline data::dataset synthetic_images(int64_t n, uint64_t seed) {
  tensor images(dtype::float32, tensor_shape{n, 28, 28, 1});
  tensor labels(dtype::int32, tensor_shape{n});
  uint64_t state = seed;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  float* img = images.data<float>();
  for (int64_t i = 0; i < images.num_elements(); ++i)
    img[i] = static_cast<float>(next() & 255) / 255.0f;
  int32_t* lab = labels.data<int32_t>();
  for (int64_t i = 0; i < n; ++i) lab[i] = static_cast<int32_t>(next() % 10);
  return *data::dataset::make(std::move(images), std::move(labels));
}

// The first n examples of a Fashion-MNIST split, or synthetic ones; `source` says which.
inline data::dataset first_examples(data::fashion_mnist_split split, int64_t n,
                                    const char** source) {
  if (auto all = data::load_fashion_mnist(split); all.ok()) {
    if (auto first = all->take(n); first.ok() && first->size() == n) {
      *source = "fashion-mnist";
      return *first;
    }
  }
  *source = "synthetic";
  return synthetic_images(n, split == data::fashion_mnist_split::train ? 1 : 2);
}

// CAFLOW_BENCH_TRACE=PREFIX: 1.5 s into training, every node the cluster's tasks run for 60 ms,
// one line per node (task, device, node, op, step id, start and duration in us, bytes) into
// PREFIX.<model>.tsv, for finding where a distributed step's time goes (bench/step_timeline.py
// sums it up). Through the console's `trace` on the ps.
inline void write_trace(const cluster_spec& spec, const char* file) {
  using std::chrono::milliseconds;
  std::this_thread::sleep_for(milliseconds(1500));
  auto address = spec.task_address("ps", 0);
  check(address.ok(), "no ps task to trace");
  auto admin = console::admin_client::connect(*address, milliseconds(5000));
  check(admin.ok(), "cannot reach the ps's admin to trace");
  check((*admin)->ask({"trace", "on"}, milliseconds(5000)).ok(), "trace on failed");
  std::this_thread::sleep_for(milliseconds(60));
  check((*admin)->ask({"trace", "off"}, milliseconds(5000)).ok(), "trace off failed");
  auto got = (*admin)->ask({"trace", "collect"}, milliseconds(5000));
  check(got.ok(), "trace collect failed");
  FILE* out = std::fopen(file, "w");
  check(out != nullptr, "cannot write the trace file");
  for (const auto& e : got->events)
    std::fprintf(out, "%s\t%s\t%s\t%s\t%lld\t%lld\t%lld\t%lld\n", e.task.c_str(),
                 e.device.c_str(), e.node.c_str(), e.op.c_str(), static_cast<long long>(e.step_id),
                 static_cast<long long>(e.start_us), static_cast<long long>(e.dur_us),
                 static_cast<long long>(e.bytes));
  std::fclose(out);
}

// `o.mode` (sync or async) on 1 ps + `workers` worker tasks, each worker training on its shard
// of `train`; the sum of the workers' samples per second.
// The sync-against-local benches' setup (train_sync_overhead, train_sync_gpu): a global batch of
// 100 over 2 workers, 20 global steps per epoch of the first 2000 training images, 100 test
// images for the chief's evaluation after the timed steps.
struct sync_vs_local {
  static constexpr int global_batch = 100;
  static constexpr int workers = 2;
  static constexpr int64_t train_size = 2000;
  static constexpr int64_t test_size = 100;

  static data::dataset train_set(const char** source) {
    return first_examples(data::fashion_mnist_split::train, train_size, source);
  }
  static data::dataset test_set(const char** source) {
    return first_examples(data::fashion_mnist_split::test, test_size, source);
  }

  // caflow-train's options for `mode` at that global batch (per worker in a cluster).
  static train_app::train_options options(train_app::model_kind model, train_app::replication mode,
                                          int epochs, int threads, const char* device = "cpu") {
    train_app::train_options o;
    o.model = model;
    o.mode = mode;
    o.epochs = epochs;
    o.batch_size = mode == train_app::replication::local ? global_batch : global_batch / workers;
    o.threads = threads;
    o.progress = false;
    o.device = device;
    return o;
  }
};

// `shm_variables`: the ps keeps its variables in its shared memory segment
// (server_options::shm_variables).
inline double cluster_samples_per_s(const train_app::train_options& o, int workers, int threads,
                                    const data::dataset& train, const data::dataset& test,
                                    bool shm_variables = false) {
  using namespace train_app;
  auto cluster =
      embedded_cluster::start({.ps_tasks = 1,
                               .worker_tasks = workers,
                               .cpu = {.intra_op_threads = threads, .inter_op_threads = threads},
                               .use_gpus = o.device == "gpu",
                               .gpu = o.gpu,
                               .same_host_rings = rings_from_env(),
                               .shm_variables = shm_variables});
  if (!cluster.ok()) std::fprintf(stderr, "%s\n", cluster.get_status().to_string().c_str());
  check(cluster.ok(), "starting the embedded cluster failed");
  std::vector<status_or<client_result>> results;
  for (int w = 0; w < workers; ++w) results.emplace_back(errors::internal("not run"));
  std::vector<std::thread> clients;
  for (int w = 0; w < workers; ++w)
    clients.emplace_back([&, w] {
      const client_plan plan{.mode = o.mode, .ps_tasks = 1, .workers = workers, .worker_index = w};
      auto graph = build_client_graph(o, plan);
      if (!graph.ok()) {
        results[w] = graph.get_status();
        return;
      }
      results[w] = run_client(o, plan, **graph, (*cluster)->worker_target(w),
                              {*train.shard(w, workers)}, test, false);
    });
  if (const char* prefix = std::getenv("CAFLOW_BENCH_TRACE"))
    write_trace((*cluster)->spec(),
                (std::string(prefix) + "." + train_app::to_string(o.model) + ".tsv").c_str());
  for (auto& c : clients) c.join();
  double total = 0;
  for (auto& r : results) {
    if (!r.ok()) std::fprintf(stderr, "%s\n", r.get_status().to_string().c_str());
    check(r.ok(), "cluster training failed");
    total += r->samples_per_second;
  }
  return total;
}

}  // namespace caflow::bench
