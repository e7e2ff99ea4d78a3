#include "net/bulk/bulk_receiver.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>
#include <vector>

#include <caf/send.hpp>

#include "graph/core/log.hpp"
#include "graph/platform/thread_name.hpp"
#include "graph/platform/thread_sanitizer.hpp"
#include "graph/platform/time_scale.hpp"
#include "net/security/basp_guard.hpp"
#include "net/bulk/bulk_frame.hpp"
#include "net/recycling_allocator.hpp"

namespace caflow {
namespace {

// Connections one receiver serves at once: one per sending task is the norm.
constexpr size_t max_connections = 256;
// How long the threads of connections that ended may wait to be joined when no peer connects.
constexpr std::chrono::milliseconds bulk_reap_interval{200};

// In constant time: how many leading bytes match says nothing to a prober.
bool same_token(const std::array<char, bulk_token_bytes>& got, const std::string& want) {
  if (want.size() != got.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < got.size(); ++i)
    diff |= static_cast<unsigned char>(got[i] ^ want[i]);
  return diff == 0;
}

}  // namespace

status_or<std::unique_ptr<bulk_receiver>> bulk_receiver::start(const std::string& host,
                                                               std::string task) {
  CAFLOW_ASSIGN_OR_RETURN(socket_fd listener, listen_on(host, 0));
  const auto token = make_bulk_token();
  bulk_endpoint at;
  at.host = host;
  at.port = bound_port(listener);
  at.token = std::string(token.begin(), token.end());
  return std::unique_ptr<bulk_receiver>(
      new bulk_receiver(std::move(listener), std::move(at), std::move(task)));
}

bulk_receiver::bulk_receiver(socket_fd listener, bulk_endpoint endpoint, std::string task)
    : task_(std::move(task)),
      listener_(std::move(listener)),
      endpoint_(std::move(endpoint)),
      buffers_(std::make_shared<recycling_allocator>("caflow.bulk_receiver")),
      acceptor_([this] { accept_loop(); }) {}

bulk_receiver::~bulk_receiver() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (connection& c : connections_) c.socket.shut_down();
  }
  listener_.shut_down();
  acceptor_.join();
  // The acceptor is gone: nobody adds connections any more.
  for (connection& c : connections_) c.reader.join();
}

void bulk_receiver::route(const rendezvous_actor& rendezvous) {
  std::lock_guard<std::mutex> lock(mu_);
  routes_[rendezvous.id()] = rendezvous;
}

void bulk_receiver::unroute(caf::actor_id id) {
  std::lock_guard<std::mutex> lock(mu_);
  routes_.erase(id);
}

rendezvous_actor bulk_receiver::route_of(caf::actor_id id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = routes_.find(id);
  return it == routes_.end() ? rendezvous_actor{} : it->second;
}

