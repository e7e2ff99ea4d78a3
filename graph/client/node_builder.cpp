#include "graph/client/node_builder.hpp"

#include "graph/ir/shape_inference.hpp"

namespace caflow {

node_builder::node_builder(const scope& s, std::string op, std::string default_name)
    : scope_(s), op_(std::move(op)), default_name_(std::move(default_name)) {
  if (default_name_.empty()) default_name_ = op_;
}

node_builder& node_builder::input(const output& o) {
  args_.push_back({o});
  arg_is_list_.push_back(false);
  return *this;
}

node_builder& node_builder::input_list(const std::vector<output>& os) {
  args_.push_back(os);
  arg_is_list_.push_back(true);
  return *this;
}

node_builder& node_builder::control_input(const operation& op) {
  control_inputs_.push_back(op.node);
  return *this;
}

node_builder& node_builder::attr(std::string name, attr_value v) {
  attrs_[std::move(name)] = std::move(v);
  return *this;
}

operation node_builder::finalize() {
  if (!scope_.ok()) return {};
  node_def n;
  node_signature sig;
  std::vector<partial_shape> shapes;
  status st = build(n, sig, shapes);
  if (!st.ok()) {
    scope_.update_status(st);
    return {};
  }
  operation op{n.name, sig.output_types};
  scope_.add_node(std::move(n), sig, std::move(shapes));
  return scope_.ok() ? op : operation{};
}

status node_builder::build(node_def& n, node_signature& sig, std::vector<partial_shape>& shapes) {
  n.name = scope_.unique_name(default_name_);
  n.op = op_;
  n.device = scope_.device();
  n.attrs = attrs_;
  CAFLOW_ASSIGN_OR_RETURN(const op_def* op, op_registry::global().find(op_));
  if (args_.size() != op->inputs.size())
    return errors::invalid_argument(describe_node(n), ": expects ", op->inputs.size(),
                                    " input args, got ", args_.size());
  for (size_t a = 0; a < args_.size(); ++a) {
    const arg_def& arg = op->inputs[a];
    const attr_def* type_attr = arg.type_attr.empty() ? nullptr : op->find_attr(arg.type_attr);
    const bool type_list = type_attr && type_attr->type == attr_type::list_type;
    const bool is_list = !arg.number_attr.empty() || type_list;
    if (is_list != arg_is_list_[a])
      return errors::invalid_argument(describe_node(n), ": input arg '", arg.name, "' ",
                                      is_list ? "takes a list" : "takes a single tensor");
    for (const output& o : args_[a]) {
      if (!o.valid())
        return errors::invalid_argument(describe_node(n), ": input arg '", arg.name,
                                        "' is an invalid output (from a failed op?)");
      n.inputs.push_back(o.name());
    }
    if (!arg.number_attr.empty() && !n.attrs.count(arg.number_attr))
      n.attrs[arg.number_attr] = static_cast<int64_t>(args_[a].size());
    if (type_list && !n.attrs.count(arg.type_attr)) {
      std::vector<dtype> types;
      for (const output& o : args_[a]) types.push_back(o.type);
      n.attrs[arg.type_attr] = std::move(types);
    } else if (!arg.type_attr.empty() && !n.attrs.count(arg.type_attr) && !args_[a].empty()) {
      n.attrs[arg.type_attr] = args_[a].front().type;
    }
  }
  for (const auto& c : scope_.control_deps()) n.inputs.push_back("^" + c);
  for (const auto& c : control_inputs_) n.inputs.push_back("^" + c);
  if (!scope_.colocation().empty()) n.attrs["_class"] = scope_.colocation();

  add_default_attrs(*op, n);
  if (const device_function* f = scope_.device_fn()) n.device = (*f)(n);
  CAFLOW_ASSIGN_OR_RETURN(sig, resolve_signature(*op, n));
  std::vector<partial_shape> in_shapes;
  std::vector<std::optional<tensor>> values;
  size_t slot = 0;
  for (const auto& list : args_)
    for (const output& o : list) {
      if (slot < sig.input_types.size() && o.type != sig.input_types[slot])
        return errors::invalid_argument(describe_node(n), ": input ", slot, " ('", o.name(),
                                        "') is ", dtype_name(o.type), ", expected ",
                                        dtype_name(sig.input_types[slot]));
      in_shapes.push_back(scope_.shape_of(o));
      values.push_back(scope_.constant_value(o));
      ++slot;
    }
  if (slot != sig.input_types.size())
    return errors::invalid_argument(describe_node(n), ": expects ", sig.input_types.size(),
                                    " inputs, got ", slot);
  shapes.assign(sig.output_types.size(), partial_shape::unknown());
  if (op->infer_shape) {
    std::vector<const tensor*> value_ptrs;
    for (const auto& v : values) value_ptrs.push_back(v ? &*v : nullptr);
    shape_context ctx(n, sig, std::move(in_shapes), std::move(value_ptrs));
    CAFLOW_RETURN_IF_ERROR(op->infer_shape(ctx));
    shapes = ctx.outputs();
  }
  return {};
}

}  // namespace caflow
