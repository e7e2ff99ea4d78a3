#pragma once
// Errors are values: every fallible call returns a `status` or a `status_or<T>`.
// Nothing throws across a module or actor boundary.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <string_view>

namespace caflow {

enum class error_code : uint8_t {
  ok = 0,
  invalid_argument,
  not_found,
  already_exists,
  failed_precondition,
  out_of_range,
  unimplemented,
  internal,
  cancelled,
  deadline_exceeded,
  resource_exhausted,
  unavailable,
  data_loss,
  aborted,
  permission_denied,  // last: codes travel on the wire by number
};

const char* error_code_name(error_code c);
// The highest error_code; a code from outside the process is checked against it.
inline constexpr error_code last_error_code = error_code::permission_denied;

// Where an error arose, as fields: the root cause of a failed step names them in its message
// too, but a client (or a test) reads them here, whatever the message's wording. Any field may
// be empty (unknown); an error of a node has all three.
struct error_source {
  std::string node;    // "mm"
  std::string device;  // full name: "/job:worker/replica:0/task:1/device:CPU:0"
  std::string task;    // "/job:worker/replica:0/task:1" (task_of_device of the device)
};

// An OK status is one null pointer: made, copied, moved and destroyed on every step's path for
// the price of a pointer. An error holds its code, message and source out of line (as
// TensorFlow's Status does); it is made once where the error arises.
class [[nodiscard]] status {
 public:
  status() = default;
  // `code` ok makes an OK status (the message is dropped).
  status(error_code code, std::string message, std::shared_ptr<const error_source> source = {});
  status(const status& other) : rep_(other.rep_ ? std::make_unique<rep>(*other.rep_) : nullptr) {}
  status(status&&) noexcept = default;
  status& operator=(const status& other) {
    if (this != &other) rep_ = other.rep_ ? std::make_unique<rep>(*other.rep_) : nullptr;
    return *this;
  }
  status& operator=(status&&) noexcept = default;
  ~status() = default;

  static status ok_status() { return {}; }
  bool ok() const { return rep_ == nullptr; }
  error_code code() const { return rep_ ? rep_->code : error_code::ok; }
  // "" when OK.
  const std::string& message() const {
    static const std::string none;
    return rep_ ? rep_->message : none;
  }
  // Where the error arose; null when unknown (and when OK).
  const std::shared_ptr<const error_source>& source() const {
    static const std::shared_ptr<const error_source> none;
    return rep_ ? rep_->source : none;
  }
  // "INVALID_ARGUMENT: message", or "OK".
  std::string to_string() const;
  // Prefixes the message with context, keeping the code and the source: "node 'x': <message>".
  status with_context(const std::string& prefix) const;
  // The same error with `where` as its source, unless it has one already: the innermost
  // source, where the error arose, is kept as the error travels outwards. OK stays OK.
  status with_source(std::shared_ptr<const error_source> where) const&;
  status with_source(std::shared_ptr<const error_source> where) &&;
  void ignore() const {}

 private:
  struct rep {
    error_code code;
    std::string message;
    std::shared_ptr<const error_source> source;
  };
  std::unique_ptr<rep> rep_;  // null: OK
};

inline status ok_status() { return {}; }

namespace errors {
void append_part(std::string& out, const std::string& s);
void append_part(std::string& out, const char* s);
void append_part(std::string& out, std::string_view s);
void append_part(std::string& out, char c);
void append_part(std::string& out, bool b);
void append_part(std::string& out, double v);
void append_part(std::string& out, float v);
void append_part(std::string& out, int v);
void append_part(std::string& out, unsigned v);
void append_part(std::string& out, long v);
void append_part(std::string& out, unsigned long v);
void append_part(std::string& out, long long v);
void append_part(std::string& out, unsigned long long v);

template <class... Ts>
std::string concat(Ts&&... parts) {
  std::string out;
  (append_part(out, std::forward<Ts>(parts)), ...);
  return out;
}

#define CAFLOW_ERROR_FACTORY(fn, code)                          \
  template <class... Ts>                                        \
  status fn(Ts&&... parts) {                                    \
    return status(error_code::code, concat(std::forward<Ts>(parts)...)); \
  }
CAFLOW_ERROR_FACTORY(invalid_argument, invalid_argument)
CAFLOW_ERROR_FACTORY(not_found, not_found)
CAFLOW_ERROR_FACTORY(already_exists, already_exists)
CAFLOW_ERROR_FACTORY(failed_precondition, failed_precondition)
CAFLOW_ERROR_FACTORY(out_of_range, out_of_range)
CAFLOW_ERROR_FACTORY(unimplemented, unimplemented)
CAFLOW_ERROR_FACTORY(internal, internal)
CAFLOW_ERROR_FACTORY(cancelled, cancelled)
CAFLOW_ERROR_FACTORY(deadline_exceeded, deadline_exceeded)
CAFLOW_ERROR_FACTORY(resource_exhausted, resource_exhausted)
CAFLOW_ERROR_FACTORY(unavailable, unavailable)
CAFLOW_ERROR_FACTORY(data_loss, data_loss)
CAFLOW_ERROR_FACTORY(aborted, aborted)
CAFLOW_ERROR_FACTORY(permission_denied, permission_denied)
#undef CAFLOW_ERROR_FACTORY
}  // namespace errors

// A value or the error that prevented it.
template <class T>
class [[nodiscard]] status_or {
 public:
  status_or(T value) : value_(std::move(value)) {}
  status_or(status s) : status_(std::move(s)) {
    if (status_.ok()) status_ = errors::internal("status_or built from an OK status");
  }
  bool ok() const { return value_.has_value(); }
  const status& get_status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  std::optional<T> value_;
  status status_;
};

}  // namespace caflow

#define CAFLOW_CONCAT_INNER(a, b) a##b
#define CAFLOW_CONCAT(a, b) CAFLOW_CONCAT_INNER(a, b)

// Returns from the enclosing function when `expr` yields a non-OK status.
#define CAFLOW_RETURN_IF_ERROR(expr)            \
  do {                                          \
    ::caflow::status caflow_st_ = (expr);       \
    if (!caflow_st_.ok()) return caflow_st_;    \
  } while (0)

#define CAFLOW_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.get_status();            \
  lhs = std::move(tmp).value()

// `CAFLOW_ASSIGN_OR_RETURN(auto x, f());` binds the value or returns the error.
#define CAFLOW_ASSIGN_OR_RETURN(lhs, expr) \
  CAFLOW_ASSIGN_OR_RETURN_IMPL(CAFLOW_CONCAT(caflow_so_, __LINE__), lhs, expr)
