#include "test_util/forked_child.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <thread>

#include "graph/platform/time_scale.hpp"

namespace caflow::testing {

forked_child::forked_child(const std::function<int()>& body) {
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    int rc = 99;
    try {
      rc = body();
    } catch (...) {
    }
    // _exit: no atexit handlers or static destructors of the parent's copy (doctest's) run.
    ::_exit(rc);
  }
}

int forked_child::wait_exit(std::chrono::milliseconds timeout) {
  if (reaped_) return -1;
  const auto until = std::chrono::steady_clock::now() + scaled(timeout);
  int st = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) break;
    if (r < 0 && errno != EINTR) return -1;
    if (std::chrono::steady_clock::now() >= until) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &st, 0);
      reaped_ = true;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  reaped_ = true;
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

forked_child::~forked_child() {
  if (reaped_ || pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int st = 0;
  ::waitpid(pid_, &st, 0);
}

}  // namespace caflow::testing
