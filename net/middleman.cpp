#include "net/middleman.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <caf/actor_registry.hpp>
#include <caf/actor_system.hpp>
#include <caf/all.hpp>
#include <caf/io/basp_broker.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor.hpp>
#include <caf/io/middleman_actor_impl.hpp>
#include <caf/io/network/default_multiplexer.hpp>
#include <caf/io/network/doorman_impl.hpp>
#include <caf/io/network/interfaces.hpp>
#include <caf/io/network/native_socket.hpp>
#include <caf/io/network/stream_impl.hpp>
#include <caf/io/scribe.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/openssl/session.hpp>
#include <openssl/err.h>

#include "net/errors.hpp"
#include "net/protocol.hpp"

namespace caflow {

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
  // Both keys are timespans; a plain integer would be ignored (see docs/caf_0.17_notes.md).
  cfg.set("middleman.heartbeat-interval", caf::timespan{fd.heartbeat_interval});
  cfg.set("middleman.connection-timeout", caf::timespan{fd.timeout});
  // Work stealing lets idle threads sleep between polls, which cost every actor hop of a
  // distributed step tens of microseconds; the sharing policy wakes them on a condition
  // variable instead (bench/dist_step_latency_us: 966 -> 490 us, throughput unchanged).
  cfg.set("scheduler.policy", caf::atom("sharing"));
}

namespace {

// ---------------------------------------------------------------------------------------------
// TLS connections that do not take each other down.
//
// caf::openssl 0.17.6 asks SSL_get_error what a failed or would-block TLS call means, and
// SSL_get_error answers from the calling thread's OpenSSL error queue first. The only code that
// empties that queue sits inside a log statement, which Debian's build (log level QUIET)
// compiles out. So once one connection fails (a peer that closed without close_notify, a
// refused certificate, a port probe), the error stays queued, and the next connection handled by
// the same multiplexer thread that merely has to wait for data is taken for failed and closed:
// every link of the process goes, and the peers it closed on go the same way. These classes are
// caf::openssl's scribe, doorman and middleman actor again, with the queue emptied before every
// TLS call; the TLS sessions themselves are still caf::openssl's.

void clear_tls_errors() { ERR_clear_error(); }

struct tls_policy {
  explicit tls_policy(caf::openssl::session_ptr s) : session(std::move(s)) {}

  caf::io::network::rw_state read_some(size_t& result, caf::io::network::native_socket fd,
                                       void* buf, size_t len) {
    clear_tls_errors();
    return session->read_some(result, fd, buf, len);
  }
  caf::io::network::rw_state write_some(size_t& result, caf::io::network::native_socket fd,
                                        const void* buf, size_t len) {
    clear_tls_errors();
    return session->write_some(result, fd, buf, len);
  }
  bool must_read_more(caf::io::network::native_socket fd, size_t threshold) {
    return session->must_read_more(fd, threshold);
  }

  caf::openssl::session_ptr session;
};

class tls_scribe : public caf::io::scribe {
 public:
  tls_scribe(caf::io::network::default_multiplexer& mpx, caf::io::network::native_socket fd,
             caf::openssl::session_ptr session)
      : caf::io::scribe(caf::io::network::conn_hdl_from_socket(fd)),
        stream_(mpx, fd, std::move(session)) {}

  void configure_read(caf::io::receive_policy::config config) override {
    stream_.configure_read(config);
    if (!launched_) launch();
  }
  void ack_writes(bool enable) override { stream_.ack_writes(enable); }
  std::vector<char>& wr_buf() override { return stream_.wr_buf(); }
  std::vector<char>& rd_buf() override { return stream_.rd_buf(); }
  void graceful_shutdown() override {
    stream_.graceful_shutdown();
    detach(&stream_.backend(), false);
  }
  void flush() override { stream_.flush(this); }
  std::string addr() const override {
    auto x = caf::io::network::remote_addr_of_fd(stream_.fd());
    return x ? *x : std::string{};
  }
  uint16_t port() const override {
    auto x = caf::io::network::remote_port_of_fd(stream_.fd());
    return x ? *x : 0;
  }
  void add_to_loop() override { stream_.activate(this); }
  void remove_from_loop() override { stream_.passivate(); }

