#include "apps/train/options.hpp"

#include <CLI/CLI.hpp>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

#include "apps/train/model_family.hpp"
#include "devices/device_factory.hpp"

namespace caflow::train_app {

const char* to_string(model_kind m) {
  switch (m) {
    case model_kind::mlp: return "mlp";
    case model_kind::cnn: return "cnn";
    case model_kind::rnn: return "rnn";
    case model_kind::wide_deep: return "wide-deep";
  }
  return "?";
}

const char* to_string(replication r) {
  switch (r) {
    case replication::local: return "local";
    case replication::in_graph: return "in-graph";
    case replication::async: return "async";
    case replication::sync: return "sync";
    case replication::model_parallel: return "model-parallel";
  }
  return "?";
}

double async_learning_rate(double rate, int workers) {
  return workers > 1 ? rate / std::sqrt(static_cast<double>(workers)) : rate;
}

namespace {

// A model's flag defaults as the flags that would set them.
std::string defaults_text(const model_defaults& d) {
  char text[200];
  std::snprintf(text, sizeof text,
                "--epochs %d --batch-size %d --optimizer %s --learning-rate %g "
                "--adagrad-initial-accumulator %g --ps-tasks %d",
                d.epochs, d.batch_size, d.optimizer.c_str(), d.learning_rate,
                d.adagrad_initial_accumulator, d.ps_tasks);
  return text;
}

}  // namespace

status parse_command_line(int argc, char** argv, train_options* o, bool* help,
                          std::string* help_text) {
  CLI::App app{
      "caflow-train: trains a model on Fashion-MNIST (or wide-deep on generated click data) with\n"
      "parameter servers and workers. Without --cluster it starts an embedded cluster (1 ps, or\n"
      "2 for wide-deep, and 2 workers) in this process."};
  const std::map<std::string, model_kind> models{{"mlp", model_kind::mlp},
                                                 {"cnn", model_kind::cnn},
                                                 {"rnn", model_kind::rnn},
                                                 {"wide-deep", model_kind::wide_deep}};
  const std::map<std::string, replication> modes{{"local", replication::local},
                                                 {"in-graph", replication::in_graph},
                                                 {"async", replication::async},
                                                 {"sync", replication::sync},
                                                 {"model-parallel", replication::model_parallel}};
  // Every option's help shows its default; the enums show their names, not CLI11's mapping.
  app.option_defaults()->always_capture_default();
  app.add_option("--model", o->model,
                 "mlp (256-128-100), cnn (TF's convnet.py), rnn (an LSTM of 128 units over the "
                 "28 rows of an image, built with while_loop) or wide-deep (click-through "
                 "model: hashed embedding tables partitioned over the ps tasks, a dense tower "
                 "and a linear part, on generated data; its defaults: " +
                     defaults_text(model_family_for(model_kind::wide_deep).defaults()) + ")")
      ->transform(CLI::CheckedTransformer(models, CLI::ignore_case).description(""))
      ->type_name("mlp|cnn|rnn|wide-deep")
      ->default_str(to_string(o->model));
  app.add_option("--mode", o->mode, "local, in-graph, async, sync (between-graph) or model-parallel")
      ->transform(CLI::CheckedTransformer(modes, CLI::ignore_case).description(""))
      ->type_name("local|in-graph|async|sync|model-parallel")
      ->default_str(to_string(o->mode));
  app.add_option("--epochs", o->epochs, "passes over the training set")->check(CLI::Range(1, 10000));
  app.add_option("--batch-size", o->batch_size, "examples per step and worker")
      ->check(CLI::Range(1, 60000));
  app.add_option("--learning-rate", o->learning_rate)->check(CLI::PositiveNumber);
  app.add_option("--optimizer", o->optimizer)
      ->check(CLI::IsMember({"adam", "sgd", "momentum", "adagrad", "rmsprop"}));
  app.add_option("--adagrad-initial-accumulator", o->adagrad_initial_accumulator,
                 "adagrad: the accumulators' start (TF's 0.1; wide-deep's default 0.001)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--dense-gradients", o->dense_gradients,
               "make every sparse gradient (an embedding table's rows) dense before applying "
               "it, as without IndexedSlices: for comparison");
  app.add_option("--data-dir", o->data_dir, "directory of the gzip IDX files");
  app.add_option("--train-limit", o->train_limit, "train on the first N examples only")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--test-limit", o->test_limit, "evaluate on the first N test examples only")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--replicas-to-aggregate", o->replicas_to_aggregate,
                 "sync: gradients averaged per update (default: all workers)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--total-replicas", o->total_replicas,
                 "sync: workers producing gradients; above --replicas-to-aggregate the extra "
                 "ones are backups whose late gradients are dropped")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--seed", o->seed);
  app.add_option("--threads", o->threads, "intra-op threads per task (0: all cores)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_flag("!--no-progress", o->progress,
               "one line per epoch only (default: a live line on a terminal, else a line every "
               "~10% of an epoch)");
  app.add_option("--checkpoint-dir", o->checkpoint_dir,
                 "the chief saves checkpoints here and, when it holds one, resumes from it");
  app.add_option("--checkpoint-every", o->checkpoint_every,
                 "steps between checkpoints (0: only at the end)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--keep-checkpoints", o->keep_checkpoints, "newest checkpoints kept")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--max-recoveries", o->max_recoveries,
                 "with --checkpoint-dir: times a client starts over from the newest checkpoint "
                 "after losing a task")
      ->check(CLI::Range(0, 1000));
  app.add_option("--recovery-timeout", o->recovery_timeout,
                 "seconds a recovering client waits for a lost task to be back")
      ->check(CLI::Range(1, 86400));
  app.add_option("--step-timeout", o->step_timeout,
                 "seconds a training step may run before it fails naming the tasks it waits "
                 "for (a hung peer); with --checkpoint-dir the client then recovers")
      ->check(CLI::Range(1, 86400));
  // Test-only fault injection: no group, so --help does not list them.
  app.add_option("--debug-stall-ps-at-step", o->debug_stall_ps_at_step)->group("");
  app.add_flag("--debug-stall-ps-on-signal", o->debug_stall_ps_on_signal)->group("");
  app.add_option("--debug-stall-seconds", o->debug_stall_seconds)->group("")->check(CLI::Range(0.0, 86400.0));
  app.add_option("--checkpoint-format", o->checkpoint_format,
                 "caflow (default), or tf: each checkpoint also as TensorFlow's model.ckpt-N "
                 "bundle and checkpoint file, which tf.train.Saver restores")
      ->check(CLI::IsMember({"caflow", "tf"}));
  app.add_option("--logdir", o->logdir,
                 "DIR: the chief writes TensorBoard events there (graph, loss, accuracy, "
                 "learning rate, rates, variable histograms, test accuracy): tensorboard --logdir DIR");
  app.add_option("--summary-every", o->summary_every, "with --logdir: steps between scalars")
      ->check(CLI::Range(1, 1 << 30));
  app.add_option("--histogram-every", o->histogram_every,
                 "with --logdir: steps between variable histograms (0: none)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--trace-every", o->trace_every,
                 "with --logdir: steps between traced steps, whose run metadata (time per node and "
                 "device) TensorBoard's graph tab shows (0: none)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--plot", o->plot,
                 "FILE.png: the loss and accuracy curves (gnuplot), their data in FILE.csv; "
                 "evaluates the test set after every epoch");
  app.add_option("--cluster", o->cluster,
                 "an external cluster: JSON, ps=h:p;worker=h:p,h:p or @FILE");
  app.add_option("--job", o->job, "with --cluster: the job of the task this process serves");
  app.add_option("--task", o->task, "with --cluster: its index")->check(CLI::NonNegativeNumber);
  app.add_option("--workers", o->workers, "embedded cluster: number of workers")
      ->check(CLI::Range(1, 16));
  app.add_option("--ps-tasks", o->ps_tasks, "embedded cluster: number of ps tasks")
      ->check(CLI::Range(1, 16));
  auto& wd = o->wide_deep;
  app.add_option("--wd-columns", wd.columns, "wide-deep: categorical feature columns")
      ->check(CLI::Range(1, 64));
  app.add_option("--wd-rows", wd.rows, "wide-deep: hash buckets (embedding rows) per column")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--wd-dim", wd.dim, "wide-deep: embedding width")->check(CLI::Range(1, 4096));
  app.add_option("--wd-hidden", wd.hidden, "wide-deep: units of the deep tower's hidden layer")
      ->check(CLI::Range(1, 65536));
  app.add_option("--wd-vocab", wd.vocab, "wide-deep data: distinct values per column")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 32));
  app.add_option("--wd-zipf", wd.zipf, "wide-deep data: Zipf exponent of the values' popularity")
      ->check(CLI::PositiveNumber);
  app.add_option("--wd-train-examples", wd.train_examples, "wide-deep data: training examples")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 34));
  app.add_option("--wd-test-examples", wd.test_examples, "wide-deep data: test examples")
      ->check(CLI::Range(int64_t{2}, int64_t{1} << 34));
  app.add_flag("--task-processes", o->task_processes,
               "embedded cluster: run its tasks as caflow-server processes, restarting lost ones");
  app.add_option("--max-task-restarts", o->max_task_restarts,
                 "with --task-processes: restarts per lost task")
      ->check(CLI::Range(0, 1000));
  app.add_option("--tls-cert", o->security.cert,
                 "PEM certificate: all connections use TLS with mutual authentication "
                 "(needs --tls-key and --tls-ca)");
  app.add_option("--tls-key", o->security.key, "PEM private key of --tls-cert");
  app.add_option("--tls-ca", o->security.ca, "PEM CA that signed every task's certificate");
  app.add_option("--device", o->device,
                 "where the towers run: auto (a GPU when one is visible), gpu or cpu");
  app.add_option("--gpus-per-worker", o->gpus_per_worker,
                 "towers per worker, one per GPU; their gradients are averaged on the worker's "
                 "GPU:0 before its one update of the ps")
      ->check(CLI::Range(1, 64));
  app.add_option_function<std::string>(
      "--gpu-virtual-devices",
      [o](const std::string& spec) {
        auto mb = parse_virtual_devices(spec);
        if (!mb.ok()) throw CLI::ValidationError("--gpu-virtual-devices", mb.get_status().message());
        o->gpu.virtual_device_memory_mb = std::move(mb).value();
      },
      "each GPU as logical GPUs of their own memory and streams, e.g. 2x4096 (MB) or 4096,2048");
  app.add_option("--gpu-memory-fraction", o->gpu.per_process_gpu_memory_fraction,
                 "share of each GPU a task may hold (0: all free less 5%)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_flag("--gpu-allow-growth", o->gpu.allow_growth,
               "take GPU memory as needed instead of the whole share at once");
  app.add_option("--gpu-graphs", o->gpu.capture_graphs,
                 "replay steps whose shapes repeat as CUDA graphs (1, the default) or launch "
                 "each kernel (0)");
  app.add_option("--gpu-visible-devices", o->gpu.visible_device_list,
                 "which GPUs (after CUDA_VISIBLE_DEVICES), in order, e.g. 1,0");
  app.add_flag("--insecure", o->insecure,
               "serve a --job task in plaintext although anyone who reaches its port could run "
               "graphs (without it: TLS, or a secret --cluster-id with every task on this host)");
  app.add_option("--same-host-transports", o->same_host_transports,
                 "a --job task reaches tasks on this host through shared memory (1, the "
                 "default) or only over TCP, as another host's (0)")
      ->check(CLI::IsMember({"0", "1"}));
  CLI::Option* cluster_id = app.add_option(
      "--cluster-id", o->security.cluster_id,
      "processes with another id cannot connect (default: caflow; an embedded cluster: a fresh "
      "random id per run)");
  try {
    app.parse(argc, argv);
    o->cluster_id_given = cluster_id->count() > 0;
  } catch (const CLI::CallForHelp&) {
    *help = true;
    *help_text = app.help();
    return {};
  } catch (const CLI::ParseError& e) {
    return errors::invalid_argument(e.what());
  }
  CAFLOW_RETURN_IF_ERROR(validate(o->security));
  // The model's defaults for what the command line left out.
  const model_family& family = model_family_for(o->model);
  const model_defaults defaults = family.defaults();
  if (app.count("--epochs") == 0) o->epochs = defaults.epochs;
  if (app.count("--batch-size") == 0) o->batch_size = defaults.batch_size;
  o->learning_rate_given = app.count("--learning-rate") > 0;
  if (!o->learning_rate_given) o->learning_rate = defaults.learning_rate;
  if (app.count("--optimizer") == 0) o->optimizer = defaults.optimizer;
  if (app.count("--ps-tasks") == 0) o->ps_tasks = defaults.ps_tasks;
  if (app.count("--adagrad-initial-accumulator") == 0)
    o->adagrad_initial_accumulator = defaults.adagrad_initial_accumulator;
  CAFLOW_RETURN_IF_ERROR(family.check(*o));
  if (o->checkpoint_every > 0 && o->checkpoint_dir.empty())
    return errors::invalid_argument("--checkpoint-every needs --checkpoint-dir");
  if (o->task_processes && !o->cluster.empty())
    return errors::invalid_argument("--task-processes is for the embedded cluster, not --cluster");
  if (!o->job.empty() && o->cluster.empty())
    return errors::invalid_argument("--job needs --cluster");
  if (!o->job.empty() && o->job != "ps" && o->job != "worker")
    return errors::invalid_argument("--job must be ps or worker, got '", o->job, "'");
  if (o->gpus_per_worker > 1 &&
      (o->mode == replication::local || o->mode == replication::model_parallel))
    return errors::invalid_argument("--gpus-per-worker ", o->gpus_per_worker, " is for the ",
                                    "replicated modes (in-graph, sync, async), not ",
                                    to_string(o->mode));
  CAFLOW_RETURN_IF_ERROR(
      parse_visible_device_list(o->gpu.visible_device_list, static_cast<int>(local_gpus().gpus.size()))
          .get_status()
          .with_context("--gpu-visible-devices"));
  CAFLOW_RETURN_IF_ERROR(tower_device_type(*o).get_status());
  return {};
}

