// Faults during distributed training, every task a caflow-train process on 127.0.0.1:
// a worker SIGKILLed or SIGSTOPped in sync mode with and without a backup worker, and the ps
// SIGKILLed and restarted, training resuming from the chief's checkpoint; and a ps kernel that
// hangs, caught by the step timeout.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <memory>
#include <regex>

#include "graph/platform/time_scale.hpp"
#include "test_util/process.hpp"
#include "test_util/train_app.hpp"

using namespace std::chrono_literals;
using caflow::testing::child_process;
using caflow::testing::exit_code;
using caflow::testing::free_ports;
using caflow::testing::have_fashion_mnist;
using caflow::testing::temp_dir;
using caflow::time_scale;
namespace fs = std::filesystem;

namespace {

using clock_type = std::chrono::steady_clock;

// One ps and `workers` workers, each a caflow-train process training the MLP in sync mode on
// 3000 images per worker in batches of 50 (60 steps per epoch) for `epochs` epochs.
class training_cluster {
 public:
  training_cluster(int workers, int epochs, std::vector<std::string> extra) {
    const auto ports = free_ports(1 + workers);
    spec_ = "ps=127.0.0.1:" + std::to_string(ports[0]) + ";worker=";
    for (int w = 0; w < workers; ++w)
      spec_ += (w ? "," : "") + std::string("127.0.0.1:") + std::to_string(ports[1 + w]);
    common_ = {"--mode", "sync", "--epochs", std::to_string(epochs), "--train-limit",
               std::to_string(3000 * workers), "--test-limit", "1000", "--batch-size", "50",
               "--threads", "1", "--no-progress"};
    common_.insert(common_.end(), extra.begin(), extra.end());
    ps_ = start("ps", 0);
    for (int w = 0; w < workers; ++w) workers_procs_.push_back(start("worker", w));
  }

  std::unique_ptr<child_process> start(const std::string& job, int task) const {
    std::vector<std::string> argv{CAFLOW_TRAIN_BINARY, "--insecure", "--cluster", spec_, "--job", job, "--task",
                                  std::to_string(task)};
    argv.insert(argv.end(), common_.begin(), common_.end());
    return std::make_unique<child_process>(argv);
  }

  child_process& ps() { return *ps_; }
  // What every task printed so far (for failure messages: a stuck chief is often explained by
  // another task's output).
  std::string outputs() {
    std::string all = "ps: " + drained(*ps_);
    for (size_t w = 0; w < workers_procs_.size(); ++w)
      all += "\nworker " + std::to_string(w) + ": " + drained(*workers_procs_[w]);
    return all;
  }
  child_process& worker(int w) { return *workers_procs_[w]; }
  void restart_ps() { ps_ = start("ps", 0); }

 private:
  static std::string drained(child_process& p) {
    p.wait_for_output("\x01", std::chrono::milliseconds(50));  // reads what is there
    return p.output();
  }

  std::string spec_;
  std::vector<std::string> common_;
  std::unique_ptr<child_process> ps_;
  std::vector<std::unique_ptr<child_process>> workers_procs_;
};

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

// The accuracy of the chief's "test accuracy: 0.8123 (...)" line, or -1.
double test_accuracy(const std::string& output) {
  static const std::regex re(R"(test accuracy: ([0-9.]+))");
  std::smatch m;
  return std::regex_search(output, m, re) ? std::stod(m[1]) : -1;
}

const std::string lost_worker_1 =
    "a task this session requires: task /job:worker/replica:0/task:1 was lost";

}  // namespace

TEST_CASE("sync training with a backup worker keeps training when a worker is SIGKILLed") {
  if (!have_fashion_mnist()) return;
  // 3 workers, updates averaging the first 2 gradients: worker 2 is a backup.
  training_cluster c(3, 8, {"--replicas-to-aggregate", "2"});
  REQUIRE_MESSAGE(c.worker(0).wait_for_output("epoch 2/8", 120s), c.outputs());
  c.worker(2).signal(SIGKILL);
  const int chief = exit_code(c.worker(0), 180s);
  MESSAGE("chief: ", c.worker(0).output());
  REQUIRE(chief == 0);
  CHECK(c.worker(0).output().find("epoch 8/8") != std::string::npos);
  CHECK(test_accuracy(c.worker(0).output()) > 0.6);
  // The surviving non-chief ran until the chief closed the token queue, then stopped cleanly.
  const int other = exit_code(c.worker(1), 30s);
  MESSAGE("worker 1: ", c.worker(1).output());
  CHECK(other == 0);
}

// Starts a 2-worker sync job without backups, sends `sig` to worker 1 in its second epoch and
// returns the seconds until the chief reported worker 1 lost; the chief must then fail (no
// checkpoints: nothing to recover from).
double seconds_to_report(int sig) {
  training_cluster c(2, 50, {});
  REQUIRE_MESSAGE(c.worker(0).wait_for_output("epoch 2/50", 120s), c.outputs());
  const auto sent = clock_type::now();
  c.worker(1).signal(sig);
  const bool reported = c.worker(0).wait_for_output(lost_worker_1, 10s);
  const double took = seconds_since(sent);
  MESSAGE("reported after ", took, " s; chief: ", c.worker(0).output());
  REQUIRE(reported);
  CHECK(exit_code(c.worker(0), 10s) == 1);
  CHECK(c.worker(0).output().find("test accuracy") == std::string::npos);
  c.worker(1).signal(SIGKILL);  // SIGKILL ends a stopped process too
  return took;
}

