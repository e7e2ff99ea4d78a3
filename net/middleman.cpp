#include "net/middleman.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include <caf/actor_registry.hpp>
#include <caf/actor_system.hpp>
#include <caf/all.hpp>
#include <caf/io/basp_broker.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor.hpp>
#include <caf/openssl/manager.hpp>

#include "net/errors.hpp"
#include "net/protocol.hpp"
#include "net/connection_manager.hpp"
#include "net/sanitizer_settings.hpp"

namespace caflow {
namespace {

// The config's own options, which actor_system_config keeps protected: a pointer to member
// formed through a derived class names the base's member and applies to any config.
struct options_access : caf::actor_system_config {
  static constexpr auto options = &options_access::custom_options_;
};

}  // namespace

void configure_network(caf::actor_system_config& cfg, const failure_detection& fd,
                       const transport_security& sec) {
  cfg.load<caf::io::middleman>();
  // BASP's handshake drops a peer whose list shares no identifier with ours.
  cfg.set("middleman.app-identifiers", caf::config_value::list{caf::config_value{sec.cluster_id}});
  if (sec.tls()) {
    cfg.load<caf::openssl::manager>();
    // A CA file makes CAF's session verify the peer and fail a handshake without a certificate.
    cfg.openssl_certificate = sec.cert;
    cfg.openssl_key = sec.key;
    cfg.openssl_cafile = sec.ca;
  }
  add_wire_types(cfg);
  caf::config_option_adder{cfg.*options_access::options, "caflow"}.add<bool>(
      "same-host-rings",
      "BASP bytes between tasks on one host go through shared memory rings (default true)");
  // Both keys are timespans; a plain integer would be ignored (see docs/caf_0.17_notes.md).
  cfg.set("middleman.heartbeat-interval", caf::timespan{fd.heartbeat_interval});
  cfg.set("middleman.connection-timeout", caf::timespan{fd.timeout});
  // Work stealing lets idle threads sleep between polls, which cost every actor hop of a
  // distributed step tens of microseconds; the sharing policy wakes them on a condition
  // variable instead (bench/dist_step_latency_us: 966 -> 490 us, throughput unchanged).
  cfg.set("scheduler.policy", caf::atom("sharing"));
  // BASP hands each received message to a deserializing worker thread by default: one more
  // thread hand-over per message. The multiplexer deserializes it itself instead (big tensors
  // bypass BASP through the bulk channel; see also net/sanitizer_settings.hpp).
  cfg.set("middleman.workers", size_t{0});
  apply_sanitizer_settings(cfg);
}


status_or<uint16_t> open_task_port(caf::actor_system& sys, const host_port& where) {
  caf::scoped_actor self{sys, true};
  status_or<uint16_t> result = errors::internal("no answer");
  self->request(connection_manager(sys), std::chrono::seconds(30), caf::open_atom::value,
                where.port, where.host, true)
      .receive([&](uint16_t port) { result = port; },
               [&](caf::error& e) {
                 result = errors::unavailable("cannot open ", where.host, ":", where.port, ": ",
                                              sys.render(e));
               });
  return result;
}

void announce_role(caf::actor_system& sys, caf::atom_value role, const caf::strong_actor_ptr& actor) {
  sys.registry().put(role, actor);
}

namespace {

// caf::io::middleman::remote_lookup waits up to five minutes for an answer that, when two nodes
// connect to each other at the same moment, can be lost with the duplicate connection CAF drops.
// This asks the peer's config server the same question (the message remote_lookup sends in CAF
// 0.17) but gives up after `timeout`, so the caller can reconnect and ask again.
caf::strong_actor_ptr lookup_with_timeout(caf::actor_system& sys, caf::atom_value role,
                                          const caf::node_id& node,
                                          std::chrono::milliseconds timeout) {
  if (node == sys.node()) return sys.registry().get(role);
  auto basp = sys.middleman().named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  caf::strong_actor_ptr result;
  caf::scoped_actor self{sys, true};
  self->send(basp, caf::forward_atom::value, node, caf::atom("ConfigServ"),
             caf::make_message(caf::get_atom::value, role));
  self->receive([&](caf::strong_actor_ptr& found) { result = std::move(found); },
                caf::after(timeout) >> [] {});
  return result;
}

}  // namespace

status_or<caf::strong_actor_ptr> find_remote_role(caf::actor_system& sys, const host_port& where,
                                                  caf::atom_value role,
                                                  std::chrono::milliseconds patience,
                                                  const std::function<bool()>& cancelled) {
  using namespace std::chrono_literals;
  const auto deadline = std::chrono::steady_clock::now() + patience;
  const auto manager = connection_manager(sys);
  std::string last_error;
  for (;;) {
    // middleman::connect waits forever for a handshake; a peer that accepts the connection
    // and then never answers (frozen, or dropping us for our certificate or cluster id) would
    // hang the caller. So each attempt gets its own bound.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    const auto attempt = std::clamp<std::chrono::milliseconds>(left, 1000ms,
                                                               cancelled ? 2000ms : 5000ms);
    caf::node_id node;
    {
      caf::scoped_actor self{sys, true};
      self->request(manager, attempt, caf::connect_atom::value, where.host, where.port)
          .receive([&](caf::node_id& n, caf::strong_actor_ptr&, std::set<std::string>&) {
                     node = std::move(n);
                   },
                   [&](caf::error& e) {
                     last_error = e == caf::sec::request_timeout
                                      ? "no handshake within " + std::to_string(attempt.count()) +
                                            " ms (another cluster id, a refused certificate or "
                                            "a frozen task?)"
                                      : sys.render(e);
                   });
    }
    if (node) {
      if (auto found = lookup_with_timeout(sys, role, node, 1000ms)) return found;
      last_error = "no '" + caf::to_string(role) + "' there yet";
    }
    if (cancelled && cancelled())
      return errors::cancelled("stopped looking for ", caf::to_string(role), " at ", where.host,
                               ":", where.port, " (", last_error, ")");
    if (std::chrono::steady_clock::now() >= deadline)
      return errors::unavailable("cannot reach ", caf::to_string(role), " at ", where.host, ":",
                                 where.port, " within ", patience.count(), " ms: ", last_error);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

status tcp_reachable(const host_port& where, std::chrono::milliseconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(where.port);
  if (int rc = ::getaddrinfo(where.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return errors::unavailable("cannot resolve ", where.host, ": ", ::gai_strerror(rc));
  std::string why = "no address";
  bool accepted = false;
  for (addrinfo* a = found; a != nullptr && !accepted; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    int err = 0;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      accepted = true;
    } else if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      socklen_t len = sizeof(err);
      if (::poll(&p, 1, static_cast<int>(timeout.count())) != 1)
        why = "no answer within " + std::to_string(timeout.count()) + " ms";
      else if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)
        why = std::strerror(err != 0 ? err : errno);
      else
        accepted = true;
    } else {
      why = std::strerror(errno);
    }
    ::close(fd);
  }
  ::freeaddrinfo(found);
  if (accepted) return {};
  return errors::unavailable("cannot connect to ", where.host, ":", where.port, ": ", why);
}

bool accepts_connections(const host_port& where, std::chrono::milliseconds timeout) {
  return tcp_reachable(where, timeout).ok();
}

namespace {

// `patience` is an argument, not a capture: CAF 0.17 dereferences a null tuple pointer when a
// spawned function has no arguments (undefined behavior UBSan reports). Not a detached actor
// (net/loop/blocking_worker.hpp says why): the lookup runs on `thread`, the promise answers.
caf::result<caf::strong_actor_ptr> resolve_later(resolver_actor::pointer self,
                                                 std::shared_ptr<blocking_worker> thread,
                                                 host_port where, caf::atom_value role,
                                                 std::chrono::milliseconds patience) {
  auto answer = self->make_response_promise<caf::strong_actor_ptr>();
  caf::actor_system* sys = &self->home_system();
  const auto deadline = std::chrono::steady_clock::now() + patience;
  // Not the shared pointer: a job holding its own thread would keep it from stopping.
  const blocking_worker* runner = thread.get();
  thread->post([=]() mutable {
    const auto left = std::max(std::chrono::milliseconds(1),
                               std::chrono::duration_cast<std::chrono::milliseconds>(
                                   deadline - std::chrono::steady_clock::now()));
    auto found = find_remote_role(*sys, where, role, left, [runner] { return runner->stopping(); });
    if (!found.ok()) answer.deliver(to_caf_error(found.get_status()));
    else answer.deliver(std::move(found).value());
  });
  return answer;
}

resolver_actor::behavior_type resolve_roles(resolver_actor::pointer self,
                                            std::chrono::milliseconds patience,
                                            std::shared_ptr<blocking_worker> thread) {
  return {
      [=](cf_resolve_atom, const std::string& host, uint16_t port,
          caf::atom_value role) -> caf::result<caf::strong_actor_ptr> {
        return resolve_later(self, thread, {host, port}, role, patience);
      },
      [=](cf_resolve_atom, const std::string& host, uint16_t port, caf::atom_value role,
          caf::timespan own) -> caf::result<caf::strong_actor_ptr> {
        return resolve_later(self, thread, {host, port}, role,
                             std::chrono::duration_cast<std::chrono::milliseconds>(own));
      },
  };
}

}  // namespace

resolver_actor spawn_resolver(caf::actor_system& sys, std::chrono::milliseconds patience,
                              std::shared_ptr<blocking_worker> thread) {
  return sys.spawn(resolve_roles, patience, std::move(thread));
}

}  // namespace caflow
