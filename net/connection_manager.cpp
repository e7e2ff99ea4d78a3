#include "net/connection_manager.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

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
#include <caf/policy/tcp.hpp>
#include <openssl/err.h>

#include "graph/core/log.hpp"
#include "graph/platform/time_scale.hpp"
#include "net/security/basp_guard.hpp"
#include "net/boot_id.hpp"
#include "net/security/handshake_watchdog.hpp"
#include "net/loop/loop_scheduler.hpp"
#include "net/ring/ring_link.hpp"

namespace caflow {
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

// ---------------------------------------------------------------------------------------------
// The guard every connection's bytes pass before the BASP broker sees them (net/security/basp_guard.hpp
// says why): headers checked before the broker allocates what they announce, and for an
// accepted connection the handshake deadline and its address's slot (handshake_watchdog).
class connection_guard {
 public:
  connection_guard(caf::io::network::native_socket fd, std::shared_ptr<connection_watch> watch)
      : fd_(fd), watch_(std::move(watch)) {}
  ~connection_guard() { closed(); }
  connection_guard(const connection_guard&) = delete;
  connection_guard& operator=(const connection_guard&) = delete;

  // Whether the `n` bytes the broker asked for may reach it. When not, the socket is shut
  // down: the next read ends the connection as a peer's departure would, and nothing is
  // allocated for what the bytes announced.
  bool pass(const void* data, size_t n) {
    if (refused_) return false;
    if (status why = check_.received(data, n); !why.ok()) {
      refused_ = true;
      ++basp_guard_stats().bad_headers;
      // The peer sees only a closed connection; the operator needs the reason on this side.
      write_log(log_level::warn, "", "closing connection ", static_cast<int>(fd_), ": ",
                why.message());
      ::shutdown(fd_, SHUT_RDWR);
      return false;
    }
    if (watch_ && check_.handshake_done()) {
      watch_->handshake_done();
      watch_.reset();
    }
    return true;
  }
  // The broker let go of the connection; its socket is closed after this.
  void closed() {
    if (!watch_) return;
    watch_->closed();
    watch_.reset();
  }

 private:
  caf::io::network::native_socket fd_;
  std::shared_ptr<connection_watch> watch_;  // null: connected by us, or handshake done
  basp_stream_check check_;
  bool refused_ = false;
};

// Admits a connection just accepted on `fd` (null: its address has too many connections in
// their handshake already; the caller closes it).
std::shared_ptr<connection_watch> admit(caf::io::network::native_socket fd) {
  auto address = caf::io::network::remote_addr_of_fd(fd);
  auto watch = watch_handshake(fd, address ? *address : std::string("?"),
                               scaled(basp_handshake_timeout), max_handshakes_per_address);
  if (!watch) ++basp_guard_stats().over_address_limit;
  return watch;
}

struct tls_policy {
  // TLS needs an empty write to start its handshake before BASP has anything to say, and its
  // records are not written through (caf::openssl's session does the writing).
  static constexpr bool starts_with_empty_write = true;
  static constexpr bool writes_through = false;
  static constexpr bool has_rings = false;

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

// Plain TCP between caflow tasks, which on one host moves on to shared memory rings
// (net/ring/ring_link.hpp, which also reads ahead: a small BASP message costs one recv).
class ring_tcp_policy {
 public:
  static constexpr bool starts_with_empty_write = false;
  static constexpr bool writes_through = true;
  static constexpr bool has_rings = true;

  explicit ring_tcp_policy(std::shared_ptr<ring_link> link) : link_(std::move(link)) {}

