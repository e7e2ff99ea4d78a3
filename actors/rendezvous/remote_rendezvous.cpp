#include "actors/rendezvous/remote_rendezvous.hpp"

#include <utility>

#include "actors/executor/executor.hpp"
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
                                     const bindings& sends,
                                     std::shared_ptr<const edge_transport> transport)
    : local_(std::move(local)),
      dev_(dev),
      transport_(transport ? std::move(transport) : std::make_shared<const edge_transport>()) {
  sends_.reserve(sends.size());
  for (const auto& [key, to] : sends) sends_.emplace(key, transport_->route_to(to.actor, to.bulk));
}

status remote_rendezvous::send(const std::string& key, int64_t step_id, const tensor& value) {
  auto it = sends_.find(key);
  // A value of a while loop's iteration goes to its edge's actor, under its own key.
  if (it == sends_.end()) it = sends_.find(rendezvous_edge_key(key));
  if (it == sends_.end())
    return errors::failed_precondition("no rendezvous actor is bound to edge key '", key,
                                       "': the master binds every _Send before the first step");
  transport_->send(it->second, step_id, key, value);
  return {};
}

std::shared_ptr<allocator> remote_rendezvous::output_allocator(const std::string& key) {
  auto it = sends_.find(key);
  return it != sends_.end() ? transport_->output_allocator(it->second) : nullptr;
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
