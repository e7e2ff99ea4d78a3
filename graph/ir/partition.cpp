#include "graph/ir/partition.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iterator>
#include <set>
#include <tuple>

#include "graph/core/device_name.hpp"
#include "graph/ir/control_flow.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {

// The contract between the partitioner, which inserts these nodes, and their kernels, which
// implement exactly these signatures:
//   _Send hands `tensor` to the rendezvous of its edge under rendezvous_key(node) and
//     completes at once; it never waits for the receiver.
//   _Recv outputs the tensor sent under rendezvous_key(node); it completes asynchronously when
//     the value arrives, or with the step's error when the step aborts first.
// Attrs, as TensorFlow's: `tensor_name` is the cut edge "src:port"; `send_device` and
// `recv_device` are canonical full device names; `send_device_incarnation` is the sending
// device's uint64 incarnation stored bit for bit in an int attr; `client_terminated` is true
// only when a client rather than a graph node is the other end, and the partitioner always
// sets it false. `recv_on_host` asks the _Recv of a device with memory of its own for the value
// in host memory (for host-memory args, TF's _HostRecv). Both are cheap: each only posts or
// registers, without waiting (a copy between memories is queued, not waited for, on a GPU).
// `loops_back_via` (caflow's) names the nodes of the receiving device whose values, sent to
// other devices, this value depends on in the same step (a GPU's Shape sent to the CPU, and a
// shape computed there sent back): a device that runs its work in recorded blocks
// (actors/executor/executor_capture.cpp) reads it in a block after theirs.
CAFLOW_REGISTER_OP("_Send")
    .input("tensor: T")
    .attr("T: type")
    .attr("tensor_name: string")
    .attr("send_device: string")
    .attr("send_device_incarnation: int")
    .attr("recv_device: string")
    .attr("client_terminated: bool = false")
    .stateful()
    .cheap();
CAFLOW_REGISTER_OP("_Recv")
    .output("tensor: tensor_type")
    .attr("tensor_type: type")
    .attr("tensor_name: string")
    .attr("send_device: string")
    .attr("send_device_incarnation: int")
    .attr("recv_device: string")
    .attr("client_terminated: bool = false")
    .attr("recv_on_host: bool = false")
    .attr("loops_back_via: list(string) = []")
    .stateful()
    .cheap()
    .set_shape_fn(shape_fns::unknown);

namespace {

// "worker_task1_CPU_0" for /job:worker/replica:0/task:1/device:CPU:0: readable in node names.
std::string short_device_name(const device_spec& d) {
  std::string out = *d.job;
  if (*d.replica != 0) out += errors::concat("_replica", *d.replica);
  return out + errors::concat("_task", *d.task, "_", *d.type, "_", *d.id);
}

class partitioner {
 public:
  partitioner(const graph& g, const partition_options& opts) : g_(g), opts_(opts) {}

  status run(const std::vector<std::string>& placement) {
    if (static_cast<int>(placement.size()) != g_.num_nodes())
      return errors::invalid_argument("placement has ", placement.size(),
                                      " devices for a graph of ", g_.num_nodes(), " nodes");
    std::map<std::string, int> device_index;
    node_device_.resize(placement.size());
    for (const graph_node& n : g_.nodes()) {
      taken_.insert(n.name());
      auto spec = parse_device_spec(placement[n.id]);
      if (!spec.ok() || !is_fully_specified(*spec))
        return errors::invalid_argument(describe_node(*n.def), " is placed on '", placement[n.id],
                                        "', which is not a full device name");
      auto [it, fresh] =
          device_index.try_emplace(to_string(*spec), static_cast<int>(devices_.size()));
      if (fresh) devices_.push_back({it->first, short_device_name(*spec)});
      node_device_[n.id] = it->second;
    }
    if (has_control_flow(g_.def())) {
      CAFLOW_ASSIGN_OR_RETURN(cf_, analyze_control_flow(g_));
      in_control_flow_ = true;
    }
    for (int id : g_.topo_order()) CAFLOW_RETURN_IF_ERROR(add_node(g_.node(id)));
    for (const auto& [frame, recvs] : frame_recvs_) CAFLOW_RETURN_IF_ERROR(add_control_loops(frame, recvs));
    return {};
  }

