#include "net/shm/shm_sender.hpp"

#include <poll.h>

#include <cstring>

#include "graph/core/log.hpp"
#include "net/boot_id.hpp"
#include "net/shm/shm_lease.hpp"
#include "net/unix_io.hpp"

namespace caflow {

shm_link::shm_link(std::string task, bulk_endpoint at, std::shared_ptr<shm_blocks> segment,
                   uint32_t slot, std::shared_ptr<allocator> outputs)
    : task_(std::move(task)),
      at_(std::move(at)),
      blocks_(std::move(segment)),
      slot_(slot),
      output_allocator_(std::move(outputs)),
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
  if (status sent = channel->send(blocks_->segment()); !sent.ok()) return fail(sent);
  uint64_t id = 0;
  if (status got = read_exact_until(channel->socket(), &id, sizeof id,
                                    std::chrono::steady_clock::now() + shm_patience,
                                    "the segment's number");
      !got.ok())
    return fail(got);
  segment_id_ = id;
  channel_.emplace(std::move(channel).value());
  write_log(log_level::debug, task_, "shared memory link to ", at_.shm_path, " up: segment ", id,
            " of ", blocks_->segment().size(), " bytes, lease slot ", slot_);
  state_.store(state::up, std::memory_order_release);
  blocks_->mark_linked();
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
  std::optional<uint64_t> offset = blocks_->hand_over(value, slot_);
  if (!offset) offset = blocks_->copy_in(value, slot_);
  if (!offset) return std::nullopt;
  edge_shm v{step_id, key, static_cast<uint8_t>(value.type()), {}, segment_id_, *offset,
             value.byte_size(), slot_};
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
  if (!slot) {
    auto free = free_slot();
    if (!free.ok()) {
      links_.erase(at.shm_path);
      if (!segment_failed_)
        write_log(log_level::warn, task_, "no shared memory links, values to tasks on this host "
                  "go through TCP: ", free.get_status().message());
      segment_failed_ = true;
      return nullptr;
    }
    const auto [segment, lease_slot] = *free;
    slot = std::make_shared<shm_link>(task_, at, segment->blocks, lease_slot, segment->outputs);
  }
  return slot;
}

status_or<std::pair<const shm_sender::segment_record*, uint32_t>> shm_sender::free_slot() {
  if (segment_failed_) return errors::unavailable("no segment could be made");
  if (!segments_.empty())
    if (auto slot = segments_.back()->blocks->claim_slot()) return {{segments_.back().get(), *slot}};
  CAFLOW_ASSIGN_OR_RETURN(shm_segment made,
                          shm_segment::create("caflow-shm-" + task_, segment_bytes_));
  auto record = std::make_unique<segment_record>();
  record->blocks = std::make_shared<shm_blocks>(std::move(made));
  record->outputs = record->blocks->output_allocator(shm_min_bytes);
  record->variables = record->blocks->variable_allocator(shm_min_bytes);
  const uint32_t slot = *record->blocks->claim_slot();  // a new segment has every slot free
  segments_.push_back(std::move(record));
  if (segments_.size() == 1) home_.store(segments_.front().get(), std::memory_order_release);
  return {{segments_.back().get(), slot}};
}

std::shared_ptr<allocator> shm_sender::variables() const {
  const segment_record* home = home_.load(std::memory_order_acquire);
  return home != nullptr && home->blocks->linked() ? home->variables : nullptr;
}

}  // namespace caflow
