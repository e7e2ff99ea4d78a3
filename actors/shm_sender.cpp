#include "actors/shm_sender.hpp"

#include <poll.h>

#include <cstring>

#include "actors/log.hpp"
#include "net/boot_id.hpp"
#include "net/shm_lease.hpp"
#include "net/unix_io.hpp"

namespace caflow {

shm_link::shm_link(std::string task, bulk_endpoint at, uint64_t segment_bytes)
    : task_(std::move(task)),
      at_(std::move(at)),
      segment_bytes_(segment_bytes),
      connecting_([this] { connect(); }) {}

shm_link::~shm_link() { connecting_.join(); }

void shm_link::connect() {
  auto fail = [this](const status& why) {
    // Once per link: the values go through TCP as before, which works, so it is no error.
    write_log(log_level::info, task_, "no shared memory link to the task at ", at_.shm_path,
              ", its values go through TCP: ", why.message());
    state_.store(state::failed, std::memory_order_release);
  };
  auto channel = shm_connect(at_.shm_path, at_.shm_secret);
  if (!channel.ok()) return fail(channel.get_status());
  auto segment = shm_segment::create("caflow-shm-" + task_, segment_bytes_);
  if (!segment.ok()) return fail(segment.get_status());
  if (status sent = channel->send(*segment); !sent.ok()) return fail(sent);
  uint64_t id = 0;
  if (status got = read_exact_until(channel->socket(), &id, sizeof id,
                                    std::chrono::steady_clock::now() + shm_patience,
                                    "the segment's number");
      !got.ok())
    return fail(got);
  segment_id_ = id;
  blocks_ = std::make_shared<shm_blocks>(std::move(segment).value());
  output_allocator_ = blocks_->output_allocator(shm_min_bytes);
  channel_.emplace(std::move(channel).value());
  write_log(log_level::debug, task_, "shared memory link to ", at_.shm_path, " up: segment ", id,
            " of ", segment_bytes_, " bytes");
  state_.store(state::up, std::memory_order_release);
}

bool shm_link::closed() const {
  if (!up()) return false;
  // The receiver never writes on the connection: anything readable is its end.
  pollfd p{channel_->socket().get(), POLLIN, 0};
  return ::poll(&p, 1, 0) != 0;
}

std::optional<edge_shm> shm_link::place(int64_t step_id, const std::string& key,
                                        const tensor& value) {
  if (!up() || !value.initialized() || value.byte_size() < shm_min_bytes ||
      value.buf()->space() != nullptr)
    return std::nullopt;
  std::optional<uint64_t> offset = blocks_->hand_over(value);
  if (!offset) offset = blocks_->copy_in(value);
  if (!offset) return std::nullopt;
  edge_shm v{step_id, key, static_cast<uint8_t>(value.type()), {}, segment_id_, *offset,
             value.byte_size()};
  v.dims.reserve(static_cast<size_t>(value.rank()));
  for (int i = 0; i < value.rank(); ++i) v.dims.push_back(value.dim(i));
  return v;
}

std::shared_ptr<allocator> shm_link::output_allocator() const {
  return up() ? output_allocator_ : nullptr;
}

shm_sender::shm_sender(std::string task, uint64_t segment_bytes)
    : task_(std::move(task)), segment_bytes_(segment_bytes) {}

std::shared_ptr<shm_link> shm_sender::link_to(const bulk_endpoint& at) {
  if (at.shm_path.empty() || at.shm_boot_id.empty() || at.shm_boot_id != this_boot_id())
    return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  // A failed link stays: its listener is not tried again (a restarted task listens elsewhere).
  std::erase_if(links_, [](const auto& entry) { return entry.second->closed(); });
  auto& slot = links_[at.shm_path];
  if (!slot) slot = std::make_shared<shm_link>(task_, at, segment_bytes_);
  return slot;
}

}  // namespace caflow
