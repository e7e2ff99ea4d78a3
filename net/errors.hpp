#pragma once
// caflow's errors as CAF errors and back, so a status crosses an actor boundary (or a process
// boundary) with its code and message intact: category atom "caflow", code = error_code, and
// the message as the context string.
#include <caf/error.hpp>
#include <string>

#include "graph/core/status.hpp"

namespace caflow {

constexpr caf::atom_value caflow_error_category = caf::atom("caflow");

caf::error to_caf_error(const status& st);
// Any CAF error: ours keep their code and message; CAF's own (request_timeout, a lost peer's
// exit reason) become unavailable/deadline_exceeded/internal with CAF's rendering as message.
status to_status(const caf::error& err);
// A status sent as status::to_string() (an abort's root cause, which travels as text), with its
// code restored; text without a known code prefix becomes an aborted status.
status status_from_text(const std::string& text);
// Renderer for actor_system_config::add_error_category(caflow_error_category, ...).
std::string render_caflow_error(uint8_t code, caf::atom_value, const caf::message& context);

}  // namespace caflow
