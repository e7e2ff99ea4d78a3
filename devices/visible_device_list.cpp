#include <charconv>
#include <set>

#include "devices/gpu_devices.hpp"

namespace caflow {

status_or<std::vector<int>> parse_visible_device_list(std::string_view list, int count) {
  std::vector<int> out;
  if (list.empty()) {
    for (int i = 0; i < count; ++i) out.push_back(i);
    return out;
  }
  std::set<int> seen;
  for (size_t pos = 0; pos <= list.size();) {
    size_t comma = list.find(',', pos);
    if (comma == std::string_view::npos) comma = list.size();
    const std::string_view item = list.substr(pos, comma - pos);
    int id = -1;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), id);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || id < 0)
      return errors::invalid_argument("visible_device_list '", list, "': '", item,
                                      "' is not a GPU index");
    if (id >= count)
      return errors::invalid_argument("visible_device_list '", list, "' names GPU ", id,
                                      ", but this process sees ", count, " GPU",
                                      count == 1 ? "" : "s", " (after CUDA_VISIBLE_DEVICES)");
    if (!seen.insert(id).second)
      return errors::invalid_argument("visible_device_list '", list, "' names GPU ", id, " twice");
    out.push_back(id);
    pos = comma + 1;
  }
  return out;
}

}  // namespace caflow
