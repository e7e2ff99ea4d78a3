// caflow's parameter-server training against PyTorch's own: the MLP of caflow-train on 1 ps + 2
// workers, synchronous, batch 50 per worker (bench::sync_vs_local, as train_sync_overhead), in
// global samples per second. bench/run runs the baseline first, bench/pytorch_ps_train.py (1 ps
// + 2 trainers over torch.distributed.rpc, the same model, batch, Adam and threads per process),
// twice, and passes its best rate in; caflow's side is its best of two runs too: on a 2-core
// machine shared with others, one run of either can land on a busy moment and halve.
//
//   bench_train_ps_vs_pytorch [--steps N] [--threads-per-task N] [--baseline SAMPLES_PER_S]
//
// Without --baseline the RESULT line has no ratio.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "train_cluster_util.hpp"

using namespace caflow;
using namespace caflow::train_app;

int main(int argc, char** argv) {
  int steps = 2000, threads = 1;
  double baseline = 0;
  const char* usage =
      "bench_train_ps_vs_pytorch [--steps N] [--threads-per-task N] [--baseline SAMPLES_PER_S]";
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) != "--baseline") {
      rest.push_back(argv[i]);
      continue;
    }
    char* end = nullptr;
    baseline = i + 1 < argc ? std::strtod(argv[++i], &end) : 0;
    if (end == nullptr || *end != '\0' || !(baseline > 0)) {
      std::fprintf(stderr, "bench_train_ps_vs_pytorch: --baseline needs samples/s > 0\nusage: %s\n",
                   usage);
      return 2;
    }
  }
  bench::parse_steps_and_threads(static_cast<int>(rest.size()), rest.data(), usage, &steps,
                                 &threads);
  using setup = bench::sync_vs_local;
  const int64_t steps_per_epoch = setup::train_size / setup::global_batch;
  const int epochs = static_cast<int>(std::max<int64_t>(1, steps / steps_per_epoch));
  const char* source = nullptr;
  const data::dataset train = setup::train_set(&source);
  const data::dataset test = setup::test_set(&source);
  constexpr int rounds = 2;
  double sync = 0;
  std::string runs;
  for (int r = 0; r < rounds; ++r) {
    const double s = bench::cluster_samples_per_s(
        setup::options(model_kind::mlp, replication::sync, epochs, threads), setup::workers,
        threads, train, test);
    sync = std::max(sync, s);
    runs += (r ? ", " : "") + std::to_string(static_cast<long>(s));
  }
  std::printf(
      "caflow mlp, %lld global steps of batch %d on 1 ps + %d workers, sync: %.0f samples/s "
      "(best of %d: %s)\n",
      static_cast<long long>(epochs * steps_per_epoch), setup::global_batch, setup::workers, sync,
      rounds, runs.c_str());
  if (baseline > 0)
    std::printf("RESULT train_ps_vs_pytorch value=%.4g unit=samples/s baseline=%.4g ratio=%.3f "
                "note=%s-data,baseline-pytorch-rpc-ps\n",
                sync, baseline, sync / baseline, source);
  else
    std::printf("RESULT train_ps_vs_pytorch value=%.4g unit=samples/s note=%s-data\n", sync, source);
  std::fflush(stdout);
  return 0;
}