  partitioned result() && { return std::move(out_); }

 private:
  // A while loop whose nodes sit on several devices (TF's graph_partition AddControlFlow): on
  // every device but the one running its LoopCond, a control loop (Enter, Merge, Switch on the
  // LoopCond's value received from there, Identity, NextIteration, Exit) runs the frame's
  // iterations, and each _Recv of the frame waits on that control loop's Merge, so it runs
  // once per iteration. On the LoopCond's own device, _Recvs of the frame wait on the
  // LoopCond.
  status add_control_loops(int frame, const std::set<std::pair<int, std::string>>& recvs) {
    const frame_info& f = cf_.frames[frame];
    if (f.parent != 0)
      return errors::unimplemented("while loop '", f.name, "' is nested in loop '",
                                   cf_.frames[f.parent].name, "' and spans several devices; "
                                   "place a nested loop's body on one device");
    int cond = -1;
    for (const graph_node& n : g_.nodes())
      if (cf_.frame_of[n.id] == frame && control_flow_kind_of(n.def->op) == control_flow_kind::loop_cond)
        cond = n.id;
    if (cond < 0)
      return errors::invalid_argument("while loop '", f.name, "' spans several devices but has no "
                                      "LoopCond to drive them");
    std::map<int, std::string> pivot{{node_device_[cond], g_.node(cond).name()}};
    for (const auto& [dev, recv] : recvs) {
      if (!pivot.count(dev)) {
        CAFLOW_ASSIGN_OR_RETURN(pivot[dev], add_control_loop(frame, cond, dev));
      }
      for (node_def& n : partition_of(dev).nodes)
        if (n.name == recv) n.inputs.push_back("^" + pivot[dev]);
    }
    return {};
  }

  // The control loop of `frame` on device `dev`; returns its Merge.
  status_or<std::string> add_control_loop(int frame, int cond, int dev) {
    const frame_info& f = cf_.frames[frame];
    const std::string base = "_loop_control_" + devices_[dev].brief;
    auto node = [&](const char* op, std::vector<std::string> inputs) {
      node_def n;
      n.name = unique_name(base + "/" + op);
      n.op = op;
      n.device = devices_[dev].full;
      n.inputs = std::move(inputs);
      if (n.op != "Const") n.attrs["T"] = dtype::float32;
      return n;
    };
    node_def start = node("Const", {});
    start.attrs["value"] = tensor::scalar<float>(0.0f);
    start.attrs["dtype"] = dtype::float32;
    node_def enter = node("Enter", {start.name});
    enter.attrs["frame_name"] = f.name;
    enter.attrs["is_constant"] = false;
    enter.attrs["parallel_iterations"] = static_cast<int64_t>(f.parallel_iterations);
    node_def merge = node("Merge", {enter.name});
    merge.attrs["N"] = int64_t{2};
    node_def next = node("NextIteration", {});
    merge.inputs.push_back(next.name);
    CAFLOW_ASSIGN_OR_RETURN(std::string more, data_recv(cond, 0, dev));
    for (node_def& n : partition_of(dev).nodes)
      if (n.name == more) n.inputs.push_back("^" + merge.name);
    node_def sw = node("Switch", {merge.name, more});
    node_def exit = node("Exit", {sw.name + ":0"});
    node_def ident = node("Identity", {sw.name + ":1"});
    next.inputs = {ident.name};
    const std::string pivot = merge.name;
    for (node_def* n : {&start, &enter, &merge, &sw, &exit, &ident, &next})
      partition_of(dev).nodes.push_back(std::move(*n));
    return pivot;
  }

  struct device_names {
    std::string full;
    std::string brief;
  };

