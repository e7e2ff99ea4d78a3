#include "net/errors.hpp"

#include <caf/actor_system_config.hpp>
#include <caf/exit_reason.hpp>
#include <caf/message.hpp>
#include <caf/sec.hpp>

namespace caflow {

caf::error to_caf_error(const status& st) {
  if (st.ok()) return caf::none;
  return caf::error{static_cast<uint8_t>(st.code()), caflow_error_category,
                    caf::make_message(st.message())};
}

status to_status(const caf::error& err) {
  if (!err) return {};
  if (err.category() == caflow_error_category) {
    std::string message;
    if (err.context().match_elements<std::string>()) message = err.context().get_as<std::string>(0);
    return status(static_cast<error_code>(err.code()), std::move(message));
  }
  const std::string text = caf::actor_system_config::render(err);
  if (err == caf::sec::request_timeout) return errors::deadline_exceeded(text);
  if (err.category() == caf::atom("exit") ||
      err == caf::sec::cannot_connect_to_node || err == caf::sec::request_receiver_down)
    return errors::unavailable(text);
  return errors::internal(text);
}

std::string render_caflow_error(uint8_t code, caf::atom_value, const caf::message& context) {
  std::string message;
  if (context.match_elements<std::string>()) message = context.get_as<std::string>(0);
  return status(static_cast<error_code>(code), message).to_string();
}

status status_from_text(const std::string& text) {
  for (int c = 1; c <= static_cast<int>(error_code::aborted); ++c) {
    const auto code = static_cast<error_code>(c);
    const std::string prefix = std::string(error_code_name(code)) + ": ";
    if (text.compare(0, prefix.size(), prefix) == 0)
      return status(code, text.substr(prefix.size()));
  }
  return errors::aborted(text.empty() ? std::string("the step was aborted with no reason") : text);
}

}  // namespace caflow
