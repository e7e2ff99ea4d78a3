#pragma once
// Device names and device specs, as TensorFlow writes them.
//
// A full device name pins one device of one task:
//     /job:worker/replica:0/task:1/device:GPU:0
// A device spec is the same text with any part left out; an absent part is unconstrained:
//     /job:ps            any device of any ps task
//     /device:GPU:*      any GPU anywhere ("*" in any position means "any")
//     ""                 anything
// The legacy forms "/cpu:0" and "/gpu:1" mean "/device:CPU:0" and "/device:GPU:1".
#include <optional>
#include <string>
#include <string_view>

#include "graph/core/status.hpp"

namespace caflow {

// Every field defaults to absent, so designated initializers may name any subset:
// device_spec{.job = "ps", .task = 0}.
struct device_spec {
  std::optional<std::string> job{};  // [a-z][a-z0-9_]*
  std::optional<int> replica{};
  std::optional<int> task{};
  std::optional<std::string> type{};  // upper case, as kernels are registered: "CPU", "GPU"
  std::optional<int> id{};            // absent (or "*" when parsed): any device of `type`

  bool operator==(const device_spec&) const = default;
};

// Parses a full name or a partial spec. Fields may come in any order but at most once each;
// device types are case-insensitive and stored upper case ("/device:gpu:0" is GPU 0). Errors
// quote the spec and say which part is wrong: a negative or non-numeric task, replica or id, an
// unknown field ("/foo:1"), a field given twice, a field with no value, an invalid job name.
status_or<device_spec> parse_device_spec(std::string_view text);

// Canonical form "/job:J/replica:R/task:T/device:TYPE:ID", leaving out absent parts; an absent
// type or id inside the device part is written "*". parse_device_spec(to_string(s)) == s.
std::string to_string(const device_spec& spec);

// Every field is set: the spec names exactly one device.
bool is_fully_specified(const device_spec& spec);

// True when every field set in `spec` is set to the same value in `name`; a field `spec` leaves
// out matches anything, including a field `name` leaves out.
bool matches(const device_spec& spec, const device_spec& name);

// The union of both specs' constraints, e.g. "/job:ps" and "/device:CPU:0" give
// "/job:ps/device:CPU:0". A field set differently in the two is an error naming both specs.
status_or<device_spec> merge(const device_spec& a, const device_spec& b);

// "/job:<job>/replica:0/task:<task>/device:<type>:<id>". REQUIRES a valid job name and a device
// type as kernels are registered ("CPU"); nothing is checked.
std::string full_device_name(std::string_view job, int task, std::string_view type, int id);

// The task a device (or a task written without its replica) belongs to,
// "/job:J/replica:R/task:T" with R 0 when left out; "" when `device` names no job and task.
std::string task_of_device(std::string_view device);

}  // namespace caflow