  caf::io::network::rw_state read_some(size_t& result, caf::io::network::native_socket,
                                       void* buf, size_t len) {
    // A result of 0 with success ends this turn's reading; closed fails the connection.
    return link_->read(buf, len, result) == ring_link::read_state::closed
               ? caf::io::network::rw_state::failure
               : caf::io::network::rw_state::success;
  }
  static caf::io::network::rw_state write_some(size_t& result, caf::io::network::native_socket fd,
                                               const void* buf, size_t len) {
    return caf::policy::tcp::write_some(result, fd, buf, len);
  }
  // The stream reads on while bytes it was given wait here: the socket may have no more, and
  // then would never be reported readable for them.
  bool must_read_more(caf::io::network::native_socket, size_t) const {
    return link_->holds_bytes();
  }

 private:
  std::shared_ptr<ring_link> link_;
};

// A connection's rings as the loop polls them: while the scribe lives, records that arrived
// are read as if the socket had said so, and what a full ring could not take is pushed.
class polled_rings final : public loop_polled {
 public:
  polled_rings(std::shared_ptr<ring_link> link, std::function<void()> read)
      : link_(std::move(link)), read_(std::move(read)) {}

  // The scribe lets go: nothing more is read or pushed. `read_` itself stays, since a read
  // that closes the connection drops us from inside it.
  void drop() { dropped_ = true; }

  result poll() override {
    if (dropped_) return result::gone;
    bool worked = false;
    if (link_->ring_ready()) {
      read_();
      worked = true;
    }
    if (!dropped_ && link_->has_waiting()) link_->push_waiting();
    return worked ? result::worked : result::idle;
  }
  bool needs_polling() const override { return !dropped_ && link_->has_waiting(); }
  void loop_polls(bool polling) override { link_->set_awake(polling); }

 private:
  std::shared_ptr<ring_link> link_;
  std::function<void()> read_;
  bool dropped_ = false;
};

// The stream's flags, which event_handler keeps protected: a pointer to member formed through a
// derived class names the base's member and may be applied to any event_handler.
struct stream_flags : caf::io::network::event_handler {
  static constexpr auto flags = &stream_flags::state_;
};

// A scribe over `Policy`'s stream, whose bytes pass the connection's guard.
template <class Policy>
class guarded_scribe : public caf::io::scribe {
 public:
  template <class... PolicyArgs>
  guarded_scribe(caf::io::network::default_multiplexer& mpx, caf::io::network::native_socket fd,
                 std::shared_ptr<connection_watch> watch, PolicyArgs&&... args)
      : caf::io::scribe(caf::io::network::conn_hdl_from_socket(fd)),
        stream_(mpx, fd, std::forward<PolicyArgs>(args)...),
        guard_(fd, std::move(watch)) {}
  // A plain TCP scribe whose bytes may move on to rings.
  guarded_scribe(caf::io::network::default_multiplexer& mpx, caf::io::network::native_socket fd,
                 std::shared_ptr<connection_watch> watch,
                 std::shared_ptr<const ring_settings> rings)
      : caf::io::scribe(caf::io::network::conn_hdl_from_socket(fd)),
        link_(std::make_shared<ring_link>(fd, std::move(rings))),
        stream_(mpx, fd, link_),
        guard_(fd, std::move(watch)) {}
  ~guarded_scribe() override {
    if (polled_) polled_->drop();
  }

  bool consume(caf::execution_unit* ctx, const void* buf, size_t n) override {
    if (!guard_.pass(buf, n)) return true;  // shut down: the next read ends it
    return caf::io::scribe::consume(ctx, buf, n);
  }

  void configure_read(caf::io::receive_policy::config config) override {
    stream_.configure_read(config);
    if (!launched_) launch();
  }
  void ack_writes(bool enable) override { stream_.ack_writes(enable); }
  std::vector<char>& wr_buf() override { return stream_.wr_buf(); }
  std::vector<char>& rd_buf() override { return stream_.rd_buf(); }
  void graceful_shutdown() override {
    // What a full ring still holds back goes if the reader has made room; the rest is lost
    // with the connection, as a socket's unsent bytes are.
    if constexpr (Policy::has_rings) link_->push_waiting();
    stream_.graceful_shutdown();
    detach(&stream_.backend(), false);
  }

