#pragma once
// A thread of its own for work an actor must not do on the network loop (planning a big graph):
// jobs run one after the other, in the order posted. It replaces CAF's detached actors, whose
// private threads in CAF 0.17 can keep an actor alive past its end, so that an actor system's
// destructor waits forever (upstream issue 1196, fixed only in CAF 0.18). The owner's destructor
// drops the jobs not started and joins the thread once the running one returns: an owner whose
// actor system outlives it (a server) never leaves work touching a dead system.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace caflow {

class blocking_worker {
 public:
  // `name` names the thread (at most 15 characters show).
  explicit blocking_worker(std::string name);
  ~blocking_worker();
  blocking_worker(const blocking_worker&) = delete;
  blocking_worker& operator=(const blocking_worker&) = delete;

  void post(std::function<void()> job);
  // True once the owner is going: a long job (a lookup that retries) checks it between tries
  // and gives up, so that the owner's destructor does not wait out its patience.
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }

 private:
  void run();

  const std::string name_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;  // started by the first post()
};

}  // namespace caflow
