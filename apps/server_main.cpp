// caflow-server: runs one task of a cluster until SIGINT or SIGTERM.
//
//   caflow-server --cluster 'ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224'
//                 --job worker --task 1        (one command line)
//
// --cluster takes JSON ({"ps": ["host:port"], ...}), the compact form above, or @FILE; without
// it, TF_CONFIG ({"cluster": {...}, "task": {"type": "worker", "index": 1}}) is read.
// Prints "caflow-server: <task> serving at caflow://host:port" once every peer is reachable.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "graph/core/log.hpp"
#include "actors/server/server.hpp"
#include "net/device_filters.hpp"
#include "net/security/plaintext_policy.hpp"

using namespace caflow;

namespace {

int usage(const char* why) {
  std::fprintf(stderr,
               "caflow-server: %s\n"
               "usage: caflow-server --cluster SPEC --job NAME --task INDEX\n"
               "       [--intra-op-threads N] [--inter-op-threads N]\n"
               "       [--peer-wait-ms MS]   (default 30000: how long a new session waits for a\n"
               "                              task it needs that does not serve yet)\n"
               "       [--device-filters LIST]   (e.g. /job:ps,/job:worker/task:1: the only tasks\n"
               "                                  this one connects to; default: all)\n"
               "       [--startup-timeout-ms MS]   (default 60000: a task not serving by then exits 1\n"
               "                                    naming what it waited for)\n"
               "       [--step-timeout-ms MS]   (default 60000: a step this task's master runs is\n"
               "                                 failed past it, naming the tasks it waits for)\n"
               "       [--actor-threads N]   (default 0: actors on the network thread)\n"
               "       [--busy-poll-us US]   (default 200: the network thread polls that long after\n"
               "                              its actors last ran, instead of sleeping; 0: off)\n"
               "       [--checkpoint-root DIR]   (repeatable; SaveV2/RestoreV2 only below these;\n"
               "                                  default: none, every file op is refused)\n"
               "       [--cpu-memory-limit-mb N]   (default 0: unlimited; the CPU device's budget)\n"
               "       [--shm-segment-mb N]   (default 256: shared memory per receiving task on\n"
               "                               this host, address space only; 0: TCP only)\n"
               "       [--shm-variables 0|1]   (default 0: variables read by tasks on this host\n"
               "                                are copied into the segment per step; 1: they live\n"
               "                                there and cross with no copy)\n"
               "       [--same-host-rings 0|1]   (default 1: messages to tasks on this host go\n"
               "                                   through shared memory rings; 0: TCP)\n"
               "       [--num-gpus N]   (default: every GPU this process sees; 0: none)\n"
               "       [--gpu-visible-devices LIST]   (e.g. 1,0: which of them, in order; after\n"
               "                                       CUDA_VISIBLE_DEVICES)\n"
               "       [--gpu-memory-fraction F]   (0 < F <= 1 of each GPU; default: all free less 5%%)\n"
               "       [--gpu-virtual-devices NxMB[,MB...]]   (e.g. 2x4096: each GPU as two\n"
               "                                logical GPUs of 4096 MB, streams of their own)\n"
               "       [--gpu-allow-growth 0|1]   (default 0: the whole share at the first allocation)\n"
               "       [--gpu-graphs 0|1]   (default 1: steps whose shapes repeat replay as CUDA graphs)\n"
               "       [--log-level error|warn|info|debug]   (default: CAFLOW_LOG_LEVEL, else warn)\n"
               "       [--tls-cert PEM --tls-key PEM --tls-ca PEM]   (mutual TLS, all three)\n"
               "       [--cluster-id ID]   (default: caflow; peers and clients must match)\n"
               "       [--insecure]   (plaintext without TLS is refused unless every task is on\n"
               "                      loopback with a secret --cluster-id, or this is given)\n",
               why);
  return 2;
}

status_or<int> parse_int(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0 || v > 1 << 20)
    return errors::invalid_argument(flag, " takes a non-negative integer, got '", text, "'");
  return static_cast<int>(v);
}

