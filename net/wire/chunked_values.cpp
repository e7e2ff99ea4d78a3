#include "net/wire/chunked_values.hpp"

#include <algorithm>

#include <caf/local_actor.hpp>
#include <caf/mailbox_element.hpp>


namespace caflow {

bool travels_in_chunks(const tensor& t) {
  return t.initialized() && t.byte_size() > edge_chunk_bytes;
}

std::string chunk_key(std::string_view kind, size_t index) {
  return std::string(kind) + ':' + std::to_string(index);
}

caf::strong_actor_ptr reply_destination(caf::local_actor* self) {
  const caf::mailbox_element* request = self->current_mailbox_element();
  if (!request) return nullptr;
  return request->stages.empty() ? request->sender : request->stages.back();
}

bool in_other_process(const caf::strong_actor_ptr& who, const caf::local_actor* self) {
  return who && who->node() != self->node();
}

void chunked_arrivals::note(int64_t transfer) {
  if (std::find(order_.begin(), order_.end(), transfer) != order_.end()) return;
  order_.push_back(transfer);
  if (order_.size() > max_transfers_) forget(order_.front());
}

status chunked_arrivals::take(const edge_chunk& c) {
  note(c.step_id);
  auto whole = assembler_.take(c);
  if (!whole.ok()) {
    refused_.emplace(std::pair{c.step_id, c.key}, whole.get_status());
    return whole.get_status();
  }
  if (whole->initialized()) done_[{c.step_id, c.key}] = std::move(whole).value();
  return {};
}

status_or<tensor> chunked_arrivals::claim(int64_t transfer, const std::string& key) {
  const std::pair id{transfer, key};
  if (auto r = refused_.find(id); r != refused_.end()) return r->second;
  auto d = done_.find(id);
  if (d == done_.end())
    return errors::data_loss("'", key, "' of transfer ", transfer,
                             " was announced as sent in chunks, but they did not all arrive");
  tensor t = std::move(d->second);
  done_.erase(d);
  return t;
}

bool chunked_arrivals::settled(int64_t transfer, const std::string& key) const {
  const std::pair id{transfer, key};
  return done_.contains(id) || refused_.contains(id);
}

void chunked_arrivals::forget(int64_t transfer) {
  assembler_.forget(transfer);
  std::erase_if(done_, [&](const auto& e) { return e.first.first == transfer; });
  std::erase_if(refused_, [&](const auto& e) { return e.first.first == transfer; });
  std::erase(order_, transfer);
}

}  // namespace caflow
