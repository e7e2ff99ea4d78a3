#include "net/errors.hpp"

#include <caf/actor_system_config.hpp>
#include <caf/exit_reason.hpp>
#include <caf/message.hpp>
#include <caf/sec.hpp>
#include <memory>
#include <utility>

namespace caflow {
namespace {

// A status from its parts as they came from the wire; `code` is checked.
status from_wire(uint8_t code, std::string message, std::string node, std::string device,
                 std::string task) {
  std::shared_ptr<const error_source> source;
  if (!node.empty() || !device.empty() || !task.empty())
    source = std::make_shared<const error_source>(
        error_source{std::move(node), std::move(device), std::move(task)});
  if (code == 0 || code > static_cast<uint8_t>(last_error_code))
    return status(error_code::internal,
                  errors::concat("an error came with the invalid code ", unsigned{code},
                                 " (its message: '", message, "')"),
                  std::move(source));
  return status(static_cast<error_code>(code), std::move(message), std::move(source));
}

}  // namespace

step_error to_step_error(const status& st) {
  step_error e{static_cast<uint8_t>(st.code()), st.message(), {}, {}, {}};
  if (const auto& where = st.source()) {
    e.node = where->node;
    e.device = where->device;
    e.task = where->task;
  }
  return e;
}

status to_status(const step_error& e) {
  return from_wire(e.code, e.message, e.node, e.device, e.task);
}

caf::error to_caf_error(const status& st) {
  if (st.ok()) return caf::none;
  const auto code = static_cast<uint8_t>(st.code());
  if (const auto& where = st.source())
    return caf::error{code, caflow_error_category,
                      caf::make_message(st.message(), where->node, where->device, where->task)};
  return caf::error{code, caflow_error_category, caf::make_message(st.message())};
}

status to_status(const caf::error& err) {
  if (!err) return {};
  if (err.category() == caflow_error_category) {
    const caf::message& context = err.context();
    auto text = [&](size_t i) {
      return i < context.size() && context.match_element<std::string>(i)
                 ? context.get_as<std::string>(i)
                 : std::string{};
    };
    return from_wire(err.code(), text(0), text(1), text(2), text(3));
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
  if (!context.empty() && context.match_element<std::string>(0))
    message = context.get_as<std::string>(0);
  return from_wire(code, std::move(message), {}, {}, {}).to_string();
}

}  // namespace caflow
