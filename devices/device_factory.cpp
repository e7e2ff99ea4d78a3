#include "devices/device_factory.hpp"

#include <algorithm>

namespace caflow {

device_registry& device_registry::global() {
  static device_registry r;
  return r;
}

void device_registry::add(std::unique_ptr<device_factory> f) {
  std::string type = f->type();
  factories_[std::move(type)] = std::move(f);
}

const device_factory* device_registry::find(std::string_view type) const {
  auto it = factories_.find(type);
  return it == factories_.end() ? nullptr : it->second.get();
}

int device_registry::priority(std::string_view type) const {
  const device_factory* f = find(type);
  return f ? f->priority() : 0;
}

bool device_registry::host_memory(std::string_view type) const {
  const device_factory* f = find(type);
  return f && f->host_memory();
}

std::vector<std::string> device_registry::types() const {
  std::vector<std::string> out;
  for (const auto& [type, f] : factories_) out.push_back(type);
  std::stable_sort(out.begin(), out.end(), [this](const std::string& a, const std::string& b) {
    return priority(a) > priority(b);
  });
  return out;
}

status device_registry::validate(const device_options& opts) const {
  for (const auto& [type, n] : opts.device_count) {
    if (!find(type))
      return errors::invalid_argument("device_count names the device type '", type,
                                      "', which this build does not have (it has: ",
                                      [&] {
                                        std::string all;
                                        for (const auto& t : types()) all += (all.empty() ? "" : ", ") + t;
                                        return all;
                                      }(),
                                      ")");
    if (n < 0)
      return errors::invalid_argument("device_count for ", type, " is ", n, "; it must be >= 0");
  }
  const double fraction = opts.gpu.per_process_gpu_memory_fraction;
  if (!(fraction >= 0 && fraction <= 1))
    return errors::invalid_argument("per_process_gpu_memory_fraction must be in [0, 1], got ",
                                    fraction);
  CAFLOW_RETURN_IF_ERROR(check_virtual_devices(opts.gpu.virtual_device_memory_mb));
  return parse_visible_device_list(opts.gpu.visible_device_list,
                                   static_cast<int>(local_gpus().gpus.size()))
      .get_status();
}

int device_registry::accelerators_available(const device_options& opts) const {
  int n = 0;
  for (const auto& [type, f] : factories_) {
    if (type == device_cpu) continue;
    auto cap = opts.device_count.find(type);
    const int have = f->count(opts);
    n += cap == opts.device_count.end() ? have : std::min(have, cap->second);
  }
  return n;
}

status_or<std::vector<std::unique_ptr<device>>> device_registry::make_task_devices(
    const device_options& opts, std::string_view job, int task) const {
  CAFLOW_RETURN_IF_ERROR(validate(opts));
  std::vector<std::unique_ptr<device>> out;
  const device_factory* cpu = find(device_cpu);
  if (!cpu) return errors::internal("no CPU device factory is registered");
  std::vector<std::string> order{device_cpu};
  for (const auto& t : types())
    if (t != device_cpu) order.push_back(t);
  for (const auto& type : order) {
    auto cap = opts.device_count.find(type);
    const int limit = cap == opts.device_count.end() ? -1 : std::max(cap->second, type == device_cpu ? 1 : 0);
    if (limit == 0) continue;
    auto made = find(type)->make_devices(opts, job, task);
    if (!made.ok()) return made.get_status().with_context("making the " + type + " devices");
    auto devices = std::move(made).value();
    if (limit > 0 && static_cast<int>(devices.size()) > limit) devices.resize(static_cast<size_t>(limit));
    for (auto& d : devices) out.push_back(std::move(d));
  }
  return out;
}

}  // namespace caflow
