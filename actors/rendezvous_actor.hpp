#pragma once
// The receiving end of one cut edge. It lives on the receiving task, one per rendezvous key;
// the master learns its handle from the worker's registration reply and binds the sending
// _Send to it, so a tensor crosses in one message (push), not TensorFlow's request and reply.
//
// Messages (untyped, as the handle travels as caf::actor in the protocol):
//   (cf_push_atom, edge_value)  from a sender: deposits the value into the worker's local
//                               rendezvous, where this step's _Recv takes it (before or after
//                               it asked). Nothing is answered.
//   (cf_chunk_atom, edge_chunk) from a sender in another process, for a tensor too big for one
//                               message: the first chunk (offset 0) allocates the whole tensor
//                               once its header is checked (dtype, shape, byte count, at most
//                               max_chunked_tensor_bytes); each chunk must continue exactly
//                               where the last ended and announce the same header; the last
//                               one deposits the tensor. Anything else (a gap, an overlap, too
//                               many bytes, a changed header, an absurd size) aborts the step
//                               on this task with an error naming the edge, and the transfer's
//                               remaining chunks are dropped.
//   (cf_abort_atom, int64_t step, std::string reason)
//                               from this task's bulk receiver, for a value that arrived but
//                               could not be kept: aborts the step on this task with `reason`
//                               (a status::to_string()), so its _Recv fails instead of waiting.
//   (cf_cleanup_atom, int64_t)  from its worker once a step is over: forgets the step.
//
// Memory is bounded: the actor holds values (whole or being assembled) of at most
// `max_pending_steps` steps that are not cleaned up yet. A value of one more step is refused:
// that step is aborted on this task with resource_exhausted naming the edge, so its _Recv
// fails instead of memory growing without bound. A value for another key, or a second value of a step, aborts the step likewise. A
// value of a step that is already over on this task (a sender of an aborted step running
// late) is dropped. Besides, an edge that assembles tensors from chunks keeps the buffer of
// the last one freed, to assemble the next into without faulting in fresh pages.
#include <cstddef>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "kernels/rendezvous.hpp"

namespace caflow {

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
// both are shared because the actor may outlive its worker by a message or two.
// A value held for `stale_after` whose step was neither cleaned up nor finished here is
// dropped (its step aborted here) when its room is needed: a live master cleans up a failed
// step within its step timeout, so such a value's master was lost before the step ran here.
caf::actor spawn_rendezvous_actor(caf::actor_system& sys, std::string key,
                                  std::shared_ptr<rendezvous> local,
                                  std::shared_ptr<const finished_steps> finished,
                                  int max_pending_steps,
                                  std::chrono::milliseconds stale_after = std::chrono::minutes(2));

}  // namespace caflow
