#pragma once
// The receiving end of one cut edge: the rendezvous_actor protocol of net/protocol.hpp, where
// its messages, bounds and drops are stated next to the typed signature. It lives on the
// receiving task, one per rendezvous key, and deposits what it takes into the worker's local
// rendezvous, so a tensor crosses in one message (push), not TensorFlow's request and reply.
// Besides, an edge that assembles tensors from chunks keeps the buffer of the last one freed,
// to assemble the next into without faulting in fresh pages.
#include <cstddef>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include <caf/fwd.hpp>

#include "kernels/rendezvous.hpp"
#include "net/protocol.hpp"

namespace caflow {

class shm_receiver;

// The steps that are over on a task, the most recent `capacity` of them. The worker adds each
// step it cleans up, before it tells the step's rendezvous actors; they drop the values that
// still arrive for it. Shared by the worker and its rendezvous actors; thread-safe.
class finished_steps {
 public:
  explicit finished_steps(size_t capacity = 4096) : capacity_(capacity) {}
  void add(int64_t step_id);
  bool contains(int64_t step_id) const;

 private:
  mutable std::mutex mu_;
  size_t capacity_;
  std::deque<int64_t> order_;
  std::unordered_set<int64_t> steps_;
};

// `local` is the worker's receiving rendezvous and `finished` its record of finished steps;
// both are shared because the actor may outlive its worker by a message or two. `shm` (may be
// null) resolves the descriptors of values sent through shared memory.
// A value held for `stale_after` whose step was neither cleaned up nor finished here is
// dropped (its step aborted here) when its room is needed: a live master cleans up a failed
// step within its step timeout, so such a value's master was lost before the step ran here.
rendezvous_actor spawn_rendezvous_actor(
    caf::actor_system& sys, std::string key, std::shared_ptr<rendezvous> local,
    std::shared_ptr<const finished_steps> finished, std::shared_ptr<const shm_receiver> shm,
    int max_pending_steps, std::chrono::milliseconds stale_after = std::chrono::minutes(2));

}  // namespace caflow
