#pragma once
// Placement: choosing one device for every node of a graph.
//
// A node's device spec (node_def::device, possibly partial: "/job:ps", "/device:GPU:*")
// constrains where it may run. Nodes that must share a device form a colocation group:
//   - a node consuming a Ref(T) input sits with the node producing it (Assign with its
//     VariableV2), since a reference cannot cross devices;
//   - a node with attr "_class" = ["loc:@name", ...] sits with each named node.
// A group's constraint is the merge of its members' specs; fields nobody sets are filled from
// the default device. Among the devices matching that, the group takes the highest-priority
// device type (placement_options::type_priority: the device registry's, GPU before CPU) for
// which every member has a kernel, and within that type the device with the lowest job,
// replica, task and id, so placement is deterministic.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/ir/graph.hpp"

namespace caflow {

struct placement_options {
  // Fills the fields no member of a group sets, e.g. "/job:worker/replica:0/task:0". It is a
  // location, read from the job down: a group naming another job than the default's takes no
  // replica or task from it, one naming another task takes no device type from it.
  std::string default_device;
  // When the requested device id or type has no device or no kernel for every member, try
  // any id of that type, then any type on the same job/replica/task, instead of failing.
  bool allow_soft_placement = false;
  // A device type's priority: the higher, the more preferred (the device registry's, e.g. GPU
  // 210, CPU 70). Empty: TF's order for the two types it knows, GPU before CPU before others.
  std::function<int(std::string_view type)> type_priority{};
};

// True when a kernel for node `n` exists on devices of `device_type` ("CPU", "GPU"). Placement
// lives below the kernel layer, so the caller supplies this; an empty function accepts all.
using kernel_check = std::function<bool(const node_def& n, std::string_view device_type)>;

// One device per node id, each a canonical full device name
// ("/job:ps/replica:0/task:0/device:CPU:0") from `devices`. `devices` must hold full device
// names, each once. Errors name the node, its spec and why: a malformed spec, an unknown
// colocation target, colocated nodes asking for incompatible devices, no device matching, or
// no device type with a kernel for every member of the group.
status_or<std::vector<std::string>> place(const graph& g, const std::vector<std::string>& devices,
                                          const placement_options& opts,
                                          const kernel_check& has_kernel);

}  // namespace caflow
