// Inference on real TensorFlow.js graph models imported by caflow, against TF.js's WebAssembly
// backend (XNNPACK with SIMD, TF.js's fast CPU path) on the same model, input, batch and thread
// count, measured by scripts/tfjs_reference/bench_wasm.js in the same bench/run.
//
//   bench_import_inference --model PATH --name NAME --batch N --threads T [--runs R]
//                          [--baseline SAMPLES_PER_S]
//       prints RESULT import_<NAME>_b<N>_samples_per_s (batch / median latency) and the p50 and
//       p90 latency; with --baseline also the ratio (above 1: caflow is faster).
//
// Inputs are caflow-run's pattern (apps/run/model_inputs.hpp), batch N on the leading
// dimension (relaxed where the model fixes it, as bench_wasm.js relaxes it for TF.js).
#include <chrono>
#include <cstdio>
#include <string>

#include "actors/session/session.hpp"
#include "apps/run/model_inputs.hpp"
#include "apps/run/run_report.hpp"
#include "bench_util.hpp"
#include "graph/tf/model_import.hpp"

using namespace caflow;

namespace {

struct args {
  std::string model, name;
  int64_t batch = 1;
  int threads = 1;
  int runs = 30;
  double baseline = 0;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: bench_import_inference --model PATH --name NAME --batch N --threads T "
               "[--runs R] [--baseline SAMPLES_PER_S]\n");
  std::exit(2);
}

args parse(int argc, char** argv) {
  args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--model") a.model = value;
    else if (flag == "--name") a.name = value;
    else if (flag == "--batch") a.batch = std::stoll(value);
    else if (flag == "--threads") a.threads = std::stoi(value);
    else if (flag == "--runs") a.runs = std::stoi(value);
    else if (flag == "--baseline") a.baseline = std::stod(value);
    else usage();
  }
  if (argc % 2 == 0 || a.model.empty() || a.name.empty() || a.batch < 1 || a.threads < 1 || a.runs < 1)
    usage();
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const args a = parse(argc, argv);
  auto model = tf::import_graph_def(a.model);
  if (!model.ok()) {
    std::fprintf(stderr, "benchmark failed: %s\n", model.get_status().to_string().c_str());
    return 1;
  }
  std::vector<std::string> notes;
  auto feeds = run_app::make_feeds(&*model, {.batch = a.batch}, &notes);
  bench::check(feeds.ok(), "making the inputs failed");
  std::vector<std::string> fetches;
  for (const auto& o : model->outputs) fetches.push_back(tensor_name(o.node, o.port));

  session_options opts;
  opts.cpu.intra_op_threads = opts.cpu.inter_op_threads = a.threads;
  session sess(opts);
  bench::check(sess.extend(model->graph).ok(), "extending the session failed");
  auto once = [&] {
    auto out = sess.run_named(*feeds, fetches);
    if (!out.ok()) std::fprintf(stderr, "%s\n", out.get_status().to_string().c_str());
    bench::check(out.ok(), "a run failed");
  };
  for (int i = 0; i < 3; ++i) once();  // plans the graph, warms the pools and the allocator
  std::vector<double> ms;
  for (int i = 0; i < a.runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    once();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  const run_app::latency_summary l = run_app::summarize_latency(ms);
  std::printf("caflow %s batch %lld threads %d: p50 %.3f ms, p90 %.3f ms, min %.3f ms over %d runs\n",
              a.name.c_str(), static_cast<long long>(a.batch), a.threads, l.p50_ms, l.p90_ms, l.min_ms, a.runs);
  const std::string name = "import_" + a.name + "_b" + std::to_string(a.batch) + "_samples_per_s";
  const double rate = static_cast<double>(a.batch) * 1000.0 / l.p50_ms;
  if (a.baseline > 0) bench::result(name.c_str(), rate, "samples/s", a.baseline);
  else bench::result(name.c_str(), rate, "samples/s");
  return 0;
}
