// Cluster specs as --cluster flags (compact or JSON) and TF_CONFIG give them (net/cluster_spec.hpp):
// the whole input goes to from_flag, from_json and from_tf_config. An accepted spec must render
// (to_flag, to_json) to text that parses back to the same spec and renders the same again, and
// every task it names must be a device the spec validates; an accepted TF_CONFIG, written again
// from its parts, must read back the same task. The seeds (corpus/cluster_spec/seed-*) are specs
// rendered by to_flag and to_json, TF_CONFIGs around them, and broken ones.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "net/cluster_spec.hpp"

namespace {

using namespace caflow;

[[noreturn]] void fail(const char* what, const std::string& text, const status& s) {
  std::fprintf(stderr, "%s: '%s'%s%s\n", what, text.c_str(), s.ok() ? "" : ": ",
               s.ok() ? "" : s.to_string().c_str());
  std::abort();
}

template <class Parse>
void check_renders_back(const cluster_spec& spec, const std::string& text, Parse&& parse,
                        const char* form) {
  auto again = parse(text);
  if (!again.ok()) fail(form, text, again.get_status());
  if (!(*again == spec)) fail(form, text + "' parses to another spec than '" + spec.to_flag(), {});
}

void check_spec(const cluster_spec& spec) {
  const std::string flag = spec.to_flag();
  check_renders_back(spec, flag, [](std::string_view t) { return cluster_spec::from_flag(t); },
                     "an accepted spec's to_flag does not parse back");
  const std::string json = spec.to_json();
  check_renders_back(spec, json, [](std::string_view t) { return cluster_spec::from_json(t); },
                     "an accepted spec's to_json does not parse back");
  check_renders_back(spec, json, [](std::string_view t) { return cluster_spec::from_flag(t); },
                     "an accepted spec's to_json does not parse back as a flag");
  for (const auto& task : spec.tasks()) {
    const std::string name = errors::concat("/job:", task.job, "/replica:0/task:", task.task);
    auto device = parse_device_spec(name);
    if (!device.ok()) fail("a task of an accepted spec is not a device name", name, device.get_status());
    const status valid = spec.validate_device(*device);
    if (!valid.ok()) fail("an accepted spec refuses its own task", name, valid);
    auto address = spec.task_address(task.job, task.task);
    if (!address.ok() || *address != task.address)
      fail("task_address disagrees with tasks()", name, address.get_status());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (auto spec = cluster_spec::from_flag(input); spec.ok()) check_spec(*spec);
  if (auto spec = cluster_spec::from_json(input); spec.ok()) check_spec(*spec);
  auto config = task_config::from_tf_config(input);
  if (!config.ok()) return 0;
  check_spec(config->cluster);
  const std::string again = errors::concat(R"({"cluster": )", config->cluster.to_json(),
                                           R"(, "task": {"type": ")", config->job,
                                           R"(", "index": )", config->task, "}}");
  auto reread = task_config::from_tf_config(again);
  if (!reread.ok()) fail("an accepted TF_CONFIG written again does not parse", again, reread.get_status());
  if (!(reread->cluster == config->cluster) || reread->job != config->job ||
      reread->task != config->task || reread->task_name() != config->task_name())
    fail("an accepted TF_CONFIG written again names another task", again, {});
  return 0;
}
