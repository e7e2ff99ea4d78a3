// caflow-train: trains the MLP, CNN or LSTM on Fashion-MNIST, or the wide-deep click-through
// model on generated data, with parameter servers and workers.
//
//   caflow-train                         embedded cluster (1 ps, 2 workers in this process),
//                                        MLP, synchronous replicas, then the test accuracy
//   caflow-train --model cnn --mode async --epochs 3
//   caflow-train --mode local            no cluster
//
// On a real cluster every task runs this binary with the same --cluster:
//   caflow-train --cluster SPEC --job ps --task 0              serves until SIGINT/SIGTERM
//   caflow-train --cluster SPEC --job worker --task I --mode sync|async
//                                        serves task I and drives its replica (between-graph)
//   caflow-train --cluster SPEC --mode in-graph                a client only: one tower per
//                                        worker, the tasks being caflow-server processes
#include <csignal>
#include <cstdio>
#include <random>

#include "apps/train/checkpoint_dir.hpp"
#include "apps/train/data.hpp"
#include "apps/train/embedded_cluster.hpp"
#include "apps/train/model_family.hpp"
#include "apps/train/plot.hpp"
#include "apps/train/run_modes.hpp"
#include "apps/train/stall_signal.hpp"
#include "apps/train/trainer.hpp"
#include "net/security/plaintext_policy.hpp"

using namespace caflow;
using namespace caflow::train_app;

namespace {

server* g_serving = nullptr;  // the task a signal stops (signal handlers take no arguments)

extern "C" void on_signal(int) {
  if (g_serving) g_serving->stop();
}

int fail(const status& st) {
  std::fprintf(stderr, "caflow-train: %s\n", st.to_string().c_str());
  return 1;
}

// The run's rate is every worker's (from the global step); with a client per worker (between-
// graph replication) this client's own share is printed beside it.
void report(const train_options& o, const client_result& r, int workers,
            double reference_auc) {
  const double global = r.global_samples_per_second > 0 ? r.global_samples_per_second
                                                        : r.samples_per_second;
  char rate[96];
  const bool client_per_worker = o.mode == replication::async || o.mode == replication::sync;
  if (workers > 1 && client_per_worker)
    std::snprintf(rate, sizeof rate, "%.0f samples/s over all %d workers, %.0f by this client",
                  global, workers, r.samples_per_second);
  else
    std::snprintf(rate, sizeof rate, "%.0f samples/s", global);
  // A binary classifier's AUC beside the accuracy, and the AUC of the model that generated the
  // data (the best reachable) where it is known.
  std::string auc;
  if (r.test_auc >= 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, ", test AUC: %.4f", r.test_auc);
    auc = buf;
    if (reference_auc >= 0) {
      std::snprintf(buf, sizeof buf, " (planted model's AUC: %.4f, gap %.4f)", reference_auc,
                    reference_auc - r.test_auc);
      auc += buf;
    }
  }
  std::printf("test accuracy: %.4f%s (model %s, mode %s, %d worker%s, %d epoch%s, batch %d, "
              "%.1f s, %s)\n",
              r.test_accuracy, auc.c_str(), to_string(o.model), to_string(o.mode), workers,
              workers == 1 ? "" : "s", o.epochs, o.epochs == 1 ? "" : "s", o.batch_size,
              r.seconds, rate);
}

// --plot: the CSV always, the PNG when gnuplot was found (else its error, after the CSV).
int write_plot(const train_options& o, const client_result& r,
               const status_or<std::string>& gnuplot) {
  const std::string csv = csv_path_for(o.plot);
  if (status st = write_history_csv(r.history, csv); !st.ok()) return fail(st);
  std::printf("caflow-train: wrote %s\n", csv.c_str());
  if (!gnuplot.ok()) return fail(gnuplot.get_status());
  if (status st = plot_history(r.history, *gnuplot, o.plot); !st.ok()) return fail(st);
  std::printf("caflow-train: wrote %s\n", o.plot.c_str());
  return 0;
}