TEST_CASE("sync training without a backup: the chief reports a SIGKILLed worker within 2 s") {
  if (!have_fashion_mnist()) return;
  CHECK(seconds_to_report(SIGKILL) <= 2.0 * time_scale);
}

TEST_CASE("sync training: a SIGSTOPped worker is detected within the heartbeat timeout") {
  if (!have_fashion_mnist()) return;
  // Heartbeats every 100 ms, a peer silent for 1 s is lost; the rest is CAF's check interval
  // and a step's teardown.
  CHECK(seconds_to_report(SIGSTOP) <= 2.5 * caflow::failure_time_scale);
}

TEST_CASE("a SIGKILLed ps is reported within 2 s, and restarted, training resumes from the "
          "checkpoint") {
  if (!have_fashion_mnist()) return;
  temp_dir dir("caflow_faults_");
  training_cluster c(2, 12, {"--checkpoint-dir", dir.path.string(), "--checkpoint-every", "20"});
  REQUIRE_MESSAGE(c.worker(0).wait_for_output("/ckpt-100.index", 120s), c.outputs());
  c.ps().signal(SIGKILL);
  // The clock starts when the ps is gone, not when the signal is sent: a ps inside a
  // checkpoint's fsync dies only once the disk lets it, which on a busy host takes seconds.
  REQUIRE(c.ps().wait_exit(10s) >= 0);
  const auto died = clock_type::now();
  const bool reported =
      c.worker(0).wait_for_output("recovering from the newest checkpoint (1 of 3)", 10s);
  const double took = seconds_since(died);
  MESSAGE("chief before the restart: ", c.worker(0).output());
  REQUIRE(reported);
  CHECK(took <= 2.0 * time_scale);
  CHECK(c.worker(0).output().find("task /job:ps/replica:0/task:0 was lost") != std::string::npos);

  c.restart_ps();
  const int chief = exit_code(c.worker(0), 240s);
  MESSAGE("chief: ", c.worker(0).output());
  MESSAGE("restarted ps: ", c.ps().output());
  REQUIRE(chief == 0);
  const std::string& out = c.worker(0).output();
  static const std::regex restored(R"(restored checkpoint \S*/ckpt-(\d+)\.index)");
  std::smatch m;
  REQUIRE(std::regex_search(out, m, restored));
  CHECK(std::stoll(m[1]) >= 100);  // at most one checkpoint interval was lost
  CHECK(out.find("epoch 12/12") != std::string::npos);
  CHECK(test_accuracy(out) > 0.6);
  const int other = exit_code(c.worker(1), 30s);
  MESSAGE("worker 1: ", c.worker(1).output());
  CHECK(other == 0);
}

TEST_CASE("while a lost worker stays down, the chief spends one recovery and waits out "
          "--recovery-timeout instead of its whole budget") {
  if (!have_fashion_mnist()) return;
  temp_dir dir("caflow_faults_");
  training_cluster c(2, 12,
                     {"--checkpoint-dir", dir.path.string(), "--checkpoint-every", "20",
                      "--recovery-timeout", "6"});
  REQUIRE_MESSAGE(c.worker(0).wait_for_output("/ckpt-40.index", 120s), c.outputs());
  c.worker(1).signal(SIGKILL);
  REQUIRE_MESSAGE(
      c.worker(0).wait_for_output("recovering from the newest checkpoint (1 of 3)", 10s),
      c.outputs());
  const auto recovering = clock_type::now();
  // Each retry restores the checkpoint and fails its first step (the worker is still down):
  // no progress, so no new recovery, until the timeout ends the run.
  const int chief = exit_code(c.worker(0), 60s);
  const double took = seconds_since(recovering);
  const std::string& out = c.worker(0).output();
  MESSAGE("chief: ", out);
  CHECK(chief != 0);
  CHECK(out.find("(2 of 3)") == std::string::npos);
  CHECK(out.find("not recovered within 6 s") != std::string::npos);
  CHECK(took >= 5.0);
}

TEST_CASE("a ps kernel that hangs is caught by the step timeout, named, and training recovers") {
  if (!have_fashion_mnist()) return;
  temp_dir dir("caflow_faults_stall_");
  // The ps stays alive and keeps its links (heartbeats flow): only one of its kernels stops
  // coming back, and ignores the step's cancellation, for 12 s.
  training_cluster c(1, 3,
                     {"--checkpoint-dir", dir.path.string(), "--checkpoint-every", "20",
                      "--step-timeout", "3", "--debug-stall-ps-at-step", "50",
                      "--debug-stall-seconds", "12"});
  REQUIRE_MESSAGE(c.ps().wait_for_output("stalling for 12000 ms", 120s), c.outputs());
  const auto stalled_at = clock_type::now();
  REQUIRE_MESSAGE(c.worker(0).wait_for_output("recovering from the newest checkpoint (1 of 3)", 30s),
                  c.outputs());
  const double took = seconds_since(stalled_at);
  MESSAGE("the stalled step was failed after ", took, " s");
  CHECK(took <= 3.0 + 2.0 * time_scale);
  const std::string named = "ran past the step timeout of 3000 ms waiting for /job:ps/replica:0/task:0";
  CHECK_MESSAGE(c.worker(0).output().find(named) != std::string::npos, c.outputs());
  const int chief = exit_code(c.worker(0), 180s);
  const std::string out = c.worker(0).output();
  MESSAGE(out);
  REQUIRE(chief == 0);
  CHECK(out.find("epoch 3/3") != std::string::npos);
  CHECK(test_accuracy(out) > 0.6);
  CHECK(out.find("(2 of 3)") == std::string::npos);  // one recovery was enough
}
