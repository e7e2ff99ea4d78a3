#pragma once
// The only code that touches CAF's middleman. A task opens one port and names its roles there
// (worker, master); peers and clients connect once per task and look the roles up by name.
// With TLS (transport_security) the same happens through our TLS connection manager (caf::openssl
// sessions, see middleman.cpp): every connection of the process, in and out, is then TLS with
// mutual certificate authentication.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "graph/platform/time_scale.hpp"
#include "net/loop/blocking_worker.hpp"
#include "net/cluster_spec.hpp"
#include "net/security/transport_security.hpp"

namespace caflow {

constexpr caf::atom_value worker_role = caf::atom("cf_worker");
constexpr caf::atom_value master_role = caf::atom("cf_master");

struct failure_detection {
  // Every process of a cluster sends heartbeats this often; a peer silent for `timeout` is lost.
  std::chrono::milliseconds heartbeat_interval{100};
  std::chrono::milliseconds timeout{scaled_failure(std::chrono::milliseconds{1000})};

  // 5 s of silence instead of 1 s, for peers whose loss is not worth finding quickly at the
  // price of a false alarm on a loaded host: a client and its master (a client fails its
  // running step when it loses the master; a build beside it must not), and the tasks of one
  // process (an embedded cluster: none can die or freeze alone, so only load silences one).
  static failure_detection patient() {
    return {.heartbeat_interval = std::chrono::milliseconds{500},
            .timeout = scaled_failure(std::chrono::milliseconds{5000})};
  }
};

// Loads the middleman (and caf::openssl's manager when `sec.tls()`), announces every wire type,
// sets heartbeats and the cluster id on a config. REQUIRES validate(sec) to have passed.
void configure_network(caf::actor_system_config& cfg, const failure_detection& fd,
                       const transport_security& sec = {});

// Opens `where` (port 0: any free port) and returns the bound port.
status_or<uint16_t> open_task_port(caf::actor_system& sys, const host_port& where);
// Names `actor` as `role` on this process's port.
void announce_role(caf::actor_system& sys, caf::atom_value role, const caf::strong_actor_ptr& actor);
// Connects to a task and looks its `role` up, retrying until `patience` has passed (peers of a
// starting cluster come up in any order). Never blocks much longer than `patience`, even on a
// peer that accepts and then stays silent (frozen, or refusing our certificate or cluster id).
// Errors name the address and the role.
// With `cancelled`, it is asked between tries (each at most 2 s then) and ends the search
// with a `cancelled` error once it says true.
status_or<caf::strong_actor_ptr> find_remote_role(caf::actor_system& sys, const host_port& where,
                                                  caf::atom_value role,
                                                  std::chrono::milliseconds patience,
                                                  const std::function<bool()>& cancelled = {});

// Whether something accepts TCP connections at `where` now: a plain connect, closed at once,
// that waits at most `timeout`. Speaks no BASP, so it never becomes a route.
bool accepts_connections(const host_port& where, std::chrono::milliseconds timeout);
// The same connect, with the reason when nothing accepts: "connection refused" (nothing listens
// on that port: known at once), an unknown host, or no answer within `timeout`. Errors name the
// address. For interactive clients, which should hear of a wrong port at once instead of
// retrying as a starting cluster's peers do (find_remote_role).
status tcp_reachable(const host_port& where, std::chrono::milliseconds timeout);

// Finds roles of peers on `thread` (connecting blocks, and an actor must not): a peer met for
// the first time, or one that went away and may have come back (a restarted task). Replies with
// the role's actor, or an error naming the address once `patience` (the resolver's, or the
// request's own) has passed since the request arrived: requests queued behind a slow one share
// its wait instead of adding theirs. `thread` must be joined before `sys` goes (a server owns
// it); the lookups still queued then are dropped.
using cf_resolve_atom = caf::atom_constant<caf::atom("cf_resolve")>;
using resolver_actor = caf::typed_actor<
    caf::replies_to<cf_resolve_atom, std::string, uint16_t, caf::atom_value>::with<caf::strong_actor_ptr>,
    caf::replies_to<cf_resolve_atom, std::string, uint16_t, caf::atom_value,
                    caf::timespan>::with<caf::strong_actor_ptr>>;
resolver_actor spawn_resolver(caf::actor_system& sys, std::chrono::milliseconds patience,
                              std::shared_ptr<blocking_worker> thread);

}  // namespace caflow