status_or<server_options> parse(int argc, char** argv, std::string* log_level, bool* insecure,
                                std::chrono::milliseconds* startup_timeout) {
  server_options opts;
  std::string cluster;
  bool have_task = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--insecure") {
      *insecure = true;
      continue;
    }
    if (i + 1 >= argc) return errors::invalid_argument("flag ", flag, " needs a value");
    const std::string value = argv[++i];
    if (flag == "--cluster") {
      cluster = value;
    } else if (flag == "--job") {
      opts.job = value;
    } else if (flag == "--task") {
      CAFLOW_ASSIGN_OR_RETURN(opts.task, parse_int(flag, value));
      have_task = true;
    } else if (flag == "--actor-threads") {
      CAFLOW_ASSIGN_OR_RETURN(opts.scheduler_threads, parse_int(flag, value));
    } else if (flag == "--busy-poll-us") {
      CAFLOW_ASSIGN_OR_RETURN(int us, parse_int(flag, value));
      opts.busy_poll = std::chrono::microseconds(us);
    } else if (flag == "--intra-op-threads") {
      CAFLOW_ASSIGN_OR_RETURN(opts.cpu.intra_op_threads, parse_int(flag, value));
    } else if (flag == "--inter-op-threads") {
      CAFLOW_ASSIGN_OR_RETURN(opts.cpu.inter_op_threads, parse_int(flag, value));
    } else if (flag == "--checkpoint-root") {
      // An empty root would resolve to the working directory: say what is meant instead.
      if (value.empty()) return errors::invalid_argument(flag, " takes a directory, got ''");
      opts.file_roots.push_back(value);
    } else if (flag == "--shm-segment-mb") {
      CAFLOW_ASSIGN_OR_RETURN(int mb, parse_int(flag, value));
      opts.shm_segment_bytes = uint64_t{static_cast<unsigned>(mb)} << 20;
    } else if (flag == "--shm-variables") {
      if (value != "0" && value != "1")
        return errors::invalid_argument(flag, " takes 0 or 1, got '", value, "'");
      opts.shm_variables = value == "1";
    } else if (flag == "--same-host-rings") {
      if (value != "0" && value != "1")
        return errors::invalid_argument(flag, " takes 0 or 1, got '", value, "'");
      opts.same_host_rings = value == "1";
    } else if (flag == "--cpu-memory-limit-mb") {
      CAFLOW_ASSIGN_OR_RETURN(int mb, parse_int(flag, value));
      opts.cpu.memory_limit_bytes = int64_t{mb} << 20;
    } else if (flag == "--num-gpus") {
      CAFLOW_ASSIGN_OR_RETURN(opts.device_count["GPU"], parse_int(flag, value));
    } else if (flag == "--gpu-visible-devices") {
      opts.gpu.visible_device_list = value;
    } else if (flag == "--gpu-memory-fraction") {
      char* end = nullptr;
      const double f = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(f > 0 && f <= 1))
        return errors::invalid_argument(flag, " takes a number in (0, 1], got '", value, "'");
      opts.gpu.per_process_gpu_memory_fraction = f;
    } else if (flag == "--gpu-virtual-devices") {
      auto memory_mb = parse_virtual_devices(value);
      if (!memory_mb.ok()) return memory_mb.get_status().with_context(flag);
      opts.gpu.virtual_device_memory_mb = std::move(memory_mb).value();
    } else if (flag == "--gpu-allow-growth") {
      if (value != "0" && value != "1")
        return errors::invalid_argument(flag, " takes 0 or 1, got '", value, "'");
      opts.gpu.allow_growth = value == "1";
    } else if (flag == "--gpu-graphs") {
      if (value != "0" && value != "1")
        return errors::invalid_argument(flag, " takes 0 or 1, got '", value, "'");
      opts.gpu.capture_graphs = value == "1";
    } else if (flag == "--log-level") {
      *log_level = value;
    } else if (flag == "--tls-cert") {
      opts.security.cert = value;
    } else if (flag == "--tls-key") {
      opts.security.key = value;
    } else if (flag == "--tls-ca") {
      opts.security.ca = value;
    } else if (flag == "--cluster-id") {
      opts.security.cluster_id = value;
    } else if (flag == "--startup-timeout-ms") {
      CAFLOW_ASSIGN_OR_RETURN(int ms, parse_int(flag, value));
      if (ms == 0) return errors::invalid_argument(flag, " takes a positive number of milliseconds");
      *startup_timeout = std::chrono::milliseconds(ms);
    } else if (flag == "--device-filters") {
      CAFLOW_ASSIGN_OR_RETURN(opts.device_filters, device_filters::split_list(value));
      CAFLOW_RETURN_IF_ERROR(device_filters::parse(opts.device_filters).get_status());
    } else if (flag == "--step-timeout-ms") {
      CAFLOW_ASSIGN_OR_RETURN(int ms, parse_int(flag, value));
      if (ms <= 0) return errors::invalid_argument(flag, " takes a positive number of milliseconds");
      opts.step_timeout = std::chrono::milliseconds(ms);
    } else if (flag == "--peer-wait-ms") {
      CAFLOW_ASSIGN_OR_RETURN(int ms, parse_int(flag, value));
      opts.peer_patience = std::chrono::milliseconds(ms);
    } else {
      return errors::invalid_argument("unknown flag '", flag, "'");
    }
  }
  if (cluster.empty()) {
    CAFLOW_ASSIGN_OR_RETURN(task_config tc, task_config::from_tf_config_env());
    opts.cluster = tc.cluster;
    if (opts.job.empty()) opts.job = tc.job;
    if (!have_task) opts.task = tc.task;
  } else if (cluster.starts_with('@')) {
    CAFLOW_ASSIGN_OR_RETURN(opts.cluster, cluster_spec::from_file(cluster.substr(1)));
  } else {
    CAFLOW_ASSIGN_OR_RETURN(opts.cluster, cluster_spec::from_flag(cluster));
  }
  if (opts.job.empty()) return errors::invalid_argument("--job is required");
  return opts;
}

}  // namespace