// 128 random bits from the system's entropy source, as hex.
std::string random_cluster_id() {
  std::random_device entropy;
  std::string id = "caflow-";
  for (int i = 0; i < 4; ++i) {
    char part[9];
    std::snprintf(part, sizeof part, "%08x", static_cast<unsigned>(entropy()));
    id += part;
  }
  return id;
}

// The tasks this process starts may read and write files only in the run's checkpoint
// directory (none without one).
std::vector<std::string> checkpoint_roots(const train_options& o) {
  if (o.checkpoint_dir.empty()) return {};
  return {o.checkpoint_dir};
}

int serve(server& srv) {
  g_serving = &srv;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::printf("caflow-train: %s serving at %s\n", srv.task_name().c_str(), srv.target().c_str());
  std::fflush(stdout);
  srv.wait();
  g_serving = nullptr;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  train_options o;
  bool help = false;
  std::string help_text;
  if (status st = parse_command_line(argc, argv, &o, &help, &help_text); !st.ok()) return fail(st);
  if (o.debug_stall_ps_on_signal) install_stall_signal();
  if (help) {
    std::printf("%s", help_text.c_str());
    return 0;
  }
  // Every process given the directory uses it (the chief's client writes the index, tasks that
  // hold variables their shards): checked before any serves or trains.
  if (!o.checkpoint_dir.empty())
    if (status st = prepare_checkpoint_dir(o.checkpoint_dir); !st.ok()) return fail(st);
  cpu_device_options cpu;
  if (o.threads > 0) cpu.intra_op_threads = o.threads;
  // Checked before training, so a missing gnuplot is known before hours are spent.
  status_or<std::string> gnuplot = errors::internal("no --plot");
  if (!o.plot.empty()) {
    gnuplot = find_gnuplot();
    if (!gnuplot.ok())
      std::fprintf(stderr, "caflow-train: %s; training anyway, %s will be written but no PNG\n",
                   gnuplot.get_status().message().c_str(), csv_path_for(o.plot).c_str());
  }

  // A task of an external cluster.
  std::unique_ptr<server> own;
  cluster_spec spec;
  if (!o.cluster.empty()) {
    auto parsed = cluster_spec::from_flag(o.cluster);
    if (!parsed.ok()) return fail(parsed.get_status());
    spec = *parsed;
    if (!o.job.empty()) {
      if (status st = check_plaintext_allowed(spec, o.security, o.insecure); !st.ok())
        return fail(st);
      if (o.insecure && !o.security.tls())
        std::fprintf(stderr, "caflow-train: %s\n", insecure_warning);
      auto type = tower_device_type(o);
      const bool gpus = o.job == "worker" && type.ok() && *type == device_gpu;
      auto srv = server::start({.cluster = spec,
                                .job = o.job,
                                .task = o.task,
                                .cpu = cpu,
                                .gpu = o.gpu,
                                .device_count = {{device_gpu, gpus ? o.gpus_per_worker : 0}},
                                .step_timeout = std::chrono::seconds(o.step_timeout),
                                .security = o.security,
                                .shm_segment_bytes = o.same_host_transports
                                                         ? server_options{}.shm_segment_bytes
                                                         : 0,
                                .same_host_rings = o.same_host_transports,
                                .file_roots = checkpoint_roots(o)});
      if (!srv.ok()) return fail(srv.get_status());
      own = std::move(*srv);
      const bool drives = o.job == "worker" && (o.mode == replication::sync ||
                                                o.mode == replication::async ||
                                                (o.job == "worker" && o.task == 0 &&
                                                 (o.mode == replication::in_graph ||
                                                  o.mode == replication::model_parallel)));
      if (!drives) return serve(*own);
    }
  }

  auto data = model_family_for(o.model).load_data(o);
  if (!data.ok()) return fail(data.get_status());
  std::printf("caflow-train: %s\n", data->description.c_str());

  {
    const std::string type = *tower_device_type(o);
    std::string where = "the CPU";
    if (type != device_cpu) {
      where = type + ":0";
      if (o.gpus_per_worker > 1)
        where += " to " + type + ":" + std::to_string(o.gpus_per_worker - 1) + ", one each";
      if (type == device_gpu) where += " (" + local_gpus().gpus.front().name + ")";
    }
    std::printf("caflow-train: towers run on %s\n", where.c_str());
  }
  status_or<client_result> result = errors::internal("no mode ran");
  int workers = 1;
  // Async replicas' default rate shrinks with their number (async_learning_rate).
  const auto scale_async_rate = [&o](int replicas) {
    if (o.mode != replication::async || o.learning_rate_given || replicas < 2) return;
    const double given = o.learning_rate;
    o.learning_rate = async_learning_rate(given, replicas);
    std::printf("caflow-train: async over %d workers: learning rate %g (%g / sqrt(%d); "
                "--learning-rate sets it as given)\n",
                replicas, o.learning_rate, given, replicas);
  };
  if (o.mode == replication::local) {
    auto graph = build_client_graph(o, {});
    if (!graph.ok()) return fail(graph.get_status());
    result = run_client(o, {}, **graph, "local", {data->train}, data->test, true);
  } else if (o.cluster.empty()) {
    workers = o.workers;
    scale_async_rate(workers);
    // A per-run secret: no other process on the host can join or drive the embedded cluster
    // (loopback cannot be read without root, so the id need not be encrypted there).
    if (!o.cluster_id_given) o.security.cluster_id = random_cluster_id();
    std::printf("caflow-train: starting an embedded cluster: %d ps, %d workers%s, cluster id %s\n",
                o.ps_tasks, workers, o.task_processes ? " (caflow-server processes)" : "",
                o.security.cluster_id.c_str());
    auto cluster = embedded_cluster::start({.ps_tasks = o.ps_tasks,
                                            .worker_tasks = workers,
                                            .cpu = cpu,
                                            .use_gpus = *tower_device_type(o) == device_gpu,
                                            .gpus_per_worker = o.gpus_per_worker,
                                            .gpu = o.gpu,
                                            .security = o.security,
                                            .file_roots = checkpoint_roots(o),
                                            .processes = o.task_processes,
                                            .max_restarts = o.max_task_restarts,
                                            .step_timeout = std::chrono::seconds(o.step_timeout)});
    if (!cluster.ok()) return fail(cluster.get_status());
    const client_plan plan{.mode = o.mode, .ps_tasks = o.ps_tasks, .workers = workers};
    if (o.mode == replication::in_graph || o.mode == replication::model_parallel) {
      result = run_in_graph(o, plan, (*cluster)->worker_target(0), *data);
    } else {
      std::vector<std::string> targets;
      for (int w = 0; w < workers; ++w) targets.push_back((*cluster)->worker_target(w));
      result = run_replicas(o, plan, targets, *data);
    }
  } else {
    workers = spec.num_tasks("worker");
    scale_async_rate(workers);
    const client_plan plan{.mode = o.mode,
                           .ps_tasks = spec.num_tasks("ps"),
                           .workers = workers,
                           .worker_index = o.job.empty() ? 0 : o.task};
    if (o.mode == replication::in_graph || o.mode == replication::model_parallel) {
      auto address = spec.task_address("worker", 0);
      if (!address.ok()) return fail(address.get_status());
      result = run_in_graph(o, plan, own ? own->target() : "caflow://" + *address, *data);
    } else if (!own) {
      return fail(errors::invalid_argument("mode ", to_string(o.mode),
                                           " runs one client per worker: give --job worker "
                                           "--task I"));
    } else {
      auto graph = build_client_graph(o, plan);
      if (!graph.ok()) return fail(graph.get_status());
      result = run_client(o, plan, **graph, own->target(),
                          data->worker_shards(o.task, workers, o.gpus_per_worker), data->test,
                          plan.is_chief());
    }
  }
  if (!result.ok()) return fail(result.get_status());
  if (result->test_accuracy < 0) return 0;  // not the chief
  report(o, *result, workers, data->reference_auc);
  return o.plot.empty() ? 0 : write_plot(o, *result, gnuplot);
}
