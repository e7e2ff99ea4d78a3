#include "graph/ir/graph_def.hpp"

#include <charconv>

namespace caflow {

status_or<input_ref> parse_input(std::string_view s) {
  if (s.empty()) return errors::invalid_argument("empty input name");
  if (s[0] == '^') {
    if (s.size() == 1) return errors::invalid_argument("control input '^' names no node");
    return input_ref{s.substr(1), -1};
  }
  const auto colon = s.rfind(':');
  if (colon == std::string_view::npos) return input_ref{s, 0};
  const auto digits = s.substr(colon + 1);
  int port = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (colon == 0 || digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() ||
      port < 0)
    return errors::invalid_argument("malformed input '", std::string(s),
                                    "': expected node, node:port or ^node");
  return input_ref{s.substr(0, colon), port};
}

std::string tensor_name(std::string_view node, int port) {
  std::string s(node);
  if (port != 0) {
    s += ':';
    s += std::to_string(port);
  }
  return s;
}

std::string unused_node_name(const std::string& base, std::unordered_set<std::string>& taken) {
  return unused_node_name(base, [](const std::string&) { return false; }, taken);
}

std::string unused_node_name(const std::string& base,
                             const std::function<bool(const std::string&)>& in_graph,
                             std::unordered_set<std::string>& added) {
  std::string name = base;
  for (int k = 1; in_graph(name) || !added.insert(name).second; ++k)
    name = base + "_" + std::to_string(k);
  return name;
}

}  // namespace caflow