 private:
  void launch() {
    launched_ = true;
    stream_.start(this);
    // An empty write gets the TLS handshake going before BASP has anything to say.
    stream_.force_empty_write(this);
  }

  bool launched_ = false;
  caf::io::network::stream_impl<tls_policy> stream_;
};

class tls_doorman : public caf::io::network::doorman_impl {
 public:
  using caf::io::network::doorman_impl::doorman_impl;

  bool new_connection() override {
    // The broker may have let go of us while the multiplexer still had our socket's events.
    if (detached()) return false;
    auto& mpx = acceptor_.backend();
    const auto fd = acceptor_.accepted_socket();
    caf::io::network::nonblocking(fd, true);
    clear_tls_errors();
    auto session = caf::openssl::make_session(parent()->system(), fd, true);
    if (!session) {
      caf::io::network::close_socket(fd);
      return false;
    }
    auto scribe = caf::make_counted<tls_scribe>(mpx, fd, std::move(session));
    const auto hdl = scribe->hdl();
    parent()->add_scribe(std::move(scribe));
    return doorman::new_connection(&mpx, hdl);
  }
};

constexpr caf::atom_value tls_manager_name = caf::atom("cf_tlsmgr");

class tls_connection_manager : public caf::io::middleman_actor_impl {
 public:
  tls_connection_manager(caf::actor_config& cfg, caf::actor basp)
      : caf::io::middleman_actor_impl(cfg, std::move(basp)) {}

  const char* name() const override { return "caflow_tls_connection_manager"; }

  behavior_type make_behavior() override {
    // Ends with caf::openssl's manager, the first module to stop when the system shuts down:
    // a detached actor still running then would make ~actor_system wait forever. We publish
    // no actors, so the base class caches and monitors nothing this handler could miss.
    auto watched = caf::actor_cast<caf::actor>(system().openssl_manager().actor_handle());
    monitor(watched);
    set_down_handler([this, watched](caf::down_msg& dm) {
      if (dm.source != watched.address()) return;
      // The registry's reference would keep ~actor_system waiting for our thread.
      system().registry().erase(tls_manager_name);
      quit(caf::exit_reason::user_shutdown);
    });
    return caf::io::middleman_actor_impl::make_behavior();
  }

 protected:
  caf::expected<caf::io::scribe_ptr> connect(const std::string& host, uint16_t port) override {
    auto fd = caf::io::network::new_tcp_connection(host, port);
    if (!fd) return std::move(fd.error());
    caf::io::network::nonblocking(*fd, true);
    clear_tls_errors();
    auto session = caf::openssl::make_session(system(), *fd, false);
    if (!session) {
      caf::io::network::close_socket(*fd);
      return caf::make_error(caf::sec::cannot_connect_to_node);
    }
    return caf::make_counted<tls_scribe>(multiplexer(), *fd, std::move(session));
  }

  caf::expected<caf::io::doorman_ptr> open(uint16_t port, const char* addr, bool reuse) override {
    auto fd = caf::io::network::new_tcp_acceptor_impl(port, addr, reuse);
    if (!fd) return std::move(fd.error());
    return caf::make_counted<tls_doorman>(multiplexer(), *fd);
  }

 private:
  caf::io::network::default_multiplexer& multiplexer() {
    return static_cast<caf::io::network::default_multiplexer&>(system().middleman().backend());
  }
};

// One per actor system, found through the registry (hidden: await_all_actors_done does not wait
// for it).
caf::io::middleman_actor tls_connection_manager_of(caf::actor_system& sys) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (auto known = sys.registry().get(tls_manager_name))
    return caf::actor_cast<caf::io::middleman_actor>(known);
  auto basp = sys.middleman().named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  // Detached: connect() blocks in the TCP connect.
  auto manager = sys.spawn<tls_connection_manager, caf::detached + caf::hidden>(basp);
  sys.registry().put(tls_manager_name, caf::actor_cast<caf::strong_actor_ptr>(manager));
  return manager;
}

