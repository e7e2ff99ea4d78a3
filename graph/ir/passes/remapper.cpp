#include "graph/ir/passes/remapper.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <utility>

#include "graph/core/device_name.hpp"

namespace caflow {
namespace {

// The contraction ops and the fused op each becomes.
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> contractions{{
    {"Conv2D", "_FusedConv2D"},
    {"DepthwiseConv2dNative", "_FusedDepthwiseConv2dNative"},
    {"MatMul", "_FusedMatMul"},
}};

constexpr std::array<std::string_view, 6> activations{"Relu",      "Relu6",   "Elu",
                                                      "LeakyRelu", "Sigmoid", "Tanh"};

std::string_view fused_op_of(std::string_view op) {
  for (const auto& [from, to] : contractions)
    if (op == from) return to;
  return {};
}

bool is_activation(std::string_view op) {
  return std::find(activations.begin(), activations.end(), op) != activations.end();
}

bool on_cpu(const std::string& device) {
  if (device.empty()) return true;
  auto spec = parse_device_spec(device);
  return spec.ok() && spec->type && *spec->type == "CPU";
}

// The string attr `name` of `n`, or `fallback` when it is not set.
std::string string_attr(const node_def& n, const char* name, const char* fallback) {
  auto it = n.attrs.find(name);
  return it != n.attrs.end() && it->second.holds<std::string>() ? it->second.get<std::string>()
                                                                : fallback;
}

// The only consumer of `n`: its single out edge when that is a data edge from output 0.
const out_edge* sole_consumer(const graph_node& n) {
  if (n.outputs.size() != 1 || n.outputs[0].is_control() || n.outputs[0].src_port != 0)
    return nullptr;
  return &n.outputs[0];
}

bool fusable_type(const node_def& n) {
  auto it = n.attrs.find("T");
  if (it == n.attrs.end() || !it->second.holds<dtype>()) return false;
  const dtype t = it->second.get<dtype>();
  return t == dtype::float32 || t == dtype::float64;
}

// One chain to fuse: contraction, BiasAdd and (when >= 0) activation node ids.
struct chain {
  int contraction = -1, bias_add = -1, activation = -1;
  int last() const { return activation >= 0 ? activation : bias_add; }
};

// The chain whose BiasAdd is `b`, if it may be fused.
std::optional<chain> match(const graph& gr, const graph_node& b, const pass_context& ctx) {
  if (b.def->op != "BiasAdd" || b.inputs.empty()) return std::nullopt;
  const graph_node& c = gr.node(b.inputs[0].src);
  if (b.inputs[0].src_port != 0 || fused_op_of(c.def->op).empty()) return std::nullopt;
  const out_edge* into_bias = sole_consumer(c);
  if (into_bias == nullptr || into_bias->dst != b.id || ctx.is_protected(c.name()))
    return std::nullopt;
  if (!fusable_type(*c.def) || !fusable_type(*b.def)) return std::nullopt;
  if (string_attr(*b.def, "data_format", "NHWC") != "NHWC") return std::nullopt;
  if (c.def->op != "MatMul" && string_attr(*c.def, "data_format", "NHWC") != "NHWC")
    return std::nullopt;
  if (!on_cpu(c.def->device) || b.def->device != c.def->device) return std::nullopt;
  chain ch{c.id, b.id, -1};
  if (const out_edge* next = sole_consumer(b); next != nullptr && !ctx.is_protected(b.name())) {
    const graph_node& a = gr.node(next->dst);
    if (is_activation(a.def->op) && a.def->device == b.def->device && fusable_type(*a.def))
      ch.activation = a.id;
  }
  return ch;
}

// The fused node replacing `ch`, named as its last node.
node_def fused_node(const graph& gr, const chain& ch) {
  const node_def& c = *gr.node(ch.contraction).def;
  const node_def& b = *gr.node(ch.bias_add).def;
  const node_def& last = *gr.node(ch.last()).def;
  node_def f;
  f.name = last.name;
  f.op = std::string(fused_op_of(c.op));
  f.device = last.device;
  f.attrs = c.attrs;  // T and the contraction's own attrs, all of which the fused op has
  std::vector<std::string> ops{"BiasAdd"};
  if (ch.activation >= 0) {
    const node_def& a = *gr.node(ch.activation).def;
    ops.push_back(a.op);
    if (auto it = a.attrs.find("alpha"); a.op == "LeakyRelu" && it != a.attrs.end())
      f.attrs["leakyrelu_alpha"] = it->second;
  }
  f.attrs["fused_ops"] = std::move(ops);
  f.attrs["num_args"] = int64_t{1};
  // Data inputs: the contraction's two, then the bias; control inputs of every fused node.
  f.inputs = {c.inputs[0], c.inputs[1], b.inputs[1]};
  std::vector<std::string> waits;
  for (int id : {ch.contraction, ch.bias_add, ch.activation}) {
    if (id < 0) continue;
    const graph_node& n = gr.node(id);
    const node_def& d = *n.def;
    for (size_t i = static_cast<size_t>(n.num_inputs()); i < d.inputs.size(); ++i)
      if (std::find(waits.begin(), waits.end(), d.inputs[i]) == waits.end())
        waits.push_back(d.inputs[i]);
  }
  f.inputs.insert(f.inputs.end(), waits.begin(), waits.end());
  return f;
}

}  // namespace

status remapper_pass::run(graph_def& g, pass_context& ctx, pass_stats& stats) {
  CAFLOW_ASSIGN_OR_RETURN(const graph* built, ctx.built(g));
  const graph& gr = *built;
  const int n = gr.num_nodes();
  std::vector<char> removed(n, 0);
  std::vector<std::optional<node_def>> replacement(n);
  for (const graph_node& node : gr.nodes()) {
    auto ch = match(gr, node, ctx);
    if (!ch) continue;
    replacement[ch->last()] = fused_node(gr, *ch);
    removed[ch->contraction] = 1;
    if (ch->activation >= 0) removed[ch->bias_add] = 1;
    stats.removed += ch->activation >= 0 ? 2 : 1;
  }
  if (stats.removed == 0) return {};
  std::vector<node_def> out;
  out.reserve(static_cast<size_t>(n - stats.removed));
  for (int id = 0; id < n; ++id) {
    if (removed[id]) continue;
    out.push_back(replacement[id] ? std::move(*replacement[id]) : std::move(g.nodes[id]));
  }
  g.nodes = std::move(out);
  return {};
}

}  // namespace caflow
