#pragma once
// What caflow-train is asked to do, from its command line.
#include <cstdint>
#include <string>

#include "graph/core/status.hpp"
#include "devices/gpu_devices.hpp"
#include "net/security/transport_security.hpp"

namespace caflow::train_app {

enum class model_kind { mlp, cnn, rnn, wide_deep };

enum class replication {
  local,        // one process, no cluster
  in_graph,     // one client, one tower per worker, averaged gradients
  async,        // between-graph: a client per worker, each applies its own gradients
  sync,         // between-graph with a SyncReplicasOptimizer-style aggregation by the chief
  model_parallel,  // one client, one model whose layers are spread over the workers
};

// --model wide-deep: the click-through model and its generated data (ctr_data.hpp,
// wide_deep_model.hpp).
struct wide_deep_flags {
  int columns = 4;          // categorical feature columns, one embedding table each
  int64_t rows = 1000000;   // hash buckets (table rows) per column
  int dim = 32;             // embedding width
  int hidden = 64;          // units of the deep tower's hidden layer
  int64_t vocab = 10000;    // distinct raw values per column before hashing
  double zipf = 1.5;        // Zipf exponent of the values' popularity
  int64_t train_examples = 400000;
  int64_t test_examples = 50000;
};

struct train_options {
  model_kind model = model_kind::mlp;
  replication mode = replication::sync;
  int epochs = 20;
  int batch_size = 100;  // per worker (per tower in in-graph mode)
  double learning_rate = 0.001;
  std::string optimizer = "adam";  // adam | sgd | momentum | adagrad | rmsprop
  double adagrad_initial_accumulator = 0.1;  // TF's default
  // Every sparse gradient (an embedding table's IndexedSlices) made dense before it is
  // applied: for comparing what sparse updates buy.
  bool dense_gradients = false;
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  int64_t train_limit = 0;  // 0: the whole training set, else its first N examples
  int64_t test_limit = 0;   // 0: the whole test set
  int replicas_to_aggregate = 0;  // sync: 0 means every worker
  int total_replicas = 0;         // sync: 0 means the number of workers; more: backup workers
  uint64_t seed = 1;
  int threads = 0;  // intra-op threads per task; 0: the machine's cores
  bool progress = true;
  // Checkpoints (the chief's): every `checkpoint_every` of its steps and at the end, into
  // `checkpoint_dir`, keeping the newest `keep_checkpoints`. On start the chief restores the
  // newest usable one there and training resumes from its global step.
  std::string checkpoint_dir;
  int64_t checkpoint_every = 0;  // 0: only at the end
  int keep_checkpoints = 5;
  // With checkpoints, a client that loses a task (a ps or worker that died or restarted) starts
  // over from the newest checkpoint, at most `max_recoveries` times, each time trying for up to
  // `recovery_timeout` seconds for the task to be back.
  int max_recoveries = 3;
  int recovery_timeout = 60;
  // A training step still running after this many seconds fails, naming the tasks it waits
  // for (a hung peer); with checkpoints the client then starts over like after a lost task.
  // Every server the run starts uses it too. A step never waits forever.
  int step_timeout = 60;
  // Fault injection for tests: at this client step (once per process), the step also runs a
  // kernel on the first ps task that stalls `debug_stall_seconds` without honouring
  // cancellation, as a hung kernel would. -1: never.
  int64_t debug_stall_ps_at_step = -1;
  // The same stall at the step after each SIGUSR1 (apps/train/stall_signal.hpp).
  bool debug_stall_ps_on_signal = false;
  double debug_stall_seconds = 30;
  // The chief's loss and accuracy curves as a PNG (through gnuplot), with their data beside it
  // as CSV; the chief then also evaluates the test set after every epoch.
  std::string plot;
  // The chief's TensorBoard event file goes to this directory (training_summaries.hpp); the
  // chief then also evaluates the test set after every epoch. "" writes none.
  std::string logdir;
  // "tf": each checkpoint also as TensorFlow's files (apps/train/tf_checkpoint.hpp).
  std::string checkpoint_format = "caflow";
  int summary_every = 10;     // steps between scalar summaries
  int histogram_every = 100;  // steps between variable histograms; 0: none
  int trace_every = 500;      // steps between traced steps (run metadata); 0: none
  // Cluster: empty runs an embedded one (1 ps, `workers` workers) in this process.
  std::string cluster;
  std::string job;  // with --cluster: the task this process serves ("" for a client only)
  int task = 0;
  int workers = 2;  // embedded cluster size
  int ps_tasks = 1;  // embedded cluster: its ps tasks (default: the model's, 2 for wide-deep)
  // Embedded cluster: its tasks as caflow-server processes instead of servers in this process;
  // a task process that dies is restarted at most `max_task_restarts` times.
  bool task_processes = false;
  int max_task_restarts = 3;
  // TLS and cluster id of every task this process serves and every session it opens.
  transport_security security;
  // Whether --cluster-id was given; without it an embedded cluster gets a fresh random id, a
  // per-run secret that keeps other processes on the host out of it.
  bool cluster_id_given = false;
  // Whether --learning-rate was given: async replicas scale the model's default one
  // (async_learning_rate), never a rate the user chose.
  bool learning_rate_given = false;
  // Serve a hand-started task (--job) in plaintext with the well-known cluster id, or across
  // hosts without TLS (net/security/plaintext_policy.hpp): refused unless given.
  bool insecure = false;
  // A --job task reaches tasks on this host through shared memory (message rings and tensor
  // segments); false: every byte over TCP as to another host, e.g. for tasks in network
  // namespaces of their own whose links are shaped or cut.
  bool same_host_transports = true;
  // Where the towers run: "gpu" (the workers' GPU:0; nodes without a GPU kernel go to the CPU
  // of the same task), "cpu", or "auto" (the GPU whenever one is visible, as in TF). Variables
  // stay on the ps tasks' CPUs, which make no GPU devices.
  std::string device = "auto";
  // Towers per worker, one on each of its devices of the tower type (TF's multi-tower pattern):
  // their gradients are averaged on the worker's first device, and one update per step goes
  // to the ps. Each tower takes --batch-size examples.
  int gpus_per_worker = 1;
  gpu_options gpu;
  wide_deep_flags wide_deep;
};

// The learning rate `workers` asynchronous replicas use by default: `rate` / sqrt(workers).
// Each applies gradients computed from variables up to workers - 1 updates old, so the rate
// tuned for one replica overshoots. Measured (MLP, Fashion-MNIST, Adam, 20 epochs, test
// accuracy at 0.001 against at this rate): 4 workers 0.870 / 0.895, 8 workers 0.885 / 0.896,
// 16 workers 0.874 / 0.885; 1 worker 0.890.
double async_learning_rate(double rate, int workers);

// The device type the towers use: "GPU", "CPU", or another registered type named by --device
// (a test device). Errors: --device gpu with no GPU visible, a type this build lacks, or
// --gpus-per-worker on the CPU.
status_or<std::string> tower_device_type(const train_options& o);

const char* to_string(model_kind m);
const char* to_string(replication r);

// Parses argv; `help` is set (and OK returned) for --help. Errors name the flag and value.
status parse_command_line(int argc, char** argv, train_options* opts, bool* help,
                          std::string* help_text);

}  // namespace caflow::train_app