  status add_node(const graph_node& n) {
    const int dev = node_device_[n.id];
    node_def copy = *n.def;
    copy.device = devices_[dev].full;
    copy.inputs.clear();
    for (int slot = 0; slot < n.num_inputs(); ++slot) {
      const in_edge& e = n.inputs[slot];
      if (node_device_[e.src] == dev) {
        copy.inputs.push_back(n.def->inputs[slot]);
        continue;
      }
      if (n.sig.input_is_ref[slot])
        return errors::invalid_argument(
            describe_node(*n.def), " on ", devices_[dev].full, " takes a reference to '",
            n.def->inputs[slot], "' on ", devices_[node_device_[e.src]].full,
            "; a reference cannot cross devices, so the two must be colocated");
      CAFLOW_ASSIGN_OR_RETURN(std::string recv, data_recv(e.src, e.src_port, dev));
      note_frame_recv(n, dev, recv);
      copy.inputs.push_back(std::move(recv));
    }
    for (int src : n.control_inputs) {
      if (node_device_[src] == dev) {
        copy.inputs.push_back("^" + g_.node(src).name());
        continue;
      }
      CAFLOW_ASSIGN_OR_RETURN(std::string recv, control_recv(src, dev));
      note_frame_recv(n, dev, recv);
      copy.inputs.push_back("^" + recv);
    }
    partition_of(dev).nodes.push_back(std::move(copy));
    return {};
  }

  // A _Recv feeding `n` runs in `n`'s frame: inside a loop it needs a control loop there.
  void note_frame_recv(const graph_node& n, int dev, const std::string& recv) {
    if (!in_control_flow_) return;
    const int frame = cf_.frame_of[n.id];
    if (frame != 0) frame_recvs_[frame].insert({dev, recv});
  }

  // The _Recv on `dst` of output `port` of `src`, made with its _Send on first use.
  status_or<std::string> data_recv(int src, int port, int dst) {
    auto it = data_recvs_.find({src, port, dst});
    if (it != data_recvs_.end()) return it->second;
    const graph_node& s = g_.node(src);
    const std::string base = errors::concat(s.name(), "_", port, "_to_", devices_[dst].brief);
    CAFLOW_ASSIGN_OR_RETURN(
        std::string recv, add_pair(base, node_device_[src], dst, tensor_name(s.name(), port),
                                   errors::concat(s.name(), ":", port), s.sig.output_types[port],
                                   loops_back_via(dst, src)));
    data_recvs_.emplace(std::tuple{src, port, dst}, recv);
    return recv;
  }

  // The _Recv on `dst` that completes once `src` has run, with a dummy scalar sent after it.
  status_or<std::string> control_recv(int src, int dst) {
    auto it = control_recvs_.find({src, dst});
    if (it != control_recvs_.end()) return it->second;
    const int sdev = node_device_[src];
    const std::string base =
        errors::concat("ctrl_", g_.node(src).name(), "_to_", devices_[dst].brief);
    node_def dummy;
    dummy.name = unique_name("_" + base);
    dummy.op = "Const";
    dummy.device = devices_[sdev].full;
    dummy.inputs = {"^" + g_.node(src).name()};
    dummy.attrs["value"] = tensor::scalar<float>(0.0f);
    dummy.attrs["dtype"] = dtype::float32;
    const std::string input = dummy.name;
    partition_of(sdev).nodes.push_back(std::move(dummy));
    CAFLOW_ASSIGN_OR_RETURN(std::string recv, add_pair(base, sdev, dst, input, input + ":0",
                                                       dtype::float32, loops_back_via(dst, src)));
    control_recvs_.emplace(std::pair{src, dst}, recv);
    return recv;
  }

  // Whether node `src` is reached from a node on device `dev` (along data and control edges).
  bool reached_from(int dev, int src) {
    std::vector<uint8_t>& r = reached_[dev];
    if (r.empty()) {
      r.assign(static_cast<size_t>(g_.num_nodes()), 0);
      std::vector<int> stack;
      for (const graph_node& n : g_.nodes())
        if (node_device_[n.id] == dev) {
          r[n.id] = 1;
          stack.push_back(n.id);
        }
      while (!stack.empty()) {
        const int id = stack.back();
        stack.pop_back();
        for (const out_edge& e : g_.node(id).outputs)
          if (!r[e.dst]) {
            r[e.dst] = 1;
            stack.push_back(e.dst);
          }
      }
    }
    return r[src] != 0;
  }

