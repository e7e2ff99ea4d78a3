#include "actors/server/server.hpp"

#include "devices/device_factory.hpp"

#include <algorithm>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/admin/admin_actor.hpp"
#include "actors/server/local_masters.hpp"
#include "graph/core/log.hpp"
#include "actors/master/master.hpp"
#include "actors/worker/worker.hpp"
#include "net/introductions.hpp"
#include "net/loop/loop_scheduler.hpp"

namespace caflow {
namespace {

std::string task_name_of(const std::string& job, int task) {
  return "/job:" + job + "/replica:0/task:" + std::to_string(task);
}

struct server_config : caf::actor_system_config {
  explicit server_config(const server_options& opts) {
    configure_network(*this, opts.failures, opts.security);
    set("caflow.same-host-rings", opts.same_host_rings);
    if (opts.scheduler_threads > 0)
      set("scheduler.max-threads", opts.scheduler_threads);
    else
      run_actors_on_network_loop(*this, opts.busy_poll);
  }
};

}  // namespace

struct server::impl {
  explicit impl(const server_options& o) : opts(o), cfg(o), sys(cfg) {}
  ~impl() {
    unregister_local_master(target());
    // Named actors stay referenced by the registry; ~actor_system would wait for them forever.
    sys.registry().erase(master_role);
    sys.registry().erase(worker_role);
    sys.registry().erase(admin_role);
    caf::anon_send_exit(admin, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(master, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(resolver, caf::exit_reason::user_shutdown);
    // Gone before the middleman closes its connections, so peers hear "user_shutdown" (an
    // orderly departure, logged at info) instead of a link that broke: BASP sends their down
    // messages from its own thread, and closing the connections does not wait for them.
    caf::scoped_actor self{sys, true};
    self->wait_for(admin, master, worker, resolver);
    std::this_thread::sleep_for(scaled(std::chrono::milliseconds(30)));
  }

  status bring_up(const host_port& where) {
    name = task_name_of(opts.job, opts.task);
    // The bulk channel is plain TCP: with TLS on, every byte goes through CAF's TLS instead.
    const bool bulk = opts.bulk_channel && !opts.security.tls();
    worker = spawn_worker(sys, {.job = opts.job, .task = opts.task, .cpu = opts.cpu,
                                .gpu = opts.gpu, .device_count = opts.device_count,
                                .stale_value_after = 2 * opts.step_timeout,
                                .bulk_host = bulk ? where.host : std::string{},
                                .shm_segment_bytes = opts.shm_segment_bytes,
                                .shm_variables = opts.shm_variables});
    announce_role(sys, worker_role, caf::actor_cast<caf::strong_actor_ptr>(worker));
    // Named before the port opens: an earlier task introduces itself as soon as it can.
    intros = std::make_unique<introductions>(sys);
    opts.progress->begin("listen", "opening " + where.host + ":" + std::to_string(where.port));
    CAFLOW_ASSIGN_OR_RETURN(port, open_task_port(sys, where));
    opts.progress->end("listen");
    host = where.host;
    master_options m{.job = opts.job, .task = opts.task, .workers = {},
                     .step_timeout = opts.step_timeout};
    m.workers[name] = worker;
    resolver = spawn_resolver(sys, std::chrono::milliseconds(2000), lookups);
    m.resolver = resolver;
    m.planning = planning;
    CAFLOW_RETURN_IF_ERROR(meet_peers(m));
    opts.progress->begin("serve", "starting its master and admin");
    admin_options a{.task = name, .address = host + ":" + std::to_string(port),
                    .peers = m.addresses, .master = {}, .worker = worker,
                    .lookups = lookups};
    master = spawn_master(sys, std::move(m));
    announce_role(sys, master_role, caf::actor_cast<caf::strong_actor_ptr>(master));
    register_local_master(target(), opts.security, master);
    a.master = master;
    admin = spawn_admin(sys, std::move(a));
    announce_role(sys, admin_role, caf::actor_cast<caf::strong_actor_ptr>(admin));
    opts.progress->end("serve");
    write_log(log_level::info, name, "serving on ", host, ":", port, " with ",
              opts.cluster.tasks().size(), " tasks in the cluster");
    return {};
  }

  std::string target() const { return "caflow://" + host + ":" + std::to_string(port); }

  struct peer {
    std::string name;
    host_port where;
  };

  // Finds every other task's worker without two tasks ever connecting to each other at the
  // same moment (see net/introductions.hpp): this task connects to the tasks after
  // it in cluster order, all at once, and introduces its worker there; the tasks before it
  // introduce themselves to it.
  status meet_peers(master_options& m) {
    const auto deadline = std::chrono::steady_clock::now() + opts.peer_patience;
    std::vector<peer> earlier, later;
    for (const auto& t : opts.cluster.tasks()) {
      const std::string peer_name = task_name_of(t.job, t.task);
      if (peer_name == name) continue;
      m.addresses[peer_name] = t.address;
      CAFLOW_ASSIGN_OR_RETURN(host_port hp, split_host_port(t.address));
      const bool before = std::tie(t.job, t.task) < std::tie(opts.job, opts.task);
      (before ? earlier : later).push_back({peer_name, std::move(hp)});
    }
    std::vector<std::future<status_or<caf::strong_actor_ptr>>> calls;
    for (const peer& p : later)
      calls.push_back(std::async(std::launch::async, [this, p, deadline] {
        return connect_and_introduce(p, deadline);
      }));
    auto met = await_earlier(earlier, deadline, m);
    status first_error = met;
    for (size_t i = 0; i < later.size(); ++i) {
      auto found = calls[i].get();
      if (found.ok())
        m.workers[later[i].name] = caf::actor_cast<worker_actor>(*found);
      else if (first_error.ok())
        first_error = found.get_status();
    }
    return first_error;
  }

  status_or<caf::strong_actor_ptr> connect_and_introduce(const peer& p,
                                                         std::chrono::steady_clock::time_point deadline) {
    opts.progress->begin(p.name, "looking for " + p.name + " at " + p.where.host + ":" +
                                     std::to_string(p.where.port));
    auto found = find_remote_role(sys, p.where, worker_role, left_until(deadline));
    if (!found.ok()) return found.get_status().with_context("task " + name + " looking for " + p.name);
    opts.progress->end(p.name);
    // Without the introduction the later task connects back after its grace: slower, and
    // racing any connect of ours still in flight, but not wrong.
    if (status s = introduce(sys, *found, name, caf::actor_cast<caf::strong_actor_ptr>(worker),
                             std::min(left_until(deadline), std::chrono::milliseconds(5000)));
        !s.ok())
      write_log(log_level::warn, name, "introducing to ", p.name, ": ", s.to_string());
    return found;
  }

  // Waits for the introductions of the tasks before this one. One that has accepted
  // connections for `grace` without introducing itself was serving before this task started
  // (this task was restarted): this task connects to it itself, as nobody else will.
  status await_earlier(std::vector<peer> pending, std::chrono::steady_clock::time_point deadline,
                       master_options& m) {
    using clock = std::chrono::steady_clock;
    const auto grace = std::min(opts.peer_patience, std::chrono::milliseconds(2500));
    std::map<std::string, clock::time_point> listening_since;
    std::vector<peer> serving;
    for (const peer& p : pending)
      opts.progress->begin(p.name, "waiting for " + p.name + " (at " + p.where.host + ":" +
                                       std::to_string(p.where.port) + ") to introduce itself");
    while (!pending.empty()) {
      for (auto it = pending.begin(); it != pending.end();) {
        if (auto who = intros->find(it->name)) {
          m.workers[it->name] = caf::actor_cast<worker_actor>(who);
          opts.progress->end(it->name);
          it = pending.erase(it);
          continue;
        }
        const auto now = clock::now();
        auto since = listening_since.find(it->name);
        if (since == listening_since.end() &&
            accepts_connections(it->where, std::chrono::milliseconds(200)))
          since = listening_since.emplace(it->name, now).first;
        if (since != listening_since.end() && now - since->second >= grace) {
          serving.push_back(*it);
          it = pending.erase(it);
          continue;
        }
        ++it;
      }
      if (pending.empty()) break;
      if (clock::now() >= deadline) {
        const peer& p = pending.front();
        return errors::unavailable(
            "task ", name, " looking for ", p.name, ": it did not introduce itself within ",
            opts.peer_patience.count(), " ms and ",
            listening_since.count(p.name) ? "did not answer at " : "nothing listens at ",
            p.where.host, ":", p.where.port);
      }
      intros->wait_until(std::min(deadline, clock::now() + std::chrono::milliseconds(50)));
    }
    for (const peer& p : serving) {
      opts.progress->begin(p.name, "looking for " + p.name + " at " + p.where.host + ":" +
                                       std::to_string(p.where.port));
      auto found = find_remote_role(sys, p.where, worker_role, left_until(deadline));
      if (!found.ok()) return found.get_status().with_context("task " + name + " looking for " + p.name);
      opts.progress->end(p.name);
      m.workers[p.name] = caf::actor_cast<worker_actor>(*found);
    }
    return {};
  }

  static std::chrono::milliseconds left_until(std::chrono::steady_clock::time_point deadline) {
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now()));
  }

