// Synchronous replication with the towers on a GPU: caflow-train's MLP and CNN on an embedded
// cluster of 1 ps (on its CPU) and 2 workers sharing GPU:0 (mode sync, batch 50 per worker),
// against the local mode on that GPU (one session, batch 100): the same global batch and number
// of global steps, both through the app's run_client. GPU only: without a GPU it prints one
// line saying why.
//
//   bench_train_sync_gpu [--steps N] [--threads-per-task N] [--shm-variables 0|1]
//
// Threads per task default to caflow-train's (0: the machine's cores), for both runs: the ps
// does its accumulation and Adam on them. --shm-variables 1 keeps the ps's variables in its
// shared-memory segment (server_options::shm_variables), so they reach the workers with no copy
// on the ps.
//
// The ratio (sync / local) is 1.0 when replication is free; below it is the parameter traffic
// between the ps's memory and the GPU, the accumulators, the token queue and the two workers
// taking turns on one GPU.
#include <string>

#include "devices/gpu_devices.hpp"
#include "train_cluster_util.hpp"

using namespace caflow;
using namespace caflow::train_app;

namespace {

using setup = bench::sync_vs_local;
train_options options(model_kind model, replication mode, int epochs, int threads) {
  return setup::options(model, mode, epochs, threads, "gpu");
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 1000, threads = 0;
  bool shm_variables = false;
  const char* usage = "bench_train_sync_gpu [--steps N] [--threads-per-task N] [--shm-variables 0|1]";
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 < argc && flag == "--steps") {
      steps = std::stoi(argv[i + 1]);
    } else if (i + 1 < argc && flag == "--threads-per-task") {
      threads = std::stoi(argv[i + 1]);
    } else if (i + 1 < argc && flag == "--shm-variables" &&
               (std::string(argv[i + 1]) == "0" || std::string(argv[i + 1]) == "1")) {
      shm_variables = std::string(argv[i + 1]) == "1";
    } else {
      std::fprintf(stderr, "usage: %s\n", usage);
      return 2;
    }
  }
  if (local_gpus().gpus.empty()) {
    std::printf("train_sync_gpu: skipped: no GPU (%s)\n", local_gpus().why_none.c_str());
    return 0;
  }
  const int64_t steps_per_epoch = setup::train_size / setup::global_batch;
  const int epochs = static_cast<int>(std::max<int64_t>(1, steps / steps_per_epoch));
  const char* source = nullptr;
  const data::dataset train = setup::train_set(&source);
  const data::dataset test = setup::test_set(&source);
  for (model_kind model : {model_kind::mlp, model_kind::cnn}) {
    const train_options lo = options(model, replication::local, epochs, threads);
    auto graph = build_client_graph(lo, {});
    bench::check(graph.ok(), "building the local graph failed");
    auto local = run_client(lo, {}, **graph, "local", {train}, test, false);
    if (!local.ok()) std::fprintf(stderr, "%s\n", local.get_status().to_string().c_str());
    bench::check(local.ok(), "local training failed");
    const double sync = bench::cluster_samples_per_s(
        options(model, replication::sync, epochs, threads), setup::workers, threads, train, test,
        shm_variables);
    std::printf("caflow %s on GPU:0, %d global steps of batch %d: local %.0f samples/s, sync 1 ps "
                "+ %d workers %.0f samples/s\n",
                to_string(model), epochs * static_cast<int>(steps_per_epoch),
                setup::global_batch, local->samples_per_second, setup::workers, sync);
    std::printf(
        "RESULT train_sync_gpu_%s value=%.4g unit=samples/s baseline=%.4g ratio=%.3f "
        "note=%s-data,baseline-local-mode-same-gpu,threads-%d,shm-variables-%d\n",
        to_string(model), sync, local->samples_per_second, sync / local->samples_per_second,
        source, threads, shm_variables ? 1 : 0);
    std::fflush(stdout);
  }
  return 0;
}
