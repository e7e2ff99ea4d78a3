#include "kernels/kernel_registry.hpp"

namespace caflow {

kernel_registry& kernel_registry::global() {
  static kernel_registry instance;
  return instance;
}

void kernel_registry::add(kernel_def def) {
  defs_[{def.op, def.device_type}].push_back(std::move(def));
}

const kernel_def* kernel_registry::find(const node_def& node, std::string_view device_type) const {
  auto it = defs_.find(std::pair<std::string, std::string>(node.op, device_type));
  if (it == defs_.end()) return nullptr;
  for (const kernel_def& d : it->second) {
    bool match = true;
    for (const auto& [attr, want] : d.constraints) {
      auto a = node.attrs.find(attr);
      if (a == node.attrs.end() || !a->second.holds<dtype>() || a->second.get<dtype>() != want) {
        match = false;
        break;
      }
    }
    if (match) return &d;
  }
  return nullptr;
}

std::string kernel_registry::registered_types(std::string_view op,
                                              std::string_view device_type) const {
  auto it = defs_.find(std::pair<std::string, std::string>(op, device_type));
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
                                                              device& dev) const {
  const kernel_def* d = find(node, dev.type());
  if (!d) {
    std::string types;
    for (const auto& [name, value] : node.attrs)
      if (value.holds<dtype>()) types += " " + name + "=" + dtype_name(value.get<dtype>());
    return errors::not_found(describe_node(node), ": no ", dev.type(), " kernel for op '",
                             node.op, "' with", types.empty() ? " no type attrs" : types,
                             " (registered: ", registered_types(node.op, dev.type()), ")");
  }
  kernel_construction c(node, sig, dev);
  std::unique_ptr<op_kernel> k = d->factory(c);
  if (!c.ok()) return c.get_status().with_context(describe_node(node));
  return k;
}

}  // namespace caflow
