#pragma once
// One message per receiving process for the values a burst of the executor sends there.
//
// A parameter server's step partition reads every variable and sends each to the worker in a
// _Send of its own, one after the other in one pass of the executor; a worker's step ends with
// its last gradients and a few small values the same way. Sent one by one, each is a CAF
// message: a header, a socket write, a read, a dispatch and a wake-up on the other side. While
// a batch scope is open on a thread (the rendezvous a step runs with opens one around each pass
// of the executor over its ready nodes), remote_rendezvous hands such values here instead; when the outermost scope closes,
// or before the thread starts a kernel that is not light (so a gradient never waits for the
// next layer's GEMM), they go out as one (cf_batch_atom, edge_batch) per receiving process
// (see net/protocol.hpp), or as the plain message where only one value goes there.
//
// The batch is the thread's own (thread_local), so holding and flushing take no lock. Values
// held keep their order per receiving process. Outside a scope nothing is held.
#include <caf/fwd.hpp>

#include "net/protocol.hpp"

namespace caflow {

class send_batch {
 public:
  // Opens a batch on this thread; opens nest, and the close of the outermost sends.
  static void open();
  static void close();
  // open() until destroyed.
  class scope {
   public:
    scope() { open(); }
    ~scope() { close(); }
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
  };

  // Takes the value for `to` when a scope is open on this thread; false: none is, and the
  // caller sends it itself.
  static bool hold(const rendezvous_actor& to, edge_value&& v);
  static bool hold(const rendezvous_actor& to, edge_shm&& v);
  // Whether this thread holds anything now.
  static bool holding();
  // Sends what this thread holds; the scope stays open.
  static void flush();
  // Takes out what this thread holds for the process `node` (empty outside a scope), for a
  // message to that process to carry: a run's reply takes its last pass's values, which
  // saves the receiving process a read and a dispatch, and the sender a socket write.
  static edge_batch take(const caf::node_id& node);
  // Sends a batch that came inside another process's message (a run's reply) to its first
  // entry's edge actor, which deposits its own entry and forwards the others within this
  // process (rendezvous_actor.hpp). That actor must be of this process, `here`, so the batch
  // cannot make it send anything elsewhere: invalid_argument otherwise, nothing sent.
  static status hand_over(edge_batch&& b, const caf::node_id& here);
};

}  // namespace caflow
