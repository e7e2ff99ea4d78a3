#include "actors/session/session.hpp"

#include <atomic>
#include <iostream>
#include <mutex>
#include <unordered_map>

#include "actors/executor/executor.hpp"
#include "actors/executor/graph_optimizer.hpp"
#include "actors/executor/trace_recorder.hpp"
#include "actors/session/remote_client.hpp"
#include "actors/server/server.hpp"
#include "devices/device_factory.hpp"
#include "graph/ir/dump.hpp"
#include "graph/ir/passes/pass.hpp"
#include "graph/ir/prune.hpp"

namespace caflow {
namespace {

// One cached run signature: its pruned graph's executor and the feed/fetch contract.
// A signature prepared for this session's own CPU: its executor and its feeds' contract.
struct local_plan {
  std::unique_ptr<executor> exec;
  run_contract contract;
};

}  // namespace

class session::impl {
 public:
  impl(std::optional<scope> s, const session_options& opts)
      : scope_(std::move(s)),
        opts_(opts),
        cpu_("/job:localhost/replica:0/task:0/device:CPU:0", opts.cpu) {
    if (opts_.target != "local" ||
        device_registry::global().accelerators_available(
            {.cpu = opts.cpu, .gpu = opts.gpu, .device_count = opts.device_count}) == 0)
      return;
    // Its master bounds steps as the session does: operation_timeout, or never when that is 0.
    auto srv = create_local_server(opts.cpu, opts.gpu, opts.device_count,
                                   opts.operation_timeout.count() > 0
                                       ? opts.operation_timeout
                                       : std::chrono::milliseconds(std::chrono::hours(24)));
    if (!srv.ok()) {
      start_error_ = srv.get_status().with_context("starting the local session's devices");
      return;
    }
    local_server_ = std::move(srv).value();
    opts_.target = local_server_->target();
  }

  status extend(const graph_def& more) {
    CAFLOW_RETURN_IF_ERROR(start_error_);
    std::lock_guard<std::mutex> lock(mu_);
    return extend_locked(more.nodes);
  }

  status sync_with_scope() {
    if (!scope_) return {};
    CAFLOW_RETURN_IF_ERROR(scope_->get_status());
    if (scope_->num_nodes() == synced_nodes_) return {};
    graph_def all = scope_->to_graph_def();
    std::vector<node_def> fresh(all.nodes.begin() + static_cast<long>(synced_nodes_), all.nodes.end());
    CAFLOW_RETURN_IF_ERROR(extend_locked(fresh));
    synced_nodes_ = all.nodes.size();
    return {};
  }

  status report_summaries(summary_report report) {
    CAFLOW_RETURN_IF_ERROR(start_error_);
    if (opts_.target == "local") return {};  // no master, no console
    std::lock_guard<std::mutex> lock(mu_);
    CAFLOW_RETURN_IF_ERROR(sync_with_scope());
    CAFLOW_RETURN_IF_ERROR(connect_locked());
    CAFLOW_RETURN_IF_ERROR(remote_->open());
    return remote_->report_summaries(std::move(report));
  }

  status_or<std::vector<tensor>> run(const named_feed_list& feeds,
                                     const std::vector<std::string>& fetches,
                                     const std::vector<std::string>& targets,
                                     std::vector<trace_event>* trace = nullptr) {
    CAFLOW_RETURN_IF_ERROR(start_error_);
    if (opts_.target != "local") {
      remote_client* remote = nullptr;
      {
        std::lock_guard<std::mutex> lock(mu_);
        CAFLOW_RETURN_IF_ERROR(sync_with_scope());
        CAFLOW_RETURN_IF_ERROR(connect_locked());
        CAFLOW_RETURN_IF_ERROR(remote_->open());  // the master's session, if not yet
        remote = remote_.get();  // kept until the session goes
      }
      // Unlocked: one run may wait for another (a dequeue from a queue that another run fills).
      run_step_reply prepared;
      auto out = remote->run(feeds, fetches, targets, &prepared, trace);
      if (out.ok()) steps_.fetch_add(1, std::memory_order_relaxed);
      // Only the step that prepared a run signature reports: the others take no lock here.
      if (out.ok() && (prepared.nodes_removed || prepared.nodes_folded ||
                       !prepared.optimization.empty() || !prepared.placement.empty())) {
        std::lock_guard<std::mutex> lock(mu_);
        note_prepared(prepared.nodes_removed, prepared.nodes_folded, prepared.optimization,
                      prepared.placement);
      }
      return out;
    }
    local_plan* run = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      CAFLOW_RETURN_IF_ERROR(sync_with_scope());
      const std::string key = run_signature_key(feeds, fetches, targets);
      auto it = cache_.find(key);
      if (it == cache_.end()) {
        CAFLOW_ASSIGN_OR_RETURN(auto prepared, prepare(feeds, fetches, targets));
        it = cache_.emplace(key, std::move(prepared)).first;
      }
      run = it->second.get();  // cached entries are never removed while the session lives
    }
    call_frame frame;
    frame.args.reserve(feeds.size());
    for (size_t i = 0; i < feeds.size(); ++i) {
      const tensor& t = feeds[i].second;
      CAFLOW_RETURN_IF_ERROR(run->contract.check_feed(i, feeds[i].first, t));
      frame.args.push_back(t);
    }
    frame.rets.resize(run->contract.num_fetches);
    cancellation_manager cancel;
    std::unique_ptr<trace_recorder> recorder;
    if (trace) {
      recorder = std::make_unique<trace_recorder>("local");
      recorder->set_enabled(true);
    }
    step_context step{next_step_.fetch_add(1, std::memory_order_relaxed), &frame, &cancel, nullptr,
                      recorder.get()};
    CAFLOW_RETURN_IF_ERROR(run->exec->run(step, opts_.operation_timeout));
    if (trace) *trace = recorder->collect();
    steps_.fetch_add(1, std::memory_order_relaxed);
    return std::move(frame.rets);
  }