namespace {

status_or<std::string> named_device_type(const train_options& o) {
  if (o.device == "cpu") return std::string(device_cpu);
  const gpu_enumeration& gpus = local_gpus();
  if (o.device == "auto") return std::string(gpus.gpus.empty() ? device_cpu : device_gpu);
  if (o.device == "gpu") {
    if (gpus.gpus.empty()) return errors::failed_precondition("--device gpu, but ", gpus.why_none);
    return std::string(device_gpu);
  }
  // Any other type the build registers, by its name in either case.
  std::string type = o.device;
  for (char& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (!device_registry::global().find(type)) {
    std::string known;
    for (const auto& t : device_registry::global().types()) {
      std::string lower = t;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      known += (known.empty() ? "" : ", ") + lower;
    }
    return errors::invalid_argument("--device '", o.device, "': no such device type (auto, ",
                                    known, ")");
  }
  return type;
}

}  // namespace

status_or<std::string> tower_device_type(const train_options& o) {
  CAFLOW_ASSIGN_OR_RETURN(std::string type, named_device_type(o));
  if (o.gpus_per_worker > 1) {
    if (type == device_cpu)
      return errors::invalid_argument("--gpus-per-worker ", o.gpus_per_worker,
                                      ": the towers run on the CPU, which is one device");
    device_options opts;
    opts.gpu = o.gpu;
    const device_factory* f = device_registry::global().find(type);
    const int have = f ? f->count(opts) : 0;
    if (have < o.gpus_per_worker)
      return errors::invalid_argument("--gpus-per-worker ", o.gpus_per_worker, ", but a worker has ",
                                      have, " ", type, " device", have == 1 ? "" : "s",
                                      " (--gpu-virtual-devices splits one)");
  }
  return type;
}

}  // namespace caflow::train_app
