// How the master comes to know the other tasks: lazily, when a session needs them. A task is
// contacted once (a lookup of its worker through the resolver, which connects), monitored from
// then on, and asked for its devices; pairs of tasks that exchange values are connected to each
// other before their partitions are bound.
#include <caf/all.hpp>

#include <algorithm>
#include <tuple>

#include "actors/master/master_state.hpp"
#include "graph/core/log.hpp"
#include "net/errors.hpp"

namespace caflow::master_internal {
namespace {

// Cluster order: by job, then by task number ("worker/task:10" after "worker/task:9").
std::tuple<std::string, int, std::string> order_key(const std::string& task) {
  auto spec = parse_device_spec(task);
  if (!spec.ok()) return {task, 0, task};
  return {spec->job.value_or(""), spec->task.value_or(0), task};
}

bool earlier(const std::string& a, const std::string& b) { return order_key(a) < order_key(b); }

void contacted(master_pointer self, const std::string& task) {
  auto waiting = std::move(self->state.contacting[task]);
  self->state.contacting.erase(task);
  for (auto& w : waiting) w();
}

// Looks `task`'s worker up (once, however many sessions wait for it) and runs `then`.
void contact(master_pointer self, const std::string& task, std::function<void()> then) {
  auto& st = self->state;
  if (auto busy = st.contacting.find(task); busy != st.contacting.end()) {
    busy->second.push_back(std::move(then));
    return;
  }
  st.contacting[task].push_back(std::move(then));
  auto hp = split_host_port(st.opts.addresses.at(task));
  if (!hp.ok()) {
    st.lost[task] = hp.get_status().with_context("task " + task);
    return contacted(self, task);
  }
  const auto patience = st.opts.peer_patience;
  self->request(st.opts.resolver, patience + std::chrono::seconds(5), cf_resolve_atom::value,
                hp->host, hp->port, worker_role, caf::timespan{patience})
      .then(
          [=](caf::strong_actor_ptr& found) {
            auto& st = self->state;
            auto worker = caf::actor_cast<worker_actor>(found);
            if (!worker) {
              st.lost[task] = errors::unavailable("task ", task, " has no worker");
            } else {
              st.opts.workers[task] = worker;
              st.task_of[worker.address()] = task;
              st.lost.erase(task);
              self->monitor(worker);
            }
            contacted(self, task);
          },
          [=](caf::error& e) {
            self->state.lost[task] = to_status(e)
                                         .with_context("task " + task + " cannot be reached")
                                         .with_source(task_source(task));
            write_log(log_level::warn, own_task(self->state), self->state.lost[task].message());
            contacted(self, task);
          });
}

// Runs `then` once every task in `tasks` has answered for its devices (or failed to).
void list_devices(master_pointer self, const std::vector<std::string>& tasks,
                  std::function<void()> then) {
  auto& st = self->state;
  std::vector<std::pair<std::string, worker_actor>> ask;
  for (const auto& task : tasks) {
    auto w = st.opts.workers.find(task);
    if (w != st.opts.workers.end() && !st.task_devices.count(task) && !st.lost.count(task))
      ask.emplace_back(task, w->second);
  }
  if (ask.empty()) return then();
  // One continuation shared by every answer: copying `then` into each handler would copy what
  // it captured (a session's whole graph) once per task.
  auto pending = std::make_shared<size_t>(ask.size());
  auto done = [pending, then = std::make_shared<const std::function<void()>>(std::move(then))] {
    if (--*pending == 0) (*then)();
  };
  for (const auto& [task, worker] : ask)
    self->request(worker, self->state.opts.rpc_timeout, cf_devices_atom::value)
        .then(
            [self, task = task, done](const std::vector<std::string>& names) {
              // Only full names of this task: a worker cannot place nodes elsewhere.
              std::vector<std::string> own;
              for (const std::string& n : names)
                if (task_of_device(n) == task) own.push_back(n);
              self->state.task_devices[task] = std::move(own);
              done();
            },
            [self, task = task, done](const caf::error& e) {
              write_log(log_level::warn, own_task(self->state), "task ", task,
                        " did not list its devices (", self->home_system().render(e),
                        "); placing on its CPU only");
              done();
            });
}

}  // namespace

std::vector<std::string> tasks_in_scope(const master_state& st, const device_filters& filters) {
  std::set<std::string> names{own_task(st)};
  for (const auto& [task, worker] : st.opts.workers)
    if (filters.admits_task(task)) names.insert(task);
  for (const auto& [task, address] : st.opts.addresses)
    if (filters.admits_task(task)) names.insert(task);
  // Each name parsed once for its place in cluster order.
  std::vector<std::tuple<std::string, int, std::string>> keyed;
  for (const auto& task : names) keyed.push_back(order_key(task));
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::string> scope;
  for (auto& k : keyed) scope.push_back(std::move(std::get<2>(k)));
  return scope;
}

void with_peers(master_pointer self, const std::vector<std::string>& scope,
                std::function<void()> then) {
  auto& st = self->state;
  std::vector<std::string> unknown;
  for (const auto& task : scope)
    // A lost task is looked up again when a step needs it (master.cpp), not here.
    if (!st.opts.workers.count(task) && st.opts.addresses.count(task) && !st.lost.count(task))
      unknown.push_back(task);
  if (unknown.empty()) return list_devices(self, scope, std::move(then));
  auto pending = std::make_shared<size_t>(unknown.size());
  auto listed = std::make_shared<std::function<void()>>(
      [self, scope, then = std::move(then)] { list_devices(self, scope, then); });
  for (const auto& task : unknown)
    contact(self, task, [pending, listed] {
      if (--*pending == 0) (*listed)();
    });
}

std::vector<std::string> devices_in_scope(const master_state& st, const device_filters& filters) {
  std::vector<std::string> devices;
  for (const auto& task : tasks_in_scope(st, filters)) {
    if (!st.opts.workers.count(task) && !st.lost.count(task)) continue;  // never contacted
    auto known = st.task_devices.find(task);
    if (known == st.task_devices.end() || known->second.empty()) {
      devices.push_back(task + "/device:CPU:0");
      continue;
    }
    for (const auto& d : known->second)
      if (task == own_task(st) || filters.admits_device(d)) devices.push_back(d);
  }
  return devices;
}

void meet_pairs(master_pointer self, std::set<std::pair<std::string, std::string>> pairs,
                std::function<void(status)> then) {
  auto& st = self->state;
  std::vector<std::pair<std::string, std::string>> to_connect;
  for (auto [a, b] : pairs) {
    if (a == b || a == own_task(st) || b == own_task(st)) continue;
    if (earlier(b, a)) std::swap(a, b);
    // A task of this process (an in-process cluster's) has no address: nothing to connect.
    if (!st.opts.addresses.count(b) || st.met.count({a, b})) continue;
    to_connect.emplace_back(a, b);
  }
  if (to_connect.empty()) return then({});
  struct progress {
    size_t pending;
    status first;
  };
  auto p = std::make_shared<progress>(progress{to_connect.size(), {}});
  auto done = std::make_shared<const std::function<void(status)>>(std::move(then));
  for (const auto& [a, b] : to_connect) {
    auto w = st.opts.workers.find(a);
    if (w == st.opts.workers.end()) {
      p->first = errors::not_found("no worker for task ", a);
      if (--p->pending == 0) (*done)(p->first);
      continue;
    }
    // A worker tries a crossed connect twice (worker.cpp): room for both.
    self->request(w->second, 2 * st.opts.rpc_timeout, cf_meet_atom::value, b, st.opts.addresses.at(b))
        .then(
            [=, pair = std::make_pair(a, b)](bool) {
              self->state.met.insert(pair);
              if (--p->pending == 0) (*done)(p->first);
            },
            [=, a = a, b = b](caf::error& e) {
              if (p->first.ok())
                p->first = to_status(e).with_context("connecting task " + a + " to task " + b);
              if (--p->pending == 0) (*done)(p->first);
            });
  }
}

void forget_peer(master_state& st, const std::string& task) {
  st.task_devices.erase(task);
  for (auto it = st.met.begin(); it != st.met.end();)
    it = it->first == task || it->second == task ? st.met.erase(it) : std::next(it);
}

}  // namespace caflow::master_internal