  // CAF's stream writes only when the loop next reports the socket writable: an epoll_ctl to
  // ask, a turn of the loop, the send, and an epoll_ctl to stop asking, on every message of a
  // step's critical path (docs/caf_0.17_notes.md). A loopback socket is nearly always writable,
  // so when the stream has nothing of its own in flight the bytes go out here and now; what the
  // socket does not take, and every error, is left to the stream as before. Bytes stay in
  // order: an idle stream has written all it was given. Big messages (tensors that did not go
  // by shm or the bulk channel) gain nothing from it and are left to the stream whole.
  void flush() override {
    if constexpr (Policy::has_rings) {
      if (!link_->decided()) return;  // held until the peer's hello is read
      if (link_->writes_ring()) {
        link_->write(stream_.wr_buf());
        // What waits, the loop pushes (polled_rings), polling until it is gone.
        if (link_->has_waiting()) keep_loop_polling(stream_.backend().system());
        return;
      }
    }
    if constexpr (Policy::writes_through) {
      constexpr size_t write_through_bytes = 64 * 1024;
      auto& pending = stream_.wr_buf();
      const auto& st = stream_.*stream_flags::flags;
      if (!pending.empty() && pending.size() <= write_through_bytes && !st.writing &&
          !st.shutting_down && !st.ack_writes) {
        const ssize_t sent = ::send(stream_.fd(), pending.data(), pending.size(),
                                    caf::io::network::no_sigpipe_io_flag);
        if (sent > 0) pending.erase(pending.begin(), pending.begin() + sent);
        if (pending.empty()) return;
      }
    }
    stream_.flush(this);
  }
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

 protected:
  // The broker lets go of us for good (closed, failed or refused connection). A stream
  // registered for reading or writing holds its scribe, and the scribe holds the stream. caf
  // drops only the read registration here, and not even that when it cancels out a pending
  // add (the multiplexer then never reports the removal): a refused TLS handshake with a write
  // pending leaked the pair with its OpenSSL session. So once the multiplexer has applied every
  // change queued so far, we drop what is still registered and let go of what is not.
  void detach_from(caf::io::abstract_broker* broker) override {
    if (polled_) polled_->drop();
    guard_.closed();
    caf::io::scribe::detach_from(broker);
    caf::intrusive_ptr<guarded_scribe> self{this};
    stream_.backend().post([self] { self->release_stream(); });
  }

 private:
  void release_stream() {
    using caf::io::network::operation;
    release(operation::read, caf::io::network::input_mask);
    release(operation::write, caf::io::network::output_mask);
  }
  void release(caf::io::network::operation op, int mask) {
    if (stream_.eventbf() & mask)
      stream_.backend().del(op, stream_.fd(), &stream_);  // removed_from_loop follows
    else
      stream_.removed_from_loop(op);
  }

  void launch() {
    launched_ = true;
    if constexpr (Policy::has_rings) {
      link_->on_decided = [this] {
        if (link_->writes_ring()) poll_rings();
        flush();
      };
      link_->on_ring_attached = [this] { poll_rings(); };
      // A socket that cannot take a few bytes at once is broken: the first read ends it.
      if (!link_->send_hello()) ::shutdown(stream_.fd(), SHUT_RDWR);
    }
    stream_.start(this);
    if constexpr (Policy::starts_with_empty_write) stream_.force_empty_write(this);
  }

  // Has the loop poll this connection's rings (once, whether read or written).
  void poll_rings() {
    if (polled_) return;
    polled_ = std::make_shared<polled_rings>(link_, [this] { read_ring(); });
    poll_on_loop(stream_.backend().system(), polled_);
  }
  // Records wait in the ring: read them as a readable socket would be read, unless the
  // stream no longer reads (closing).
  void read_ring() {
    if (!(stream_.eventbf() & caf::io::network::input_mask)) return;
    const std::shared_ptr<ring_link> link = link_;  // the read may close the connection
    link->reading_for_poller(true);
    stream_.handle_event(caf::io::network::operation::read);
    link->reading_for_poller(false);
  }