// The actor that opens ports and connects: the TLS one above when caf::openssl is loaded, so
// that no plain TCP port exists in a TLS process. Both speak io::middleman_actor over one BASP.
caf::io::middleman_actor connection_manager(caf::actor_system& sys) {
  return sys.has_openssl_manager() ? tls_connection_manager_of(sys) : sys.middleman().actor_handle();
}

}  // namespace

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
                                                  std::chrono::milliseconds patience) {
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
    const auto attempt = std::clamp<std::chrono::milliseconds>(left, 1000ms, 5000ms);
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
    if (std::chrono::steady_clock::now() >= deadline)
      return errors::unavailable("cannot reach ", caf::to_string(role), " at ", where.host, ":",
                                 where.port, " within ", patience.count(), " ms: ", last_error);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

struct introductions::book {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, caf::strong_actor_ptr> by_task;
};

introductions::introductions(caf::actor_system& sys)
    : sys_(sys), book_(std::make_shared<book>()) {
  actor_ = sys.spawn([b = book_](caf::event_based_actor*) -> caf::behavior {
    return {
        [b](cf_introduce_atom, const std::string& task, const caf::strong_actor_ptr& who) {
          {
            std::lock_guard<std::mutex> lock(b->mu);
            b->by_task[task] = who;
          }
          b->cv.notify_all();
          return caf::ok_atom::value;
        },
    };
  });
  announce_role(sys, introductions_role, caf::actor_cast<caf::strong_actor_ptr>(actor_));
}

introductions::~introductions() {
  sys_.registry().erase(introductions_role);
  caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
}

caf::strong_actor_ptr introductions::find(const std::string& task) const {
  std::lock_guard<std::mutex> lock(book_->mu);
  auto it = book_->by_task.find(task);
  return it == book_->by_task.end() ? nullptr : it->second;
}

void introductions::wait_until(std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock<std::mutex> lock(book_->mu);
  const size_t known = book_->by_task.size();
  book_->cv.wait_until(lock, deadline, [&] { return book_->by_task.size() != known; });
}

status introduce(caf::actor_system& sys, const caf::strong_actor_ptr& peer,
                 const std::string& task, const caf::strong_actor_ptr& actor,
                 std::chrono::milliseconds timeout) {
  if (!peer) return errors::internal("introducing ", task, " to nobody");
  // Through BASP's named-actor forwarding, the way remote_lookup asks a config server: the
  // peer's node is reached over the connection that found `peer`, never a new one.
  auto basp = sys.middleman().named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  caf::scoped_actor self{sys, true};
  self->send(basp, caf::forward_atom::value, peer->node(), introductions_role,
             caf::make_message(cf_introduce_atom::value, task, actor));
  bool acknowledged = false;
  self->receive([&](caf::ok_atom) { acknowledged = true; }, caf::after(timeout) >> [] {});
  if (!acknowledged)
    return errors::unavailable("task ", task, " introduced itself to ", caf::to_string(peer->node()),
                               " but heard no acknowledgement within ", timeout.count(), " ms");
  return {};
}

bool accepts_connections(const host_port& where, std::chrono::milliseconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(where.port);
  if (::getaddrinfo(where.host.c_str(), port.c_str(), &hints, &found) != 0) return false;
  bool accepted = false;
  for (addrinfo* a = found; a != nullptr && !accepted; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      accepted = true;
    } else if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int err = 0;
      socklen_t len = sizeof(err);
      accepted = ::poll(&p, 1, static_cast<int>(timeout.count())) == 1 &&
                 ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
    }
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return accepted;
}

resolver_actor spawn_resolver(caf::actor_system& sys, std::chrono::milliseconds patience) {
  return sys.spawn<caf::detached>(
      [patience](resolver_actor::pointer self) -> resolver_actor::behavior_type {
        return {
            [=](cf_resolve_atom, const std::string& host, uint16_t port,
                caf::atom_value role) -> caf::result<caf::strong_actor_ptr> {
              auto found = find_remote_role(self->home_system(), {host, port}, role, patience);
              if (!found.ok()) return to_caf_error(found.get_status());
              return *found;
            },
        };
      });
}

}  // namespace caflow
