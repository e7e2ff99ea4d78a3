#include "actors/remote_rendezvous.hpp"

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <utility>

#include "actors/bulk_sender.hpp"
#include "actors/executor.hpp"
#include "actors/send_batch.hpp"
#include "actors/shm_sender.hpp"
#include "devices/device.hpp"
#include "graph/ir/partition.hpp"
#include "net/protocol.hpp"

namespace caflow {
namespace {

// How many recv_async calls this thread is inside. Only executors call recv_async, so a
// callback that finds this non-zero may continue the step right there. So may one on a thread
// in an executor::actor_thread_scope (a value deposited by a rendezvous actor): the executor
// runs only light nodes there. Anywhere else (an abort, a value sent by another partition of
// this task) the step continues on the device's threads.
thread_local int recv_calls_in_progress = 0;

}  // namespace

remote_rendezvous::remote_rendezvous(std::shared_ptr<rendezvous> local, device& dev,
                                     bindings sends, std::shared_ptr<bulk_sender> bulk,
                                     const std::shared_ptr<shm_sender>& shm)
    : local_(std::move(local)), dev_(dev), bulk_(std::move(bulk)) {
  sends_.reserve(sends.size());
  for (auto& [key, to] : sends) {
    const bool remote = to.actor && to.actor.node() != to.actor.home_system().node();
    std::shared_ptr<shm_link> link = remote && shm ? shm->link_to(to.bulk) : nullptr;
    sends_.emplace(key,
                   destination{std::move(to.actor), remote, std::move(to.bulk), std::move(link)});
  }
}

status remote_rendezvous::send(const std::string& key, int64_t step_id, const tensor& value) {
  auto it = sends_.find(key);
  // A value of a while loop's iteration goes to its edge's actor, under its own key.
  if (it == sends_.end()) it = sends_.find(rendezvous_edge_key(key));
  if (it == sends_.end())
    return errors::failed_precondition("no rendezvous actor is bound to edge key '", key,
                                       "': the master binds every _Send before the first step");
  const destination& to = it->second;
  if (to.shm) {
    if (auto d = to.shm->place(step_id, key, value)) {
      if (!send_batch::hold(to.actor, std::move(*d)))
        caf::anon_send(to.actor, cf_shm_atom::value, std::move(*d));
      return {};
    }
  }
  // In a process the message shares the buffer, whatever its size. Across processes a big
  // tensor goes in pieces that each share it too, so nothing is copied before serialization;
  // CAF keeps the order of messages from one sender to one receiver.
  if (to.remote && value.initialized() && value.byte_size() > edge_chunk_bytes) {
    if (bulk_ && to.bulk.port != 0) bulk_->send(to.bulk, to.actor, step_id, key, value);
    else send_in_chunks(to.actor, step_id, key, value);
    return {};
  }
  // Within this process a message is only a mailbox entry: batching would add a forward.
  edge_value v{step_id, key, wire_tensor{value}};
  if (!to.remote || !send_batch::hold(to.actor, std::move(v)))
    caf::anon_send(to.actor, cf_push_atom::value, std::move(v));
  return {};
}

std::shared_ptr<allocator> remote_rendezvous::output_allocator(const std::string& key) {
  auto it = sends_.find(key);
  return it != sends_.end() && it->second.shm ? it->second.shm->output_allocator() : nullptr;
}

void remote_rendezvous::recv_async(const std::string& key, int64_t step_id, recv_callback done) {
  ++recv_calls_in_progress;
  local_->recv_async(key, step_id,
                     [dev = &dev_, done = std::move(done)](const status& st, const tensor& value) {
                       if (recv_calls_in_progress > 0 || executor::on_actor_thread()) {
                         done(st, value);
                         return;
                       }
                       dev->schedule([done, st, value] { done(st, value); });
                     });
  --recv_calls_in_progress;
}

void remote_rendezvous::abort_step(int64_t step_id, const status& error) {
  local_->abort_step(step_id, error);
}

void remote_rendezvous::cleanup_step(int64_t step_id) { local_->cleanup_step(step_id); }

}  // namespace caflow
