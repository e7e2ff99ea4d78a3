#include "admin_client.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>

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
  admin_actor admin;
  std::string address;

  ~impl() { admin = nullptr; }
};

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
  return std::unique_ptr<admin_client>(new admin_client(std::move(i)));
}

status_or<admin_reply> admin_client::ask(std::vector<std::string> words,
                                         std::chrono::milliseconds timeout) {
  caf::scoped_actor self{impl_->sys};
  status_or<admin_reply> result = errors::internal("no answer");
  self->request(impl_->admin, timeout, cf_admin_atom::value, admin_query{std::move(words)})
      .receive([&](admin_reply& r) { result = std::move(r); },
               [&](caf::error& e) { result = to_status(e); });
  return result;
}

const std::string& admin_client::address() const { return impl_->address; }

}  // namespace caflow::console
