#pragma once
// The answer to a step that a session asks of the master in its own process (TF's LocalMaster
// path, actors/server/local_masters.hpp). The session's thread hands the request to the master's
// mailbox with the answering end (cf_step_atom, run_step_request, local_step_promise_ptr) and
// waits here: polling for a short window, since a small step answers within microseconds, then
// asleep. A scoped_actor's request did the same but spawned and destroyed an actor per step,
// about 2 us of the session's thread on a 2-core VM (bench/dist_step_latency_us).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>

#include "graph/core/status.hpp"
#include "net/protocol.hpp"

namespace caflow {

class local_step_answer {
 public:
  local_step_answer() = default;
  local_step_answer(const local_step_answer&) = delete;
  local_step_answer& operator=(const local_step_answer&) = delete;

  // Master: the first answer counts; later ones are dropped.
  void deliver(run_step_reply reply);
  void deliver(const status& failed);

  // Session: the answer, after polling for `poll` and sleeping for at most `patience` more;
  // deadline_exceeded when none came.
  status_or<run_step_reply> wait(std::chrono::microseconds poll,
                                 std::chrono::milliseconds patience);

 private:
  void set(status_or<run_step_reply> answer);

  std::mutex mu_;
  std::condition_variable answered_;
  bool delivered_ = false;          // under mu_
  std::atomic<bool> ready_{false};  // set after answer_, for the polling reader
  std::optional<status_or<run_step_reply>> answer_;  // written once, before ready_
};

// The master's end of one step's answer. Whoever drops the last copy without answering (a
// message that reached no master, a master that stopped first) answers that the master is
// gone, as CAF does for a request whose receiver is down.
class local_step_promise {
 public:
  explicit local_step_promise(std::shared_ptr<local_step_answer> answer)
      : answer_(std::move(answer)) {}
  ~local_step_promise();
  local_step_promise(const local_step_promise&) = delete;
  local_step_promise& operator=(const local_step_promise&) = delete;

  void deliver(run_step_reply reply);
  void deliver(const status& failed) { answer_->deliver(failed); }

 private:
  std::shared_ptr<local_step_answer> answer_;
};

}  // namespace caflow
