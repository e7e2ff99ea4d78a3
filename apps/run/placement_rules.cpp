#include "apps/run/placement_rules.hpp"

#include "graph/core/device_name.hpp"

namespace caflow::run_app {

status_or<std::vector<placement_rule>> parse_placement_rules(const std::string& flag) {
  std::vector<placement_rule> rules;
  size_t start = 0;
  while (start <= flag.size()) {
    size_t end = flag.find(',', start);
    if (end == std::string::npos) end = flag.size();
    const std::string piece = flag.substr(start, end - start);
    const size_t eq = piece.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == piece.size())
      return errors::invalid_argument("--place '", piece, "': expected PREFIX=DEVICE");
    placement_rule r{piece.substr(0, eq), piece.substr(eq + 1)};
    if (auto spec = parse_device_spec(r.device); !spec.ok())
      return spec.get_status().with_context("--place '" + piece + "'");
    rules.push_back(std::move(r));
    start = end + 1;
  }
  return rules;
}

status_or<std::vector<int64_t>> apply_placement_rules(const std::vector<placement_rule>& rules,
                                                     graph_def* g) {
  std::vector<int64_t> placed(rules.size(), 0);
  for (node_def& n : g->nodes) {
    int best = -1;
    for (size_t k = 0; k < rules.size(); ++k) {
      const std::string& p = rules[k].prefix;
      if (n.name.starts_with(p) && (best < 0 || p.size() > rules[best].prefix.size()))
        best = static_cast<int>(k);
    }
    if (best < 0) continue;
    n.device = rules[best].device;
    ++placed[best];
  }
  for (size_t k = 0; k < rules.size(); ++k)
    if (placed[k] == 0)
      return errors::not_found("--place '", rules[k].prefix, "=", rules[k].device,
                               "': no node's name starts with '", rules[k].prefix, "'");
  return placed;
}

}  // namespace caflow::run_app
