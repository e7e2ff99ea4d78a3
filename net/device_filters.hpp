#pragma once
// TensorFlow's ConfigProto.device_filters: the devices (and so the tasks) a task or a session
// may use and talk to, written as device specs ("/job:ps", "/job:worker/task:3"). A task passes
// when at least one filter could match one of its devices; no filters at all pass everything.
// A task never connects to a task its filters leave out, and a session never places a node
// there.
//
//   auto f = device_filters::parse({"/job:ps", "/job:worker/task:1"});
//   f->admits_task("/job:worker/replica:0/task:1");            // true
//   f->admits_device("/job:worker/replica:0/task:2/device:CPU:0");  // false
#include <string>
#include <string_view>
#include <vector>

#include "graph/core/device_name.hpp"
#include "graph/core/status.hpp"

namespace caflow {

class device_filters {
 public:
  device_filters() = default;  // no filters: everything passes

  // Errors quote the filter at fault and say why (device_name.hpp's parse errors).
  static status_or<device_filters> parse(const std::vector<std::string>& specs);
  // Filters as a command line gives them, comma separated, split into parse()'s list.
  static status_or<std::vector<std::string>> split_list(std::string_view comma_separated);

  bool empty() const { return groups_.empty(); }
  // `task` as "/job:J/replica:R/task:T" (or any device of it): some filter leaves its job,
  // replica and task open or equal to the task's.
  bool admits_task(std::string_view task) const;
  // A device name or spec: some filter agrees with every field both of them set.
  bool admits_device(std::string_view device) const;
  // Both sets at once: a name passes the result when it passes this and `other` (a session's
  // filters inside its server's).
  device_filters narrowed_by(const device_filters& other) const;

  // "/job:ps, /job:worker/task:1", for errors and logs ("... and ..." between the sets of a
  // narrowed one); "(none)" when empty.
  std::string to_string() const;

 private:
  // Some filter of every group agrees with `name` by `agrees`.
  bool admits(std::string_view name, bool (*agrees)(const device_spec&, const device_spec&)) const;
  struct group {
    std::vector<device_spec> specs;
    std::vector<std::string> texts;
  };
  // A name passes when it passes some filter of every group; no groups: everything passes.
  std::vector<group> groups_;
};

}  // namespace caflow
