// What synchronous replication costs caflow-train's MLP: training samples per second of an
// embedded cluster (1 ps + 2 workers, every task its own server on a loopback port, mode sync,
// batch 50 per worker) against the local mode (one session, batch 100): the same global batch
// and the same number of global steps, both through the app's run_client.
//
//   bench_train_sync_overhead [--steps N] [--threads-per-task N]
//
// Each task gets 1 intra-op thread by default, so the two workers together compute on as many
// threads as the local session's 2; the ps applies Adam on its own thread. The ratio
// (sync / local) is 1.0 when replication is free; what is lost below it is the parameter
// traffic, the gradient accumulators, the token queue and the workers waiting for each other.
// Data: the first 2000 Fashion-MNIST training images (a synthetic set of the same shape where
// the dataset is not installed; the RESULT line's note says which).
#include <string>
#include <thread>

#include "apps/train/embedded_cluster.hpp"
#include "apps/train/trainer.hpp"
#include "bench_util.hpp"
#include "graph/client/data/fashion_mnist.hpp"

using namespace caflow;
using namespace caflow::train_app;

namespace {

constexpr int global_batch = 100;
constexpr int workers = 2;
constexpr int64_t train_size = 2000;  // 20 global steps per epoch
constexpr int64_t test_size = 100;    // the chief's evaluation after the timed steps

data::dataset synthetic_images(int64_t n, uint64_t seed) {
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
data::dataset first_examples(data::fashion_mnist_split split, int64_t n, const char** source) {
  if (auto all = data::load_fashion_mnist(split); all.ok()) {
    if (auto first = all->take(n); first.ok() && first->size() == n) {
      *source = "fashion-mnist";
      return *first;
    }
  }
  *source = "synthetic";
  return synthetic_images(n, split == data::fashion_mnist_split::train ? 1 : 2);
}

train_options options(replication mode, int epochs, int threads) {
  train_options o;
  o.model = model_kind::mlp;
  o.mode = mode;
  o.epochs = epochs;
  o.batch_size = mode == replication::local ? global_batch : global_batch / workers;
  o.threads = threads;
  o.progress = false;
  return o;
}

double local_samples_per_s(int epochs, const data::dataset& train, const data::dataset& test) {
  const train_options o = options(replication::local, epochs, 2);
  auto graph = build_client_graph(o, {});
  bench::check(graph.ok(), "building the local graph failed");
  auto r = run_client(o, {}, **graph, "local", {train}, test, false);
  if (!r.ok()) std::fprintf(stderr, "%s\n", r.get_status().to_string().c_str());
  bench::check(r.ok(), "local training failed");
  return r->samples_per_second;
}

double sync_samples_per_s(int epochs, int threads, const data::dataset& train,
                          const data::dataset& test) {
  const train_options o = options(replication::sync, epochs, threads);
  auto cluster = embedded_cluster::start(
      {.ps_tasks = 1,
       .worker_tasks = workers,
       .cpu = {.intra_op_threads = threads, .inter_op_threads = threads}});
  if (!cluster.ok()) std::fprintf(stderr, "%s\n", cluster.get_status().to_string().c_str());
  bench::check(cluster.ok(), "starting the embedded cluster failed");
  std::vector<status_or<client_result>> results;
  for (int w = 0; w < workers; ++w) results.emplace_back(errors::internal("not run"));
  std::vector<std::thread> clients;
  for (int w = 0; w < workers; ++w)
    clients.emplace_back([&, w] {
      const client_plan plan{.mode = replication::sync, .ps_tasks = 1, .workers = workers,
                             .worker_index = w};
      auto graph = build_client_graph(o, plan);
      if (!graph.ok()) {
        results[w] = graph.get_status();
        return;
      }
      results[w] = run_client(o, plan, **graph, (*cluster)->worker_target(w),
                              {*train.shard(w, workers)}, test, false);
    });
  for (auto& c : clients) c.join();
  double total = 0;
  for (auto& r : results) {
    if (!r.ok()) std::fprintf(stderr, "%s\n", r.get_status().to_string().c_str());
    bench::check(r.ok(), "sync training failed");
    total += r->samples_per_second;
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 2000, threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--steps") {
      steps = std::stoi(argv[i + 1]);
    } else if (flag == "--threads-per-task") {
      threads = std::stoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: bench_train_sync_overhead [--steps N] [--threads-per-task N]\n");
      return 2;
    }
  }
  const int64_t steps_per_epoch = train_size / global_batch;
  const int epochs = static_cast<int>(std::max<int64_t>(1, steps / steps_per_epoch));
  const char* source = nullptr;
  const data::dataset train = first_examples(data::fashion_mnist_split::train, train_size, &source);
  const data::dataset test = first_examples(data::fashion_mnist_split::test, test_size, &source);

  const double local = local_samples_per_s(epochs, train, test);
  const double sync = sync_samples_per_s(epochs, threads, train, test);
  std::printf("caflow mlp, %lld global steps of batch %d: local %.0f samples/s (2 threads), "
              "sync 1 ps + %d workers %.0f samples/s (%d intra-op thread%s per task)\n",
              static_cast<long long>(epochs * steps_per_epoch), global_batch, local, workers,
              sync, threads, threads == 1 ? "" : "s");
  // bench_util's format with a note on where the images came from.
  std::printf("RESULT train_sync_overhead value=%.4g unit=samples/s baseline=%.4g ratio=%.3f "
              "note=%s-data,baseline-local-mode\n",
              sync, local, sync / local, source);
  std::fflush(stdout);
  return 0;
}