  // The nodes of device `dev` with a value leaving `dev` that `src` (on another device) depends
  // on; none when `src` is not reached from `dev` at all.
  std::vector<std::string> loops_back_via(int dev, int src) {
    if (!reached_from(dev, src)) return {};
    std::vector<uint8_t> seen(static_cast<size_t>(g_.num_nodes()), 0);
    std::set<std::string> via;
    std::vector<int> stack{src};
    seen[src] = 1;
    while (!stack.empty()) {
      const graph_node& b = g_.node(stack.back());
      stack.pop_back();
      auto visit = [&](int a) {
        if (node_device_[a] == dev) {
          via.insert(g_.node(a).name());
        } else if (!seen[a]) {
          seen[a] = 1;
          stack.push_back(a);
        }
      };
      for (const in_edge& e : b.inputs) visit(e.src);
      for (int c : b.control_inputs) visit(c);
    }
    return {via.begin(), via.end()};
  }

  // Adds "_send_<base>" reading `input` on `src_dev` and "_recv_<base>" on `dst_dev`; returns
  // the _Recv's name.
  status_or<std::string> add_pair(const std::string& base, int src_dev, int dst_dev,
                                  const std::string& input, const std::string& edge, dtype type,
                                  std::vector<std::string> loops_back) {
    const std::string& send_device = devices_[src_dev].full;
    const std::string& recv_device = devices_[dst_dev].full;
    auto inc = opts_.incarnations.find(send_device);
    if (inc == opts_.incarnations.end())
      return errors::invalid_argument("no incarnation for device ", send_device, ", which sends '",
                                      edge, "' to ", recv_device,
                                      " (partition_options::incarnations)");
    // An int attr holds the uint64 bit for bit, as in TensorFlow.
    const auto incarnation = static_cast<int64_t>(inc->second);
    auto common = [&](node_def& n) {
      n.attrs["tensor_name"] = edge;
      n.attrs["send_device"] = send_device;
      n.attrs["send_device_incarnation"] = incarnation;
      n.attrs["recv_device"] = recv_device;
      n.attrs["client_terminated"] = false;
    };
    node_def send;
    send.name = unique_name("_send_" + base);
    send.op = "_Send";
    send.device = send_device;
    send.inputs = {input};
    send.attrs["T"] = type;
    common(send);
    node_def recv;
    recv.name = unique_name("_recv_" + base);
    recv.op = "_Recv";
    recv.device = recv_device;
    recv.attrs["tensor_type"] = type;
    common(recv);
    if (!loops_back.empty()) recv.attrs["loops_back_via"] = std::move(loops_back);
    // Its value may be dead (from an untaken branch): the executor must track deadness.
    if (in_control_flow_) recv.attrs[in_control_flow_attr] = true;
    std::string name = recv.name;
    partition_of(src_dev).nodes.push_back(std::move(send));
    partition_of(dst_dev).nodes.push_back(std::move(recv));
    return name;
  }

  // `base`, or `base_1`, `base_2`, ... when a node already has that name.
  std::string unique_name(const std::string& base) {
    std::string name = base;
    for (int k = 1; taken_.count(name); ++k) name = errors::concat(base, "_", k);
    taken_.insert(name);
    return name;
  }

  graph_def& partition_of(int dev) {
    auto [it, fresh] = out_.partitions.try_emplace(devices_[dev].full);
    if (fresh) it->second.version = g_.def().version;
    return it->second;
  }

