#include "graph/tf/model_io.hpp"

#include <set>

namespace caflow::tf {

const char* io_source_name(io_source s) { return s == io_source::signature ? "signature" : "graph"; }

std::vector<model_tensor> graph_inputs(const graph_def& g) {
  std::vector<model_tensor> out;
  for (const node_def& n : g.nodes) {
    if (n.op != "Placeholder") continue;
    model_tensor info{n.name, n.name, 0};
    if (auto t = n.attrs.find("dtype"); t != n.attrs.end() && t->second.holds<dtype>())
      info.type = t->second.get<dtype>();
    if (auto s = n.attrs.find("shape"); s != n.attrs.end() && s->second.holds<partial_shape>())
      info.shape = s->second.get<partial_shape>();
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<model_tensor> graph_outputs(const graph_def& g) {
  std::set<std::string, std::less<>> consumed;
  for (const node_def& n : g.nodes)
    for (const std::string& in : n.inputs)
      if (auto ref = parse_input(in); ref.ok()) consumed.emplace(ref->node);
  std::vector<model_tensor> out;
  for (const node_def& n : g.nodes)
    if (!consumed.count(n.name)) out.push_back({n.name, n.name, 0});
  return out;
}

}  // namespace caflow::tf
