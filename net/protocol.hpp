#pragma once
// Every message between roles, declared once. Masters talk to workers (register partitions,
// wire up cut edges, run steps, abort, clean up); a _Send kernel pushes its tensor straight to
// the rendezvous actor of its edge, which lives on the receiving task (one network leg, not
// TensorFlow's request-then-reply two).
//
// A step, seen from the master:
//   1. reg_graph to each worker with its partition  -> reply: (recv key, rendezvous_actor)s
//   2. bind to each worker: (send key, rendezvous_actor)s of its _Sends, from step 1's replies
//   3. run_graph(step_id, feeds) to every worker in parallel -> fetched tensors; meanwhile each
//      _Send pushes (cf_push_atom, edge_value) to its edge's rendezvous_actor
//   4. on any error: abort(step_id, step_error) to every worker, the first error (the root
//      cause) as a structured value: code, message, and the node, device and task where it
//      arose; then cleanup(step_id). A step that succeeded everywhere needs neither: each
//      worker forgets it by itself (runs_here)
// A failed run_graph (and so a failed step, to the client) answers with to_caf_error() of its
// status, which keeps the same fields (net/errors.hpp).
// Every request between processes is bounded in time (a dead peer never answers): by a CAF
// timeout, or, for run_graph, by the master's step deadline tick (actors/master/master.cpp).
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "net/admin_protocol.hpp"
#include "net/errors.hpp"
#include "net/wire/wire_chunk.hpp"
#include "net/wire/wire_tensor.hpp"

