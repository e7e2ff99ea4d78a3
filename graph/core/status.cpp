#include "graph/core/status.hpp"

#include <cstdio>

namespace caflow {

const char* error_code_name(error_code c) {
  switch (c) {
    case error_code::ok: return "OK";
    case error_code::invalid_argument: return "INVALID_ARGUMENT";
    case error_code::not_found: return "NOT_FOUND";
    case error_code::already_exists: return "ALREADY_EXISTS";
    case error_code::failed_precondition: return "FAILED_PRECONDITION";
    case error_code::out_of_range: return "OUT_OF_RANGE";
    case error_code::unimplemented: return "UNIMPLEMENTED";
    case error_code::internal: return "INTERNAL";
    case error_code::cancelled: return "CANCELLED";
    case error_code::deadline_exceeded: return "DEADLINE_EXCEEDED";
    case error_code::resource_exhausted: return "RESOURCE_EXHAUSTED";
    case error_code::unavailable: return "UNAVAILABLE";
    case error_code::data_loss: return "DATA_LOSS";
    case error_code::aborted: return "ABORTED";
    case error_code::permission_denied: return "PERMISSION_DENIED";
  }
  return "UNKNOWN";
}

status::status(error_code code, std::string message, std::shared_ptr<const error_source> source)
    : rep_(code == error_code::ok
               ? nullptr
               : std::make_unique<rep>(rep{code, std::move(message), std::move(source)})) {}

std::string status::to_string() const {
  if (ok()) return "OK";
  return std::string(error_code_name(rep_->code)) + ": " + rep_->message;
}

status status::with_context(const std::string& prefix) const {
  if (ok()) return {};
  return status(rep_->code, prefix + ": " + rep_->message, rep_->source);
}

status status::with_source(std::shared_ptr<const error_source> where) const& {
  return status(*this).with_source(std::move(where));
}

status status::with_source(std::shared_ptr<const error_source> where) && {
  if (rep_ && !rep_->source) rep_->source = std::move(where);
  return std::move(*this);
}

namespace errors {
void append_part(std::string& out, const std::string& s) { out += s; }
void append_part(std::string& out, const char* s) { out += s; }
void append_part(std::string& out, std::string_view s) { out += s; }
void append_part(std::string& out, char c) { out += c; }
void append_part(std::string& out, bool b) { out += b ? "true" : "false"; }
void append_part(std::string& out, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  out += buf;
}
void append_part(std::string& out, float v) { append_part(out, static_cast<double>(v)); }
void append_part(std::string& out, int v) { out += std::to_string(v); }
void append_part(std::string& out, unsigned v) { out += std::to_string(v); }
void append_part(std::string& out, long v) { out += std::to_string(v); }
void append_part(std::string& out, unsigned long v) { out += std::to_string(v); }
void append_part(std::string& out, long long v) { out += std::to_string(v); }
void append_part(std::string& out, unsigned long long v) { out += std::to_string(v); }
}  // namespace errors

}  // namespace caflow
