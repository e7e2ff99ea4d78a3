#pragma once
// The receiving end of a worker's bulk channel (framing in net/bulk/bulk_frame.hpp): a listener on
// the task's host, and a thread per connected peer that reads each tensor straight into a
// buffer of its own and hands it, as one local (cf_push_atom, edge_value) message, to the
// rendezvous actor the frame names. From there on the value is treated like any pushed one:
// the rendezvous actor checks the step and its bound on pending steps.
//
// Only rendezvous actors this worker routed here are reachable; a frame for any other actor
// is dropped and logged. A value that arrives but cannot be kept (no memory for it, a boolean
// byte that is neither 0 nor 1) fails its step here, through its rendezvous actor. A
// connection that does not show the token within a few seconds, or that sends a header that
// cannot be read (the stream cannot be followed past it), is closed and logged; the sender
// sends what it still has through CAF once a write fails, and a value already written before
// the close is lost: its step ends at the master's step timeout. At most 256 connections are
// served at once.
#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "net/bulk/bulk_frame.hpp"
#include "net/protocol.hpp"
#include "net/bulk/socket_io.hpp"

namespace caflow {

class recycling_allocator;

class bulk_receiver {
 public:
  // Listens on `host`, any free port. `task` names this task in logs. Errors name the address.
  static status_or<std::unique_ptr<bulk_receiver>> start(const std::string& host,
                                                         std::string task);
  // Closes the listener and every connection, and joins their threads.
  ~bulk_receiver();
  bulk_receiver(const bulk_receiver&) = delete;
  bulk_receiver& operator=(const bulk_receiver&) = delete;

  // What senders need: host, port and token.
  const bulk_endpoint& endpoint() const { return endpoint_; }

  // Frames for `rendezvous` (by its actor id) are delivered to it from now on / no longer.
  void route(const rendezvous_actor& rendezvous);
  void unroute(caf::actor_id id);

  // How many tensors arrived whole and were handed to a rendezvous actor.
  uint64_t delivered() const { return delivered_.load(std::memory_order_relaxed); }

 private:
  struct connection {
    socket_fd socket;
    std::string peer;     // its address: connections still owing their token count against it
    bool proved = false;  // it showed the token (under mu_)
    std::thread reader;
    std::atomic<bool> done{false};
  };

  bulk_receiver(socket_fd listener, bulk_endpoint endpoint, std::string task);
  void accept_loop();
  void read_loop(connection& c);
  // Reads and delivers one frame; false once the connection must close (said in the log).
  bool read_frame(connection& c);
  // A value that arrived but cannot be delivered: its step fails on this task (the rendezvous
  // actor aborts it), since the sender will not send it again.
  void fail_step(const rendezvous_actor& to, const bulk_header& h, const std::string& why);
  // Reads past `bytes` bytes of a frame that is not kept.
  bool skip(connection& c, uint64_t bytes);
  rendezvous_actor route_of(caf::actor_id id);

  const std::string task_;
  socket_fd listener_;
  bulk_endpoint endpoint_;
  std::shared_ptr<recycling_allocator> buffers_;
  std::atomic<uint64_t> delivered_{0};

  std::mutex mu_;  // guards everything below
  bool stopping_ = false;
  std::list<connection> connections_;
  std::unordered_map<caf::actor_id, rendezvous_actor> routes_;

  std::thread acceptor_;  // last: starts once everything above exists
};

}  // namespace caflow
