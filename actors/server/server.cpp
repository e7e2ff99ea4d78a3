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
#include "actors/server/heap_keeper.hpp"
#include "actors/server/local_masters.hpp"
#include "graph/core/log.hpp"
#include "actors/master/master.hpp"
#include "actors/worker/worker.hpp"
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
  impl(const server_options& o, device_filters f)
      : opts(o), filters(std::move(f)), cfg(o), sys(cfg) {}
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
    if (heap) caf::anon_send_exit(heap, caf::exit_reason::user_shutdown);
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
                                .shm_variables = opts.shm_variables,
                                .filters = filters});
    announce_role(sys, worker_role, caf::actor_cast<caf::strong_actor_ptr>(worker));
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
    m.peer_patience = opts.peer_patience;
    m.filters = filters;
    // No peer is contacted here: the master connects to a task when a session first needs it
    // (actors/master/master_peers.cpp), so a task serves as soon as its port is open, whatever
    // the size of the cluster and the order its tasks start in.
    std::map<std::string, std::string> outside;  // named to a console, never contacted
    for (const auto& t : opts.cluster.tasks()) {
      const std::string peer = task_name_of(t.job, t.task);
      if (peer == name) continue;
      (filters.admits_task(peer) ? m.addresses : outside)[peer] = t.address;
    }
    opts.progress->begin("serve", "starting its master and admin");
    admin_options a{.task = name, .address = host + ":" + std::to_string(port),
                    .peers = m.addresses, .outside = std::move(outside), .master = {},
                    .worker = worker, .lookups = lookups};
    master = spawn_master(sys, std::move(m));
    announce_role(sys, master_role, caf::actor_cast<caf::strong_actor_ptr>(master));
    register_local_master(target(), opts.security, master);
    a.master = master;
    admin = spawn_admin(sys, std::move(a));
    announce_role(sys, admin_role, caf::actor_cast<caf::strong_actor_ptr>(admin));
    opts.progress->end("serve");
    if (opts.heap_trim_interval.count() > 0)
      heap = spawn_heap_keeper(sys, {.interval = opts.heap_trim_interval});
    write_log(log_level::info, name, "serving on ", host, ":", port, " with ",
              opts.cluster.tasks().size(), " tasks in the cluster");
    return {};
  }

  std::string target() const { return "caflow://" + host + ":" + std::to_string(port); }

  server_options opts;
  device_filters filters;  // parsed from opts.device_filters
  server_config cfg;
  caf::actor_system sys;
  std::string host, name;
  uint16_t port = 0;
  worker_actor worker;
  master_actor master;
  admin_actor admin;
  resolver_actor resolver;
  caf::actor heap;  // the heap keeper
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
  auto filters = device_filters::parse(opts.device_filters);
  if (!filters.ok()) return filters.get_status().with_context("server options");
  if (!filters->admits_task(task_name_of(opts.job, opts.task)))
    return errors::invalid_argument("the device filters (", filters->to_string(),
                                    ") leave out the task itself, ",
                                    task_name_of(opts.job, opts.task));
  server_options confined = opts;
  confined.cpu.files = file_access::below(opts.file_roots);
  auto i = std::make_unique<impl>(confined, *std::move(filters));
  CAFLOW_RETURN_IF_ERROR(i->bring_up(where));
  return std::unique_ptr<server>(new server(std::move(i)));
}

status_or<std::unique_ptr<server>> create_local_server(const cpu_device_options& cpu) {
  return create_local_server(cpu, {}, {{device_gpu, 0}});
}

status_or<std::unique_ptr<server>> create_local_server(
    const cpu_device_options& cpu, const gpu_options& gpu,
    const std::map<std::string, int>& device_count, std::chrono::milliseconds step_timeout) {
  server_options opts;
  opts.job = "localhost";
  opts.step_timeout = step_timeout;
  opts.cpu = cpu;
  opts.gpu = gpu;
  opts.device_count = device_count;
  CAFLOW_RETURN_IF_ERROR(device_registry::global().validate(
      {.cpu = opts.cpu, .gpu = opts.gpu, .device_count = opts.device_count}));
  // The port is only known once opened, so the one-task cluster is named after it.
  auto i = std::make_unique<server::impl>(opts, device_filters{});
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