  bool launched_ = false;
  std::shared_ptr<ring_link> link_;  // before stream_, whose policy shares it; null for TLS
  std::shared_ptr<polled_rings> polled_;
  caf::io::network::stream_impl<Policy> stream_;
  connection_guard guard_;  // after stream_: destroyed, and so done, before the socket closes
};

using tls_scribe = guarded_scribe<tls_policy>;
using plain_scribe = guarded_scribe<ring_tcp_policy>;

class plain_doorman : public caf::io::network::doorman_impl {
 public:
  plain_doorman(caf::io::network::default_multiplexer& mpx, caf::io::network::native_socket fd,
                std::shared_ptr<const ring_settings> rings)
      : caf::io::network::doorman_impl(mpx, fd), rings_(std::move(rings)) {}

  bool new_connection() override {
    if (detached()) return false;
    auto& mpx = acceptor_.backend();
    const auto fd = acceptor_.accepted_socket();
    auto watch = admit(fd);
    if (!watch) {
      caf::io::network::close_socket(fd);
      return true;  // keep accepting (the acceptor ignores the answer in CAF 0.17 anyway)
    }
    caf::io::network::nonblocking(fd, true);
    auto scribe = caf::make_counted<plain_scribe>(mpx, fd, std::move(watch), rings_);
    const auto hdl = scribe->hdl();
    parent()->add_scribe(std::move(scribe));
    return doorman::new_connection(&mpx, hdl);
  }

 private:
  std::shared_ptr<const ring_settings> rings_;
};

class tls_doorman : public caf::io::network::doorman_impl {
 public:
  using caf::io::network::doorman_impl::doorman_impl;

  bool new_connection() override {
    // The broker may have let go of us while the multiplexer still had our socket's events.
    if (detached()) return false;
    auto& mpx = acceptor_.backend();
    const auto fd = acceptor_.accepted_socket();
    auto watch = admit(fd);
    if (!watch) {
      caf::io::network::close_socket(fd);
      return true;
    }
    caf::io::network::nonblocking(fd, true);
    clear_tls_errors();
    auto session = caf::openssl::make_session(parent()->system(), fd, true);
    if (!session) {
      watch->closed();
      caf::io::network::close_socket(fd);
      return false;
    }
    auto scribe = caf::make_counted<tls_scribe>(mpx, fd, std::move(watch), std::move(session));
    const auto hdl = scribe->hdl();
    parent()->add_scribe(std::move(scribe));
    return doorman::new_connection(&mpx, hdl);
  }
};

constexpr caf::atom_value manager_name = caf::atom("cf_connmgr");

// CAF's middleman actor again, opening ports and connecting with the guarded scribes and
// doormen above: TLS ones when caf::openssl is loaded, plain TCP ones otherwise.
class guarded_connection_manager : public caf::io::middleman_actor_impl {
 public:
  guarded_connection_manager(caf::actor_config& cfg, caf::actor basp, caf::actor watched, bool tls,
                             std::shared_ptr<const ring_settings> rings)
      : caf::io::middleman_actor_impl(cfg, std::move(basp)),
        watched_(std::move(watched)),
        tls_(tls),
        rings_(std::move(rings)) {}

  const char* name() const override { return "caflow_connection_manager"; }

  behavior_type make_behavior() override {
    // Ends with the first of its modules to stop when the system shuts down (caf::openssl's
    // manager; without TLS the middleman's BASP broker): a detached actor still running then
    // would make ~actor_system wait forever. We publish no actors, so the base class caches
    // and monitors nothing this handler could miss.
    monitor(watched_);
    set_down_handler([this](caf::down_msg& dm) {
      if (dm.source != watched_.address()) return;
      // The registry's reference would keep ~actor_system waiting for our thread.
      system().registry().erase(manager_name);
      quit(caf::exit_reason::user_shutdown);
    });
    return caf::io::middleman_actor_impl::make_behavior();
  }