int main(int argc, char** argv) {
  std::string log_level;
  bool insecure = false;
  std::chrono::milliseconds startup_timeout{60000};
  auto opts = parse(argc, argv, &log_level, &insecure, &startup_timeout);
  if (!opts.ok()) return usage(opts.get_status().message().c_str());
  if (status st = init_logging(log_level); !st.ok()) return usage(st.message().c_str());
  // Files the flags name are checked now, before anything serves: a bad one is a line naming
  // the flag and the file, and exit 1 (not the usage: the command line itself was well formed).
  if (status st = validate(opts->security); !st.ok()) {
    std::fprintf(stderr, "caflow-server: %s\n", st.message().c_str());
    return 1;
  }
  if (status st = check_plaintext_allowed(opts->cluster, opts->security, insecure); !st.ok()) {
    std::fprintf(stderr, "caflow-server: %s\n", st.message().c_str());
    return 1;
  }
  if (insecure && !opts->security.tls()) std::fprintf(stderr, "caflow-server: %s\n", insecure_warning);
  // The stop signals are blocked in every thread and taken by sigtimedwait on this one, start-up
  // included: a task still starting stops at once, naming what it waited for. The start runs on
  // a thread of its own that says it is done by raising SIGUSR1 (blocked too), so this thread
  // waits for a signal, the end of the start and the start-up deadline at once, and once the
  // task serves it is the only thread left waiting: an idle task has no watchdog or waiter.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  const std::string task = opts->job + "/task:" + std::to_string(opts->task);
  status_or<std::unique_ptr<server>> srv = errors::internal("the server did not start");
  std::atomic<bool> started{false};  // SIGUSR1 from another process is not the end of the start
  std::thread starter([&] {
    srv = server::start(*opts);
    started = true;
    kill(getpid(), SIGUSR1);
  });
  const auto deadline = std::chrono::steady_clock::now() + startup_timeout;
  for (;;) {
    const auto left = std::max(std::chrono::nanoseconds(0),
                               std::chrono::nanoseconds(deadline - std::chrono::steady_clock::now()));
    const timespec wait{static_cast<time_t>(left.count() / 1000000000),
                        static_cast<long>(left.count() % 1000000000)};
    const int sig = sigtimedwait(&signals, nullptr, &wait);
    if (sig == SIGUSR1 && started) break;
    if (sig == SIGUSR1 || (sig < 0 && errno != EAGAIN)) continue;  // a stray SIGUSR1, EINTR
    const bool stopped = sig >= 0;  // else EAGAIN: the deadline passed
    if (stopped)
      std::fprintf(stderr, "caflow-server: /job:%s stopped by %s while starting (%s)\n",
                   task.c_str(), sig == SIGINT ? "SIGINT" : "SIGTERM",
                   opts->progress->pending().c_str());
    else
      std::fprintf(stderr, "caflow-server: /job:%s did not start within %lld ms: %s\n",
                   task.c_str(), static_cast<long long>(startup_timeout.count()),
                   opts->progress->pending().c_str());
    std::fflush(stderr);
    std::_Exit(stopped ? 0 : 1);  // nothing served yet: nothing to hand over or flush
  }
  starter.join();
  if (!srv.ok()) {
    std::fprintf(stderr, "caflow-server: %s\n", srv.get_status().to_string().c_str());
    return 1;
  }
  std::printf("caflow-server: %s serving at %s\n", (*srv)->task_name().c_str(),
              (*srv)->target().c_str());
  std::fflush(stdout);
  sigdelset(&signals, SIGUSR1);
  int sig = 0;
  sigwait(&signals, &sig);  // then the server goes with `srv`, handing its work over
  std::printf("caflow-server: %s stopped\n", (*srv)->task_name().c_str());
  return 0;
}