namespace caflow {

// Atoms: at most 10 characters, prefixed "cf_" so they never clash with CAF's own.
using cf_reg_graph_atom = caf::atom_constant<caf::atom("cf_regraph")>;
using cf_bind_atom = caf::atom_constant<caf::atom("cf_bind")>;
using cf_run_graph_atom = caf::atom_constant<caf::atom("cf_run")>;
using cf_abort_atom = caf::atom_constant<caf::atom("cf_abort")>;
using cf_cleanup_atom = caf::atom_constant<caf::atom("cf_cleanup")>;
using cf_dereg_atom = caf::atom_constant<caf::atom("cf_dereg")>;
using cf_push_atom = caf::atom_constant<caf::atom("cf_push")>;
// A piece of a _Send's tensor too big for one message: (cf_chunk_atom, edge_chunk).
using cf_chunk_atom = caf::atom_constant<caf::atom("cf_chunk")>;
// A _Send's tensor in a shared memory segment of the same host: (cf_shm_atom, edge_shm).
using cf_shm_atom = caf::atom_constant<caf::atom("cf_shm")>;
// Several values of one executor burst for one receiving task: (cf_batch_atom, edge_batch).
using cf_batch_atom = caf::atom_constant<caf::atom("cf_batch")>;
using cf_devices_atom = caf::atom_constant<caf::atom("cf_devs")>;
// From a master: connect straight to another task (name, "host:port") before partitions that
// exchange values with it are bound, so their values do not detour through the master's process.
using cf_meet_atom = caf::atom_constant<caf::atom("cf_meet")>;
using cf_create_atom = caf::atom_constant<caf::atom("cf_create")>;
using cf_extend_atom = caf::atom_constant<caf::atom("cf_extend")>;
using cf_step_atom = caf::atom_constant<caf::atom("cf_step")>;
using cf_close_atom = caf::atom_constant<caf::atom("cf_close")>;
// A master's periodic look at its steps' deadlines (sent to itself).
using cf_tick_atom = caf::atom_constant<caf::atom("cf_tick")>;

// A _Send's tensor, pushed to the rendezvous actor of its edge.
struct edge_value {
  int64_t step_id = 0;
  std::string key;
  wire_tensor value;
};

// A value that the sending task wrote into a shared memory segment it handed this task
// (net/shm/shm_sender.hpp, net/shm/shm_receiver.hpp): only where the bytes are travels. Every
// field is checked on arrival (a valid dtype and shape, a byte count equal to elements x
// element size, a block inside a segment this task holds from that link) before a tensor
// views the bytes.
struct edge_shm {
  int64_t step_id = 0;
  std::string key;
  uint8_t type = 0;  // dtype
  std::vector<int64_t> dims;
  uint64_t segment = 0;  // the receiving task's number for the segment
  uint64_t offset = 0;   // of the tensor's first byte in the segment
  uint64_t bytes = 0;
  uint32_t lease_slot = 0;  // the counter in the block's header this receiver gives back
};

// The receiving end of one cut edge (actors/rendezvous/rendezvous_actor.hpp): one per rendezvous key, on
// the receiving task; the master learns its handle from the worker's registration reply and
// binds the sending _Send to it. Every message is one-way: nothing is answered.
//   push    (edge_value) from the edge's sender, or from this task's bulk receiver for a value
//           that came over the bulk channel: deposits the value into the worker's local
//           rendezvous, where this step's _Recv takes it (before or after it asked).
//   chunk   (edge_chunk) from a sender in another process, for a tensor too big for one
//           message: the first chunk (offset 0) allocates the whole tensor once its header is
//           checked (dtype, shape, byte count, at most max_chunked_tensor_bytes); each chunk
//           must continue exactly where the last ended and announce the same header; the last
//           one deposits the tensor. Anything else (a gap, an overlap, too many bytes, a
//           changed header, an absurd size) aborts the step on this task with an error naming
//           the edge, and the transfer's remaining chunks are dropped.
//   shm     (edge_shm) from a sender on the same host with a shared memory link to this task:
//           the value viewed where the sender wrote it, deposited like a pushed one; a
//           descriptor that fails its checks aborts the step here, naming the edge.
//   batch   (edge_batch) from a sender in another process: the values its executor sent to
//           this task in one burst (net/wire/send_batch.hpp), one message instead of one per
//           edge. The actor that receives it takes its own entries as a push or shm message
//           and forwards every other entry, unchanged, to its edge's actor: a message within
//           this process, sharing the bytes. An entry addressed to an actor of another process
//           is refused (its step aborted here, naming the edge), so a batch cannot make this
//           task send anything elsewhere; a batch whose lists disagree in length is dropped,
//           with the steps it names aborted here.
//   abort   (step id, step_error) from this task's bulk receiver, for a value that arrived but
//           could not be kept: aborts the step on this task with that root cause (code,
//           message, node, device, task as sent), so its _Recv fails instead of waiting.
//   cleanup (step id) from its worker once a step is over there: forgets the step.
// Memory is bounded: the actor holds values (whole or being assembled) of at most
// max_pending_steps_per_edge steps not cleaned up yet. A value of one more step is refused:
// that step is aborted on this task with resource_exhausted naming the edge, so its _Recv
// fails instead of memory growing without bound. A value for another key, or a second value
// of a step, aborts the step likewise. A value (or abort) of a step that is already over on
// this task (a sender of an aborted step running late) is dropped.
struct edge_batch;
using rendezvous_actor = caf::typed_actor<
    caf::reacts_to<cf_push_atom, edge_value>,
    caf::reacts_to<cf_chunk_atom, edge_chunk>,
    caf::reacts_to<cf_shm_atom, edge_shm>,
    caf::reacts_to<cf_batch_atom, edge_batch>,
    caf::reacts_to<cf_abort_atom, int64_t, step_error>,  // step id, root cause
    caf::reacts_to<cf_cleanup_atom, int64_t>>;           // step id

// The entries of a batch in order: to[i] is the edge actor of values[i] for i < values.size(),
// then of shared[i - values.size()].
struct edge_batch {
  std::vector<rendezvous_actor> to;
  std::vector<edge_value> values;
  std::vector<edge_shm> shared;
};

struct register_graph_request {
  std::string session;  // the master's session handle, for logs and the console
  std::string device;   // full name of the device on the worker's task
  std::string graph;    // serialize_graph() of the partition (with _Send/_Recv nodes)
};

// The side channels where a worker takes tensors outside CAF's messages.
// - Its bulk channel (net/bulk/bulk_receiver.hpp) for big tensors; port 0: it has none (TLS is
//   on, or the listener could not open), so they come through CAF.
// - Its shared memory listener (net/shm/shm_receiver.hpp) for tasks on the same host, which
//   they recognize by the boot id; an empty path: it has none.
struct bulk_endpoint {
  std::string host;
  uint16_t port = 0;
  std::string token;  // bulk_token_bytes random bytes a connection must start with
  std::string shm_path;     // the listener's Unix socket
  std::string shm_boot_id;  // /proc/sys/kernel/random/boot_id of the worker's host
  std::string shm_secret;   // what a connecting task proves it knows (random, per worker)
};

struct register_graph_reply {
  std::string graph_handle;
  uint64_t incarnation = 0;               // of the worker process: changes on restart
  std::vector<std::string> recv_keys;     // rendezvous key of every _Recv in the partition
  std::vector<rendezvous_actor> recv_endpoints;  // the rendezvous actor of each key, same order
  bulk_endpoint bulk{};                   // the worker's bulk channel
};

struct bind_request {
  std::string graph_handle;
  std::vector<std::string> send_keys;     // rendezvous key of every _Send in the partition
  std::vector<rendezvous_actor> send_endpoints;  // where each key's tensor goes, same order
  // The bulk channel of each endpoint's task, same order; empty: none has one.
  std::vector<bulk_endpoint> send_bulk{};
};

struct run_graph_request {
  std::string graph_handle;
  int64_t step_id = 0;
  std::vector<wire_tensor> args;          // the partition's _Arg values, by index
  int32_t num_rets = 0;                   // how many _Retval values to return
  // Indices of `args` left empty here because they came ahead in chunks ("arg:<i>", this step;
  // net/wire/chunked_values.hpp).
  std::vector<int32_t> chunked_args;
  // How many partitions of the step the master runs on this worker. Once that many have
  // succeeded here, the worker cleans the step up by itself and the master sends no cleanup
  // (a failed step still gets one). 0: wait for the master's cleanup.
  int32_t runs_here = 0;
  // The requester hands a reply's `sends` to its edge actors (a master does): the worker may
  // put its last values for the requester's process there. Off: they go as messages of their
  // own, whoever asks.
  bool reply_carries_sends = false;
  // Record when and where each node of the run ran, for the step's run metadata.
  bool trace = false;
};

struct run_graph_reply {
  std::vector<wire_tensor> rets;          // the partition's _Retval values, by index
  std::vector<int32_t> chunked_rets;      // sent ahead in chunks ("ret:<i>", this step)
  // What the run's last executor pass sent to the requester's process, carried here instead
  // of in a message of its own (net/wire/send_batch.hpp), when the request allowed it: the
  // master hands it to the first entry's edge actor as a batch, which must be in its process.
  edge_batch sends;
  std::vector<trace_event> trace{};  // the request asked: the run's nodes, on this task's clock
};

// A client's step, sent to a master: like session::run, by name.
struct run_step_request {
  std::string session;
  std::vector<std::string> feed_names;  // "node" or "node:port"
  std::vector<wire_tensor> feeds;
  std::vector<std::string> fetches;     // tensor names
  std::vector<std::string> targets;     // node names
  // Feeds left empty here because they came ahead in chunks ("feed:<i>", transfer `transfer`).
  int64_t transfer = 0;
  std::vector<int32_t> chunked_feeds;
  // Trace the step: the reply carries every node each partition ran (TF's RunOptions
  // FULL_TRACE, answered as RunMetadata's step stats).
  bool trace = false;
};

// What a client asks of its session on the master (session_options' share of it).
struct session_config {
  bool cse = true;
  bool constant_folding = true;
  int64_t max_constant_bytes = 10 << 20;
  std::vector<std::string> disabled_passes;
  bool allow_soft_placement = false;
  bool log_device_placement = false;
  // Tasks the session's steps cannot do without although none of their nodes may run there
  // (session_options::required_tasks).
  std::vector<std::string> required_tasks{};
  // The devices the session may place nodes on and the tasks its master talks to for it
  // (session_options::device_filters, net/device_filters.hpp); empty: every task.
  std::vector<std::string> device_filters{};
};

struct run_step_reply {
  std::vector<wire_tensor> fetches;
  int64_t transfer = 0;                 // of the fetches sent ahead in chunks ("fetch:<i>")
  std::vector<int32_t> chunked_fetches;
  // Filled by the step that prepared its run signature (the first one), empty afterwards: what
  // the graph passes did to the partitions, and, when the session logs placement, the table.
  int64_t nodes_removed = 0;
  int64_t nodes_folded = 0;
  std::string optimization;
  std::string placement;
  // The request asked for a trace: every node the step ran, on the master's clock.
  std::vector<trace_event> trace{};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_step_request& x) {
  return f(caf::meta::type_name("run_step_request"), x.session, x.feed_names, x.feeds, x.fetches,
           x.targets, x.transfer, x.chunked_feeds, x.trace);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_step_reply& x) {
  return f(caf::meta::type_name("run_step_reply"), x.fetches, x.transfer, x.chunked_fetches,
           x.nodes_removed, x.nodes_folded, x.optimization, x.placement, x.trace);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_config& x) {
  return f(caf::meta::type_name("session_config"), x.cse, x.constant_folding,
           x.max_constant_bytes, x.disabled_passes, x.allow_soft_placement,
           x.log_device_placement, x.required_tasks, x.device_filters);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, register_graph_request& x) {
  return f(caf::meta::type_name("register_graph_request"), x.session, x.device, x.graph);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, bulk_endpoint& x) {
  return f(caf::meta::type_name("bulk_endpoint"), x.host, x.port, x.token, x.shm_path,
           x.shm_boot_id, x.shm_secret);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, edge_shm& x) {
  return f(caf::meta::type_name("edge_shm"), x.step_id, x.key, x.type, x.dims, x.segment,
           x.offset, x.bytes, x.lease_slot);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, register_graph_reply& x) {
  return f(caf::meta::type_name("register_graph_reply"), x.graph_handle, x.incarnation,
           x.recv_keys, x.recv_endpoints, x.bulk);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, bind_request& x) {
  return f(caf::meta::type_name("bind_request"), x.graph_handle, x.send_keys, x.send_endpoints,
           x.send_bulk);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_graph_request& x) {
  return f(caf::meta::type_name("run_graph_request"), x.graph_handle, x.step_id, x.args,
           x.num_rets, x.chunked_args, x.runs_here, x.reply_carries_sends, x.trace);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_graph_reply& x) {
  return f(caf::meta::type_name("run_graph_reply"), x.rets, x.chunked_rets, x.sends, x.trace);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, edge_value& x) {
  return f(caf::meta::type_name("edge_value"), x.step_id, x.key, x.value);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, edge_batch& x) {
  return f(caf::meta::type_name("edge_batch"), x.to, x.values, x.shared);
}

// The worker role of a task.
using worker_actor = caf::typed_actor<
    caf::replies_to<cf_reg_graph_atom, register_graph_request>::with<register_graph_reply>,
    caf::replies_to<cf_bind_atom, bind_request>::with<bool>,
    caf::replies_to<cf_run_graph_atom, run_graph_request>::with<run_graph_reply>,
    caf::reacts_to<cf_abort_atom, int64_t, step_error>,       // step id, root cause
    caf::reacts_to<cf_cleanup_atom, int64_t>,                 // step id
    caf::reacts_to<cf_chunk_atom, edge_chunk>,                // a big feed, ahead of its run
    caf::replies_to<cf_dereg_atom, std::string>::with<bool>,  // graph handle
    caf::replies_to<cf_inspect_atom, admin_query>::with<admin_reply>,  // for the admin
    caf::replies_to<cf_devices_atom>::with<std::vector<std::string>>,  // full device names
    caf::replies_to<cf_meet_atom, std::string, std::string>::with<bool>>;  // task, host:port

// The master's end of a step asked by a session of its own process (net/loop/local_step_answer.hpp).
class local_step_promise;
using local_step_promise_ptr = std::shared_ptr<local_step_promise>;

// The master role of a task: sessions for clients. A session's graph travels as
// serialize_graph() bytes.
using master_actor = caf::typed_actor<
    caf::replies_to<cf_create_atom, std::string, session_config>::with<std::string>,  // -> handle
    caf::replies_to<cf_extend_atom, std::string, std::string>::with<bool>, // handle, more nodes
    caf::replies_to<cf_step_atom, run_step_request>::with<run_step_reply>,
    caf::reacts_to<cf_step_atom, run_step_request, local_step_promise_ptr>,  // same process
    caf::reacts_to<cf_chunk_atom, edge_chunk>,  // a big feed or fetch, ahead of its message
    caf::replies_to<cf_close_atom, std::string>::with<bool>,               // handle
    caf::replies_to<cf_inspect_atom>::with<master_snapshot>,               // for the admin
    caf::replies_to<cf_kill_step_atom, int64_t, std::string>::with<bool>,  // step, reason
    caf::reacts_to<cf_summary_atom, std::string, summary_report>,  // handle, the client's last
    caf::reacts_to<cf_tick_atom>>;

// Announces every wire type on a config; every process of a cluster calls it.
void add_wire_types(caf::actor_system_config& cfg);

}  // namespace caflow

// Never leaves its process: it has no serialization, so no peer can send one.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(caflow::local_step_promise_ptr)
