// caflow-run: runs a model TensorFlow wrote, locally or on a cluster (README, "Running TensorFlow
// models").
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "actors/session/session.hpp"
#include "apps/run/model_inputs.hpp"
#include "apps/run/placement_rules.hpp"
#include "apps/run/run_options.hpp"
#include "apps/run/run_report.hpp"
#include "graph/ir/checkpoint_file.hpp"
#include "graph/tf/graph_def_export.hpp"
#include "graph/tf/model_import.hpp"
#include "graph/tf/npy.hpp"
#include "graph/tf/saved_model.hpp"

using namespace caflow;
using namespace caflow::run_app;

namespace {

int fail(const status& st) {
  std::fprintf(stderr, "caflow-run: %s\n", st.to_string().c_str());
  return 1;
}

session_options session_options_for(const run_options& o) {
  session_options s;
  s.target = o.target;
  s.security = o.security;
  s.log_device_placement = o.log_device_placement;
  if (o.threads > 0) s.cpu.intra_op_threads = s.cpu.inter_op_threads = o.threads;
  return s;
}

std::vector<std::string> fetch_names(const run_options& o, const tf::imported_model& m) {
  if (!o.outputs.empty()) return o.outputs;
  std::vector<std::string> out;
  for (const auto& t : m.outputs) out.push_back(t.node + ":" + std::to_string(t.port));
  return out;
}

status write_outputs(const std::string& dir, const std::vector<std::string>& names,
                     const std::vector<tensor>& values) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return errors::not_found("--output-dir ", dir, ": ", ec.message());
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string path = (std::filesystem::path(dir) / npy_file_name(names[k])).string();
    CAFLOW_RETURN_IF_ERROR(tf::write_npy(path, values[k]));
    std::printf("wrote %s\n", path.c_str());
  }
  return {};
}

status export_graph(const std::string& path, const graph_def& g) {
  CAFLOW_ASSIGN_OR_RETURN(std::string bytes, tf::write_graph_def(g, tf::graph_encoding::binary));
  CAFLOW_RETURN_IF_ERROR(checkpoint::write_file_atomically(path, bytes).with_context("--export"));
  std::printf("wrote %s (%zu bytes)\n", path.c_str(), bytes.size());
  return {};
}

status run(const run_options& o) {
  CAFLOW_ASSIGN_OR_RETURN(tf::imported_model model, tf::import_graph_def(o.model));
  std::printf("model %s: %s, %zu nodes\n", o.model.c_str(), model.format.c_str(), model.graph.nodes.size());
  std::vector<std::string> notes;
  CAFLOW_ASSIGN_OR_RETURN(session::named_feed_list feeds, make_feeds(&model, {o.inputs, o.shapes, o.batch}, &notes));
  for (const std::string& n : notes) std::printf("note: %s\n", n.c_str());
  if (!o.place.empty()) {
    CAFLOW_ASSIGN_OR_RETURN(auto rules, parse_placement_rules(o.place));
    CAFLOW_ASSIGN_OR_RETURN(auto placed, apply_placement_rules(rules, &model.graph));
    for (size_t k = 0; k < rules.size(); ++k)
      std::printf("place %s* on %s: %lld nodes\n", rules[k].prefix.c_str(), rules[k].device.c_str(),
                  static_cast<long long>(placed[k]));
  }
  if (!o.export_path.empty()) CAFLOW_RETURN_IF_ERROR(export_graph(o.export_path, model.graph));
  if (!o.export_saved_model.empty()) {
    CAFLOW_RETURN_IF_ERROR(tf::save_saved_model(o.export_saved_model, model));
    std::printf("wrote SavedModel %s\n", o.export_saved_model.c_str());
  }
  for (const auto& [name, value] : feeds)
    std::printf("input  %s %s\n", name.c_str(), summarize(value).c_str());

  session sess(session_options_for(o));
  CAFLOW_RETURN_IF_ERROR(sess.extend(model.graph));
  const std::vector<std::string> fetches = fetch_names(o, model);
  if (fetches.empty()) return errors::invalid_argument(o.model, ": the model has no outputs; name some with --output");

  std::vector<double> ms;
  std::vector<tensor> outs;
  for (int r = 0; r < o.runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    auto got = sess.run_named(feeds, fetches);
    const auto end = std::chrono::steady_clock::now();
    if (!got.ok()) return got.get_status().with_context("run " + std::to_string(r + 1));
    ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    outs = std::move(*got);
  }
  for (size_t k = 0; k < fetches.size(); ++k)
    std::printf("output %s %s\n", fetches[k].c_str(), summarize(outs[k]).c_str());
  if (!o.output_dir.empty()) CAFLOW_RETURN_IF_ERROR(write_outputs(o.output_dir, fetches, outs));

  std::printf("run 1: %.3f ms (plans the graph)\n", ms.front());
  if (ms.size() > 1) {
    const latency_summary l = summarize_latency({ms.begin() + 1, ms.end()});
    const int64_t batch = feeds.empty() || feeds.front().second.rank() == 0 ? 1 : feeds.front().second.dim(0);
    std::printf("runs 2..%zu: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, min %.3f ms, mean %.3f ms; "
                "%.1f samples/s at batch %lld (p50)\n",
                ms.size(), l.p50_ms, l.p90_ms, l.p99_ms, l.min_ms, l.mean_ms,
                static_cast<double>(batch) * 1000.0 / l.p50_ms, static_cast<long long>(batch));
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  run_options o;
  bool help = false;
  std::string help_text;
  if (status st = parse_command_line(argc, argv, &o, &help, &help_text); !st.ok()) return fail(st);
  if (help) {
    std::printf("%s", help_text.c_str());
    return 0;
  }
  if (status st = run(o); !st.ok()) return fail(st);
  return 0;
}