  server_options opts;
  server_config cfg;
  caf::actor_system sys;
  std::string host, name;
  uint16_t port = 0;
  worker_actor worker;
  master_actor master;
  admin_actor admin;
  resolver_actor resolver;
  std::unique_ptr<introductions> intros;
  // The master's planning thread and the resolvers' lookup thread. Declared after sys: joined
  // before the actor system goes, once the actors that post to them are gone.
  std::shared_ptr<blocking_worker> planning = std::make_shared<blocking_worker>("cf.planning");
  std::shared_ptr<blocking_worker> lookups = std::make_shared<blocking_worker>("cf.lookups");
  std::mutex mu;
  std::condition_variable cv;
  bool stopped = false;
};

server::server(std::unique_ptr<impl> i) : impl_(std::move(i)) {}
server::~server() { stop(); }

status_or<std::unique_ptr<server>> server::start(const server_options& opts) {
  CAFLOW_RETURN_IF_ERROR(validate(opts.security));
  CAFLOW_RETURN_IF_ERROR(device_registry::global().validate(
      {.cpu = opts.cpu, .gpu = opts.gpu, .device_count = opts.device_count}));
  CAFLOW_ASSIGN_OR_RETURN(std::string address, opts.cluster.task_address(opts.job, opts.task));
  CAFLOW_ASSIGN_OR_RETURN(host_port where, split_host_port(address));
  server_options confined = opts;
  confined.cpu.files = file_access::below(opts.file_roots);
  auto i = std::make_unique<impl>(confined);
  CAFLOW_RETURN_IF_ERROR(i->bring_up(where));
  return std::unique_ptr<server>(new server(std::move(i)));
}

status_or<std::unique_ptr<server>> create_local_server(const cpu_device_options& cpu) {
  return create_local_server(cpu, {}, {{device_gpu, 0}});
}

status_or<std::unique_ptr<server>> create_local_server(const cpu_device_options& cpu,
                                                       const gpu_options& gpu,
                                                       const std::map<std::string, int>& device_count) {
  server_options opts;
  opts.job = "localhost";
  opts.cpu = cpu;
  opts.gpu = gpu;
  opts.device_count = device_count;
  CAFLOW_RETURN_IF_ERROR(device_registry::global().validate(
      {.cpu = opts.cpu, .gpu = opts.gpu, .device_count = opts.device_count}));
  // The port is only known once opened, so the one-task cluster is named after it.
  auto i = std::make_unique<server::impl>(opts);
  CAFLOW_RETURN_IF_ERROR(i->bring_up({"127.0.0.1", 0}));
  return std::unique_ptr<server>(new server(std::move(i)));
}

std::string server::target() const { return impl_->target(); }
const std::string& server::task_name() const { return impl_->name; }
uint16_t server::port() const { return impl_->port; }
master_actor server::master() const { return impl_->master; }
worker_actor server::worker() const { return impl_->worker; }

void server::stop() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->stopped = true;
  impl_->cv.notify_all();
}

void server::wait() {
  std::unique_lock<std::mutex> lock(impl_->mu);
  impl_->cv.wait(lock, [&] { return impl_->stopped; });
}

}  // namespace caflow
