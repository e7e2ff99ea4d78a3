#pragma once
// The receiving end of one cut edge: the rendezvous_actor protocol of net/protocol.hpp, where
// its messages, bounds and drops are stated next to the typed signature. It lives on the
// receiving task, one per rendezvous key, and deposits what it takes into the worker's local
// rendezvous, so a tensor crosses in one message (push), not TensorFlow's request and reply.
// Besides, an edge that assembles tensors from chunks keeps the buffer of the last one freed,
// to assemble the next into without faulting in fresh pages.
#include <cstddef>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "kernels/framework/rendezvous.hpp"
#include "net/finished_steps.hpp"
#include "net/protocol.hpp"

namespace caflow {

class shm_receiver;

// `local` is the worker's receiving rendezvous and `finished` its record of finished steps;
// both are shared because the actor may outlive its worker by a message or two. `shm` (may be
// null) resolves the descriptors of values sent through shared memory.
// A value held for `stale_after` whose step was neither cleaned up nor finished here is
// dropped (its step aborted here) when its room is needed: a live master cleans up a failed
// step within its step timeout, so such a value's master was lost before the step ran here.
// `graphs` (may be null: one) counts the registered graphs receiving through the edge, one per
// master using it: the edge holds `max_pending_steps` steps for each.
rendezvous_actor spawn_rendezvous_actor(
    caf::actor_system& sys, std::string key, std::shared_ptr<rendezvous> local,
    std::shared_ptr<const finished_steps> finished, std::shared_ptr<const shm_receiver> shm,
    int max_pending_steps, std::chrono::milliseconds stale_after = std::chrono::minutes(2),
    std::shared_ptr<const std::atomic<int>> graphs = nullptr);

}  // namespace caflow
