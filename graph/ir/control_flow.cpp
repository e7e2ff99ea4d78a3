#include "graph/ir/control_flow.hpp"

#include <array>
#include <deque>
#include <unordered_map>
#include <utility>

#include "graph/ir/graph.hpp"

namespace caflow {

control_flow_kind control_flow_kind_of(std::string_view op) {
  static constexpr std::array<std::pair<std::string_view, control_flow_kind>, 12> kinds = {{
      {"Switch", control_flow_kind::switch_},
      {"RefSwitch", control_flow_kind::switch_},
      {"Merge", control_flow_kind::merge},
      {"RefMerge", control_flow_kind::merge},
      {"Enter", control_flow_kind::enter},
      {"RefEnter", control_flow_kind::enter},
      {"Exit", control_flow_kind::exit},
      {"RefExit", control_flow_kind::exit},
      {"NextIteration", control_flow_kind::next_iteration},
      {"RefNextIteration", control_flow_kind::next_iteration},
      {"LoopCond", control_flow_kind::loop_cond},
      {"ControlTrigger", control_flow_kind::control_trigger},
  }};
  for (const auto& [name, kind] : kinds)
    if (name == op) return kind;
  return control_flow_kind::none;
}

bool has_control_flow(const graph_def& def) {
  for (const node_def& n : def.nodes) {
    const control_flow_kind k = control_flow_kind_of(n.op);
    if (k != control_flow_kind::none && k != control_flow_kind::loop_cond &&
        k != control_flow_kind::control_trigger)
      return true;
  }
  return false;
}

bool needs_frames(const graph_def& def) {
  if (has_control_flow(def)) return true;
  for (const node_def& n : def.nodes)
    if (n.attrs.count(in_control_flow_attr)) return true;
  return false;
}

bool is_back_edge(std::string_view src_op, std::string_view dst_op) {
  return control_flow_kind_of(src_op) == control_flow_kind::next_iteration &&
         control_flow_kind_of(dst_op) == control_flow_kind::merge;
}

namespace {

struct frame_builder {
  control_flow_info info;
  std::unordered_map<std::string, int> by_name;

  frame_builder() { info.frames.push_back(frame_info{}); }

  std::string label(int frame) const {
    return frame == 0 ? std::string("the root frame") : "frame '" + info.frames[frame].name + "'";
  }

  // The frame an Enter node `enter` (running in `outer`) opens.
  status_or<int> child_of(const graph_node& enter, int outer) {
    std::string name;
    int64_t parallel = 10;
    if (!get_attr(*enter.def, "frame_name", &name).ok() || name.empty())
      return errors::invalid_argument(describe_node(*enter.def), ": an Enter needs a frame_name");
    get_attr(*enter.def, "parallel_iterations", &parallel).ignore();
    if (parallel < 1)
      return errors::invalid_argument(describe_node(*enter.def), ": parallel_iterations is ",
                                      parallel, ", must be at least 1");
    auto [it, fresh] = by_name.emplace(name, static_cast<int>(info.frames.size()));
    if (fresh) {
      info.frames.push_back(frame_info{name, outer, 0, static_cast<int>(parallel)});
    } else {
      const frame_info& f = info.frames[it->second];
      if (f.parent != outer)
        return errors::invalid_argument(
            describe_node(*enter.def), ": enters frame '", name, "' from ", label(outer),
            ", but other Enter nodes enter it from ", label(f.parent));
      if (f.parallel_iterations != parallel)
        return errors::invalid_argument(describe_node(*enter.def), ": parallel_iterations ",
                                        parallel, " differs from ", f.parallel_iterations,
                                        " of the other Enter nodes of frame '", name, "'");
    }
    ++info.frames[it->second].num_enters;
    return it->second;
  }
};

}  // namespace

status_or<control_flow_info> analyze_control_flow(const graph& g) {
  frame_builder b;
  std::vector<int>& frame_of = b.info.frame_of;
  frame_of.assign(g.num_nodes(), -1);
  std::deque<int> todo;
  for (const graph_node& n : g.nodes()) {
    if (n.num_inputs() == 0 && n.control_inputs.empty()) {
      frame_of[n.id] = 0;
      todo.push_back(n.id);
    }
  }
  while (!todo.empty()) {
    const graph_node& n = g.node(todo.front());
    todo.pop_front();
    const int here = frame_of[n.id];
    int out = here;
    switch (control_flow_kind_of(n.def->op)) {
      case control_flow_kind::enter: {
        CAFLOW_ASSIGN_OR_RETURN(out, b.child_of(n, here));
        break;
      }
      case control_flow_kind::exit:
        if (here == 0)
          return errors::invalid_argument(describe_node(*n.def),
                                          ": an Exit outside of any while loop frame");
        out = b.info.frames[here].parent;
        break;
      default:
        break;
    }
    for (const out_edge& e : n.outputs) {
      int& dst = frame_of[e.dst];
      if (dst == out) continue;
      if (dst < 0) {
        dst = out;
        todo.push_back(e.dst);
        continue;
      }
      const graph_node& d = g.node(e.dst);
      return errors::invalid_argument(
          describe_node(*d.def), " is reached from two execution frames, ", b.label(dst),
          " and ", b.label(out), " (through '", n.name(), "'): a value that enters a while loop must pass through an Enter node, and one that "
          "leaves it through an Exit node");
    }
  }
  for (const graph_node& n : g.nodes())
    if (frame_of[n.id] < 0)
      return errors::invalid_argument(describe_node(*n.def),
                                      " is on a cycle that no input reaches: only a loop's "
                                      "NextIteration may feed an earlier node (its Merge)");
  return std::move(b.info);
}

}  // namespace caflow
