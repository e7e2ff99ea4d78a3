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
// Synthetic images: the passes and the step time do not depend on the pixel values.
#include <cstdio>
#include <string>

#include "actors/session.hpp"
#include "apps/train/replication.hpp"
#include "bench_util.hpp"

using namespace caflow;
using namespace caflow::train_app;

namespace {

constexpr int batch = 100;

struct measured {
  double ms_per_step = 0;
  session_stats stats;
};

measured run(const client_graph& g, bool passes, int steps) {
  session_options so;
  so.cpu = {.intra_op_threads = 2, .inter_op_threads = 2};
  so.optimizer.cse = passes;
  so.optimizer.constant_folding = passes;
  session sess(g.root, so);
  bench::check(sess.run_targets({g.shared_init}).ok(), "variable initialization failed");
  for (const operation& init : g.local_init)
    bench::check(sess.run_targets({init}).ok(), "local initialization failed");
  const tower& t = g.towers.at(0);
  tensor images(dtype::float32, tensor_shape{batch, 28, 28, 1});
  tensor labels(dtype::int32, tensor_shape{batch});
  for (int64_t i = 0; i < images.num_elements(); ++i)
    images.data<float>()[i] = static_cast<float>((i * 7919) % 256) / 255.0f;
  for (int64_t i = 0; i < batch; ++i) labels.data<int32_t>()[i] = static_cast<int32_t>(i % 10);
  const session::feed_list feeds{{t.images, images}, {t.labels, labels},
                                 {t.training, tensor::scalar(true)}};
  auto step = [&] {
    auto out = sess.run(feeds, {t.loss}, {g.train_op});
    if (!out.ok()) std::fprintf(stderr, "%s\n", out.get_status().to_string().c_str());
    bench::check(out.ok(), "training step failed");
  };
  for (int i = 0; i < 2; ++i) step();  // warm-up: kernels created, buffers allocated
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) step();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return {ms / steps, sess.stats()};
}

// "cse: 812 -> 790 nodes (22 removed); constant_folding: 790 -> 781 nodes (...)" -> counts.
bool pass_counts(const std::string& summary, const char* pass, long* before, long* after) {
  const auto at = summary.find(std::string(pass) + ": ");
  if (at == std::string::npos) return false;
  return std::sscanf(summary.c_str() + at + std::string(pass).size() + 2, "%ld -> %ld", before,
                     after) == 2;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 10;
  if (argc == 3 && std::string(argv[1]) == "--steps") steps = std::stoi(argv[2]);
  train_options o;
  o.model = model_kind::cnn;
  o.mode = replication::local;
  o.batch_size = batch;
  auto graph = build_client_graph(o, {});
  if (!graph.ok()) std::fprintf(stderr, "%s\n", graph.get_status().to_string().c_str());
  bench::check(graph.ok(), "building the CNN training graph failed");

  const measured on = run(**graph, true, steps);
  const measured off = run(**graph, false, steps);
  std::printf("# CNN training graph: %lld nodes; the training step's passes: %s\n",
              static_cast<long long>(on.stats.graph_nodes), on.stats.last_optimization.c_str());
  long before = 0, after = 0;
  bench::check(pass_counts(on.stats.last_optimization, "cse", &before, &after),
               "no CSE counts in the session's stats");
  bench::result("cnn_nodes_after_cse", static_cast<double>(after), "nodes",
                static_cast<double>(before));
  bench::check(pass_counts(on.stats.last_optimization, "constant_folding", &before, &after),
               "no constant folding counts in the session's stats");
  bench::result("cnn_nodes_after_folding", static_cast<double>(after), "nodes",
                static_cast<double>(before));
  bench::result("cnn_step_ms_passes_on", on.ms_per_step, "ms", off.ms_per_step);
  return 0;
}