 protected:
  caf::expected<caf::io::scribe_ptr> connect(const std::string& host, uint16_t port) override {
    auto fd = caf::io::network::new_tcp_connection(host, port);
    if (!fd) return std::move(fd.error());
    caf::io::network::nonblocking(*fd, true);
    if (!tls_) return caf::make_counted<plain_scribe>(multiplexer(), *fd, nullptr, rings_);
    clear_tls_errors();
    auto session = caf::openssl::make_session(system(), *fd, false);
    if (!session) {
      caf::io::network::close_socket(*fd);
      return caf::make_error(caf::sec::cannot_connect_to_node);
    }
    return caf::make_counted<tls_scribe>(multiplexer(), *fd, nullptr, std::move(session));
  }

  caf::expected<caf::io::doorman_ptr> open(uint16_t port, const char* addr, bool reuse) override {
    auto fd = caf::io::network::new_tcp_acceptor_impl(port, addr, reuse);
    if (!fd) return std::move(fd.error());
    if (!tls_) return caf::make_counted<plain_doorman>(multiplexer(), *fd, rings_);
    return caf::make_counted<tls_doorman>(multiplexer(), *fd);
  }

 private:
  caf::io::network::default_multiplexer& multiplexer() {
    return static_cast<caf::io::network::default_multiplexer&>(system().middleman().backend());
  }

  caf::actor watched_;
  bool tls_;
  std::shared_ptr<const ring_settings> rings_;
};

// What this system's plain connections bring to same-host rings: a listener, and writing, when
// its loop busy-polls (a writer needs the poller to push what a full ring held back; a reader
// that does not poll would need a doorbell for every message, a send like TCP's) and the
// cluster id can serve as the secret that opens the listener. Otherwise (a client's system
// without a polling loop, no boot id, "caflow.same-host-rings" false) every connection of the
// system stays on TCP, and it starts no listener thread.
std::shared_ptr<const ring_settings> ring_settings_for(caf::actor_system& sys) {
  auto rings = std::make_shared<ring_settings>();
  if (!caf::get_or(sys.config(), "caflow.same-host-rings", true) || !loop_busy_polls(sys))
    return rings;
  const auto ids = caf::get_or(sys.config(), "middleman.app-identifiers",
                               std::vector<std::string>{});
  if (ids.empty() || ids.front().empty() || this_boot_id().empty()) return rings;
  rings->secret = ids.front();
  rings->boot_id = this_boot_id();
  rings->writes_rings = true;
  if (auto listener = ring_listener::start(rings->secret); listener.ok())
    rings->listener = std::move(listener).value();
  return rings;
}

// One per actor system, found through the registry (hidden: await_all_actors_done does not wait
// for it).
caf::io::middleman_actor connection_manager_of(caf::actor_system& sys) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (auto known = sys.registry().get(manager_name))
    return caf::actor_cast<caf::io::middleman_actor>(known);
  auto basp = sys.middleman().named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  const bool tls = sys.has_openssl_manager();
  auto watched = tls ? caf::actor_cast<caf::actor>(sys.openssl_manager().actor_handle()) : basp;
  // Detached: connect() blocks in the TCP connect.
  auto rings = tls ? std::make_shared<const ring_settings>() : ring_settings_for(sys);
  auto manager = sys.spawn<guarded_connection_manager, caf::detached + caf::hidden>(
      basp, watched, tls, std::move(rings));
  sys.registry().put(manager_name, caf::actor_cast<caf::strong_actor_ptr>(manager));
  return manager;
}

}  // namespace

// The actor that opens ports and connects, guarded (net/security/basp_guard.hpp): TLS when caf::openssl
// is loaded, so that no plain TCP port exists in a TLS process; plain TCP otherwise. It speaks
// io::middleman_actor over the one BASP broker.
caf::io::middleman_actor connection_manager(caf::actor_system& sys) {
  return connection_manager_of(sys);
}

}  // namespace caflow
