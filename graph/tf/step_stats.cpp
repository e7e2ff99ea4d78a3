#include "graph/tf/step_stats.hpp"

#include <algorithm>
#include <map>

#include "graph/tf/proto/step_stats.pb.h"

namespace caflow::tf {

std::string serialized_run_metadata(const std::vector<executed_node>& nodes) {
  std::map<std::string, std::vector<const executed_node*>> by_device;
  for (const executed_node& n : nodes) by_device[n.device].push_back(&n);
  tfproto::RunMetadata md;
  for (auto& [device, list] : by_device) {
    std::stable_sort(list.begin(), list.end(),
                     [](const auto* a, const auto* b) { return a->start_us < b->start_us; });
    auto* dev = md.mutable_step_stats()->add_dev_stats();
    dev->set_device(device);
    for (const executed_node* n : list) {
      auto* s = dev->add_node_stats();
      s->set_node_name(n->node);
      s->set_all_start_micros(n->start_us);
      s->set_scheduled_micros(n->start_us);
      s->set_op_start_rel_micros(0);
      s->set_op_end_rel_micros(n->duration_us);
      s->set_all_end_rel_micros(n->duration_us);
      s->set_timeline_label(n->node + " = " + n->op + "()");
    }
  }
  return md.SerializeAsString();
}

}  // namespace caflow::tf
