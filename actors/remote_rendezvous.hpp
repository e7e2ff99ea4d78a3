#pragma once
// The rendezvous a worker's steps run with.
//
// Receiving is local: the rendezvous actors of this task deposit the values pushed to them
// into the worker's local_rendezvous, where _Recv kernels take them (sharing the sender's
// buffer when both live in one process). Sending pushes: `send` looks the key up in the
// bindings the master made with `bind` and sends one (cf_push_atom, edge_value) message to that
// edge's rendezvous actor on the receiving task. Bound for another process on this host, a
// tensor goes through the worker's shared memory link to that task when it has one
// (actors/shm_sender.hpp: the bytes in a shared segment, only a descriptor in the message).
// Otherwise a tensor of more than edge_chunk_bytes bound for another process goes over the
// worker's bulk channel to that task when it has one (actors/bulk_sender.hpp), else as
// (cf_chunk_atom, edge_chunk) messages, in order. A value or descriptor for another process
// that a pass of the executor sends joins that pass's batch (actors/send_batch.hpp): one
// message per receiving process and pass instead of one per edge. Nothing
// waits for an answer; a receiving side that refuses a value aborts the step there, and the
// master spreads the abort.
//
// One instance per bound graph. Its bindings never change (a new `bind` makes a new instance
// and steps already running keep theirs), so the send path takes no lock.
#include <memory>
#include <string>
#include <unordered_map>

#include "kernels/rendezvous.hpp"
#include "net/protocol.hpp"

namespace caflow {

class bulk_sender;
class device;
class shm_link;
class shm_sender;

class remote_rendezvous final : public rendezvous {
 public:
  struct binding {
    rendezvous_actor actor;  // the rendezvous actor of the edge (a proxy in another process)
    bulk_endpoint bulk;      // its task's bulk channel; port 0: none
  };
  // Send key -> where its values go.
  using bindings = std::unordered_map<std::string, binding>;

  // `local` is the worker's receiving side. A value that completes a waiting _Recv on an
  // actor's thread continues that step on `dev`'s threads, never on the actor's. `bulk` (may
  // be null) sends big tensors to tasks that have a bulk channel; `shm` (may be null) links
  // to the tasks on this host that have a shared memory listener.
  // REQUIRES: `dev` outlives every step run with this rendezvous.
  remote_rendezvous(std::shared_ptr<rendezvous> local, device& dev, bindings sends,
                    std::shared_ptr<bulk_sender> bulk = nullptr,
                    const std::shared_ptr<shm_sender>& shm = nullptr);

  // Errors: an unbound key (naming it).
  status send(const std::string& key, int64_t step_id, const tensor& value) override;
  void recv_async(const std::string& key, int64_t step_id, recv_callback done) override;
  // The shared memory link's, for a _Send to a task on this host with a link up.
  std::shared_ptr<allocator> output_allocator(const std::string& key) override;
  void abort_step(int64_t step_id, const status& error) override;
  void cleanup_step(int64_t step_id) override;

 private:
  struct destination {
    rendezvous_actor actor;
    bool remote = false;  // in another process: the tensor is serialized
    bulk_endpoint bulk;
    std::shared_ptr<shm_link> shm;  // its task's shared memory link; null: none
  };

  std::shared_ptr<rendezvous> local_;
  device& dev_;
  std::shared_ptr<bulk_sender> bulk_;
  std::unordered_map<std::string, destination> sends_;
};

}  // namespace caflow
