#include "graph/client/scope.hpp"

#include "graph/client/control_flow_context.hpp"
#include "graph/ir/op_def.hpp"

#include <mutex>
#include <unordered_map>

namespace caflow {

struct scope::shared_state {
  std::mutex mu;
  graph_def def;
  status first_error;
  std::unordered_map<std::string, int> name_counts;
  std::unordered_map<std::string, size_t> index_of;  // node name -> position in def.nodes
  std::vector<std::vector<partial_shape>> shapes;     // per node, per output
};

scope scope::new_root() { return scope(std::make_shared<shared_state>()); }

scope scope::with_op_name(std::string_view name) const {
  scope s = *this;
  s.op_name_ = std::string(name);
  return s;
}

scope scope::new_sub_scope(std::string_view name) const {
  scope s = *this;
  s.op_name_.clear();
  if (name.empty()) return s;
  s.prefix_ = unique_name(name) + "/";
  return s;
}

scope scope::with_device(std::string_view device) const {
  scope s = *this;
  s.device_ = std::string(device);
  return s;
}

scope scope::with_device_function(device_function f) const {
  scope s = *this;
  s.device_fn_ = std::make_shared<const device_function>(std::move(f));
  return s;
}

scope scope::with_control_dependencies(const std::vector<operation>& ops) const {
  scope s = *this;
  for (const auto& op : ops) s.control_deps_.push_back(op.node);
  return s;
}

scope scope::with_control_dependencies(const std::vector<output>& outs) const {
  scope s = *this;
  for (const auto& o : outs) s.control_deps_.push_back(o.node);
  return s;
}

scope scope::with_no_control_dependencies() const {
  scope s = *this;
  s.control_deps_.clear();
  return s;
}

scope scope::colocate_with(const output& o) const {
  scope s = *this;
  s.colocation_.push_back("loc:@" + o.node);
  return s;
}

bool scope::ok() const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return shared_->first_error.ok();
}

status scope::get_status() const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return shared_->first_error;
}

void scope::update_status(const status& st) const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  if (shared_->first_error.ok() && !st.ok()) shared_->first_error = st;
}

graph_def scope::to_graph_def() const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return shared_->def;
}

size_t scope::num_nodes() const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return shared_->def.nodes.size();
}

std::string scope::unique_name(std::string_view default_name) const {
  const std::string base = prefix_ + (op_name_.empty() ? std::string(default_name) : op_name_);
  std::lock_guard<std::mutex> lock(shared_->mu);
  int& count = shared_->name_counts[base];
  if (count == 0 && !shared_->index_of.count(base)) {
    count = 1;
    return base;
  }
  std::string name;
  do {
    name = base + "_" + std::to_string(count++);
  } while (shared_->index_of.count(name));
  return name;
}

void scope::add_node(node_def n, const node_signature& sig, std::vector<partial_shape> shapes) const {
  // Routing makes nodes outside of the context first (through its outer scope): not under mu.
  if (cf_ctx_) cf_ctx_->add_op(n, sig);
  const std::string name = n.name;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    if (!shared_->index_of.emplace(n.name, shared_->def.nodes.size()).second) {
      if (shared_->first_error.ok())
        shared_->first_error = errors::already_exists("duplicate node name '", n.name, "'");
      return;
    }
    shared_->def.nodes.push_back(std::move(n));
    shared_->shapes.push_back(std::move(shapes));
  }
  if (cf_ctx_) cf_ctx_->add_member(name);
}

void scope::update_input(std::string_view name, int index, const std::string& input) const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  auto it = shared_->index_of.find(std::string(name));
  if (it == shared_->index_of.end()) return;
  node_def& n = shared_->def.nodes[it->second];
  if (index < static_cast<int>(n.inputs.size())) n.inputs[index] = input;
}

scope scope::with_control_flow_context(std::shared_ptr<control_flow_context> ctx) const {
  scope s = *this;
  s.cf_ctx_ = std::move(ctx);
  return s;
}

partial_shape scope::shape_of(const output& o) const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  auto it = shared_->index_of.find(o.node);
  if (it == shared_->index_of.end()) return partial_shape::unknown();
  const auto& shapes = shared_->shapes[it->second];
  return o.index < static_cast<int>(shapes.size()) ? shapes[o.index] : partial_shape::unknown();
}

std::optional<tensor> scope::constant_value(const output& o) const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  auto it = shared_->index_of.find(o.node);
  if (it == shared_->index_of.end()) return std::nullopt;
  const node_def& n = shared_->def.nodes[it->second];
  const op_def* op = op_registry::global().lookup(n.op);
  if (!op || op->constant_value_attr.empty() || o.index != 0) return std::nullopt;
  auto v = n.attrs.find(op->constant_value_attr);
  if (v == n.attrs.end() || !v->second.holds<tensor>()) return std::nullopt;
  return v->second.get<tensor>();
}

std::optional<node_def> scope::find_node(std::string_view name) const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  auto it = shared_->index_of.find(std::string(name));
  if (it == shared_->index_of.end()) return std::nullopt;
  return shared_->def.nodes[it->second];
}

}  // namespace caflow