  const graph& g_;
  const partition_options& opts_;
  bool in_control_flow_ = false;
  control_flow_info cf_;
  std::map<int, std::set<std::pair<int, std::string>>> frame_recvs_;  // frame -> (device, _Recv)
  std::vector<device_names> devices_;
  std::vector<int> node_device_;  // index into devices_, per node id
  std::set<std::string> taken_;
  std::map<std::tuple<int, int, int>, std::string> data_recvs_;  // (src, port, dst) -> _Recv
  std::map<std::pair<int, int>, std::string> control_recvs_;     // (src, dst) -> _Recv
  std::map<int, std::vector<uint8_t>> reached_;  // device -> per node: reached from it
  partitioned out_;
};

template <class... Ts>
status key_error(std::string_view key, Ts&&... parts) {
  return errors::invalid_argument("malformed rendezvous key '", key,
                                  "': ", std::forward<Ts>(parts)...);
}

status parse_key_device(std::string_view key, std::string_view what, std::string_view text,
                        std::string& out) {
  auto spec = parse_device_spec(text);
  if (text.empty() || !spec.ok() || !is_fully_specified(*spec))
    return key_error(key, what, " '", text, "' is not a full device name");
  out = std::string(text);
  return {};
}

bool parse_decimal(std::string_view text, int64_t& out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

}  // namespace

status_or<partitioned> partition(const graph& g, const std::vector<std::string>& placement,
                                 const partition_options& opts) {
  partitioner p(g, opts);
  CAFLOW_RETURN_IF_ERROR(p.run(placement));
  return std::move(p).result();
}

std::string rendezvous_key(const node_def& n) {
  // REQUIRES the attrs (graph::build checks them against the op); a missing one leaves its
  // part empty, which parse_rendezvous_key rejects.
  std::string send_device, recv_device, edge;
  int64_t incarnation = 0;
  get_attr(n, "send_device", &send_device).ignore();
  get_attr(n, "recv_device", &recv_device).ignore();
  get_attr(n, "tensor_name", &edge).ignore();
  get_attr(n, "send_device_incarnation", &incarnation).ignore();
  char hex[16];
  std::fill(std::begin(hex), std::end(hex), '0');
  char digits[16];
  auto [end, ec] = std::to_chars(digits, digits + 16, static_cast<uint64_t>(incarnation), 16);
  (void)ec;  // 16 hex digits always hold a uint64
  std::copy(digits, end, hex + (16 - (end - digits)));
  return errors::concat(send_device, ";", std::string_view(hex, 16), ";", recv_device, ";", edge,
                        ";0:0");
}

std::string rendezvous_key_in_frame(std::string_view key, uint64_t frame_id, int64_t iter) {
  const size_t cut = key.rfind(';');
  std::string out(key.substr(0, cut == std::string_view::npos ? key.size() : cut));
  char buf[48];
  const int n = std::snprintf(buf, sizeof buf, ";%llu:%lld", static_cast<unsigned long long>(frame_id),
                              static_cast<long long>(iter));
  out.append(buf, static_cast<size_t>(n));
  return out;
}

std::string rendezvous_edge_key(std::string_view key) {
  const size_t cut = key.rfind(';');
  std::string out(key.substr(0, cut == std::string_view::npos ? key.size() : cut));
  out += ";0:0";
  return out;
}

status_or<parsed_rendezvous_key> parse_rendezvous_key(std::string_view key) {
  std::vector<std::string_view> parts;
  for (size_t pos = 0;;) {
    const size_t semi = key.find(';', pos);
    parts.push_back(key.substr(pos, semi == std::string_view::npos ? semi : semi - pos));
    if (semi == std::string_view::npos) break;
    pos = semi + 1;
  }
  if (parts.size() != 5)
    return key_error(key,
                     "expected 5 parts separated by ';' "
                     "(send_device;incarnation;recv_device;tensor_name;frame:iter), got ",
                     parts.size());
  parsed_rendezvous_key out;
  CAFLOW_RETURN_IF_ERROR(parse_key_device(key, "send device", parts[0], out.send_device));
  const std::string_view inc = parts[1];
  auto [inc_end, inc_ec] =
      std::from_chars(inc.data(), inc.data() + inc.size(), out.send_device_incarnation, 16);
  if (inc.size() != 16 || inc_ec != std::errc() || inc_end != inc.data() + inc.size())
    return key_error(key, "incarnation '", inc, "' is not 16 hex digits");
  CAFLOW_RETURN_IF_ERROR(parse_key_device(key, "recv device", parts[2], out.recv_device));
  auto edge = parse_input(parts[3]);
  if (!edge.ok() || edge->is_control())
    return key_error(key, "tensor name '", parts[3], "' is not node:port");
  out.tensor_name = std::string(parts[3]);
  const std::string_view frame_iter = parts[4];
  const size_t colon = frame_iter.find(':');
  if (colon == std::string_view::npos ||
      !parse_decimal(frame_iter.substr(0, colon), out.frame_id) ||
      !parse_decimal(frame_iter.substr(colon + 1), out.iter_id))
    return key_error(key, "frame and iteration '", frame_iter, "' are not frame:iter");
  return out;
}

}  // namespace caflow
