#pragma once
// The only code that touches CAF's middleman. A task opens one port and names its roles there
// (worker, master); peers and clients connect once per task and look the roles up by name.
// With TLS (transport_security) the same happens through our TLS connection manager (caf::openssl
// sessions, see middleman.cpp): every connection of the process, in and out, is then TLS with
// mutual certificate authentication.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "net/cluster_spec.hpp"
#include "net/transport_security.hpp"

namespace caflow {

constexpr caf::atom_value worker_role = caf::atom("cf_worker");
constexpr caf::atom_value master_role = caf::atom("cf_master");

struct failure_detection {
  // Every process of a cluster sends heartbeats this often; a peer silent for `timeout` is lost.
  std::chrono::milliseconds heartbeat_interval{100};
  std::chrono::milliseconds timeout{1000};
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
status_or<caf::strong_actor_ptr> find_remote_role(caf::actor_system& sys, const host_port& where,
                                                  caf::atom_value role,
                                                  std::chrono::milliseconds patience);

// Start-up without crossed connections. BASP keeps one connection per pair of processes, but in
// CAF 0.17 each side picks it on its own: when two tasks connect to each other at the same
// moment (TLS makes the window wide) each may keep a different connection, each then hears no
// heartbeats on the one it kept, and the pair loses its link a connection timeout later
// (docs/caf_0.17_notes.md, "Two nodes connecting to each other"). So at start-up only the
// earlier task of a pair connects, and introduces its worker to the later one, which waits.
constexpr caf::atom_value introductions_role = caf::atom("cf_intros");
using cf_introduce_atom = caf::atom_constant<caf::atom("cf_intro")>;

// The introductions this process has received, by task name. Constructing it names an actor
// taking them on this process (do it before the port opens); destroying it stops that actor.
class introductions {
 public:
  explicit introductions(caf::actor_system& sys);
  ~introductions();
  introductions(const introductions&) = delete;
  introductions& operator=(const introductions&) = delete;

  // `task`'s introduced actor, or nullptr when it has not introduced itself.
  caf::strong_actor_ptr find(const std::string& task) const;
  // Blocks until any introduction arrives or `deadline` passes.
  void wait_until(std::chrono::steady_clock::time_point deadline) const;

  struct book;

 private:
  caf::actor_system& sys_;
  std::shared_ptr<book> book_;
  caf::actor actor_;
};

// Introduces `task`'s `actor` to the process of `peer` (an actor there, e.g. one found by
// find_remote_role) and waits up to `timeout` for it to acknowledge. Errors name the task.
status introduce(caf::actor_system& sys, const caf::strong_actor_ptr& peer,
                 const std::string& task, const caf::strong_actor_ptr& actor,
                 std::chrono::milliseconds timeout);

// Whether something accepts TCP connections at `where` now: a plain connect, closed at once,
// that waits at most `timeout`. Speaks no BASP, so it never becomes a route.
bool accepts_connections(const host_port& where, std::chrono::milliseconds timeout);

// Finds roles of peers that went away and may have come back (a restarted task), on its own
// thread: connecting blocks, and an actor must not. Replies with the role's actor, or an error
// naming the address once `patience` has passed.
using cf_resolve_atom = caf::atom_constant<caf::atom("cf_resolve")>;
using resolver_actor = caf::typed_actor<
    caf::replies_to<cf_resolve_atom, std::string, uint16_t, caf::atom_value>::with<caf::strong_actor_ptr>>;
resolver_actor spawn_resolver(caf::actor_system& sys, std::chrono::milliseconds patience);

}  // namespace caflow
