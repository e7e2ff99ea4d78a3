#include <charconv>

#include "devices/gpu_devices.hpp"

namespace caflow {
namespace {

// Enough for any card split for towers or tests; a typo like "40960x1" is caught.
constexpr int64_t max_virtual_devices = 64;
// 1 TiB: more than any GPU has, small enough that MB -> bytes never overflows.
constexpr int64_t max_virtual_device_mb = int64_t{1} << 20;

bool parse_positive(std::string_view text, int64_t* out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size() && *out > 0;
}

}  // namespace

status check_virtual_devices(const std::vector<int64_t>& memory_mb) {
  if (static_cast<int64_t>(memory_mb.size()) > max_virtual_devices)
    return errors::invalid_argument("virtual devices: ", memory_mb.size(), " per GPU, more than ",
                                    max_virtual_devices);
  for (int64_t mb : memory_mb)
    if (mb <= 0 || mb > max_virtual_device_mb)
      return errors::invalid_argument("virtual devices: ", mb, " MB is not a device size (1 to ",
                                      max_virtual_device_mb, " MB)");
  return {};
}

status_or<std::vector<int64_t>> parse_virtual_devices(std::string_view spec) {
  std::vector<int64_t> out;
  if (spec.empty()) return out;
  for (size_t pos = 0; pos <= spec.size();) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string_view::npos) comma = spec.size();
    const std::string_view item = spec.substr(pos, comma - pos);
    const size_t x = item.find('x');
    int64_t count = 1, mb = 0;
    const bool counted = x == std::string_view::npos || parse_positive(item.substr(0, x), &count);
    const std::string_view size = x == std::string_view::npos ? item : item.substr(x + 1);
    if (!counted || !parse_positive(size, &mb))
      return errors::invalid_argument("virtual devices '", spec, "': '", item,
                                      "' is not MB or COUNTxMB (e.g. 2x4096)");
    if (count > max_virtual_devices - static_cast<int64_t>(out.size()))
      return errors::invalid_argument("virtual devices '", spec, "': more than ",
                                      max_virtual_devices, " devices per GPU");
    out.insert(out.end(), static_cast<size_t>(count), mb);
    pos = comma + 1;
  }
  if (status st = check_virtual_devices(out); !st.ok())
    return st.with_context(errors::concat("'", spec, "'"));
  return out;
}

std::string virtual_devices_flag(const std::vector<int64_t>& memory_mb) {
  std::string out;
  for (size_t i = 0; i < memory_mb.size();) {
    size_t run = 1;
    while (i + run < memory_mb.size() && memory_mb[i + run] == memory_mb[i]) ++run;
    if (!out.empty()) out += ',';
    if (run > 1) out += std::to_string(run) + "x";
    out += std::to_string(memory_mb[i]);
    i += run;
  }
  return out;
}

}  // namespace caflow
