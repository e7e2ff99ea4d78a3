#include "actors/admin/clock_alignment.hpp"

#include <unistd.h>

#include <fstream>

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

const std::string& local_clock_domain() {
  static const std::string domain = [] {
    std::string id;
    std::ifstream("/proc/sys/kernel/random/boot_id") >> id;
    if (!id.empty()) return "boot:" + id;
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    return "host:" + std::string(host);
  }();
  return domain;
}

}  // namespace caflow
