#include "actors/rendezvous/rendezvous_actor.hpp"

#include <algorithm>
#include <atomic>

#include <algorithm>
#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "actors/executor/executor.hpp"
#include "net/shm/shm_receiver.hpp"
#include "graph/core/allocator.hpp"
#include "graph/ir/partition.hpp"
#include "net/wire/chunk_assembler.hpp"
#include "net/errors.hpp"
#include "net/protocol.hpp"

namespace caflow {
namespace {

struct rendezvous_state {
  std::string key;
  std::shared_ptr<rendezvous> local;
  std::shared_ptr<const finished_steps> finished;
  std::shared_ptr<const shm_receiver> shm;  // null: this task takes no shared memory values
  size_t max_pending = 0;  // per graph receiving through the edge
  // How many registered graphs receive through the edge: every master's steps may each hold
  // their share (graph_registry keeps it); null: one.
  std::shared_ptr<const std::atomic<int>> graphs;
  std::chrono::milliseconds stale_after{0};
  // Steps with a value deposited or being assembled here, and when the first came.
  std::map<int64_t, std::chrono::steady_clock::time_point> pending;
  chunk_assembler assembling{[this](int64_t step_id) { return admit(step_id); }};
  static inline const char* name = "caflow.rendezvous";

  bool wrong_key(int64_t step_id, const std::string& other) {
    if (other == key || rendezvous_edge_key(other) == key) return false;
    local->abort_step(step_id, errors::internal("the rendezvous actor of edge '", key,
                                                "' received a value for edge '", other,
                                                "': its sender is bound to the wrong actor"));
    return true;
  }

  // Makes room for one more step's value, or aborts the step.
  bool admit(int64_t step_id) {
    if (pending.count(step_id)) return true;
    const size_t sharing = graphs ? static_cast<size_t>(std::max(1, graphs->load(std::memory_order_relaxed))) : 1;
    const size_t limit = max_pending * sharing;
    if (pending.size() >= limit) forget_steps_over();
    if (pending.size() >= limit) {
      local->abort_step(
          step_id,
          errors::resource_exhausted(
              "edge '", key, "' refuses the value of step ", step_id, ": it already holds ",
              pending.size(), " steps' values that are not cleaned up (oldest: step ",
              pending.begin()->first, "; max_pending_steps_per_edge = ", max_pending,
              sharing > 1 ? " for each of " + std::to_string(sharing) + " graphs" : std::string(),
              "): the receiving task falls behind, or its steps are never cleaned up"));
      return false;
    }
    pending.emplace(step_id, std::chrono::steady_clock::now());
    return true;
  }

  // Steps that succeeded were cleaned up without telling this actor (their values were all
  // taken); values older than stale_after belong to steps whose master is gone.
  void forget_steps_over() {
    const auto now = std::chrono::steady_clock::now();
    std::erase_if(pending, [&](const auto& entry) {
      const auto& [step_id, since] = entry;
      if (finished->contains(step_id)) return true;
      if (stale_after.count() <= 0 || now - since < stale_after) return false;
      assembling.forget(step_id);
      local->abort_step(
          step_id,
          errors::aborted("edge '", key, "' dropped its value of step ", step_id, " after ",
                          std::chrono::duration_cast<std::chrono::milliseconds>(now - since).count(),
                          " ms: the step neither ran to its end here nor was cleaned up (its "
                          "master was lost before it ran here?)"));
      return true;
    });
  }

  // `value_key` is the edge's key, or in a while loop the key of the value's iteration.
  void hand_over(int64_t step_id, const std::string& value_key, const tensor& value) {
    // Fails for a second value of the step (which must fail the step) or for an aborted step
    // (where aborting again changes nothing).
    status st = local->send(value_key, step_id, value);
    if (!st.ok()) local->abort_step(step_id, st);
  }

  void deposit(const edge_value& v) {
    if (finished->contains(v.step_id) || wrong_key(v.step_id, v.key)) return;
    if (admit(v.step_id)) hand_over(v.step_id, v.key, v.value.value);
  }

  void take_shared(const edge_shm& v) {
    // The tensor first, even for a value that is dropped: its death gives the block back.
    auto value = shm ? shm->take(v)
                     : status_or<tensor>(errors::failed_precondition(
                           "edge '", key, "' received a shared memory value of step ", v.step_id,
                           ", but this task has no shared memory listener"));
    if (finished->contains(v.step_id) || wrong_key(v.step_id, v.key)) return;
    if (!value.ok()) local->abort_step(v.step_id, value.get_status());
    else if (admit(v.step_id)) hand_over(v.step_id, v.key, *value);
  }

  // A batch names its entries' actors; a forged one could name any actor anywhere.
  template <class Pointer>
  bool forwardable(Pointer self, const rendezvous_actor& to, int64_t step_id,
                   const std::string& edge) {
    if (to && to.node() == self->node()) return true;
    local->abort_step(step_id, errors::invalid_argument(
                                   "a batch that came to edge '", key, "' sends the value of edge '",
                                   edge, "' to an actor of another process: refused"));
    return false;
  }

