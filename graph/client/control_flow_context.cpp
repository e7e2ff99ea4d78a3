#include "graph/client/control_flow_context.hpp"

#include <vector>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/control_flow_ops.hpp"

namespace caflow {

control_flow_context::control_flow_context(scope outer, std::string pivot)
    : outer_(std::move(outer)), pivot_(std::move(pivot)) {}

control_flow_context::~control_flow_context() = default;

void control_flow_context::add_member(const std::string& node) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    members_.insert(node);
  }
  // A node of a nested context is inside every enclosing one too.
  if (const auto& up = outer_.control_flow()) up->add_member(node);
}

bool control_flow_context::contains(const std::string& node) const {
  std::lock_guard<std::mutex> lock(mu_);
  return members_.count(node) > 0;
}

output control_flow_context::route(const output& o, bool as_ref) {
  if (contains(o.node)) return o;
  const std::string key = (as_ref ? "&" : "") + o.name();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = routed_.find(key); it != routed_.end()) return it->second;
  }
  output in = route_in(outer_, o, as_ref);
  std::lock_guard<std::mutex> lock(mu_);
  routed_.emplace(key, in);
  return in;
}

void control_flow_context::add_op(node_def& n, const node_signature& sig) {
  bool has_data = false;
  bool waits_inside = false;
  int data = 0;
  for (std::string& in : n.inputs) {
    auto ref = parse_input(in);
    if (!ref.ok()) continue;  // graph::build names the malformed input
    const std::string node(ref->node);
    if (ref->is_control()) {
      if (contains(node)) waits_inside = true;
      else in = route_control_in(outer_, node);
      continue;
    }
    has_data = true;
    if (!contains(node) && data < static_cast<int>(sig.input_types.size())) {
      const bool as_ref = sig.input_is_ref[data];
      in = route(output(node, ref->port, sig.input_types[data]), as_ref).name();
    }
    ++data;
  }
  if (!has_data && !waits_inside && !pivot_.empty()) n.inputs.push_back("^" + pivot_);
}

cond_context::cond_context(scope outer, output pred, int branch, std::string pivot)
    : control_flow_context(std::move(outer), std::move(pivot)), pred_(std::move(pred)),
      branch_(branch) {}

output cond_context::route_in(const scope& outer, const output& o, bool as_ref) {
  const scope s = outer.with_no_control_dependencies();
  const ops::switch_outputs sw =
      as_ref ? ops::ref_switch(s, o, pred_) : ops::switch_(s, o, pred_);
  return branch_ == 1 ? sw.output_true : sw.output_false;
}

// Deadness reaches a node through its data inputs or the pivot, not through an outside control
// input, which only orders it: kept as it is.
std::string cond_context::route_control_in(const scope&, const std::string& node) {
  return "^" + node;
}

while_context::while_context(scope outer, std::string frame_name, int64_t parallel_iterations)
    : control_flow_context(std::move(outer), {}), frame_name_(std::move(frame_name)),
      parallel_iterations_(parallel_iterations) {}

output while_context::route_in(const scope& outer, const output& o, bool as_ref) {
  const scope s = outer.with_no_control_dependencies();
  const ops::enter_attrs attrs{.is_constant = true, .parallel_iterations = parallel_iterations_};
  return as_ref ? ops::ref_enter(s, o, frame_name_, attrs) : ops::enter(s, o, frame_name_, attrs);
}

std::string while_context::route_control_in(const scope& outer, const std::string& node) {
  // A value made after `node`, entered as a loop invariant: every iteration then waits on it.
  const scope s = outer.with_no_control_dependencies();
  const output after =
      ops::constant(s.with_control_dependencies(std::vector<operation>{operation{node, {}}})
                        .with_op_name("control_input"),
                    tensor::scalar<int32_t>(0));
  return "^" + route(after).node;
}

}  // namespace caflow
