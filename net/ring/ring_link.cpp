#include "net/ring/ring_link.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace caflow {
namespace {

constexpr size_t hello_header_bytes = 12;  // magic, payload bytes
constexpr char tcp_choice = 'T', ring_choice = 'R';
// A ring record holds at most this much of a write: the reader hands records out whole-ish,
// and a big write then starts flowing before all of it is in.
constexpr size_t max_chunk = 256 * 1024;
// A rest of a write this big waits in the stream's own buffer rather than a copy of it.
constexpr size_t moved_write_bytes = 64 * 1024;

void put_u16(std::string& out, size_t n) {
  const uint16_t v = static_cast<uint16_t>(n);
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Reads a u16-prefixed string from [p, end); false when it does not fit.
bool get_string(const char*& p, const char* end, std::string& out) {
  uint16_t n = 0;
  if (end - p < 2) return false;
  std::memcpy(&n, p, 2);
  p += 2;
  if (end - p < n) return false;
  out.assign(p, n);
  p += n;
  return true;
}

// Sends all of `bytes` on a socket that has room for them (the connection's first bytes).
bool send_now(int fd, const std::string& bytes) {
  const ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  return sent == static_cast<ssize_t>(bytes.size());
}

}  // namespace

ring_counters& ring_stats() {
  static ring_counters counters;
  return counters;
}

ring_link::ring_link(int fd, std::shared_ptr<const ring_settings> settings)
    : fd_(fd), settings_(std::move(settings)) {}

bool ring_link::send_hello() {
  std::string payload;
  payload.push_back(settings_->listener ? 1 : 0);
  put_u16(payload, settings_->boot_id.size());
  payload += settings_->boot_id;
  const std::string path = settings_->listener ? settings_->listener->path() : std::string();
  put_u16(payload, path.size());
  payload += path;
  std::string hello(hello_header_bytes, '\0');
  const uint32_t n = static_cast<uint32_t>(payload.size());
  std::memcpy(hello.data(), &ring_hello_magic, 8);
  std::memcpy(hello.data() + 8, &n, 4);
  return send_now(fd_, hello + payload);
}

ring_link::io ring_link::recv_into(void* p, size_t n, size_t& got) {
  got = 0;
  const ssize_t r = ::recv(fd_, p, n, 0);
  if (r > 0) {
    got = static_cast<size_t>(r);
    return io::data;
  }
  if (r == 0) return io::end;
  return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? io::again : io::error;
}

ring_link::io ring_link::fill(size_t n) {
  while (end_ - begin_ < n) {
    if (in_.size() - begin_ < n) {
      std::memmove(in_.data(), in_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    size_t got = 0;
    const io r = recv_into(in_.data() + end_, in_.size() - end_, got);
    if (r != io::data) return r;
    end_ += got;
  }
  return io::data;
}

ring_link::read_state ring_link::refuse(std::string why) {
  refusal_ = std::move(why);
  phase_ = phase::done;
  ++ring_stats().refused;
  return read_state::closed;
}

ring_link::read_state ring_link::read(void* buf, size_t len, size_t& got) {
  got = 0;
  for (;;) {
    switch (phase_) {
      case phase::hello:
        if (auto s = read_hello(); phase_ == phase::hello || phase_ == phase::done) return s;
        break;
      case phase::choice:
        if (auto s = read_choice(); phase_ == phase::choice || phase_ == phase::done) return s;
        break;
      case phase::tcp:
        return read_tcp(buf, len, got);
      case phase::ring:
        return read_ring(buf, len, got);
      case phase::done:
        return read_state::closed;
    }
  }
}

ring_link::read_state ring_link::read_hello() {
  const io header = fill(hello_header_bytes);
  if (header == io::again) return read_state::nothing_now;
  if (header != io::data) {
    phase_ = phase::done;
    return read_state::closed;
  }
  uint64_t magic = 0;
  uint32_t n = 0;
  std::memcpy(&magic, in_.data() + begin_, 8);
  std::memcpy(&n, in_.data() + begin_ + 8, 4);
  if (magic != ring_hello_magic)
    return refuse("the peer did not start with caflow's hello (another protocol, or a caflow "
                  "of another version)");
  if (n > max_ring_hello_bytes)
    return refuse("the peer's hello announces " + std::to_string(n) + " bytes, more than the " +
                  std::to_string(max_ring_hello_bytes) + " one may have");
  const io body = fill(hello_header_bytes + n);
  if (body == io::again) return read_state::nothing_now;
  if (body != io::data) {
    phase_ = phase::done;
    return read_state::closed;
  }
  const char* p = in_.data() + begin_ + hello_header_bytes;
  const char* end = p + n;
  std::string boot, path;
  if (n < 1 || !get_string(++p, end, boot) || !get_string(p, end, path) || p != end)
    return refuse("the peer's hello is malformed (its fields do not fill its " +
                  std::to_string(n) + " bytes)");
  const bool accepts = in_[begin_ + hello_header_bytes] != 0;
  begin_ += hello_header_bytes + n;
  phase_ = phase::choice;
  choose(accepts, boot, path);
  return read_state::nothing_now;
}

void ring_link::choose(bool peer_accepts, const std::string& peer_boot,
                       const std::string& peer_path) {
  const bool possible = settings_->writes_rings && peer_accepts && !peer_boot.empty() &&
                        peer_boot == settings_->boot_id && plausible_shm_listener(peer_path);
  std::string choice(1, tcp_choice);
  if (possible) {
    auto segment =
        shm_segment::create("caflow-ring", shm_ring::header_bytes + settings_->ring_bytes);
    std::optional<shm_ring> ring;
    status_or<uint64_t> token = errors::internal("no segment");
    if (segment.ok()) {
      auto laid = shm_ring::create(segment->data(), segment->size());
      if (laid.ok()) {
        ring.emplace(*laid);
        token = hand_over_ring(peer_path, settings_->secret, *segment, ring_handoff_patience);
      }
    }
    if (token.ok()) {
      out_segment_ = std::make_shared<shm_segment>(std::move(segment).value());
      out_ring_ = ring;
      choice.assign(1, ring_choice);
      choice.append(reinterpret_cast<const char*>(&*token), sizeof(uint64_t));
      ++ring_stats().rings_written;
    } else {
      ++ring_stats().handoffs_failed;
    }
  }
  // Only the hello went before: the socket has room for these few bytes.
  if (!send_now(fd_, choice)) ::shutdown(fd_, SHUT_RDWR);  // the next read ends the connection
  decided_ = true;
  if (on_decided) on_decided();
}

ring_link::read_state ring_link::read_choice() {
  const io one = fill(1);
  if (one == io::again) return read_state::nothing_now;
  if (one != io::data) {
    phase_ = phase::done;
    return read_state::closed;
  }
  const char choice = in_[begin_];
  if (choice == tcp_choice) {
    ++begin_;
    phase_ = phase::tcp;
    return read_state::nothing_now;
  }
  if (choice != ring_choice)
    return refuse("the peer chose neither TCP nor a ring after its hello (byte " +
                  std::to_string(static_cast<unsigned char>(choice)) + ")");
  const io token_bytes = fill(1 + sizeof(uint64_t));
  if (token_bytes == io::again) return read_state::nothing_now;
  if (token_bytes != io::data) {
    phase_ = phase::done;
    return read_state::closed;
  }
  uint64_t token = 0;
  std::memcpy(&token, in_.data() + begin_ + 1, sizeof token);
  auto segment = settings_->listener ? settings_->listener->claim(token) : nullptr;
  if (!segment)
    return refuse("the peer named a ring that was never handed over to this process");
  auto ring = shm_ring::attach(segment->data(), segment->size());
  if (!ring.ok()) return refuse("the peer's ring: " + ring.get_status().message());
  in_segment_ = std::move(segment);
  in_ring_.emplace(*ring);
  in_ring_->set_awake(false);  // until a poller says otherwise: the writer rings
  begin_ = end_ = 0;           // all that may follow on TCP are doorbells
  phase_ = phase::ring;
  ++ring_stats().rings_read;
  if (on_ring_attached) on_ring_attached();
  return read_state::nothing_now;
}

ring_link::read_state ring_link::read_tcp(void* buf, size_t len, size_t& got) {
  if (begin_ == end_) {
    io r;
    if (len >= in_.size()) {
      r = recv_into(buf, len, got);  // big enough to skip the copy
    } else {
      size_t n = 0;
      r = recv_into(in_.data(), in_.size(), n);
      begin_ = 0;
      end_ = n;
    }
    if (r == io::again) return read_state::nothing_now;
    if (r != io::data) {
      phase_ = phase::done;
      return read_state::closed;
    }
    if (got > 0) return read_state::bytes;
  }
  got = std::min(len, end_ - begin_);
  std::memcpy(buf, in_.data() + begin_, got);
  begin_ += got;
  return read_state::bytes;
}

ring_link::read_state ring_link::read_ring(void* buf, size_t len, size_t& got) {
  if (record_from_ == record_.size()) {
    auto popped = in_ring_->try_pop(record_);
    if (popped.ok() && !*popped && !peer_ended_ && !polled_read_) {
      // Nothing in the ring: drain the doorbells and see whether the peer's end came. A record
      // is pushed before its doorbell rings and before the writer closes, so the ring is looked
      // at once more after.
      for (;;) {
        size_t n = 0;
        const io r = recv_into(in_.data(), in_.size(), n);
        if (r == io::data) continue;
        if (r == io::end || r == io::error) peer_ended_ = true;
        break;
      }
      popped = in_ring_->try_pop(record_);
    }
    if (!popped.ok()) return refuse(popped.get_status().message());
    if (!*popped) {
      if (!peer_ended_) return read_state::nothing_now;
      phase_ = phase::done;
      return read_state::closed;
    }
    record_from_ = 0;
  }
  got = std::min(len, record_.size() - record_from_);
  std::memcpy(buf, record_.data() + record_from_, got);
  record_from_ += got;
  return read_state::bytes;
}

bool ring_link::holds_bytes() const {
  if (phase_ == phase::ring) return record_from_ < record_.size();
  return phase_ == phase::tcp && begin_ != end_;
}

void ring_link::push(const char* data, size_t n, size_t& pushed) {
  pushed = 0;
  while (pushed < n) {
    const size_t chunk = std::min({n - pushed, max_chunk, out_ring_->max_record()});
    if (!out_ring_->try_push({reinterpret_cast<const std::byte*>(data + pushed), chunk}))
      return;
    pushed += chunk;
  }
}

void ring_link::ring_doorbell() {
  if (!out_ring_->consumer_sleeps()) return;
  ring_stats().doorbells.fetch_add(1, std::memory_order_relaxed);
  // A full socket holds a doorbell already; a failed one ends the connection for the reader.
  const char bell = 'D';
  (void)::send(fd_, &bell, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

void ring_link::write(std::vector<char>& bytes) {
  if (bytes.empty()) return;
  size_t pushed = 0;
  if (!has_waiting()) {  // else behind what waits already
    push(bytes.data(), bytes.size(), pushed);
    if (pushed > 0) ring_doorbell();
  }
  const size_t left = bytes.size() - pushed;
  if (left >= moved_write_bytes) {
    // The buffer itself waits; the stream serializes the next message into a new one.
    waiting_.push_back({std::move(bytes), pushed});
  } else if (left > 0) {
    // A small rest is copied, so the stream keeps its buffer's capacity.
    waiting_.push_back({std::vector<char>(bytes.begin() + static_cast<ptrdiff_t>(pushed), bytes.end()), 0});
  }
  bytes.clear();
}

void ring_link::push_waiting() {
  bool any = false;
  while (!waiting_.empty()) {
    pending& p = waiting_.front();
    size_t pushed = 0;
    push(p.bytes.data() + p.from, p.bytes.size() - p.from, pushed);
    p.from += pushed;
    any = any || pushed > 0;
    if (p.from < p.bytes.size()) break;  // the ring is full
    waiting_.pop_front();
  }
  if (any) ring_doorbell();
}

}  // namespace caflow
