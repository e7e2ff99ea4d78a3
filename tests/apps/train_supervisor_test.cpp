// caflow-train --task-processes: the embedded cluster's tasks are caflow-server children; a
// SIGKILLed ps is restarted by the supervisor and training resumes from the checkpoint; with
// no restarts left, caflow-train gives up with an error naming the lost task.
#include <doctest/doctest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "test_util/process.hpp"
#include "test_util/train_app.hpp"

using namespace std::chrono_literals;
using caflow::testing::child_process;
using caflow::testing::exit_code;
using caflow::testing::have_fashion_mnist;
using caflow::testing::temp_dir;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> train_args(const std::string& dir, int max_restarts) {
  return {CAFLOW_TRAIN_BINARY, "--task-processes", "--max-task-restarts",
          std::to_string(max_restarts), "--epochs", "20", "--train-limit", "6000", "--test-limit",
          "1000", "--batch-size", "50", "--threads", "1", "--no-progress", "--checkpoint-dir", dir,
          "--checkpoint-every", "20", "--recovery-timeout", "5"};
}

// The pid of the child of `parent` whose command line has "--job" followed by `job`, or -1.
pid_t child_task(pid_t parent, const std::string& job) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    // pid (comm) state ppid ...: comm may hold spaces, so parse after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    pid_t ppid = -1;
    rest >> state >> ppid;
    if (ppid != parent) continue;
    std::ifstream cmd(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
    if (cmdline.find(std::string("--job\0", 6) + job + '\0') != std::string::npos)
      return static_cast<pid_t>(std::stol(name));
  }
  return -1;
}

}  // namespace

TEST_CASE("the supervisor restarts a SIGKILLed ps and training resumes from the checkpoint") {
  if (!have_fashion_mnist()) return;
  temp_dir dir("caflow_supervisor_");
  child_process train(train_args(dir.path.string(), 3));
  REQUIRE_MESSAGE(train.wait_for_output("/ckpt-100.index", 120s), train.output());
  const pid_t ps = child_task(train.pid(), "ps");
  REQUIRE(ps > 0);
  REQUIRE(child_task(train.pid(), "worker") > 0);
  ::kill(ps, SIGKILL);
  REQUIRE_MESSAGE(train.wait_for_output("task /job:ps/replica:0/task:0 killed by signal 9", 10s),
                  train.output());
  CHECK(train.wait_for_output("restarting it (1 of 3)", 5s));
  const int rc = exit_code(train, 240s);
  const std::string& out = train.output();
  MESSAGE("caflow-train: ", out);
  REQUIRE(rc == 0);
  static const std::regex restored(R"(restored checkpoint \S*/ckpt-(\d+)\.index)");
  std::smatch m;
  REQUIRE(std::regex_search(out, m, restored));
  CHECK(std::stoll(m[1]) >= 100);
  CHECK(out.find("recovering from the newest checkpoint (1 of 3)") != std::string::npos);
  CHECK(out.find("test accuracy:") != std::string::npos);
}

TEST_CASE("with no restarts left, caflow-train gives up naming the lost task") {
  if (!have_fashion_mnist()) return;
  temp_dir dir("caflow_supervisor_");
  child_process train(train_args(dir.path.string(), 0));
  REQUIRE_MESSAGE(train.wait_for_output("/ckpt-40.index", 120s), train.output());
  const pid_t ps = child_task(train.pid(), "ps");
  const pid_t worker = child_task(train.pid(), "worker");
  REQUIRE(ps > 0);
  REQUIRE(worker > 0);
  ::kill(ps, SIGKILL);
  const int rc = exit_code(train, 60s);
  const std::string& out = train.output();
  MESSAGE("caflow-train: ", out);
  CHECK(rc == 1);
  CHECK(out.find("task /job:ps/replica:0/task:0 killed by signal 9 (Killed); not restarting it "
                 "(0 restarts used)") != std::string::npos);
  CHECK(out.find("not recovered within 5 s") != std::string::npos);
  CHECK(out.find("test accuracy:") == std::string::npos);
  // The workers were stopped with it.
  CHECK(::kill(worker, 0) != 0);
}