  device& cpu() { return cpu_; }

  session_stats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return {steps_.load(), static_cast<int64_t>(cache_.size()), full_ ? full_->num_nodes() : 0,
            nodes_removed_, nodes_folded_, last_optimization_};
  }

 private:
  // Validates here first (errors come back before anything is sent), then, for a remote
  // target, sends the new nodes to the master.
  status extend_locked(const std::vector<node_def>& nodes) {
    graph_def def = full_ ? full_->def() : graph_def{};
    def.nodes.insert(def.nodes.end(), nodes.begin(), nodes.end());
    CAFLOW_ASSIGN_OR_RETURN(graph g, graph::build(std::move(def)));
    if (opts_.target != "local") {
      CAFLOW_RETURN_IF_ERROR(connect_locked());
      CAFLOW_RETURN_IF_ERROR(remote_->extend(graph_def{graph_def::current_version, nodes}));
    }
    full_ = std::make_shared<graph>(std::move(g));
    return {};
  }

  status connect_locked() {
    if (remote_) return {};
    session_config config{.cse = opts_.optimizer.cse,
                          .constant_folding = opts_.optimizer.constant_folding,
                          .max_constant_bytes = opts_.optimizer.max_constant_bytes,
                          .disabled_passes = {opts_.optimizer.disabled.begin(),
                                              opts_.optimizer.disabled.end()},
                          .allow_soft_placement = opts_.allow_soft_placement,
                          .log_device_placement = opts_.log_device_placement,
                          .required_tasks = opts_.required_tasks,
                          .device_filters = opts_.device_filters};
    CAFLOW_ASSIGN_OR_RETURN(remote_, remote_client::connect(opts_.target, opts_.connect_timeout,
                                                            opts_.operation_timeout.count() > 0
                                                                ? opts_.operation_timeout
                                                                : std::chrono::hours(24),
                                                            std::move(config), opts_.security,
                                                            opts_.busy_poll));
    return {};
  }

  status_or<std::unique_ptr<local_plan>> prepare(const named_feed_list& feeds,
                                                   const std::vector<std::string>& fetches,
                                                   const std::vector<std::string>& targets) {
    if (!full_) CAFLOW_RETURN_IF_ERROR(extend_locked({}));
    run_signature sig;
    for (const auto& f : feeds) sig.feeds.push_back(f.first);
    sig.fetches = fetches;
    sig.targets = targets;
    CAFLOW_ASSIGN_OR_RETURN(pruned_graph pruned, prune_for_run(*full_, sig));
    pass_context ctx;
    ctx.options = opts_.optimizer;
    ctx.protected_nodes = protected_nodes_for(pruned.def, sig);
    ctx.evaluate = [this](const graph_def& sub, const std::vector<std::string>& fetches) {
      return evaluate_once(sub, fetches);
    };
    CAFLOW_ASSIGN_OR_RETURN(std::vector<pass_stats> passes, optimizer().run(pruned.def, ctx));
    optimization_report report;
    report.add(passes);
    std::string placement;
    if (opts_.log_device_placement) {
      graph_def placed = pruned.def;
      for (node_def& n : placed.nodes) n.device = cpu_.name();
      placement = placement_table(placed);
    }
    note_prepared(report.nodes_removed, report.nodes_folded, report.summary, placement);
    // Shapes were inferred on the full graph; the pruned one only needs re-validation.
    CAFLOW_ASSIGN_OR_RETURN(graph g, graph::build(std::move(pruned.def), {.infer_shapes = false}));
    auto p = std::make_unique<local_plan>();
    CAFLOW_ASSIGN_OR_RETURN(p->exec, executor::create(std::make_shared<const graph>(std::move(g)), cpu_, &kernels_));
    p->contract = {std::move(pruned.feed_types), std::move(pruned.feed_shapes), fetches.size()};
    return p;
  }

  // Records what preparing a run signature did; prints the placement table when asked for.
  // Called with mu_ held.
  void note_prepared(int64_t removed, int64_t folded, const std::string& summary,
                     const std::string& placement) {
    nodes_removed_ += removed;
    nodes_folded_ += folded;
    if (!summary.empty()) last_optimization_ = summary;
    if (!placement.empty()) std::cerr << "caflow: device placement\n" << placement << std::flush;
  }

  // Constant folding's evaluator: runs a stateless subgraph once on the CPU, outside the kernel
  // cache and without taking the session's lock again.
  status_or<std::vector<tensor>> evaluate_once(const graph_def& sub,
                                               const std::vector<std::string>& fetches) {
    return evaluate_stateless(sub, fetches, cpu_, opts_.operation_timeout);
  }

  static const pass_pipeline& optimizer() {
    return runtime_pipeline();  // stateless, shared
  }

  std::optional<scope> scope_;
  session_options opts_;
  int64_t nodes_removed_ = 0;
  int64_t nodes_folded_ = 0;
  std::string last_optimization_;
  cpu_device cpu_;
  std::mutex mu_;
  std::shared_ptr<const graph> full_;
  kernel_cache kernels_;
  // A "local" session with GPUs runs through this one-task cluster (destroyed after remote_).
  std::unique_ptr<server> local_server_;
  status start_error_;
  std::unique_ptr<remote_client> remote_;
  size_t synced_nodes_ = 0;
  std::unordered_map<std::string, std::unique_ptr<local_plan>> cache_;
  std::atomic<int64_t> next_step_{1};
  std::atomic<int64_t> steps_{0};
};

