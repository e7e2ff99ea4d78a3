#pragma once
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <caf/all.hpp>

#include "graph/core/status.hpp"

namespace caflow {

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

}  // namespace caflow
