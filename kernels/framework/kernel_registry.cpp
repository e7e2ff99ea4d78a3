#include "kernels/framework/kernel_registry.hpp"

#include <algorithm>

#include "graph/ir/op_def.hpp"

namespace caflow {

kernel_registry& kernel_registry::global() {
  static kernel_registry instance;
  return instance;
}

void kernel_registry::add(kernel_def def) {
  defs_[{def.op, def.device_type}].push_back(std::move(def));
}

namespace {

bool says_string(const attr_value& v) {
  if (v.holds<dtype>()) return v.get<dtype>() == dtype::string;
  if (v.holds<std::vector<dtype>>()) {
    const auto& list = v.get<std::vector<dtype>>();
    return std::find(list.begin(), list.end(), dtype::string) != list.end();
  }
  return false;
}

bool matches_constraints(const kernel_def& d, const node_def& node, std::string_view device_type) {
  for (const auto& [attr, want] : d.constraints) {
    auto a = node.attrs.find(attr);
    if (a == node.attrs.end() || !a->second.holds<dtype>() || a->second.get<dtype>() != want)
      return false;
  }
  if (d.passes_strings && device_type == device_cpu) return true;
  for (const auto& [name, value] : node.attrs) {
    if (!says_string(value)) continue;
    const bool constrained = std::any_of(d.constraints.begin(), d.constraints.end(),
                                         [&](const auto& c) { return c.first == name; });
    if (!constrained) return false;
  }
  return true;
}

// Where each arg of `args` starts among the node's inputs (or outputs), and how many it spans.
void mark_host_args(const std::vector<arg_def>& args, const node_def& node,
                    const std::vector<std::string>& host, std::vector<bool>& out) {
  size_t at = 0;
  for (const arg_def& a : args) {
    size_t n = 1;
    if (!a.number_attr.empty()) {
      auto v = node.attrs.find(a.number_attr);
      n = v != node.attrs.end() && v->second.holds<int64_t>()
              ? static_cast<size_t>(std::max<int64_t>(v->second.get<int64_t>(), 0))
              : 0;
    }
    const bool on_host = std::find(host.begin(), host.end(), a.name) != host.end();
    for (size_t k = 0; k < n; ++k, ++at) {
      if (at >= out.size()) out.resize(at + 1, false);
      out[at] = on_host;
    }
  }
}

}  // namespace

const kernel_def* kernel_registry::find(const node_def& node, std::string_view device_type) const {
  auto it = defs_.find(std::pair<std::string, std::string>(node.op, device_type));
  if (it != defs_.end())
    for (const kernel_def& d : it->second)
      if (matches_constraints(d, node, device_type)) return &d;
  if (device_type == any_device) return nullptr;
  it = defs_.find(std::pair<std::string, std::string>(node.op, any_device));
  if (it == defs_.end()) return nullptr;
  for (const kernel_def& d : it->second)
    if (matches_constraints(d, node, device_type)) return &d;
  return nullptr;
}

memory_types kernel_registry::memory_types_of(const node_def& node,
                                              std::string_view device_type) const {
  memory_types out;
  const kernel_def* d = find(node, device_type);
  const op_def* op = op_registry::global().lookup(node.op);
  if (!d || !op) return out;
  std::vector<std::string> host = d->host_memory;
  if (auto it = host_args_.find(std::pair<std::string, std::string>(node.op, d->device_type));
      it != host_args_.end())
    host.insert(host.end(), it->second.begin(), it->second.end());
  if (host.empty()) return out;
  mark_host_args(op->inputs, node, host, out.input_on_host);
  mark_host_args(op->outputs, node, host, out.output_on_host);
  return out;
}

void kernel_registry::declare_host_memory(std::string_view op, std::string_view device_type,
                                          std::vector<std::string> args) {
  auto& v = host_args_[{std::string(op), std::string(device_type)}];
  v.insert(v.end(), std::make_move_iterator(args.begin()), std::make_move_iterator(args.end()));
}

void kernel_registry::alias(std::string_view op, std::string_view from_type,
                            std::string_view device_type,
                            const std::vector<std::string>& host_memory) {
  auto it = defs_.find(std::pair<std::string, std::string>(op, from_type));
  if (it == defs_.end()) return;
  std::vector<kernel_def> copies = it->second;
  for (kernel_def& d : copies) {
    d.device_type = std::string(device_type);
    d.host_memory.insert(d.host_memory.end(), host_memory.begin(), host_memory.end());
    add(std::move(d));
  }
}

std::vector<const kernel_def*> kernel_registry::all_kernels() const {
  std::vector<const kernel_def*> out;
  for (const auto& [key, defs] : defs_)
    for (const kernel_def& d : defs) out.push_back(&d);
  return out;
}

std::string kernel_registry::registered_types(std::string_view op,
                                              std::string_view device_type) const {
  auto it = defs_.find(std::pair<std::string, std::string>(op, device_type));
  if (it == defs_.end()) it = defs_.find(std::pair<std::string, std::string>(op, any_device));
  if (it == defs_.end()) return "none";
  std::string out;
  for (const kernel_def& d : it->second)
    for (const auto& [attr, t] : d.constraints) {
      if (!out.empty()) out += ", ";
      out += attr + "=" + dtype_name(t);
    }
  return out.empty() ? "any" : out;
}

status_or<std::unique_ptr<op_kernel>> kernel_registry::create(const node_def& node,
                                                              const node_signature& sig,
                                                              device& dev,
                                                              std::shared_ptr<const void> keep) const {
  const kernel_def* d = find(node, dev.type());
  if (!d) {
    std::string types;
    for (const auto& [name, value] : node.attrs)
      if (value.holds<dtype>()) types += " " + name + "=" + dtype_name(value.get<dtype>());
    return errors::not_found(describe_node(node), ": no ", dev.type(), " kernel for op '",
                             node.op, "' with", types.empty() ? " no type attrs" : types,
                             " (registered: ", registered_types(node.op, dev.type()), ")");
  }
  kernel_construction c(node, sig, dev, std::move(keep));
  std::unique_ptr<op_kernel> k = d->factory(c);
  if (!c.ok()) return c.get_status().with_context(describe_node(node));
  if (dev.memory() != nullptr) {
    memory_types m = memory_types_of(node, dev.type());
    if (!m.input_on_host.empty() || !m.output_on_host.empty())
      k->set_memory_types(std::move(m.input_on_host), std::move(m.output_on_host));
  }
  return k;
}

}  // namespace caflow