session::session(const session_options& opts) : impl_(std::make_unique<impl>(std::nullopt, opts)) {}
session::session(const scope& s, const session_options& opts)
    : impl_(std::make_unique<impl>(s, opts)) {}
session::~session() = default;

status session::extend(const graph_def& more) { return impl_->extend(more); }

status_or<std::vector<tensor>> session::run(const feed_list& feeds,
                                            const std::vector<output>& fetches,
                                            const std::vector<operation>& targets) {
  return run(step_options{}, feeds, fetches, targets, nullptr);
}

status_or<std::vector<tensor>> session::run(const step_options& options, const feed_list& feeds,
                                            const std::vector<output>& fetches,
                                            const std::vector<operation>& targets,
                                            step_metadata* metadata) {
  named_feed_list named;
  named.reserve(feeds.size());
  for (const auto& [o, t] : feeds) {
    if (!o.valid()) return errors::invalid_argument("feed of an invalid output (from a failed op?)");
    named.emplace_back(o.name(), t);
  }
  std::vector<std::string> fetch_names;
  fetch_names.reserve(fetches.size());
  for (const auto& o : fetches) {
    if (!o.valid()) return errors::invalid_argument("fetch of an invalid output (from a failed op?)");
    fetch_names.push_back(o.name());
  }
  std::vector<std::string> target_names;
  for (const auto& op : targets) {
    if (!op.valid()) return errors::invalid_argument("target is an invalid operation (from a failed op?)");
    target_names.push_back(op.node);
  }
  std::vector<trace_event>* trace = options.trace && metadata ? &metadata->nodes : nullptr;
  if (metadata) metadata->nodes.clear();
  return impl_->run(named, fetch_names, target_names, trace);
}

status_or<std::vector<tensor>> session::run_named(const named_feed_list& feeds,
                                                  const std::vector<std::string>& fetches,
                                                  const std::vector<std::string>& targets) {
  return impl_->run(feeds, fetches, targets);
}

device& session::cpu() { return impl_->cpu(); }
session_stats session::stats() const { return impl_->stats(); }

status session::report_summaries(summary_report report) {
  return impl_->report_summaries(std::move(report));
}

}  // namespace caflow
