#include "graph/ir/placer.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include "graph/core/device_name.hpp"
#include "graph/platform/hash_mix.hpp"

namespace caflow {
namespace {

constexpr std::string_view colocation_prefix = "loc:@";

class union_find {
 public:
  explicit union_find(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int find(int x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

struct device_entry {
  device_spec spec;  // fully specified
  std::string name;  // canonical
};

// Devices are kept in placement priority order, so the first eligible match is the choice.
status_or<std::vector<device_entry>> parse_devices(const std::vector<std::string>& devices,
                                                  const placement_options& opts) {
  std::vector<device_entry> out;
  out.reserve(devices.size());
  for (const std::string& d : devices) {
    auto spec = parse_device_spec(d);
    if (!spec.ok()) return spec.get_status().with_context("device list");
    if (!is_fully_specified(*spec))
      return errors::invalid_argument("device list entry '", d,
                                      "' is not a full device name "
                                      "(/job:J/replica:R/task:T/device:TYPE:ID)");
    out.push_back({*spec, to_string(*spec)});
  }
  auto priority = [&](const std::string& type) {
    return opts.type_priority ? opts.type_priority(type) : (type == "GPU" ? 2 : type == "CPU" ? 1 : 0);
  };
  std::sort(out.begin(), out.end(), [&](const device_entry& a, const device_entry& b) {
    auto key = [&](const device_entry& d) {
      const device_spec& s = d.spec;
      return std::tuple<int, const std::string&, const std::string&, int, int, int>(
          -priority(*s.type), *s.type, *s.job, *s.replica, *s.task, *s.id);
    };
    return key(a) < key(b);
  });
  for (size_t i = 1; i < out.size(); ++i)
    if (out[i].name == out[i - 1].name)
      return errors::invalid_argument("device '", out[i].name, "' is listed twice");
  return out;
}

status_or<union_find> colocation_groups(const graph& g) {
  union_find uf(g.num_nodes());
  for (const graph_node& n : g.nodes()) {
    for (int slot = 0; slot < n.num_inputs(); ++slot)
      if (n.sig.input_is_ref[slot]) uf.unite(n.id, n.inputs[slot].src);
    auto it = n.def->attrs.find("_class");
    if (it == n.def->attrs.end()) continue;
    if (!it->second.holds<std::vector<std::string>>())
      return errors::invalid_argument(describe_node(*n.def),
                                      ": attr _class must be a list of \"loc:@<node>\", got ",
                                      it->second.to_string());
    for (const std::string& cls : it->second.get<std::vector<std::string>>()) {
      // As in TensorFlow, only the "loc:@" classes ask for colocation.
      if (!cls.starts_with(colocation_prefix)) continue;
      const std::string_view target = std::string_view(cls).substr(colocation_prefix.size());
      auto id = g.find(target);
      if (!id)
        return errors::invalid_argument("node '", n.name(), "' asks to be colocated with '", target,
                                        "' (_class ", cls, ") but the graph has no node '", target,
                                        "'");
      uf.unite(n.id, *id);
    }
  }
  return uf;
}

// The default device is a location: it fills fields from the job down only while the spec
// agrees with it, so "/job:ps" does not inherit the default worker's task.
device_spec fill_from_default(device_spec s, const device_spec& dflt) {
  bool same_place = true;
  auto fill = [&same_place](auto& field, const auto& d) {
    if (!field) {
      if (same_place) field = d;
    } else if (d && *field != *d) {
      same_place = false;
    }
  };
  fill(s.job, dflt.job);
  fill(s.replica, dflt.replica);
  fill(s.task, dflt.task);
  fill(s.type, dflt.type);
  fill(s.id, dflt.id);
  return s;
}

struct group {
  std::vector<int> members;  // ascending ids
  device_spec requested;     // the merge of the members' specs
  int primary = -1;          // the member errors are about: the first with a device spec
};

status merge_specs(const graph& g, const std::vector<device_spec>& specs, group& grp) {
  for (size_t i = 0; i < grp.members.size(); ++i) {
    const int m = grp.members[i];
    auto merged = merge(grp.requested, specs[m]);
    if (merged.ok()) {
      grp.requested = *merged;
      continue;
    }
    // Each field of the merge so far came from an earlier member: name the one in conflict.
    for (size_t j = 0; j < i; ++j) {
      const int a = grp.members[j];
      if (!merge(specs[a], specs[m]).ok())
        return errors::invalid_argument(
            "colocation of '", g.node(a).name(), "' and '", g.node(m).name(),
            "' asks for incompatible devices: ", g.node(a).def->device, " vs ",
            g.node(m).def->device,
            " (nodes joined by reference inputs or _class must share one device)");
    }
    return merged.get_status().with_context(describe_node(*g.node(m).def));
  }
  return {};
}

class group_placer {
 public:
  group_placer(const graph& g, const std::vector<device_entry>& devs, const kernel_check& check)
      : g_(g), devs_(devs), has_kernel_(check) {}

  // Index into devs of the chosen device; -1 when none matched or none had the kernels, with
  // `any_match` and `kernel_gaps` saying which.
  int choose(const group& grp, const device_spec& want, bool& any_match, std::string& kernel_gaps) {
    any_match = false;
    kernel_gaps.clear();
    const std::string* last_type = nullptr;
    for (const int i : candidates(want)) {
      any_match = true;
      const std::string& type = *devs_[i].spec.type;
      const int missing = missing_kernel(grp, type);
      if (missing < 0) return static_cast<int>(i);
      if (last_type && *last_type == type) continue;  // devices are grouped by type
      last_type = &type;
      const node_def& nd = *g_.node(missing).def;
      kernel_gaps += errors::concat(kernel_gaps.empty() ? "" : "; ", "no ", type,
                                    " kernel for op '", nd.op, "' of node '", nd.name, "'");
    }
    return -1;
  }

  void next_group() { missing_.clear(); }

 private:
  struct spec_hash {
    size_t operator()(const device_spec& s) const {
      const auto h = [](const auto& field) {
        return field ? std::hash<std::decay_t<decltype(*field)>>{}(*field) : size_t{0x9e3779b9};
      };
      size_t seed = 0;
      for (size_t part : {h(s.job), h(s.replica), h(s.task), h(s.type), h(s.id)})
        seed = hash_mix(seed, part);
      return seed;
    }
  };

  // The devices `want` matches, in priority order; worked out once per distinct spec (a large
  // graph asks for the same few specs over and over).
  const std::vector<int>& candidates(const device_spec& want) {
    auto [it, fresh] = candidates_.try_emplace(want);
    if (fresh)
      for (size_t i = 0; i < devs_.size(); ++i)
        if (matches(want, devs_[i].spec)) it->second.push_back(static_cast<int>(i));
    return it->second;
  }

  // The first member with no kernel for `type`, or -1.
  int missing_kernel(const group& grp, const std::string& type) {
    auto [it, fresh] = missing_.try_emplace(type, -1);
    if (fresh && has_kernel_) {
      for (int m : grp.members) {
        if (!has_kernel_(*g_.node(m).def, type)) {
          it->second = m;
          break;
        }
      }
    }
    return it->second;
  }

  const graph& g_;
  const std::vector<device_entry>& devs_;
  const kernel_check& has_kernel_;
  std::map<std::string, int> missing_;  // per device type, for the current group
  std::unordered_map<device_spec, std::vector<int>, spec_hash> candidates_;
};

std::string describe_group(const graph& g, const group& grp) {
  std::string out = errors::concat("node '", g.node(grp.primary).name(), "'");
  constexpr int max_named = 4;
  int named = 0;
  for (int m : grp.members) {
    if (m == grp.primary) continue;
    if (named == max_named) {
      out += errors::concat(", and ", grp.members.size() - 1 - max_named, " more");
      break;
    }
    out += errors::concat(named++ ? ", '" : " (colocated with '", g.node(m).name(), "'");
  }
  if (named) out += ")";
  return out;
}

std::string describe_request(const graph& g, const group& grp, const device_spec& want) {
  const std::string merged = to_string(grp.requested);
  const node_def& primary = *g.node(grp.primary).def;
  std::string out;
  if (merged.empty()) {
    out = "any device";
  } else {
    // The spec as the user wrote it, when the group's constraint is that one node's.
    auto own = parse_device_spec(primary.device);
    out = errors::concat("'", own.ok() && to_string(*own) == merged ? primary.device : merged, "'");
  }
  const std::string filled = to_string(want);
  if (filled != merged) out += errors::concat(" (with the default device: '", filled, "')");
  return out;
}

std::string list_devices(const std::vector<device_entry>& devs) {
  constexpr size_t max_listed = 16;
  std::string out;
  for (size_t i = 0; i < devs.size() && i < max_listed; ++i)
    out += errors::concat(i ? ", " : "", devs[i].name);
  if (devs.size() > max_listed) out += errors::concat(", and ", devs.size() - max_listed, " more");
  return out;
}

}  // namespace

status_or<std::vector<std::string>> place(const graph& g, const std::vector<std::string>& devices,
                                          const placement_options& opts,
                                          const kernel_check& has_kernel) {
  const int n = g.num_nodes();
  if (n == 0) return std::vector<std::string>{};
  CAFLOW_ASSIGN_OR_RETURN(const std::vector<device_entry> devs, parse_devices(devices, opts));
  if (devs.empty()) return errors::invalid_argument("no devices to place the graph on");
  device_spec dflt;
  if (!opts.default_device.empty()) {
    auto d = parse_device_spec(opts.default_device);
    if (!d.ok()) return d.get_status().with_context("default device");
    dflt = *d;
  }
  std::vector<device_spec> specs(n);
  std::unordered_map<std::string_view, device_spec> parsed;  // a graph names few devices
  for (const graph_node& node : g.nodes()) {
    auto [known, fresh] = parsed.try_emplace(node.def->device);
    if (fresh) {
      auto s = parse_device_spec(node.def->device);
      if (!s.ok()) return s.get_status().with_context(describe_node(*node.def));
      known->second = *std::move(s);
    }
    specs[node.id] = known->second;
  }

  CAFLOW_ASSIGN_OR_RETURN(union_find uf, colocation_groups(g));
  std::vector<group> groups;
  std::vector<int> group_of_root(n, -1);
  for (int id = 0; id < n; ++id) {
    int& gi = group_of_root[uf.find(id)];
    if (gi < 0) {
      gi = static_cast<int>(groups.size());
      groups.emplace_back();
    }
    group& grp = groups[gi];
    grp.members.push_back(id);
    if (grp.primary < 0 && !g.node(id).def->device.empty()) grp.primary = id;
  }

  std::vector<std::string> placement(n);
  group_placer placer(g, devs, has_kernel);
  for (group& grp : groups) {
    if (grp.primary < 0) grp.primary = grp.members.front();
    CAFLOW_RETURN_IF_ERROR(merge_specs(g, specs, grp));
    const device_spec want = fill_from_default(grp.requested, dflt);
    // Soft placement relaxes the device id, then the device type, never the task.
    std::vector<device_spec> ladder{want};
    if (opts.allow_soft_placement) {
      device_spec any_id = want;
      any_id.id.reset();
      device_spec any_type = any_id;
      any_type.type.reset();
      if (want.id) ladder.push_back(any_id);
      if (want.type) ladder.push_back(any_type);
    }
    placer.next_group();
    int chosen = -1;
    bool any_match = false;
    std::string kernel_gaps;
    for (const device_spec& spec : ladder) {
      chosen = placer.choose(grp, spec, any_match, kernel_gaps);
      if (chosen >= 0) break;
    }
    if (chosen < 0 && !any_match)
      return errors::invalid_argument(describe_group(g, grp), " asks for ",
                                      describe_request(g, grp, want),
                                      " but no such device exists; devices: ", list_devices(devs));
    if (chosen < 0) {
      std::string tried;
      if (ladder.size() > 1)
        tried = errors::concat(
            " (soft placement also tried ",
            ladder.back() == device_spec{} ? "any device" : "'" + to_string(ladder.back()) + "'",
            ")");
      return errors::invalid_argument("cannot place ", describe_group(g, grp), " on ",
                                      describe_request(g, grp, want), tried, ": ", kernel_gaps);
    }
    for (int m : grp.members) placement[m] = devs[chosen].name;
  }
  return placement;
}

}  // namespace caflow
