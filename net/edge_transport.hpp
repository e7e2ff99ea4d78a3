#pragma once
// How a task's cut-edge values reach the tasks that receive them: the one seam between the
// runtime and the byte-moving paths of net/. A worker starts one when it starts and owns it;
// the rendezvous of every graph it binds sends through it, and its edges' rendezvous actors
// receive through it. Each value takes the cheapest path to its receiver:
//
//   receiver                                   path
//   in this process                            the edge actor's mailbox; the buffer is shared
//   on this host, shared-memory link up        a block of this task's segment, a descriptor
//                                              in the message (net/shm/)
//   elsewhere, > bulk_from, bulk port          the receiving task's bulk socket (net/bulk/)
//   elsewhere, > edge_chunk_bytes              chunks through CAF, in order (net/wire/)
//   elsewhere                                  one CAF message, batched per receiving process
//                                              while an executor's pass is open
//                                              (net/wire/send_batch.hpp)
//
// bulk_from is edge_chunk_bytes for a task at this task's address or a loopback one, and
// cross_host_bulk_bytes for a task at another address. Over a real link, CAF's connection is
// also the one its heartbeats and every request take: a value of a few hundred kB ahead of
// them in the same TCP stream delays them by its transfer time, which on a slow or distant
// link exceeds the heartbeat timeout (a 20 ms link took a healthy ps for lost within seconds).
// On its own connection the value delays nothing but itself. On loopback the bulk writer's
// thread hand-over costs more than the bytes, so only big values take it.
//
// The choice of the receiving task's channels is made once per edge, when a graph is bound
// (route_to); sending takes no lock of the transport's. Nothing waits for an answer: a
// receiver that refuses a value aborts the step there, and the master spreads the abort.
//
// The receiving channels (the bulk listener, the shared-memory listener, a thread each) open
// when a peer is first told how to reach them, so a task that never receives a value from
// another process runs no listener thread.
//
// Thread-safety: send, output_allocator and the batching calls from any thread; route_to,
// accept, forget, endpoint and shared_memory from the owning worker's thread.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "graph/core/allocator.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"
#include "graph/core/variable_home.hpp"
#include "net/finished_steps.hpp"
#include "net/protocol.hpp"

namespace caflow {

class bulk_receiver;
class bulk_sender;
class shm_link;
class shm_receiver;
class shm_sender;

struct edge_transport_options {
  std::string task;        // "/job:J/replica:0/task:T", for logs
  std::string bulk_host;   // where the bulk listener binds; empty: no bulk channel
  uint64_t shm_segment_bytes = 0;  // each shared segment's size; 0: no shared-memory links
  // The steps that ended without success here: values still queued for them are dropped.
  std::shared_ptr<const finished_steps> abandoned{};
};

// Where the values of one _Send go, chosen when its graph is bound.
// Values above this size go to a task at another address by its bulk socket.
inline constexpr uint64_t cross_host_bulk_bytes = uint64_t{64} << 10;

struct edge_route {
  rendezvous_actor actor;            // the edge's rendezvous actor (a proxy in another process)
  bool remote = false;               // in another process: the tensor is serialized
  bulk_endpoint at;                  // its task's channels; port 0: no bulk socket
  std::shared_ptr<shm_link> shm;     // its task's shared-memory link; null: none
  // Values above this size take the bulk socket; route_to sets it (never, until then).
  uint64_t bulk_from = std::numeric_limits<uint64_t>::max();
};

class edge_transport {
 public:
  // Starts the sending channels `opts` asks for; the receiving ones open with the first
  // endpoint(). A channel that cannot start is logged (a warning naming the task and the
  // reason) and left out: its values take the next path down.
  static std::shared_ptr<edge_transport> start(const edge_transport_options& opts);
  // A transport with no channels of its own: every value goes through CAF.
  edge_transport();
  ~edge_transport();
  edge_transport(const edge_transport&) = delete;
  edge_transport& operator=(const edge_transport&) = delete;

  // --- sending ---
  // The route to the edge actor `to` of a task whose channels are `at`.
  edge_route route_to(rendezvous_actor to, const bulk_endpoint& at) const;
  // Sends `value` of step `step_id` under `key` along `route`.
  void send(const edge_route& route, int64_t step_id, const std::string& key,
            const tensor& value) const;
  // Memory for a value whose only reader is a _Send along `route` such that sending it needs
  // no copy (its shared-memory link's segment); null: the device's own.
  std::shared_ptr<allocator> output_allocator(const edge_route& route) const;
  // The batch of an executor's pass on this thread (net/wire/send_batch.hpp): values sent
  // between begin_pass and the outermost end_pass leave together, one message per process.
  static void begin_pass();
  static void end_pass();
  static bool holding();
  static void flush();

  // --- receiving ---
  // What this task's peers need to reach its channels (bulk port, shared-memory listener),
  // opening them on the first call.
  bulk_endpoint endpoint();
  // Frames for `edge` arriving on the bulk socket go to it; forget undoes that.
  void accept(const rendezvous_actor& edge);
  void forget(const rendezvous_actor& edge);
  // Resolves descriptors of values that arrive in shared memory; null without a listener
  // (before the first endpoint(), none is open).
  std::shared_ptr<const shm_receiver> shared_memory() const { return shm_in_; }
  // Where variables that the tasks on this host read should live so that they cross without a
  // copy (the shared segment); null without shared-memory links.
  std::shared_ptr<variable_home> variables_home() const;

 private:
  void open_receivers();

  edge_transport_options opts_;  // as start() had them: bulk_host is this task's own address
  bool receivers_opened_ = false;
  std::unique_ptr<bulk_receiver> bulk_in_;
  std::shared_ptr<bulk_sender> bulk_out_;
  std::shared_ptr<shm_receiver> shm_in_;
  std::shared_ptr<shm_sender> shm_out_;
};

}  // namespace caflow
