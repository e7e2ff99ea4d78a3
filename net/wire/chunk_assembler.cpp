#include "net/wire/chunk_assembler.hpp"

#include <algorithm>
#include <cstring>

#include "graph/platform/thread_sanitizer.hpp"
#include "net/recycling_allocator.hpp"

namespace caflow {

chunk_assembler::chunk_assembler(admit_fn admit)
    : admit_(std::move(admit)),
      buffers_(std::make_shared<recycling_allocator>("caflow.chunk_assembly")) {}

chunk_assembler::~chunk_assembler() {
  for (const auto& [t, a] : assembling_) chunk_sinks::global().remove(t.first, t.second);
}

status chunk_assembler::refuse(const transfer& t, status why) {
  chunk_sinks::global().remove(t.first, t.second);
  assembly& a = assembling_[t];
  a.value = tensor{};
  a.refused = true;
  return why;
}

status_or<tensor> chunk_assembler::take(const edge_chunk& c) {
  const transfer t{c.key, c.step_id};
  auto it = assembling_.find(t);
  if (it != assembling_.end() && it->second.refused) return tensor{};
  if (status bad = check_chunk(c); !bad.ok()) return refuse(t, bad);
  if (it == assembling_.end()) {
    if (c.offset != 0)
      return refuse(t, errors::invalid_argument("edge '", c.key, "': the first chunk of step ",
                                                c.step_id, " starts at byte ", c.offset,
                                                ", not at 0"));
    if (admit_ && !admit_(c.step_id)) return tensor{};
    // check_chunk has bounded the size; the allocation can still fail for want of memory.
    auto shape = tensor_shape::make(c.dims);
    auto whole = tensor::allocate(buffers_, static_cast<dtype>(c.type), *shape);
    if (!whole.ok())
      return refuse(t, whole.get_status().with_context("edge '" + c.key + "', step " +
                                                       std::to_string(c.step_id)));
    it = assembling_.emplace(t, assembly{std::move(whole).value(), 0, false}).first;
  }
  assembly& a = it->second;
  const tensor& whole = a.value;
  const auto dims = whole.shape().dims();
  if (c.type != static_cast<uint8_t>(whole.type()) ||
      !std::equal(c.dims.begin(), c.dims.end(), dims.begin(), dims.end()))
    return refuse(t, errors::invalid_argument(
                         "edge '", c.key, "': a chunk of step ", c.step_id,
                         " announces another tensor than the first chunk did (",
                         dtype_name(whole.type()), whole.shape().to_string(), ")"));
  if (c.offset != a.received)
    return refuse(t, errors::invalid_argument(
                         "edge '", c.key, "': a chunk of step ", c.step_id, " starts at byte ",
                         c.offset, " but ", a.received, " bytes have arrived: it ",
                         c.offset < a.received ? "overlaps them" : "leaves a gap"));
  const auto data = c.payload();
  tsan_acquire(data.data());  // written on the sender's or the deserializer's thread
  if (c.in_place) {
    // Read into place by the deserializer, which only claims in-order ranges of the tensor
    // registered below.
    if (!c.source.shares_buffer_with(whole))
      return refuse(t, errors::internal("edge '", c.key, "': a chunk of step ", c.step_id,
                                        " was read into another tensor"));
  } else {
    std::memcpy(static_cast<char*>(whole.raw_data()) + c.offset, data.data(), data.size());
  }
  a.received += data.size();
  if (a.received < whole.byte_size()) {
    if (a.received == data.size())
      chunk_sinks::global().put(c.key, c.step_id, whole, a.received);
    else if (!c.in_place)
      chunk_sinks::global().advance(c.key, c.step_id, c.offset, a.received);
    return tensor{};
  }
  chunk_sinks::global().remove(c.key, c.step_id);
  tensor done = std::move(a.value);
  assembling_.erase(it);
  return done;
}

void chunk_assembler::forget(int64_t step_id) {
  for (auto it = assembling_.begin(); it != assembling_.end();) {
    if (it->first.second == step_id) {
      chunk_sinks::global().remove(it->first.first, step_id);
      it = assembling_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace caflow
