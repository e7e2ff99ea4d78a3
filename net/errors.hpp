#pragma once
// caflow's errors as CAF errors and as wire values, and back, so a status crosses an actor
// boundary (or a process boundary) with its code, message and source intact.
//
// As a caf::error: category atom "caflow", code = error_code, and as context the message, or
// the message, node, device and task when the status has a source (strings only, so any
// process renders it). As a value inside a message (an abort's root cause): step_error.
// A code from the wire that is no error code (0, or beyond last_error_code) becomes an
// internal error that says so and keeps the message: never an OK status, never an enum value
// nothing names.
#include <caf/error.hpp>
#include <caf/meta/type_name.hpp>
#include <cstdint>
#include <string>

#include "graph/core/status.hpp"

namespace caflow {

constexpr caf::atom_value caflow_error_category = caf::atom("caflow");

// A failed status as a message element: the root cause of a step, sent with an abort. Empty
// node, device and task: the status has no source.
struct step_error {
  uint8_t code = 0;  // an error_code; checked on arrival
  std::string message;
  std::string node;
  std::string device;
  std::string task;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, step_error& x) {
  return f(caf::meta::type_name("step_error"), x.code, x.message, x.node, x.device, x.task);
}

// REQUIRES: !st.ok() (an OK status gives code 0, which arrives as an internal error).
step_error to_step_error(const status& st);
status to_status(const step_error& e);

caf::error to_caf_error(const status& st);
// Any CAF error: ours keep their code, message and source; CAF's own (request_timeout, a lost
// peer's exit reason) become unavailable/deadline_exceeded/internal with CAF's rendering as
// message.
status to_status(const caf::error& err);
// Renderer for actor_system_config::add_error_category(caflow_error_category, ...): the
// status's to_string() (its message already names where it arose).
std::string render_caflow_error(uint8_t code, caf::atom_value, const caf::message& context);

}  // namespace caflow
