#pragma once
// Keeps an embedded cluster's tasks running as child processes: each task is a caflow-server
// started with the same command line every time, and one that exits without being asked to
// (killed, crashed, out of memory) is started again on its address, at most `max_restarts`
// times per task. The training clients then recover from their newest checkpoint.
//
//   task_supervisor sup({.max_restarts = 3});
//   sup.start("/job:ps/replica:0/task:0", {"/usr/bin/caflow-server", "--cluster", ...});
//   ...                     // a background thread restarts lost tasks
//   sup.stop();             // SIGTERM every task, SIGKILL what is still there after 5 s
#include <sys/types.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow::train_app {

struct supervisor_options {
  int max_restarts = 3;  // per task
};

class task_supervisor {
 public:
  explicit task_supervisor(supervisor_options opts) : opts_(opts) {}
  ~task_supervisor() { stop(); }
  task_supervisor(const task_supervisor&) = delete;
  task_supervisor& operator=(const task_supervisor&) = delete;

  // Starts `argv` as task `name`; the first call also starts the watching thread.
  status start(const std::string& name, std::vector<std::string> argv);
  // Stops watching and ends every task (bounded). Idempotent.
  void stop();

 private:
  struct task {
    std::string name;
    std::vector<std::string> argv;
    pid_t pid = -1;
    int restarts = 0;
  };
  void watch();
  // Looks at every task once; restarts the ones that exited. REQUIRES: mu_ held.
  void check_tasks();

  supervisor_options opts_;
  std::mutex mu_;
  std::vector<task> tasks_;
  std::atomic<bool> stopping_{false};
  std::thread watcher_;
};

// A child process running argv[0] with argv, which the kernel ends when this process dies (so
// a SIGKILLed caflow-train leaves no servers behind).
status_or<pid_t> spawn_child(const std::vector<std::string>& argv);

}  // namespace caflow::train_app
