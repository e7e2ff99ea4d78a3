#pragma once
// A child made with fork() that runs a function of the test and exits with its result: for
// tests of what crosses a process boundary (a shared memory segment's descriptor), where the
// other side need not be a whole binary. The child never returns into the test framework (an
// escaping exception exits 99), and the destructor kills and reaps it: no zombie, no hang.
//
// REQUIRES: the test has started no threads (fork copies only the calling one).
#include <sys/types.h>

#include <chrono>
#include <functional>

namespace caflow::testing {

class forked_child {
 public:
  explicit forked_child(const std::function<int()>& body);
  ~forked_child();  // SIGKILL if still running, then waitpid
  forked_child(const forked_child&) = delete;
  forked_child& operator=(const forked_child&) = delete;

  pid_t pid() const { return pid_; }
  // The child's exit code once it exits within `timeout` (stretched in a TSan build); -1 when
  // it did not (it is killed and reaped then), 128 + n when signal n ended it.
  int wait_exit(std::chrono::milliseconds timeout = std::chrono::seconds(10));

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
};

}  // namespace caflow::testing
