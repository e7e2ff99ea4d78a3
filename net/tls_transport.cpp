#include "net/tls_transport.hpp"

#include <mutex>

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

 protected:
  // The broker lets go of us for good (closed, failed or refused connection). A stream
  // registered for reading or writing holds its scribe, and the scribe holds the stream. caf
  // drops only the read registration here, and not even that when it cancels out a pending
  // add (the multiplexer then never reports the removal): a refused TLS handshake with a write
  // pending leaked the pair with its OpenSSL session. So once the multiplexer has applied every
  // change queued so far, we drop what is still registered and let go of what is not.
  void detach_from(caf::io::abstract_broker* broker) override {
    caf::io::scribe::detach_from(broker);
    caf::intrusive_ptr<tls_scribe> self{this};
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

}  // namespace

// The actor that opens ports and connects: the TLS one above when caf::openssl is loaded, so
// that no plain TCP port exists in a TLS process. Both speak io::middleman_actor over one BASP.
caf::io::middleman_actor connection_manager(caf::actor_system& sys) {
  return sys.has_openssl_manager() ? tls_connection_manager_of(sys) : sys.middleman().actor_handle();
}

}  // namespace caflow