void bulk_receiver::accept_loop() {
  name_this_thread("cf.bulk_accept");
  for (;;) {
    // Wakes now and then with no one connecting, so the threads of connections that ended are
    // joined (their stacks freed) without waiting for the next peer.
    const bool waiting = wait_readable(listener_, bulk_reap_interval);
    socket_fd s = waiting ? accept_from(listener_) : socket_fd{};
    std::lock_guard<std::mutex> lock(mu_);
    // Peers that left are forgotten here, so connections do not pile up.
    for (auto it = connections_.begin(); it != connections_.end();) {
      if (!it->done.load()) {
        ++it;
        continue;
      }
      it->reader.join();
      it = connections_.erase(it);
    }
    if (stopping_) return;
    if (!waiting) continue;
    if (!s.valid()) {
      // Out of descriptors or memory for a moment: keep serving the connections there are.
      write_log(log_level::warn, task_, "bulk channel: accepting a connection failed: ",
                std::strerror(errno));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    // One connection per sending task is the norm; more is someone probing the port.
    if (connections_.size() >= max_connections) {
      write_log(log_level::warn, task_, "bulk channel: refused a connection: ", max_connections,
                " are open");
      continue;
    }
    // Nor may one address hold many threads waiting for tokens (max_handshakes_per_address,
    // as on the BASP port): the rest of a probe's connections are closed at once.
    std::string peer = peer_address(s);
    const auto unproved = std::count_if(connections_.begin(), connections_.end(), [&](auto& c) {
      return !c.done.load() && !c.proved && c.peer == peer;
    });
    if (static_cast<size_t>(unproved) >= max_handshakes_per_address) {
      write_log(log_level::warn, task_, "bulk channel: refused a connection: ", unproved, " from ",
                peer, " have not shown a token yet");
      continue;
    }
    // A peer must show its token in time, so idle connections cannot pin threads.
    set_receive_timeout(s, scaled(bulk_handshake_patience));
    connection& c = connections_.emplace_back();
    c.socket = std::move(s);
    c.peer = std::move(peer);
    try {
      c.reader = std::thread([this, &c] { read_loop(c); });
    } catch (const std::system_error& e) {
      write_log(log_level::warn, task_, "bulk channel: no thread for a connection: ", e.what());
      connections_.pop_back();
    }
  }
}

void bulk_receiver::read_loop(connection& c) {
  name_this_thread("cf.bulk_read");
  std::array<char, bulk_token_bytes> token{};
  if (!read_exact(c.socket, token.data(), token.size()) ||
      !same_token(token, endpoint_.token)) {
    write_log(log_level::warn, task_,
              "bulk channel: refused a connection that did not present this task's token");
  } else {
    set_receive_timeout(c.socket, {});  // a sender may be idle for as long as it likes
    {
      std::lock_guard<std::mutex> lock(mu_);
      c.proved = true;
    }
    iovec ok{const_cast<char*>(&bulk_accepted), 1};
    if (write_all(c.socket, std::span<iovec>(&ok, 1)).ok())
      while (read_frame(c)) {
      }
  }
  // Closed here, not when the acceptor next reaps: a probe's descriptor is back at once. Under
  // the lock, since the destructor shuts every connection's socket down under it.
  std::lock_guard<std::mutex> lock(mu_);
  c.socket = socket_fd{};
  c.done.store(true);
}

bool bulk_receiver::read_frame(connection& c) {
  std::array<char, bulk_prefix_bytes> prefix{};
  if (!read_exact(c.socket, prefix.data(), prefix.size())) return false;  // the peer left
  auto header_bytes = parse_bulk_prefix(prefix);
  if (!header_bytes.ok()) {
    write_log(log_level::warn, task_, "bulk channel: ", header_bytes.get_status().message());
    return false;
  }
  std::vector<char> body(*header_bytes);
  if (!read_exact(c.socket, body.data(), body.size())) return false;
  auto header = parse_bulk_header(body);
  if (!header.ok()) {
    // The stream cannot be followed past a header it cannot read.
    write_log(log_level::warn, task_, "bulk channel: ", header.get_status().message());
    return false;
  }
  rendezvous_actor to = route_of(header->actor_id);
  auto shape = tensor_shape::make(header->dims);  // checked by parse_bulk_header
  auto value = tensor::allocate(buffers_, static_cast<dtype>(header->type), *shape);
  if (!value.ok()) {
    // The sender's write has succeeded: it will not send this value again. Its step fails
    // here, and the stream goes on past the bytes.
    fail_step(to, *header, value.get_status().message());
    return skip(c, header->total_bytes);
  }
  char* into = static_cast<char*>(value->raw_data());
  if (!read_exact(c.socket, into, header->total_bytes)) {
    write_log(log_level::warn, task_, "bulk channel: the connection broke in the middle of edge '",
              header->key, "', step ", header->step_id);
    return false;
  }
  if (header->type == static_cast<uint8_t>(dtype::boolean) &&
      check_bools("bulk transfer: ", into, header->total_bytes)) {
    fail_step(to, *header, "a boolean tensor holds bytes other than 0 and 1");
    return true;
  }
  if (!to) {
    write_log(log_level::warn, task_, "bulk channel: dropped edge '", header->key, "', step ",
              header->step_id, ": no rendezvous actor ", header->actor_id, " on this task");
    return true;
  }
  tsan_release(into);  // read by the step's _Recv, on another thread
  delivered_.fetch_add(1, std::memory_order_relaxed);
  caf::anon_send(to, cf_push_atom::value,
                 edge_value{header->step_id, std::move(header->key), wire_tensor{*value}});
  return true;
}

void bulk_receiver::fail_step(const rendezvous_actor& to, const bulk_header& h,
                              const std::string& why) {
  const status error = errors::data_loss("edge '", h.key, "', step ", h.step_id,
                                         ": the bulk channel could not take the value: ", why);
  write_log(log_level::warn, task_, "bulk channel: ", error.message());
  if (to) caf::anon_send(to, cf_abort_atom::value, h.step_id, to_step_error(error));
}

bool bulk_receiver::skip(connection& c, uint64_t bytes) {
  std::vector<char> scratch(std::min<uint64_t>(bytes, 1 << 20));
  while (bytes > 0) {
    const auto n = static_cast<size_t>(std::min<uint64_t>(bytes, scratch.size()));
    if (!read_exact(c.socket, scratch.data(), n)) return false;
    bytes -= n;
  }
  return true;
}

}  // namespace caflow
