#pragma once
// Actors that other threads schedule on a busy-polling network loop (net/loop/loop_scheduler.hpp):
// a client's thread asking the master of its own process, a device thread finishing a kernel.
//
// CAF hands such a job to the loop through the loop's wake-up pipe: a write on the caller's
// side, an epoll event and a read on the loop's, about 2 us on a 2-core VM for the master's
// first step of every session run. While the loop polls anyway, the job can wait in memory
// instead, where the loop's next look finds it. Only a loop that stopped polling is woken
// through the pipe, once for all the jobs that came meanwhile.
//
// Ordering: the loop says it stops polling (loop_polls(false)) and then looks once more; a
// pusher pushes and then reads whether the loop polls. One of them sees the other (both
// sequentially consistent), so no job waits for a loop that sleeps.
#include <atomic>
#include <functional>

#include <caf/fwd.hpp>

#include "net/loop/loop_scheduler.hpp"

namespace caflow {

class loop_inbox final : public loop_polled {
 public:
  // `run` runs one job on the loop's thread; it takes over the job's reference.
  explicit loop_inbox(std::function<void(caf::resumable*)> run) : run_(std::move(run)) {}
  // Jobs never taken keep their references: they are released here.
  ~loop_inbox() override;
  loop_inbox(const loop_inbox&) = delete;
  loop_inbox& operator=(const loop_inbox&) = delete;

  // Any thread: queues `job`, taking over its reference. True when the caller must wake the
  // loop (through the pipe, then calling woken() and poll() there): it does not poll, and no
  // wake-up is on its way already.
  [[nodiscard]] bool push(caf::resumable* job);
  // On the loop: a wake-up asked for by push() has come; the next push that finds the loop
  // asleep asks for another.
  void woken() { wake_posted_.store(false, std::memory_order_seq_cst); }

  // On the loop: runs every queued job, in the order they came.
  result poll() override;
  bool needs_polling() const override { return false; }
  void loop_polls(bool polling) override { polling_.store(polling, std::memory_order_seq_cst); }

 private:
  struct node {
    caf::resumable* job;
    node* next;
  };

  std::function<void(caf::resumable*)> run_;
  std::atomic<node*> head_{nullptr};  // the latest first
  std::atomic<bool> polling_{false};
  std::atomic<bool> wake_posted_{false};
};

}  // namespace caflow
