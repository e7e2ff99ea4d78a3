#include "net/wire/wire_chunk.hpp"

#include <algorithm>
#include <caf/binary_deserializer.hpp>
#include <caf/deserializer.hpp>
#include <caf/error.hpp>
#include <caf/sec.hpp>
#include <caf/serializer.hpp>
#include <limits>

#include "graph/core/shape.hpp"
#include "graph/core/types.hpp"
#include "graph/platform/thread_sanitizer.hpp"

namespace caflow {
namespace {

caf::error chunk_refusal(const std::string& why) {
  return caf::make_error(caf::sec::invalid_argument, "edge_chunk: " + why);
}

}  // namespace

std::span<const char> edge_chunk::payload() const {
  if (!source.initialized()) return {bytes.data(), bytes.size()};
  const uint64_t have = source.byte_size();
  if (offset > have || size > have - offset) return {};
  return {static_cast<const char*>(source.raw_data()) + offset, static_cast<size_t>(size)};
}

chunk_sinks& chunk_sinks::global() {
  static chunk_sinks sinks;
  return sinks;
}

void chunk_sinks::put(const std::string& key, int64_t step_id, const tensor& target,
                      uint64_t filled) {
  std::lock_guard<std::mutex> lock(mu_);
  sinks_[{key, step_id}] = sink{target, filled};
}

void chunk_sinks::remove(const std::string& key, int64_t step_id) {
  tensor dropped;  // freed outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sinks_.find({key, step_id});
  if (it == sinks_.end()) return;
  dropped = std::move(it->second.target);
  sinks_.erase(it);
}

void chunk_sinks::advance(const std::string& key, int64_t step_id, uint64_t from, uint64_t to) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sinks_.find({key, step_id});
  if (it != sinks_.end() && it->second.claimed == from) it->second.claimed = to;
}

tensor chunk_sinks::claim(const edge_chunk& h, uint64_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sinks_.find({h.key, h.step_id});
  if (it == sinks_.end()) return {};
  sink& s = it->second;
  const auto dims = s.target.shape().dims();
  if (size == 0 || h.offset != s.claimed || h.type != static_cast<uint8_t>(s.target.type()) ||
      !std::equal(h.dims.begin(), h.dims.end(), dims.begin(), dims.end()) ||
      h.total_bytes != s.target.byte_size() || size > h.total_bytes - h.offset)
    return {};
  s.claimed += size;
  return s.target;
}

std::vector<edge_chunk> make_chunks(int64_t step_id, const std::string& key, const tensor& value,
                                    uint64_t chunk_bytes) {
  const uint64_t total = value.byte_size();
  const auto dims = value.shape().dims();
  std::vector<edge_chunk> out;
  out.reserve(static_cast<size_t>((total + chunk_bytes - 1) / chunk_bytes));
  for (uint64_t at = 0; at < total; at += chunk_bytes) {
    edge_chunk c;
    c.step_id = step_id;
    c.key = key;
    c.type = static_cast<uint8_t>(value.type());
    c.dims.assign(dims.begin(), dims.end());
    c.total_bytes = total;
    c.offset = at;
    c.source = value;
    c.size = std::min(chunk_bytes, total - at);
    // A receiver in this process copies the chunk straight out of these bytes.
    tsan_release(c.payload().data());
    out.push_back(std::move(c));
  }
  return out;
}

status check_announced_tensor(std::string_view what, const std::string& key, int64_t step_id,
                              uint8_t type, const std::vector<int64_t>& dims,
                              uint64_t total_bytes) {
  if (!is_valid_dtype(type))
    return errors::invalid_argument("edge '", key, "': ", what, " of step ", step_id,
                                    " announces the invalid dtype ", static_cast<int>(type));
  auto shape = tensor_shape::make(dims);
  if (!shape.ok())
    return errors::invalid_argument("edge '", key, "': ", what, " of step ", step_id,
                                    " announces a bad shape ", format_dims(dims, max_rank + 1),
                                    ": ", shape.get_status().message());
  const auto dt = static_cast<dtype>(type);
  const auto elements = static_cast<uint64_t>(shape->num_elements());
  const uint64_t element_size = dtype_size(dt);
  if (elements > max_chunked_tensor_bytes / std::max<uint64_t>(element_size, 1) ||
      elements * element_size > max_chunked_tensor_bytes)
    return errors::resource_exhausted("edge '", key, "': ", what, " of step ", step_id,
                                      " announces ", dtype_name(dt), shape->to_string(),
                                      ", more than the ", max_chunked_tensor_bytes,
                                      " bytes one transfer may carry");
  if (total_bytes != elements * element_size)
    return errors::invalid_argument("edge '", key, "': ", what, " of step ", step_id,
                                    " announces ", dtype_name(dt), shape->to_string(), " as ",
                                    total_bytes, " bytes, not ", elements * element_size);
  return {};
}

status check_chunk(const edge_chunk& c) {
  CAFLOW_RETURN_IF_ERROR(
      check_announced_tensor("a chunk", c.key, c.step_id, c.type, c.dims, c.total_bytes));
  const auto data = c.payload();
  if (data.empty())
    return errors::invalid_argument("edge '", c.key, "': a chunk of step ", c.step_id,
                                    " at offset ", c.offset, " carries no bytes");
  if (c.offset > c.total_bytes || data.size() > c.total_bytes - c.offset)
    return errors::invalid_argument("edge '", c.key, "': a chunk of step ", c.step_id,
                                    " carries bytes ", c.offset, "..", c.offset + data.size(),
                                    " of a tensor of only ", c.total_bytes, " bytes");
  return {};
}

caf::error inspect(caf::serializer& f, edge_chunk& x) {
  const auto data = x.payload();
  uint64_t n = data.size();
  if (auto err = f(x.step_id, x.key, x.type, x.dims, x.total_bytes, x.offset, n)) return err;
  return n > 0 ? f.apply_raw(n, const_cast<char*>(data.data())) : caf::none;
}

caf::error inspect(caf::deserializer& f, edge_chunk& x) {
  uint64_t n = 0;
  if (auto err = f(x.step_id, x.key, x.type, x.dims, x.total_bytes, x.offset, n)) return err;
  // The chunk's own size is bounded here; the header it announces is checked by the receiver.
  if (n > max_wire_tensor_bytes)
    return chunk_refusal(std::to_string(n) + " bytes exceed the per-message limit of " +
                         std::to_string(max_wire_tensor_bytes));
  if (auto* bin = dynamic_cast<caf::binary_deserializer*>(&f); bin && bin->remaining() < n)
    return chunk_refusal("message holds " + std::to_string(bin->remaining()) + " of " +
                         std::to_string(n) + " announced bytes");
  x.size = n;
  x.source = chunk_sinks::global().claim(x, n);
  x.in_place = x.source.initialized();
  char* into = nullptr;
  if (x.in_place) {
    into = static_cast<char*>(x.source.raw_data()) + x.offset;
  } else {
    x.bytes.resize(static_cast<size_t>(n));
    into = x.bytes.data();
  }
  if (n == 0) return caf::none;
  if (auto err = f.apply_raw(n, into)) return err;
  tsan_release(into);  // read by the receiving actor, on another thread
  return x.type == static_cast<uint8_t>(dtype::boolean) ? check_bools("edge_chunk: ", into, n)
                                                         : caf::none;
}

}  // namespace caflow
