#include "graph/util/fused_op_spec.hpp"

#include <array>
#include <utility>

#include "graph/ir/node_signature.hpp"

namespace caflow {
namespace {

constexpr std::array<std::pair<const char*, fused_activation>, 7> activations{{
    {"Relu", fused_activation::relu},
    {"Relu6", fused_activation::relu6},
    {"Elu", fused_activation::elu},
    {"LeakyRelu", fused_activation::leaky_relu},
    {"Sigmoid", fused_activation::sigmoid},
    {"Tanh", fused_activation::tanh},
    {"Prelu", fused_activation::prelu},
}};

std::string supported(bool batch_norm_allowed) {
  std::string names;
  for (const auto& [name, a] : activations) names += (names.empty() ? "" : "|") + std::string(name);
  return errors::concat(batch_norm_allowed ? "[BiasAdd] or [FusedBatchNorm], optionally followed"
                                           : "[BiasAdd], optionally followed",
                        " by one of ", names);
}

}  // namespace

std::string describe_fused_ops(const std::vector<std::string>& ops) {
  std::string out = "[";
  for (size_t i = 0; i < ops.size(); ++i) out += (i ? ", " : "") + ops[i];
  return out + "]";
}

status_or<fused_activation> fused_activation_named(const std::string& name) {
  for (const auto& [n, a] : activations)
    if (name == n) return a;
  return errors::invalid_argument("'", name, "' is not an activation a fused op applies");
}

const char* fused_activation_name(fused_activation a) {
  for (const auto& [n, act] : activations)
    if (act == a) return n;
  return "";
}

status_or<fused_op_spec> parse_fused_op_spec(const node_def& n, bool batch_norm_allowed) {
  fused_op_spec spec;
  CAFLOW_RETURN_IF_ERROR(get_attr(n, "fused_ops", &spec.fused_ops));
  int64_t num_args = 0;
  CAFLOW_RETURN_IF_ERROR(get_attr(n, "num_args", &num_args));
  CAFLOW_RETURN_IF_ERROR(get_attr(n, "epsilon", &spec.epsilon));
  CAFLOW_RETURN_IF_ERROR(get_attr(n, "leakyrelu_alpha", &spec.leakyrelu_alpha));
  const std::vector<std::string>& ops = spec.fused_ops;
  const auto unsupported = [&] {
    return errors::unimplemented("fused_ops ", describe_fused_ops(ops), " is not supported by ",
                                 n.op, ": it fuses ", supported(batch_norm_allowed));
  };
  if (ops.empty() || ops.size() > 2) return unsupported();
  if (ops[0] == "BiasAdd")
    spec.base = fused_base::bias_add;
  else if (ops[0] == "FusedBatchNorm" && batch_norm_allowed)
    spec.base = fused_base::batch_norm;
  else
    return unsupported();
  if (ops.size() == 2) {
    auto a = fused_activation_named(ops[1]);
    if (!a.ok()) return unsupported();
    spec.activation = *a;
  }
  spec.num_args = spec.channel_args() + (spec.has_prelu() ? 1 : 0);
  if (num_args != spec.num_args)
    return errors::invalid_argument("fused_ops ", describe_fused_ops(ops), " takes ", spec.num_args,
                                    " args, but num_args is ", num_args);
  if (spec.base == fused_base::batch_norm && !(spec.epsilon >= 0))
    return errors::invalid_argument("epsilon must not be negative, got ", spec.epsilon);
  return spec;
}

}  // namespace caflow
