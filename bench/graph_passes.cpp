// What the graph passes do to caflow-train's CNN training graph (forward, symbolic gradients,
// Adam): node counts before and after each pass on the training step's pruned graph, and the
// step time with the passes on against off (baseline), batch 100, 2 threads, one session.
//
//   bench_graph_passes [--steps N]
//
// RESULT lines:
//   cnn_nodes_after_cse        value=<nodes after CSE>      baseline=<nodes before>
//   cnn_nodes_after_folding    value=<after folding>        baseline=<after CSE>
//   cnn_step_ms_passes_on      value=<ms per step, on>      baseline=<ms per step, off>
//   plan_100k_nodes_64_tasks_ms, plan_100k_nodes_64_tasks_mb_per_task   (plan_at_scale.hpp)
//   (--scale-only: just those)
// Synthetic images: the passes and the step time do not depend on the pixel values.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "actors/session/session.hpp"
#include "apps/train/replication.hpp"
#include "bench_util.hpp"
#include "plan_at_scale.hpp"

using namespace caflow;
using namespace caflow::train_app;

namespace {

constexpr int batch = 100;

// One session over the training graph, initialized, with a fixed batch to step on.
class trainer {
 public:
  trainer(const client_graph& g, bool passes) : g_(g), sess_(g.root, options(passes)) {
    bench::check(sess_.run_targets({g.shared_init}).ok(), "variable initialization failed");
    for (const operation& init : g.local_init)
      bench::check(sess_.run_targets({init}).ok(), "local initialization failed");
    const tower& t = g.towers.at(0);
    tensor images(dtype::float32, tensor_shape{batch, 28, 28, 1});
    tensor labels(dtype::int32, tensor_shape{batch});
    for (int64_t i = 0; i < images.num_elements(); ++i)
      images.data<float>()[i] = static_cast<float>((i * 7919) % 256) / 255.0f;
    for (int64_t i = 0; i < batch; ++i) labels.data<int32_t>()[i] = static_cast<int32_t>(i % 10);
    feeds_ = {{t.inputs, images}, {t.labels, labels}, {t.training, tensor::scalar(true)}};
    for (int i = 0; i < 2; ++i) step();  // warm-up: kernels created, buffers allocated
  }

  void step() {
    auto out = sess_.run(feeds_, {g_.towers[0].loss}, {g_.train_op});
    if (!out.ok()) std::fprintf(stderr, "%s\n", out.get_status().to_string().c_str());
    bench::check(out.ok(), "training step failed");
  }

  double ms_per_step(int steps) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i) step();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
               .count() / steps;
  }

  session_stats stats() const { return sess_.stats(); }

 private:
  static session_options options(bool passes) {
    session_options so;
    so.cpu = {.intra_op_threads = 2, .inter_op_threads = 2};
    so.optimizer.cse = passes;
    so.optimizer.constant_folding = passes;
    return so;
  }

  const client_graph& g_;
  session sess_;
  session::feed_list feeds_;
};

// "cse: 812 -> 790 nodes (22 removed); constant_folding: 790 -> 781 nodes (...)" -> counts.
bool pass_counts(const std::string& summary, const char* pass, long* before, long* after) {
  const auto at = summary.find(std::string(pass) + ": ");
  if (at == std::string::npos) return false;
  return std::sscanf(summary.c_str() + at + std::string(pass).size() + 2, "%ld -> %ld", before,
                     after) == 2;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 5;
  if (argc == 3 && std::string(argv[1]) == "--steps") steps = std::stoi(argv[2]);
  if (argc == 2 && std::string(argv[1]) == "--scale-only") {
    bench::plan_at_scale();
    return 0;
  }
  train_options o;
  o.model = model_kind::cnn;
  o.mode = replication::local;
  o.batch_size = batch;
  auto graph = build_client_graph(o, {});
  if (!graph.ok()) std::fprintf(stderr, "%s\n", graph.get_status().to_string().c_str());
  bench::check(graph.ok(), "building the CNN training graph failed");

  trainer on(**graph, true), off(**graph, false);
  // Alternating rounds, the best of each: the two sessions see the same machine load.
  double on_ms = 1e30, off_ms = 1e30;
  for (int round = 0; round < 3; ++round) {
    off_ms = std::min(off_ms, off.ms_per_step(steps));
    on_ms = std::min(on_ms, on.ms_per_step(steps));
  }
  const session_stats st = on.stats();
  std::printf("# CNN training graph: %lld nodes; the training step's passes: %s\n",
              static_cast<long long>(st.graph_nodes), st.last_optimization.c_str());
  long before = 0, after = 0;
  bench::check(pass_counts(st.last_optimization, "cse", &before, &after),
               "no CSE counts in the session's stats");
  bench::result("cnn_nodes_after_cse", static_cast<double>(after), "nodes",
                static_cast<double>(before));
  bench::check(pass_counts(st.last_optimization, "constant_folding", &before, &after),
               "no constant folding counts in the session's stats");
  bench::result("cnn_nodes_after_folding", static_cast<double>(after), "nodes",
                static_cast<double>(before));
  bench::result("cnn_step_ms_passes_on", on_ms, "ms", off_ms);
  bench::plan_at_scale();
  return 0;
}
