#include "net/bulk/bulk_sender.hpp"

#include <caf/send.hpp>

#include <algorithm>
#include <vector>

#include "graph/core/log.hpp"
#include "graph/platform/thread_name.hpp"
#include "graph/platform/time_scale.hpp"
#include "net/bulk/bulk_frame.hpp"
#include "net/wire/wire_chunk.hpp"

namespace caflow {
namespace {

// How long a write may make no progress before the peer counts as gone: a live receiver reads
// all the time. Beyond failure detection (1 s), so the step has failed by then anyway.
constexpr std::chrono::milliseconds write_patience{10000};
// Bytes one link may hold queued; beyond, tensors go through CAF (a peer that reads slowly
// must not make this process hold every step's tensors).
constexpr uint64_t max_queued_bytes = 1ull << 30;
// How long a link given up stays so before it is tried again; it doubles up to max_pause.
constexpr std::chrono::milliseconds initial_pause{1000};
constexpr std::chrono::milliseconds max_pause{60000};

std::string link_name(const bulk_endpoint& at) {
  return at.host + ":" + std::to_string(at.port);
}

}  // namespace

void send_in_chunks(const rendezvous_actor& to, int64_t step_id, const std::string& key,
                    const tensor& value) {
  for (edge_chunk& c : make_chunks(step_id, key, value))
    caf::anon_send(to, cf_chunk_atom::value, std::move(c));
}

bulk_sender::bulk_sender(std::string task, std::shared_ptr<const finished_steps> abandoned)
    : task_(std::move(task)), abandoned_(std::move(abandoned)) {}

bulk_sender::~bulk_sender() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [name, l] : links_) {
    {
      std::lock_guard<std::mutex> link_lock(l->mu);
      l->stopping = true;
      l->socket.shut_down();  // wakes a writer blocked on a peer that stopped reading
    }
    l->ready.notify_all();
  }
  for (auto& [name, l] : links_) l->writer.join();
}

void bulk_sender::send(const bulk_endpoint& at, const rendezvous_actor& to, int64_t step_id,
                       const std::string& key, const tensor& value) {
  link* l = nullptr;
  if (key.size() <= max_bulk_key_bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    // With the token: a peer restarted on the same port is another link.
    auto& slot = links_[link_name(at) + "/" + at.token];
    if (!slot) {
      slot = std::make_unique<link>();
      slot->at = at;
      slot->writer = std::thread([this, raw = slot.get()] { write_loop(*raw); });
    }
    l = slot.get();
  }
  if (l) {
    std::lock_guard<std::mutex> lock(l->mu);
    // A link given up is tried again once its pause is over: the writer reconnects for this value.
    if (l->broken && std::chrono::steady_clock::now() >= l->retry_at) l->broken = false;
    if (!l->broken && l->queued_bytes + value.byte_size() <= max_queued_bytes) {
      l->queued_bytes += value.byte_size();
      l->queue.push_back(item{to, step_id, key, value});
      l->ready.notify_one();
      return;
    }
  }
  send_in_chunks(to, step_id, key, value);
}

void bulk_sender::write_loop(link& l) {
  name_this_thread("cf.bulk_write");
  for (;;) {
    item next;
    {
      std::unique_lock<std::mutex> lock(l.mu);
      l.ready.wait(lock, [&] { return l.stopping || !l.queue.empty(); });
      if (l.stopping) return;  // the worker is going: its steps end with it
      next = std::move(l.queue.front());
      l.queue.pop_front();
      l.queued_bytes -= next.value.byte_size();
    }
    // A step abandoned on this task (aborted, say) needs its tensors no more.
    if (abandoned_ && abandoned_->contains(next.step_id)) continue;
    if (!l.up) l.up = open(l);
    if (!l.up || !write(l, next)) {
      l.up = false;
      // Given up: this one and whatever queued meanwhile go through CAF, in order.
      std::deque<item> rest;
      {
        std::lock_guard<std::mutex> lock(l.mu);
        rest = std::move(l.queue);
        l.queued_bytes = 0;
        l.socket = socket_fd{};
      }
      send_in_chunks(next.to, next.step_id, next.key, next.value);
      for (const item& it : rest) send_in_chunks(it.to, it.step_id, it.key, it.value);
    }
  }
}

bool bulk_sender::open(link& l) {
  auto s = connect_to(l.at.host, l.at.port, scaled(bulk_handshake_patience));
  if (!s.ok()) {
    give_up(l, s.get_status().message());
    return false;
  }
  set_receive_timeout(*s, scaled(bulk_handshake_patience));
  set_send_timeout(*s, scaled_failure(write_patience));
  {
    std::lock_guard<std::mutex> lock(l.mu);
    if (l.stopping) return false;
    l.socket = std::move(s).value();
  }
  std::vector<char> token(l.at.token.begin(), l.at.token.end());
  iovec part{token.data(), token.size()};
  char answer = 0;
  if (!write_all(l.socket, std::span<iovec>(&part, 1)).ok() ||
      !read_exact(l.socket, &answer, 1) || answer != bulk_accepted) {
    give_up(l, "the peer refused this cluster's token");
    return false;
  }
  std::lock_guard<std::mutex> lock(l.mu);
  l.pause = initial_pause;  // up again: the next failure starts the pauses over
  return true;
}

bool bulk_sender::write(link& l, const item& it) {
  const std::vector<char> header = encode_bulk_header(
      {.actor_id = it.to.id(),
       .step_id = it.step_id,
       .key = it.key,
       .type = static_cast<uint8_t>(it.value.type()),
       .dims = {it.value.shape().dims().begin(), it.value.shape().dims().end()},
       .total_bytes = it.value.byte_size()});
  iovec parts[2] = {{const_cast<char*>(header.data()), header.size()},
                    {const_cast<void*>(it.value.raw_data()), it.value.byte_size()}};
  const status st = write_all(l.socket, parts);
  if (!st.ok()) give_up(l, "writing edge '" + it.key + "' failed: " + st.message());
  return st.ok();
}

void bulk_sender::give_up(link& l, const std::string& why) {
  std::chrono::milliseconds pause{0};
  {
    std::lock_guard<std::mutex> lock(l.mu);
    if (l.stopping) return;  // the failure is our own shutdown
    l.broken = true;
    pause = l.pause;
    l.retry_at = std::chrono::steady_clock::now() + pause;
    l.pause = std::min(2 * l.pause, max_pause);
  }
  write_log(log_level::warn, task_, "bulk channel to ", link_name(l.at), " is given up for ",
            pause.count(), " ms, its tensors go through CAF meanwhile: ", why);
}

}  // namespace caflow
