#include "actors/server.hpp"

#include <condition_variable>
#include <mutex>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/admin_actor.hpp"
#include "actors/log.hpp"
#include "actors/master.hpp"
#include "actors/worker.hpp"

namespace caflow {
namespace {

std::string task_name_of(const std::string& job, int task) {
  return "/job:" + job + "/replica:0/task:" + std::to_string(task);
}

struct server_config : caf::actor_system_config {
  explicit server_config(const server_options& opts) {
    configure_network(*this, opts.failures, opts.security);
    if (opts.scheduler_threads > 0) set("scheduler.max-threads", opts.scheduler_threads);
  }
};

}  // namespace

struct server::impl {
  explicit impl(const server_options& o) : opts(o), cfg(o), sys(cfg) {}
  ~impl() {
    // Named actors stay referenced by the registry; ~actor_system would wait for them forever.
    sys.registry().erase(master_role);
    sys.registry().erase(worker_role);
    sys.registry().erase(admin_role);
    caf::anon_send_exit(admin, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(master, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(resolver, caf::exit_reason::user_shutdown);
  }

  status bring_up(const host_port& where) {
    CAFLOW_ASSIGN_OR_RETURN(port, open_task_port(sys, where));
    host = where.host;
    name = task_name_of(opts.job, opts.task);
    worker = spawn_worker(sys, {.job = opts.job, .task = opts.task, .cpu = opts.cpu});
    announce_role(sys, worker_role, caf::actor_cast<caf::strong_actor_ptr>(worker));
    master_options m{.job = opts.job, .task = opts.task, .workers = {},
                     .step_timeout = opts.step_timeout};
    m.workers[name] = worker;
    resolver = spawn_resolver(sys, std::chrono::milliseconds(2000));
    m.resolver = resolver;
    for (const auto& t : opts.cluster.tasks()) {
      const std::string peer = task_name_of(t.job, t.task);
      if (peer == name) continue;
      m.addresses[peer] = t.address;
      CAFLOW_ASSIGN_OR_RETURN(host_port hp, split_host_port(t.address));
      auto found = find_remote_role(sys, hp, worker_role, opts.peer_patience);
      if (!found.ok()) return found.get_status().with_context("task " + name + " looking for " + peer);
      m.workers[peer] = caf::actor_cast<worker_actor>(*found);
    }
    admin_options a{.task = name, .address = host + ":" + std::to_string(port),
                    .peers = m.addresses, .master = {}, .worker = worker};
    master = spawn_master(sys, std::move(m));
    announce_role(sys, master_role, caf::actor_cast<caf::strong_actor_ptr>(master));
    a.master = master;
    admin = spawn_admin(sys, std::move(a));
    announce_role(sys, admin_role, caf::actor_cast<caf::strong_actor_ptr>(admin));
    write_log(log_level::info, name, "serving on ", host, ":", port, " with ",
              opts.cluster.tasks().size(), " tasks in the cluster");
    return {};
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
  std::mutex mu;
  std::condition_variable cv;
  bool stopped = false;
};

server::server(std::unique_ptr<impl> i) : impl_(std::move(i)) {}
server::~server() { stop(); }

status_or<std::unique_ptr<server>> server::start(const server_options& opts) {
  CAFLOW_RETURN_IF_ERROR(validate(opts.security));
  CAFLOW_ASSIGN_OR_RETURN(std::string address, opts.cluster.task_address(opts.job, opts.task));
  CAFLOW_ASSIGN_OR_RETURN(host_port where, split_host_port(address));
  auto i = std::make_unique<impl>(opts);
  CAFLOW_RETURN_IF_ERROR(i->bring_up(where));
  return std::unique_ptr<server>(new server(std::move(i)));
}

status_or<std::unique_ptr<server>> create_local_server(const cpu_device_options& cpu) {
  server_options opts;
  opts.job = "localhost";
  opts.cpu = cpu;
  // The port is only known once opened, so the one-task cluster is named after it.
  auto i = std::make_unique<server::impl>(opts);
  CAFLOW_RETURN_IF_ERROR(i->bring_up({"127.0.0.1", 0}));
  return std::unique_ptr<server>(new server(std::move(i)));
}

std::string server::target() const {
  return "caflow://" + impl_->host + ":" + std::to_string(impl_->port);
}
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
