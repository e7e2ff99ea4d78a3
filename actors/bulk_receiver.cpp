#include "actors/bulk_receiver.hpp"

#include <algorithm>
#include <array>
#include <caf/send.hpp>
#include <cstring>
#include <vector>

#include "actors/log.hpp"
#include "graph/thread_sanitizer.hpp"
#include "net/bulk_frame.hpp"
#include "net/recycling_allocator.hpp"

namespace caflow {

status_or<std::unique_ptr<bulk_receiver>> bulk_receiver::start(const std::string& host,
                                                               std::string task) {
  CAFLOW_ASSIGN_OR_RETURN(socket_fd listener, listen_on(host, 0));
  const auto token = make_bulk_token();
  bulk_endpoint at{host, bound_port(listener), std::string(token.begin(), token.end())};
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

void bulk_receiver::route(const caf::actor& rendezvous) {
  std::lock_guard<std::mutex> lock(mu_);
  routes_[rendezvous.id()] = rendezvous;
}

void bulk_receiver::unroute(caf::actor_id id) {
  std::lock_guard<std::mutex> lock(mu_);
  routes_.erase(id);
}

caf::actor bulk_receiver::route_of(caf::actor_id id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = routes_.find(id);
  return it == routes_.end() ? caf::actor{} : it->second;
}

void bulk_receiver::accept_loop() {
  for (;;) {
    socket_fd s = accept_from(listener_);
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
    if (stopping_ || !s.valid()) return;
    connection& c = connections_.emplace_back();
    c.socket = std::move(s);
    c.reader = std::thread([this, &c] { read_loop(c); });
  }
}

void bulk_receiver::read_loop(connection& c) {
  std::array<char, bulk_token_bytes> token{};
  if (!read_exact(c.socket, token.data(), token.size()) ||
      !std::equal(token.begin(), token.end(), endpoint_.token.begin(), endpoint_.token.end())) {
    write_log(log_level::warn, task_,
              "bulk channel: refused a connection that did not present this task's token");
  } else {
    iovec ok{const_cast<char*>(&bulk_accepted), 1};
    if (write_all(c.socket, std::span<iovec>(&ok, 1)).ok())
      while (read_frame(c)) {
      }
  }
  c.socket.shut_down();
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
    write_log(log_level::warn, task_, "bulk channel: ", header.get_status().message());
    return false;
  }
  auto shape = tensor_shape::make(header->dims);  // checked by parse_bulk_header
  auto value = tensor::allocate(buffers_, static_cast<dtype>(header->type), *shape);
  if (!value.ok()) {
    write_log(log_level::error, task_, "bulk channel: edge '", header->key, "', step ",
              header->step_id, ": ", value.get_status().message());
    return false;
  }
  char* into = static_cast<char*>(value->raw_data());
  if (!read_exact(c.socket, into, header->total_bytes)) {
    write_log(log_level::warn, task_, "bulk channel: the connection broke in the middle of edge '",
              header->key, "', step ", header->step_id);
    return false;
  }
  if (header->type == static_cast<uint8_t>(dtype::boolean)) {
    if (auto bad = check_bools("bulk transfer: ", into, header->total_bytes)) {
      write_log(log_level::warn, task_, "bulk channel: edge '", header->key, "', step ",
                header->step_id, ": a boolean tensor holds bytes other than 0 and 1");
      return false;
    }
  }
  caf::actor to = route_of(header->actor_id);
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

}  // namespace caflow
