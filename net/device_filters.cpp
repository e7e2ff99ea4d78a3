#include "net/device_filters.hpp"

#include <algorithm>

namespace caflow {
namespace {

// Fields set in both agree; a field either leaves out agrees with anything.
template <class T>
bool agree(const std::optional<T>& a, const std::optional<T>& b) {
  return !a || !b || *a == *b;
}

bool task_agrees(const device_spec& filter, const device_spec& name) {
  return agree(filter.job, name.job) && agree(filter.replica, name.replica) &&
         agree(filter.task, name.task);
}

bool device_agrees(const device_spec& filter, const device_spec& name) {
  return task_agrees(filter, name) && agree(filter.type, name.type) && agree(filter.id, name.id);
}

}  // namespace

status_or<device_filters> device_filters::parse(const std::vector<std::string>& specs) {
  device_filters f;
  if (specs.empty()) return f;
  group g;
  for (const std::string& text : specs) {
    auto spec = parse_device_spec(text);
    if (!spec.ok()) return spec.get_status().with_context("device filter '" + text + "'");
    if (!spec->job && !spec->replica && !spec->task && !spec->type && !spec->id)
      return errors::invalid_argument("device filter '", text,
                                      "' names nothing: write a job, e.g. /job:ps");
    g.specs.push_back(*spec);
    g.texts.push_back(text);
  }
  f.groups_.push_back(std::move(g));
  return f;
}

status_or<std::vector<std::string>> device_filters::split_list(std::string_view comma_separated) {
  std::vector<std::string> specs;
  size_t start = 0;
  while (start <= comma_separated.size()) {
    size_t end = comma_separated.find(',', start);
    if (end == std::string_view::npos) end = comma_separated.size();
    std::string_view part = comma_separated.substr(start, end - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (part.empty() && !comma_separated.empty())
      return errors::invalid_argument("device filters '", comma_separated,
                                      "' have an empty entry");
    if (!part.empty()) specs.emplace_back(part);
    start = end + 1;
  }
  return specs;
}

bool device_filters::admits_task(std::string_view task) const {
  return admits(task, task_agrees);
}

bool device_filters::admits_device(std::string_view device) const {
  return admits(device, device_agrees);
}

bool device_filters::admits(std::string_view name,
                            bool (*agrees)(const device_spec&, const device_spec&)) const {
  auto spec = parse_device_spec(name);
  if (!spec.ok()) return false;
  return std::all_of(groups_.begin(), groups_.end(), [&](const group& g) {
    return std::any_of(g.specs.begin(), g.specs.end(),
                       [&](const device_spec& f) { return agrees(f, *spec); });
  });
}

device_filters device_filters::narrowed_by(const device_filters& other) const {
  device_filters both = *this;
  both.groups_.insert(both.groups_.end(), other.groups_.begin(), other.groups_.end());
  return both;
}

std::string device_filters::to_string() const {
  if (groups_.empty()) return "(none)";
  std::string out;
  for (size_t i = 0; i < groups_.size(); ++i) {
    if (i > 0) out += " and ";
    for (size_t k = 0; k < groups_[i].texts.size(); ++k)
      out += (k > 0 ? ", " : "") + groups_[i].texts[k];
  }
  return out;
}

}  // namespace caflow
