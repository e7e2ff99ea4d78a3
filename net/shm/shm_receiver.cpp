#include "net/shm/shm_receiver.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "graph/core/log.hpp"
#include "net/boot_id.hpp"
#include "net/bulk/bulk_frame.hpp"
#include "net/shm/shm_lease.hpp"
#include "net/unix_io.hpp"
#include "net/wire/wire_tensor.hpp"

#include <caf/error.hpp>

namespace caflow {
namespace {

// The bytes of one received block as a tensor buffer's memory: `allocate` hands out the block
// (the buffer asks once), `deallocate` gives the lease back to the sender. Holds the segment so
// its mapping outlives the link while a tensor views it. Never written here: they are the
// sender's (a ps's variable, say), so a variable assigned from them copies before an update.
class shm_block_view final : public allocator {
 public:
  shm_block_view(std::shared_ptr<const shm_segment> segment, uint64_t offset, uint32_t slot)
      : segment_(std::move(segment)), offset_(offset), slot_(slot) {}
  const char* name() const override { return "shm"; }
  void* allocate(size_t) override { return bytes(); }
  void deallocate(void*, size_t) override {
    shm_lease::give_back(bytes() - shm_lease_bytes, slot_);
  }
  bool writable_in_place(const void*) const override { return false; }

 private:
  char* bytes() const { return static_cast<char*>(segment_->data()) + offset_; }

  std::shared_ptr<const shm_segment> segment_;
  const uint64_t offset_;
  const uint32_t slot_;
};

status refuse(const edge_shm& v, const std::string& why) {
  return errors::data_loss("shared memory value of edge '", v.key, "', step ", v.step_id, ": ",
                           why);
}

}  // namespace

status_or<std::shared_ptr<shm_receiver>> shm_receiver::start(std::string task) {
  if (this_boot_id().empty())
    return errors::unavailable("no shared memory links: /proc/sys/kernel/random/boot_id cannot be "
                               "read, so tasks on this host cannot be told from others");
  CAFLOW_ASSIGN_OR_RETURN(auto server, handoff_server::open());
  const auto token = make_bulk_token();
  std::shared_ptr<shm_receiver> r(new shm_receiver(
      std::move(task), std::string(token.begin(), token.end()), std::move(server)));
  shm_receiver* self = r.get();
  r->server_->serve(
      self->secret_,
      {.accepted = [self](status_or<shm_channel> channel) { self->accept_one(std::move(channel)); },
       .watched =
           [self] {
             std::vector<int> sockets;
             sockets.reserve(self->links_.size());
             for (const link& l : self->links_) sockets.push_back(l.channel.socket().get());
             return sockets;
           },
       .readable =
           [self](const std::vector<size_t>& ready) {
             std::vector<uint64_t> closed;  // ids first: forgetting one moves the others
             for (size_t i : ready) closed.push_back(self->links_[i].id);
             for (uint64_t id : closed)
               self->forget(id, "its connection closed or sent more than its segment");
           },
       .stopped =
           [self](const std::string& why) {
             write_log(log_level::error, self->task_, "shared memory links: ", why,
                       "; no more senders are taken");
           }});
  return r;
}

void shm_receiver::describe(bulk_endpoint& at) const {
  at.shm_path = server_->path();
  at.shm_boot_id = this_boot_id();
  at.shm_secret = secret_;
}

size_t shm_receiver::links() const {
  std::lock_guard<std::mutex> lock(mu_);
  return segments_.size();
}

void shm_receiver::accept_one(status_or<shm_channel> channel) {
  if (!channel.ok()) {
    // A connection that vanished before its handshake is common at shutdown; a refused proof
    // or uid is someone trying: both are worth a line.
    write_log(log_level::warn, task_, "shared memory link refused: ",
              channel.get_status().message());
    return;
  }
  if (links_.size() >= max_shm_links) {
    write_log(log_level::warn, task_, "shared memory link refused: ", max_shm_links,
              " senders are linked already");
    return;
  }
  auto segment = channel->receive();
  if (!segment.ok()) {
    write_log(log_level::warn, task_, "shared memory link dropped: ",
              segment.get_status().message());
    return;
  }
  if (segment->size() > max_shm_segment_bytes) {
    write_log(log_level::warn, task_, "shared memory link dropped: its segment of ",
              segment->size(), " bytes exceeds ", max_shm_segment_bytes);
    return;
  }
  const uint64_t id = next_id_++;
  // The segment is known before the sender hears its number: the sender's link is up from
  // then on, and its first descriptor may reach `take` before this thread runs again.
  {
    std::lock_guard<std::mutex> lock(mu_);
    segments_.emplace(id, std::make_shared<const shm_segment>(std::move(segment).value()));
  }
  const status told = write_all_until(channel->socket(), &id, sizeof id,
                                      std::chrono::steady_clock::now() + shm_patience,
                                      "the segment's number");
  if (!told.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    segments_.erase(id);
    write_log(log_level::warn, task_, "shared memory link dropped: ", told.message());
    return;
  }
  links_.push_back({id, std::move(channel).value()});
  write_log(log_level::debug, task_, "shared memory link ", id, " taken");
}

void shm_receiver::forget(uint64_t id, const char* why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    segments_.erase(id);
  }
  std::erase_if(links_, [id](const link& l) { return l.id == id; });
  write_log(log_level::debug, task_, "shared memory link ", id, " forgotten: ", why);
}

