#pragma once
// The rendezvous a worker's steps run with.
//
// Receiving is local: the rendezvous actors of this task deposit the values pushed to them
// into the worker's local_rendezvous, where _Recv kernels take them (sharing the sender's
// buffer when both live in one process). Sending pushes: `send` looks the key up in the
// routes the master made with `bind` and hands the value to the worker's edge transport
// (net/edge_transport.hpp), which picks the path to that edge's rendezvous actor on the
// receiving task. An executor's pass is the transport's batch: values for other processes
// that one pass sends leave as one message per receiving process.
//
// One instance per bound graph. Its routes never change (a new `bind` makes a new instance
// and steps already running keep theirs), so the send path takes no lock.
#include <memory>
#include <string>
#include <unordered_map>

#include "kernels/framework/rendezvous.hpp"
#include "net/edge_transport.hpp"

namespace caflow {

class device;

class remote_rendezvous final : public rendezvous {
 public:
  struct binding {
    rendezvous_actor actor;  // the rendezvous actor of the edge (a proxy in another process)
    bulk_endpoint bulk;      // its task's channels; port 0: no bulk socket
  };
  // Send key -> where its values go.
  using bindings = std::unordered_map<std::string, binding>;

  // `local` is the worker's receiving side. A value that completes a waiting _Recv on an
  // actor's thread continues that step on `dev`'s threads, never on the actor's. `transport`
  // carries the values sent; null: one without channels of its own (everything through CAF).
  // REQUIRES: `dev` outlives every step run with this rendezvous.
  remote_rendezvous(std::shared_ptr<rendezvous> local, device& dev, const bindings& sends,
                    std::shared_ptr<const edge_transport> transport = nullptr);

  // Errors: an unbound key (naming it).
  status send(const std::string& key, int64_t step_id, const tensor& value) override;
  void recv_async(const std::string& key, int64_t step_id, recv_callback done) override;
  // The shared memory link's, for a _Send to a task on this host with a link up.
  std::shared_ptr<allocator> output_allocator(const std::string& key) override;
  void abort_step(int64_t step_id, const status& error) override;
  void cleanup_step(int64_t step_id) override;
  end_pass_fn begin_pass() override {
    edge_transport::begin_pass();
    return &edge_transport::end_pass;
  }
  bool holding() const override { return edge_transport::holding(); }
  void flush() override { edge_transport::flush(); }

 private:
  std::shared_ptr<rendezvous> local_;
  device& dev_;
  std::shared_ptr<const edge_transport> transport_;
  std::unordered_map<std::string, edge_route> sends_;
};

}  // namespace caflow
