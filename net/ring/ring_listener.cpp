#include "net/ring/ring_listener.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <openssl/rand.h>

#include "net/unix_io.hpp"

namespace caflow {

status_or<std::shared_ptr<ring_listener>> ring_listener::start(std::string secret) {
  CAFLOW_ASSIGN_OR_RETURN(auto server, handoff_server::open());
  std::shared_ptr<ring_listener> l(new ring_listener(std::move(server)));
  l->server_->serve(std::move(secret),
                    {.accepted = [self = l.get()](status_or<shm_channel> channel) {
                      self->take_one(std::move(channel));
                    }});
  return l;
}

std::shared_ptr<shm_segment> ring_listener::claim(uint64_t token) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = unclaimed_.find(token);
  if (it == unclaimed_.end()) return nullptr;
  auto segment = std::move(it->second);
  unclaimed_.erase(it);
  return segment;
}

void ring_listener::take_one(status_or<shm_channel> channel) {
  // A writer that fails here falls back to TCP and knows why; nothing is worth keeping.
  if (!channel.ok()) return;
  auto segment = channel->receive();
  if (!segment.ok() || segment->size() > max_ring_segment_bytes) return;
  uint64_t token = 0;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&token), sizeof token) != 1) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    unclaimed_.emplace(token, std::make_shared<shm_segment>(std::move(segment).value()));
    arrival_.push_back(token);
    while (unclaimed_.size() > max_unclaimed_rings) {
      unclaimed_.erase(arrival_.front());
      arrival_.pop_front();
    }
    if (arrival_.size() > 2 * max_unclaimed_rings)  // claimed ones linger in arrival_
      std::erase_if(arrival_, [this](uint64_t t) { return !unclaimed_.count(t); });
  }
  // Told after it is claimable: the writer names it in its stream only once it knows it.
  (void)write_all_until(channel->socket(), &token, sizeof token,
                        std::chrono::steady_clock::now() + shm_patience, "the ring's token");
}

status_or<uint64_t> hand_over_ring(const std::string& path, std::string_view secret,
                                   const shm_segment& segment,
                                   std::chrono::milliseconds patience) {
  const io_deadline until = std::chrono::steady_clock::now() + patience;
  CAFLOW_ASSIGN_OR_RETURN(shm_channel channel, shm_connect(path, secret, patience));
  CAFLOW_RETURN_IF_ERROR(send_segment(channel.socket(), segment, until));
  uint64_t token = 0;
  CAFLOW_RETURN_IF_ERROR(
      read_exact_until(channel.socket(), &token, sizeof token, until, "the ring's token"));
  return token;
}

}  // namespace caflow
