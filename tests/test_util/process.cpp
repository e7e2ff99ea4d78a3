#include "test_util/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <thread>

#include "graph/platform/time_scale.hpp"
#include "net/loopback_ports.hpp"

extern char** environ;

namespace caflow::testing {

child_process::child_process(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int rc = posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  out_fd_ = fds[0];
  fcntl(out_fd_, F_SETFL, O_NONBLOCK);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
}

child_process::~child_process() {
  if (!reaped_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) close(out_fd_);
}

void child_process::drain(std::chrono::milliseconds timeout) {
  pollfd p{out_fd_, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(out_fd_, buf, sizeof buf);
    if (n <= 0) break;
    output_.append(buf, static_cast<size_t>(n));
  }
}

bool child_process::wait_for_output(const std::string& needle, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + scaled(timeout);
  while (output_.find(needle) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (!reaped_ && waitpid(pid_, &exit_status_, WNOHANG) == pid_) reaped_ = true;
    drain(std::chrono::milliseconds(20));
    if (reaped_ && output_.find(needle) == std::string::npos) {
      drain(std::chrono::milliseconds(0));
      return output_.find(needle) != std::string::npos;
    }
  }
  return true;
}

void child_process::signal(int sig) {
  if (!reaped_) kill(pid_, sig);
}

int child_process::wait_exit(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + scaled(timeout);
  while (!reaped_) {
    if (waitpid(pid_, &exit_status_, WNOHANG) == pid_) {
      reaped_ = true;
      drain(std::chrono::milliseconds(0));  // what it wrote last is still in the pipe
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) return -1;
    drain(std::chrono::milliseconds(10));
  }
  return exit_status_;
}

std::vector<int> free_ports(int n) {
  auto ports = free_loopback_ports(n);
  if (!ports.ok()) throw std::runtime_error(ports.get_status().to_string());
  return *std::move(ports);
}

}  // namespace caflow::testing
