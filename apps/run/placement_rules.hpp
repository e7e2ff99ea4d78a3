#pragma once
// caflow-run's --place: which nodes of an imported model run where, by node-name prefix. TF's
// converted graphs name nodes by layer ("MobilenetV1/Conv2d_7_depthwise/..."), so a prefix
// picks out a block of layers, which is how a model is cut across tasks by hand.
#include <string>
#include <vector>

#include "graph/ir/graph_def.hpp"

namespace caflow::run_app {

struct placement_rule {
  std::string prefix;
  std::string device;  // "/job:worker/task:1", checked by parse_device_spec
};

// "PREFIX=DEVICE,PREFIX=DEVICE"; errors name the piece at fault.
status_or<std::vector<placement_rule>> parse_placement_rules(const std::string& flag);

// Sets the device of every node whose name starts with a rule's prefix (the longest matching
// prefix wins); other nodes keep theirs. A rule that matches no node is an error naming it, so
// a misspelt prefix is not a silent all-local run. Returns how many nodes each rule placed.
status_or<std::vector<int64_t>> apply_placement_rules(const std::vector<placement_rule>& rules,
                                                     graph_def* g);

}  // namespace caflow::run_app
