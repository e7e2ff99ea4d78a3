#pragma once
// Child processes for multi-process tests: started with posix_spawn, stdout+stderr captured,
// always killed and reaped by the destructor, every wait bounded.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace caflow::testing {

class child_process {
 public:
  explicit child_process(const std::vector<std::string>& argv);
  ~child_process();  // SIGKILL (if still running) and waitpid: never leaves a zombie
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  pid_t pid() const { return pid_; }
  // Reads output until a line contains `needle`; false when `timeout` (stretched by time_scale
  // in a TSan build: graph/platform/time_scale.hpp) passes or the child exits.
  bool wait_for_output(const std::string& needle, std::chrono::milliseconds timeout);
  const std::string& output() const { return output_; }
  // What the child has written by now, without waiting for more.
  const std::string& output_now() {
    drain(std::chrono::milliseconds(0));
    return output_;
  }
  void signal(int sig);
  // Waits (bounded, stretched like wait_for_output) for the child to exit; returns its exit
  // status or -1 on timeout.
  int wait_exit(std::chrono::milliseconds timeout);

 private:
  void drain(std::chrono::milliseconds timeout);
  pid_t pid_ = -1;
  int out_fd_ = -1;
  bool reaped_ = false;
  int exit_status_ = -1;
  std::string output_;
};

// `n` distinct TCP ports on 127.0.0.1 that were free a moment ago, outside the kernel's
// ephemeral range (net/loopback_ports.hpp); throws when there are not that many.
std::vector<int> free_ports(int n);

}  // namespace caflow::testing