status_or<tensor> shm_receiver::take(const edge_shm& v) const {
  if (!is_valid_dtype(v.type)) return refuse(v, "invalid dtype " + std::to_string(v.type));
  if (v.dims.size() > static_cast<size_t>(max_rank))
    return refuse(v, "rank " + std::to_string(v.dims.size()) + " exceeds " +
                         std::to_string(max_rank));
  auto shape = tensor_shape::make(v.dims);
  if (!shape.ok()) return refuse(v, format_dims(v.dims) + ": " + shape.get_status().message());
  const auto type = static_cast<dtype>(v.type);
  const auto elements = static_cast<uint64_t>(shape->num_elements());
  const uint64_t element_size = dtype_size(type);
  if (elements > std::numeric_limits<uint64_t>::max() / element_size ||
      v.bytes != elements * element_size)
    return refuse(v, std::string(dtype_name(type)) + shape->to_string() + " announced with " +
                         std::to_string(v.bytes) + " bytes");
  if (v.bytes == 0) return refuse(v, "an empty tensor never travels in shared memory");
  if (v.lease_slot >= shm_lease_slots)
    return refuse(v, "lease slot " + std::to_string(v.lease_slot) + " of a block with " +
                         std::to_string(shm_lease_slots));
  std::shared_ptr<const shm_segment> segment;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = segments_.find(v.segment);
    if (it != segments_.end()) segment = it->second;
  }
  // A segment goes with its link, when the sending task stops or is lost: the value's sender
  // is gone, which a client recovers from like any lost task (UNAVAILABLE, not NOT_FOUND).
  if (!segment)
    return errors::unavailable("shared memory value of edge '", v.key, "', step ", v.step_id,
                               ": no segment ", v.segment,
                               " is held from a live link (its sending task stopped or was lost)");
  // The lease header must lie in the segment too: the receiver writes it.
  if (v.offset < shm_lease_bytes || v.offset % tensor_alignment != 0 ||
      v.offset > segment->size() || v.bytes > segment->size() - v.offset)
    return refuse(v, "block [" + std::to_string(v.offset) + ", +" + std::to_string(v.bytes) +
                         ") does not lie aligned in segment " + std::to_string(v.segment) +
                         " of " + std::to_string(segment->size()) + " bytes");
  auto view = std::make_shared<shm_block_view>(segment, v.offset, v.lease_slot);
  auto buf = std::make_shared<buffer>(std::move(view), v.bytes);
  tensor t = tensor::view(std::move(buf), 0, type, *shape);
  if (type == dtype::boolean)
    if (auto err = check_bools("", t.raw_data(), v.bytes))
      return refuse(v, caf::to_string(err));  // `t` dies here: the lease goes back
  return t;
}

}  // namespace caflow
