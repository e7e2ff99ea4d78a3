#include "graph/core/device_name.hpp"

#include <charconv>
#include <cstddef>

namespace caflow {
namespace {

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// TensorFlow's job names: [a-z][a-z0-9_]*.
bool valid_job_name(std::string_view s) {
  if (s.empty() || !is_lower(s[0])) return false;
  for (char c : s) {
    if (!is_lower(c) && !is_digit(c) && c != '_') return false;
  }
  return true;
}

// Device types: [A-Za-z][A-Za-z0-9_]*, e.g. "CPU", "XLA_GPU".
bool valid_device_type(std::string_view s) {
  if (s.empty() || !(is_lower(s[0]) || is_upper(s[0]))) return false;
  for (char c : s) {
    if (!is_lower(c) && !is_upper(c) && !is_digit(c) && c != '_') return false;
  }
  return true;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (is_lower(c)) c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

template <class... Ts>
status spec_error(std::string_view text, Ts&&... parts) {
  return errors::invalid_argument("invalid device spec '", text, "': ", std::forward<Ts>(parts)...);
}

// A non-negative int, or nullopt for "*". `what` names the part in errors ("task").
status parse_index(std::string_view text, std::string_view what, std::string_view value,
                   std::optional<int>& out) {
  if (value == "*") {
    out.reset();
    return ok_status();
  }
  bool digits = !value.empty();
  for (char c : value) digits = digits && is_digit(c);
  if (!digits) {
    return spec_error(text, what, " must be a non-negative integer or '*', got '", value, "'");
  }
  int v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size()) {
    return spec_error(text, what, " ", value, " is too large");
  }
  out = v;
  return ok_status();
}

enum field_slot : std::size_t { job_slot, replica_slot, task_slot, device_slot, num_slots };

// The device part: "TYPE", "TYPE:ID", with "*" for either.
status parse_device_part(std::string_view text, std::string_view field, std::string_view value,
                         device_spec& spec) {
  std::size_t colon = value.find(':');
  std::string_view type = value.substr(0, colon);
  if (type.empty()) return spec_error(text, "empty device type in '/", field, "'");
  if (type == "*") {
    spec.type.reset();
  } else if (valid_device_type(type)) {
    spec.type = upper(type);
  } else {
    return spec_error(text, "invalid device type '", type, "' (expected [A-Za-z][A-Za-z0-9_]*)");
  }
  spec.id.reset();
  if (colon == std::string_view::npos) return ok_status();
  std::string_view id = value.substr(colon + 1);
  if (id.empty()) return spec_error(text, "missing device id after '/", field, "'");
  return parse_index(text, "device id", id, spec.id);
}

}  // namespace

status_or<device_spec> parse_device_spec(std::string_view text) {
  device_spec spec;
  if (text.empty()) return spec;
  if (text[0] != '/') return spec_error(text, "must start with '/'");
  // The field that filled each slot, to name both in a "duplicated" error.
  std::string_view seen[num_slots];
  std::size_t pos = 1;
  while (true) {
    std::size_t slash = text.find('/', pos);
    std::string_view field =
        text.substr(pos, slash == std::string_view::npos ? slash : slash - pos);
    if (field.empty()) {
      return spec_error(text,
                        slash == std::string_view::npos ? "trailing '/'" : "empty field '//'");
    }
    std::size_t colon = field.find(':');
    std::string_view name = field.substr(0, colon);
    std::string_view value =
        colon == std::string_view::npos ? std::string_view() : field.substr(colon + 1);

    field_slot slot;
    bool legacy = false;
    if (name == "job") {
      slot = job_slot;
    } else if (name == "replica") {
      slot = replica_slot;
    } else if (name == "task") {
      slot = task_slot;
    } else if (name == "device") {
      slot = device_slot;
    } else if (name == "cpu" || name == "CPU" || name == "gpu" || name == "GPU") {
      slot = device_slot;
      legacy = true;
    } else {
      return spec_error(text, "unknown field '/", field,
                        "' (expected /job:, /replica:, /task:, /device:, /cpu: or /gpu:)");
    }
    if (!seen[slot].empty()) {
      return spec_error(text, "duplicated field: '/", seen[slot], "' and '/", field, "'");
    }
    seen[slot] = field;
    if (value.empty()) return spec_error(text, "missing value in '/", field, "'");

    switch (slot) {
      case job_slot:
        if (value == "*") {
          spec.job.reset();
        } else if (valid_job_name(value)) {
          spec.job = std::string(value);
        } else {
          return spec_error(text, "invalid job name '", value, "' (expected [a-z][a-z0-9_]*)");
        }
        break;
      case replica_slot:
        CAFLOW_RETURN_IF_ERROR(parse_index(text, "replica", value, spec.replica));
        break;
      case task_slot:
        CAFLOW_RETURN_IF_ERROR(parse_index(text, "task", value, spec.task));
        break;
      case device_slot:
        if (legacy) {
          spec.type = upper(name);
          CAFLOW_RETURN_IF_ERROR(parse_index(text, "device id", value, spec.id));
        } else {
          CAFLOW_RETURN_IF_ERROR(parse_device_part(text, field, value, spec));
        }
        break;
      case num_slots:
        break;
    }
    if (slash == std::string_view::npos) break;
    pos = slash + 1;
  }
  return spec;
}

std::string to_string(const device_spec& spec) {
  std::string out;
  if (spec.job) out += "/job:" + *spec.job;
  if (spec.replica) out += "/replica:" + std::to_string(*spec.replica);
  if (spec.task) out += "/task:" + std::to_string(*spec.task);
  if (spec.type || spec.id) {
    out += "/device:";
    out += spec.type ? *spec.type : "*";
    out += ':';
    out += spec.id ? std::to_string(*spec.id) : "*";
  }
  return out;
}

bool is_fully_specified(const device_spec& spec) {
  return spec.job && spec.replica && spec.task && spec.type && spec.id;
}

bool matches(const device_spec& spec, const device_spec& name) {
  auto field_matches = [](const auto& want, const auto& have) { return !want || want == have; };
  return field_matches(spec.job, name.job) && field_matches(spec.replica, name.replica) &&
         field_matches(spec.task, name.task) && field_matches(spec.type, name.type) &&
         field_matches(spec.id, name.id);
}

status_or<device_spec> merge(const device_spec& a, const device_spec& b) {
  device_spec out = a;
  std::string conflict;
  auto merge_field = [&conflict](auto& into, const auto& from, const char* what, auto&& show) {
    if (!from || !conflict.empty()) return;
    if (!into) {
      into = from;
    } else if (*into != *from) {
      conflict = errors::concat("conflicting ", what, ": ", show(*into), " vs ", show(*from));
    }
  };
  auto prefixed = [](const char* prefix) {
    return [prefix](const auto& v) { return errors::concat(prefix, v); };
  };
  merge_field(out.job, b.job, "job", prefixed("/job:"));
  merge_field(out.replica, b.replica, "replica", prefixed("/replica:"));
  merge_field(out.task, b.task, "task", prefixed("/task:"));
  merge_field(out.type, b.type, "device type", prefixed(""));
  merge_field(out.id, b.id, "device id", prefixed(""));
  if (!conflict.empty()) {
    return errors::invalid_argument("cannot merge device specs '", to_string(a), "' and '",
                                    to_string(b), "': ", conflict);
  }
  return out;
}

std::string full_device_name(std::string_view job, int task, std::string_view type, int id) {
  return errors::concat("/job:", job, "/replica:0/task:", task, "/device:", type, ":", id);
}

std::string task_of_device(std::string_view device) {
  auto spec = parse_device_spec(device);
  if (!spec.ok() || !spec->job || !spec->task) return {};
  return errors::concat("/job:", *spec->job, "/replica:", spec->replica.value_or(0), "/task:",
                        *spec->task);
}

}  // namespace caflow
