#include "actors/admin/admin_actor.hpp"

#include <functional>
#include <memory>

#include <caf/all.hpp>

#include "actors/admin/admin_queries.hpp"
#include "actors/admin/clock_alignment.hpp"
#include "graph/core/log.hpp"
#include "graph/core/device_name.hpp"
#include "net/cluster_spec.hpp"
#include "net/errors.hpp"
#include "net/middleman.hpp"

namespace caflow {
namespace {

using namespace std::chrono_literals;

int64_t wall_clock_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct admin_state {
  admin_options opts;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  resolver_actor resolver;
  std::map<std::string, admin_actor> peer_admins;  // found so far; dropped when one fails
  static inline const char* name = "caflow.admin";
};

using admin_pointer = admin_actor::stateful_pointer<admin_state>;
using answer_fn = std::function<void(status_or<admin_reply>)>;

std::string uptime(const admin_state& st) {
  return format_seconds(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - st.started).count());
}

// Answers `q` for this task alone, asking the master or the worker as the command needs.
void answer_here(admin_pointer self, const admin_query& q, answer_fn k) {
  auto& st = self->state;
  const std::string role = role_for_command(q.words.at(0));
  const auto local_timeout = st.opts.peer_timeout;
  auto stamped = [k](status_or<admin_reply> r) {
    if (r.ok()) {
      r->clock_us = wall_clock_us();
      r->clock_domain = local_clock_domain();
    }
    k(std::move(r));
  };
  auto failed = [stamped, task = st.opts.task](const char* who) {
    return [stamped, task, who](caf::error& e) {
      stamped(to_status(e).with_context(std::string("the ") + who + " of " + task));
    };
  };
  if (q.words[0] == "tasks") {
    // Answered by the task asked, not gathered: how a console reaches each task from here.
    admin_reply r;
    r.table.columns = {"task", "address", "reach"};
    r.table.rows.push_back({st.opts.task, st.opts.address, reach_here});
    for (const auto& [task, address] : st.opts.peers)
      r.table.rows.push_back({task, address, reach_through});
    for (const auto& [task, address] : st.opts.outside)
      r.table.rows.push_back({task, address, reach_outside});
    return stamped(std::move(r));
  }
  if (role == "admin") {
    admin_reply r;
    r.table.columns = {"task", "address", "state", "uptime"};
    r.table.rows.push_back({st.opts.task, st.opts.address, "alive", uptime(st)});
    return stamped(std::move(r));
  }
  if (role == "worker") {
    self->request(st.opts.worker, local_timeout, cf_inspect_atom::value, q)
        .then([stamped](admin_reply& r) { stamped(std::move(r)); }, failed("worker"));
    return;
  }
  if (q.words[0] == "abort") {
    const int64_t step = std::stoll(q.words.at(1));
    self->request(st.opts.master, local_timeout, cf_kill_step_atom::value, step,
                  std::string("aborted from caflow-console"))
        .then(
            [stamped, step, task = st.opts.task](bool found) {
              admin_reply r;
              r.table.columns = {"task", "step", "state"};
              if (found) r.table.rows.push_back({task, std::to_string(step), "aborted"});
              stamped(std::move(r));
            },
            failed("master"));
    return;
  }
  self->request(st.opts.master, local_timeout, cf_inspect_atom::value)
      .then(
          [stamped, q, task = st.opts.task](master_snapshot& m) {
            stamped(answer_master_query(task, m, q));
          },
          failed("master"));
}

// One cluster-wide question: the answers of every task it goes to, merged once all are in.
struct gathering {
  admin_query query;
  caf::typed_response_promise<admin_reply> promise;
  std::map<std::string, status_or<admin_reply>> answers;  // by task: ordered output
  std::map<std::string, int64_t> clock_offsets_us;        // added to the task's trace events
  size_t pending = 0;
};

void finish(admin_pointer self, const std::shared_ptr<gathering>& g) {
  const std::string& command = g->query.words[0];
  admin_reply merged;
  std::vector<variable_shard> shards;
  for (auto& [task, answer] : g->answers) {
    if (!answer.ok()) {
      if (command == "cluster") {
        auto addr = self->state.opts.peers.find(task);
        merged.table.rows.push_back(
            {task, addr == self->state.opts.peers.end() ? "?" : addr->second, "lost", "-"});
      }
      merged.table.notes.push_back(task + " did not answer: " + answer.get_status().message());
      continue;
    }
    admin_reply& r = *answer;
    if (merged.table.columns.empty()) merged.table.columns = r.table.columns;
    for (auto& row : r.table.rows) merged.table.rows.push_back(std::move(row));
    for (auto& note : r.table.notes) merged.table.notes.push_back(std::move(note));
    for (auto& s : r.shards) shards.push_back(std::move(s));
    const int64_t offset = g->clock_offsets_us[task];
    for (auto& e : r.events) {
      e.start_us += offset;
      merged.events.push_back(std::move(e));
    }
  }
  // A partitioned variable's shards live on several tasks: shown once all have answered.
  render_partitioned_variables(g->query, std::move(shards), merged.table);
  if (command == "cluster" && merged.table.columns.empty())
    merged.table.columns = {"task", "address", "state", "uptime"};
  if (merged.table.rows.empty() && (command == "var" || command == "abort")) {
    const status missing =
        command == "var"
            ? errors::not_found("no variable '", g->query.words[1], "' on any task")
            : errors::not_found("no master runs step ", g->query.words[1], " (it may be over)");
    g->promise.deliver(to_caf_error(merged.table.notes.empty()
                                        ? missing
                                        : missing.with_context(merged.table.notes.front())));
    return;
  }
  merged.clock_us = wall_clock_us();
  g->promise.deliver(std::move(merged));
}

void answered(admin_pointer self, const std::shared_ptr<gathering>& g, const std::string& task,
              status_or<admin_reply> r) {
  g->answers.insert_or_assign(task, std::move(r));
  if (--g->pending == 0) finish(self, g);
}

bool is_trace_collect(const admin_query& q) {
  return q.words.size() == 2 && q.words[0] == "trace" && q.words[1] == "collect";
}

// Measures `peer`'s clock against ours with `rounds_left` more small round trips (the
// "cluster" question, answered by the admin itself), then calls `k` with the offset of the
// shortest one. Done before a trace is collected, so the trace's own (big) reply skews nothing.
// A peer on this machine (same clock domain) reads our clock: its offset is 0, after one trip.
void align_clock(admin_pointer self, admin_actor peer,
                 std::shared_ptr<std::vector<clock_sample>> samples, int rounds_left,
                 std::function<void(status_or<int64_t>)> k) {
  if (rounds_left == 0) {
    auto offset = clock_offset_us(*samples);
    if (!offset) return k(errors::unavailable("no usable clock sample"));
    return k(*offset);
  }
  const int64_t t0 = wall_clock_us();
  self->request(peer, self->state.opts.peer_timeout, cf_admin_local_atom::value,
                admin_query{{"cluster"}})
      .then(
          [self, peer, samples, rounds_left, k, t0](admin_reply& r) {
            if (r.clock_domain == local_clock_domain()) return k(int64_t{0});
            samples->push_back({t0, r.clock_us, wall_clock_us()});
            align_clock(self, peer, samples, rounds_left - 1, k);
          },
          [k](caf::error& e) { k(to_status(e)); });
}

// Asks a peer's admin; finds it first when it is not known (or was lost).
void ask_peer(admin_pointer self, const std::shared_ptr<gathering>& g, const std::string& task,
              const std::string& address, admin_query q) {
  auto& st = self->state;
  auto forget = [self, g, task](caf::error& e) {
    self->state.peer_admins.erase(task);
    answered(self, g, task, to_status(e));
  };
  auto ask = [self, g, task, q, forget](admin_actor peer) {
    auto request = [self, g, task, q, forget, peer] {
      self->request(peer, self->state.opts.peer_timeout, cf_admin_local_atom::value, q)
          .then([self, g, task](admin_reply& r) { answered(self, g, task, std::move(r)); }, forget);
    };
    if (!is_trace_collect(q)) return request();
    align_clock(self, peer, std::make_shared<std::vector<clock_sample>>(), clock_alignment_rounds,
                [self, g, task, request, forget](status_or<int64_t> offset) {
                  if (!offset.ok()) {
                    caf::error e = to_caf_error(offset.get_status());
                    return forget(e);
                  }
                  g->clock_offsets_us[task] = *offset;
                  request();
                });
  };
  if (auto known = st.peer_admins.find(task); known != st.peer_admins.end())
    return ask(known->second);
  auto hp = split_host_port(address);
  if (!hp.ok()) return answered(self, g, task, hp.get_status());
  self->request(st.resolver, st.opts.peer_timeout + 2s, cf_resolve_atom::value, hp->host,
                hp->port, admin_role)
      .then(
          [self, g, task, ask](caf::strong_actor_ptr& found) {
            auto peer = caf::actor_cast<admin_actor>(found);
            if (!peer) return answered(self, g, task, errors::unavailable("no admin there"));
            // A peer that goes away is forgotten at once, so the next question finds it (or
            // finds it gone) instead of waiting out a timeout on a dead proxy.
            self->monitor(peer);
            self->state.peer_admins[task] = peer;
            ask(peer);
          },
          [self, g, task](caf::error& e) { answered(self, g, task, to_status(e)); });
}

// Delivers an answer (or its error) to `promise`.
answer_fn deliver_to(caf::typed_response_promise<admin_reply> promise) {
  return [promise](status_or<admin_reply> r) mutable {
    if (r.ok()) promise.deliver(std::move(*r));
    else promise.deliver(to_caf_error(r.get_status()));
  };
}

void answer_cluster(admin_pointer self, admin_query q,
                    caf::typed_response_promise<admin_reply> promise) {
  auto& st = self->state;
  if (q.words[0] == "tasks") return answer_here(self, q, deliver_to(promise));
  auto g = std::make_shared<gathering>();
  g->promise = promise;
  // "trace on|off TASK" goes to that task only, as "trace on|off".
  std::string only;
  if (q.words[0] == "trace" && q.words.size() == 3) {
    // As the console may write it ("/job:ps/task:0"), in the form tasks are named by; text
    // that names no task stays as it is, to be refused by name.
    only = task_of_device(q.words[2]);
    if (only.empty()) only = q.words[2];
    q.words.pop_back();
    if (only != st.opts.task && !st.opts.peers.count(only)) {
      promise.deliver(to_caf_error(errors::not_found("no task '", only, "' in the cluster")));
      return;
    }
  }
  g->query = q;
  std::vector<std::pair<std::string, std::string>> peers;
  for (const auto& [task, address] : st.opts.peers)
    if (only.empty() || only == task) peers.emplace_back(task, address);
  // A console's gatherer (no task of its own) only asks.
  const bool here = !st.opts.task.empty() && (only.empty() || only == st.opts.task);
  g->pending = peers.size() + (here ? 1 : 0);
  for (const auto& [task, address] : peers) ask_peer(self, g, task, address, q);
  if (here)
    answer_here(self, q, [self, g, task = st.opts.task](status_or<admin_reply> r) {
      answered(self, g, task, std::move(r));
    });
}

admin_actor::behavior_type admin_behavior(admin_pointer self, admin_options opts) {
  self->state.opts = std::move(opts);
  if (!self->state.opts.lookups)
    self->state.opts.lookups = std::make_shared<blocking_worker>("cf.lookups");
  self->state.resolver = spawn_resolver(self->home_system(), 500ms, self->state.opts.lookups);
  self->attach_functor([resolver = self->state.resolver] {
    caf::anon_send_exit(resolver, caf::exit_reason::user_shutdown);
  });
  self->set_down_handler([self](caf::down_msg& dm) {
    auto& peers = self->state.peer_admins;
    for (auto it = peers.begin(); it != peers.end();) {
      if (it->second.address() != dm.source) {
        ++it;
        continue;
      }
      write_log(log_level::info, self->state.opts.task, "the admin of ", it->first, " is gone (",
                self->home_system().render(dm.reason), ")");
      it = peers.erase(it);
    }
  });
  return {
      [self](cf_admin_atom, admin_query& q) -> caf::result<admin_reply> {
        if (log_enabled(log_level::debug)) {
          std::string line;
          for (const auto& w : q.words) (line += line.empty() ? "" : " ") += w;
          write_log(log_level::debug, self->state.opts.task, "console: ", line);
        }
        if (status bad = validate_query(q); !bad.ok()) return to_caf_error(bad);
        auto promise = self->make_response_promise<admin_reply>();
        answer_cluster(self, std::move(q), promise);
        return promise;
      },
      [self](cf_admin_local_atom, const admin_query& q) -> caf::result<admin_reply> {
        if (status bad = validate_query(q); !bad.ok()) return to_caf_error(bad);
        if (self->state.opts.task.empty())
          return to_caf_error(errors::failed_precondition("a console's gatherer is no task"));
        auto promise = self->make_response_promise<admin_reply>();
        answer_here(self, q, deliver_to(promise));
        return promise;
      },
  };
}

}  // namespace

admin_actor spawn_admin(caf::actor_system& sys, admin_options opts) {
  return sys.spawn(admin_behavior, std::move(opts));
}

}  // namespace caflow
