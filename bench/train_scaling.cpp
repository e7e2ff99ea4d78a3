// How caflow-train's MLP scales with workers: global samples per second of 1 ps + N workers
// (N = 1, 2, 3; every task its own server on a loopback port, between-graph), in sync and async
// mode, at 50 examples per worker per step (weak scaling: the global batch grows with N).
// Each line's baseline is the same mode with one worker, so its ratio is the speed-up; on a
// machine with fewer cores than tasks it shows what the runtime costs as tasks share cores.
//
//   bench_train_scaling [--steps N] [--threads-per-task N]
//
// Data: the first 3000 Fashion-MNIST training images (synthetic where the dataset is missing).
#include <algorithm>
#include <string>

#include "train_cluster_util.hpp"

using namespace caflow;
using namespace caflow::train_app;

namespace {

constexpr int per_worker_batch = 50;
constexpr int64_t train_size = 3000;
constexpr int64_t test_size = 100;

}  // namespace

int main(int argc, char** argv) {
  int steps = 600, threads = 1;  // steps per worker
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--steps") {
      steps = std::stoi(argv[i + 1]);
    } else if (flag == "--threads-per-task") {
      threads = std::stoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: bench_train_scaling [--steps N] [--threads-per-task N]\n");
      return 2;
    }
  }
  const char* source = nullptr;
  const data::dataset train =
      bench::first_examples(data::fashion_mnist_split::train, train_size, &source);
  const data::dataset test =
      bench::first_examples(data::fashion_mnist_split::test, test_size, &source);
  for (replication mode : {replication::sync, replication::async}) {
    double one = 0;
    for (int workers = 1; workers <= 3; ++workers) {
      train_options o;
      o.model = model_kind::mlp;
      o.mode = mode;
      o.batch_size = per_worker_batch;
      o.threads = threads;
      o.progress = false;
      // Every worker runs about `steps` steps over its shard of the data.
      const int64_t per_epoch = train_size / workers / per_worker_batch;
      o.epochs = static_cast<int>(std::max<int64_t>(1, steps / per_epoch));
      const double rate = bench::cluster_samples_per_s(o, workers, threads, train, test);
      if (workers == 1) one = rate;
      const std::string name =
          std::string("train_scaling_") + to_string(mode) + "_w" + std::to_string(workers);
      std::printf("RESULT %s value=%.4g unit=samples/s baseline=%.4g ratio=%.3f note=%s-data,"
                  "baseline-one-worker\n",
                  name.c_str(), rate, one, rate / one, source);
      std::fflush(stdout);
    }
  }
  return 0;
}