  // Gives the block of a descriptor that will not be deposited back to its sender.
  void release(const edge_shm& v) const {
    if (shm) (void)shm->take(v);
  }

  template <class Pointer>
  void take_batch(Pointer self, const edge_batch& b) {
    const size_t entries = b.values.size() + b.shared.size();
    if (b.to.size() != entries) {
      const status why = errors::invalid_argument("edge '", key, "' received a batch of ", entries,
                                                  " values for ", b.to.size(), " edges: dropped");
      for (const edge_value& v : b.values) local->abort_step(v.step_id, why);
      for (const edge_shm& v : b.shared) {
        release(v);
        local->abort_step(v.step_id, why);
      }
      return;
    }
    auto mine = [&](const rendezvous_actor& to) {
      return to && to.id() == self->id() && to.node() == self->node();
    };
    for (size_t i = 0; i < b.values.size(); ++i) {
      const edge_value& v = b.values[i];
      if (mine(b.to[i])) deposit(v);
      else if (forwardable(self, b.to[i], v.step_id, v.key))
        self->send(b.to[i], cf_push_atom::value, v);
    }
    for (size_t i = 0; i < b.shared.size(); ++i) {
      const edge_shm& v = b.shared[i];
      const rendezvous_actor& to = b.to[b.values.size() + i];
      if (mine(to)) {
        take_shared(v);
      } else if (forwardable(self, to, v.step_id, v.key)) {
        self->send(to, cf_shm_atom::value, v);
      } else {
        release(v);
      }
    }
  }

  void take_chunk(const edge_chunk& c) {
    if (finished->contains(c.step_id) || wrong_key(c.step_id, c.key)) return;
    auto whole = assembling.take(c);
    if (!whole.ok()) local->abort_step(c.step_id, whole.get_status());
    else if (whole->initialized()) hand_over(c.step_id, c.key, *whole);
  }
};

rendezvous_actor::behavior_type rendezvous_endpoint(
    rendezvous_actor::stateful_pointer<rendezvous_state> self, std::string key,
    std::shared_ptr<rendezvous> local, std::shared_ptr<const finished_steps> finished,
    std::shared_ptr<const shm_receiver> shm, int max_pending_steps,
    std::chrono::milliseconds stale_after, std::shared_ptr<const std::atomic<int>> graphs) {
  auto& st = self->state;
  st.graphs = std::move(graphs);
  st.shm = std::move(shm);
  st.stale_after = stale_after;
  st.key = std::move(key);
  st.local = std::move(local);
  st.finished = std::move(finished);
  st.max_pending = static_cast<size_t>(max_pending_steps > 0 ? max_pending_steps : 1);
  return {
      // By const reference: a local message keeps sharing the sender's tensor buffer. The
      // receiving step continues here with its light nodes (see executor.hpp).
      [self](cf_push_atom, const edge_value& v) {
        executor::actor_thread_scope on_actor;
        self->state.deposit(v);
      },
      [self](cf_chunk_atom, const edge_chunk& c) {
        executor::actor_thread_scope on_actor;
        self->state.take_chunk(c);
      },
      [self](cf_shm_atom, const edge_shm& v) {
        executor::actor_thread_scope on_actor;
        self->state.take_shared(v);
      },
      [self](cf_batch_atom, const edge_batch& b) {
        executor::actor_thread_scope on_actor;
        self->state.take_batch(self, b);
      },
      [self](cf_abort_atom, int64_t step_id, const step_error& root_cause) {
        auto& s = self->state;
        if (!s.finished->contains(step_id)) s.local->abort_step(step_id, to_status(root_cause));
      },
      [self](cf_cleanup_atom, int64_t step_id) {
        auto& s = self->state;
        s.pending.erase(step_id);
        s.assembling.forget(step_id);
        // A value deposited after the worker cleaned the step up (it passed the finished check
        // just before the step was marked) must not stay in the rendezvous. Values that come
        // from now on are dropped: the worker marked the step before it sent this message.
        s.local->cleanup_step(step_id);
      },
  };
}

}  // namespace

rendezvous_actor spawn_rendezvous_actor(caf::actor_system& sys, std::string key,
                                        std::shared_ptr<rendezvous> local,
                                        std::shared_ptr<const finished_steps> finished,
                                        std::shared_ptr<const shm_receiver> shm,
                                        int max_pending_steps,
                                        std::chrono::milliseconds stale_after,
                                        std::shared_ptr<const std::atomic<int>> graphs) {
  return sys.spawn(rendezvous_endpoint, std::move(key), std::move(local), std::move(finished),
                   std::move(shm), max_pending_steps, stale_after, std::move(graphs));
}

}  // namespace caflow
