#include "admin_client.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <map>

#include "actors/admin/admin_actor.hpp"
#include "net/errors.hpp"
#include "net/middleman.hpp"

namespace caflow::console {
namespace {

struct console_config : caf::actor_system_config {
  explicit console_config(const transport_security& security) {
    configure_network(*this, failure_detection{}, security);
    set("scheduler.max-threads", 2);
  }
};

}  // namespace

struct admin_client::impl {
  explicit impl(const transport_security& security) : cfg(security) {}

  console_config cfg;
  caf::actor_system sys{cfg};
  admin_actor admin;     // the admin of the task connected to
  admin_actor gatherer;  // in this process, asking every task itself; null: `admin` does
  std::string address;

  ~impl() {
    if (gatherer) caf::anon_send_exit(gatherer, caf::exit_reason::user_shutdown);
    gatherer = nullptr;
    admin = nullptr;
  }
};

namespace {

status_or<admin_reply> ask_admin(caf::actor_system& sys, const admin_actor& admin,
                                 std::vector<std::string> words,
                                 std::chrono::milliseconds timeout) {
  caf::scoped_actor self{sys};
  status_or<admin_reply> result = errors::internal("no answer");
  self->request(admin, timeout, cf_admin_atom::value, admin_query{std::move(words)})
      .receive([&](admin_reply& r) { result = std::move(r); },
               [&](caf::error& e) { result = to_status(e); });
  return result;
}

// What the task connected to says of the cluster's tasks (the "tasks" question): each one's
// address, and whether its device filters leave some out.
struct cluster_tasks {
  std::map<std::string, std::string> addresses;
  bool filtered = false;
};

status_or<cluster_tasks> ask_tasks(caf::actor_system& sys, const admin_actor& admin,
                                   std::chrono::milliseconds timeout) {
  CAFLOW_ASSIGN_OR_RETURN(admin_reply r, ask_admin(sys, admin, {"tasks"}, timeout));
  cluster_tasks out;
  for (const auto& row : r.table.rows) {
    if (row.size() < 3) continue;
    out.addresses[row[0]] = row[1];
    out.filtered |= row[2] == reach_outside;
  }
  return out;
}

}  // namespace

admin_client::admin_client(std::unique_ptr<impl> i) : impl_(std::move(i)) {}
admin_client::~admin_client() = default;

status_or<std::unique_ptr<admin_client>> admin_client::connect(
    const std::string& address, std::chrono::milliseconds patience,
    const transport_security& security) {
  CAFLOW_ASSIGN_OR_RETURN(host_port where, split_host_port(address));
  CAFLOW_RETURN_IF_ERROR(validate(security));
  // A wrong port is said at once ("connection refused"), not after `patience` of retries: the
  // console, unlike a task of a starting cluster, has no peer that may still be coming up.
  CAFLOW_RETURN_IF_ERROR(tcp_reachable(where, patience));
  auto i = std::make_unique<impl>(security);
  i->address = address;
  CAFLOW_ASSIGN_OR_RETURN(caf::strong_actor_ptr found,
                          find_remote_role(i->sys, where, admin_role, patience));
  i->admin = caf::actor_cast<admin_actor>(found);
  // A task's device filters bound the tasks it contacts, so it cannot gather a cluster-wide
  // answer from the ones they leave out. When it names such tasks, this console gathers every
  // answer itself, through an admin of its own that serves no task and has every task of the
  // cluster as a peer; the task connected to still opens no connection it may not.
  auto tasks = ask_tasks(i->sys, i->admin, patience);
  if (!tasks.ok())
    return tasks.get_status().with_context("asking " + address + " for the cluster's tasks");
  if (tasks->filtered)
    i->gatherer = spawn_admin(i->sys, {.task = {}, .address = {}, .peers = tasks->addresses});
  return std::unique_ptr<admin_client>(new admin_client(std::move(i)));
}

status_or<admin_reply> admin_client::ask(std::vector<std::string> words,
                                         std::chrono::milliseconds timeout) {
  // "tasks" is about the task connected to: only its admin answers it.
  const bool gathered = impl_->gatherer && !(words.size() == 1 && words[0] == "tasks");
  return ask_admin(impl_->sys, gathered ? impl_->gatherer : impl_->admin, std::move(words),
                   timeout);
}

const std::string& admin_client::address() const { return impl_->address; }

}  // namespace caflow::console
