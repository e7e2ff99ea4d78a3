#include "apps/train/task_supervisor.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace caflow::train_app {
namespace {

using namespace std::chrono_literals;

std::string describe_exit(int raw) {
  if (WIFSIGNALED(raw)) return std::string("killed by signal ") + std::to_string(WTERMSIG(raw)) +
                               " (" + ::strsignal(WTERMSIG(raw)) + ")";
  return "exited with status " + std::to_string(WEXITSTATUS(raw));
}

// Waits up to `timeout` for `pid` to end; true when it was reaped.
bool reap_within(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const pid_t r = ::waitpid(pid, nullptr, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
}

}  // namespace

status_or<pid_t> spawn_child(const std::vector<std::string>& argv) {
  if (argv.empty()) return errors::invalid_argument("no command to start");
  // Built before fork: the child may only make async-signal-safe calls.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return errors::unavailable("cannot start ", argv[0], ": ", std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

status task_supervisor::start(const std::string& name, std::vector<std::string> argv) {
  if (::access(argv.at(0).c_str(), X_OK) != 0)
    return errors::not_found("cannot run ", argv[0], " for task ", name, ": ",
                             std::strerror(errno));
  CAFLOW_ASSIGN_OR_RETURN(pid_t pid, spawn_child(argv));
  std::lock_guard<std::mutex> lock(mu_);
  tasks_.push_back({name, std::move(argv), pid, 0});
  if (!watcher_.joinable()) watcher_ = std::thread([this] { watch(); });
  return {};
}

void task_supervisor::watch() {
  while (!stopping_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      check_tasks();
    }
    std::this_thread::sleep_for(50ms);
  }
}

void task_supervisor::check_tasks() {
  for (task& t : tasks_) {
    if (t.pid < 0) continue;
    int raw = 0;
    if (::waitpid(t.pid, &raw, WNOHANG) != t.pid) continue;
    t.pid = -1;
    if (stopping_) continue;
    if (t.restarts >= opts_.max_restarts) {
      std::printf("caflow-train: task %s %s; not restarting it (%d restart%s used)\n",
                  t.name.c_str(), describe_exit(raw).c_str(), t.restarts,
                  t.restarts == 1 ? "" : "s");
      std::fflush(stdout);
      continue;
    }
    ++t.restarts;
    std::printf("caflow-train: task %s %s; restarting it (%d of %d)\n", t.name.c_str(),
                describe_exit(raw).c_str(), t.restarts, opts_.max_restarts);
    std::fflush(stdout);
    auto pid = spawn_child(t.argv);
    if (pid.ok()) {
      t.pid = *pid;
    } else {
      std::printf("caflow-train: %s\n", pid.get_status().to_string().c_str());
      std::fflush(stdout);
    }
  }
}

void task_supervisor::stop() {
  if (stopping_.exchange(true)) return;
  if (watcher_.joinable()) watcher_.join();
  std::lock_guard<std::mutex> lock(mu_);
  // Workers first (the later tasks): a ps that left before them would be reported lost.
  for (auto t = tasks_.rbegin(); t != tasks_.rend(); ++t)
    if (t->pid > 0) ::kill(t->pid, SIGTERM);
  for (auto t = tasks_.rbegin(); t != tasks_.rend(); ++t) {
    if (t->pid <= 0) continue;
    if (!reap_within(t->pid, 5s)) {
      ::kill(t->pid, SIGKILL);
      reap_within(t->pid, 5s);
    }
    t->pid = -1;
  }
}

}  // namespace caflow::train_app
