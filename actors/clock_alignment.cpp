#include "actors/clock_alignment.hpp"

namespace caflow {

std::optional<int64_t> clock_offset_us(std::span<const clock_sample> samples) {
  const clock_sample* best = nullptr;
  for (const clock_sample& s : samples) {
    if (s.received_us < s.sent_us) continue;
    if (!best || s.received_us - s.sent_us < best->received_us - best->sent_us) best = &s;
  }
  if (!best) return std::nullopt;
  return best->sent_us + (best->received_us - best->sent_us) / 2 - best->peer_us;
}

}  // namespace caflow
