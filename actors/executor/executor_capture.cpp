// Recording a partition's device work and replaying it (devices/device_graph.hpp).
//
// The core is the set of nodes whose kernels say they may be recorded (op_kernel::
// is_capturable). It runs in segments: a node of the core that depends on the core through a
// node outside it (a value copied to the host, a _Recv whose value comes back from another
// device after this one's work, marked loops_back_via by the partitioner) goes into a later
// segment than what it depends on. Each segment runs as one block once every value it takes
// from outside the core has arrived; in a gated step, each segment in turn:
//
//   record  copies each device value from outside the core into a buffer of its own (kept for
//           replays), opens a recording, runs the segment's kernels in order, closes it and
//           launches it;
//   replay  checks that every value from outside matches the recording (shapes, host values
//           such as shapes and axes, the very variables and their buffers), copies the device
//           values into the kept buffers and launches the recording;
//   plain   runs the segment's kernels in order, as a step without recording would.
//
// The marks matter: a partition built by hand, whose _Recv values depend on its own _Sends
// without saying so, would hold a segment for a value that waits on that segment (the step then
// ends at its timeout, session_options::operation_timeout). Partitions from graph/ir/partition
// always carry them (tests/actors/executor/executor_capture_test.cpp runs a marked round trip).
//
// The first step of each shape runs without gating, so kernels plan and measure (cuDNN's
// algorithm search synchronizes, which a recording cannot hold). A step whose values do not
// match the recording runs plainly from that segment on, and the next step is a warm-up before
// all segments are recorded again; after `max_fallbacks` the partition stays with plain
// launches, as it does when a recording fails. Each says so once. The values a replay leaves to
// other nodes live in the recordings' buffers until the next replay, which starts only when
// this step has ended (one step at a time).
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "actors/executor/executor.hpp"
#include "actors/executor/executor_items.hpp"
#include "graph/core/log.hpp"
#include "graph/core/device_name.hpp"

namespace caflow {

namespace {

constexpr int max_fallbacks = 4;

bool same_host_value(const tensor& a, const tensor& b) {
  return a.type() == b.type() && a.shape() == b.shape() &&
         (a.byte_size() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0);
}

const void* buffer_of(const variable& v) {
  const tensor t = v.snapshot();
  return t.initialized() ? t.raw_data() : nullptr;
}

// The partition's nodes in an order that also puts each _Recv marked loops_back_via after the
// nodes it names (its value depends on theirs through other devices).
std::vector<int> order_with_round_trips(const graph& g, std::vector<std::vector<int>>* waits_for) {
  const int n = g.num_nodes();
  waits_for->assign(n, {});
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> after(n);
  for (const graph_node& node : g.nodes()) {
    pending[node.id] = node.num_inputs() + static_cast<int>(node.control_inputs.size());
    std::vector<std::string> via;
    if (node.def->op == "_Recv" && get_attr(*node.def, "loops_back_via", &via).ok()) {
      for (const std::string& name : via) {
        if (const auto a = g.find(name)) {
          (*waits_for)[node.id].push_back(*a);
          after[*a].push_back(node.id);
          ++pending[node.id];
        }
      }
    }
  }
  std::vector<int> order, ready;
  for (int id = n - 1; id >= 0; --id)
    if (pending[id] == 0) ready.push_back(id);
  while (!ready.empty()) {
    const int id = ready.back();
    ready.pop_back();
    order.push_back(id);
    auto release = [&](int dst) {
      if (--pending[dst] == 0) ready.push_back(dst);
    };
    for (const out_edge& e : g.node(id).outputs) release(e.dst);
    for (int dst : after[id]) release(dst);
  }
  return order;  // shorter than n only if the marks made a cycle: then nothing is recorded
}

}  // namespace

std::unique_ptr<executor::capture_plan> executor::plan_capture(const executor& ex) {
  if (!ex.dev_.can_capture() || ex.frames_) return nullptr;
  const graph& g = *ex.graph_;
  std::vector<std::vector<int>> waits_for;
  const std::vector<int> order = order_with_round_trips(g, &waits_for);
  if (static_cast<int>(order.size()) != g.num_nodes()) return nullptr;
  auto p = std::make_unique<capture_plan>();
  const size_t n = ex.items_.size();
  p->segment_of.assign(n, -1);
  // For a node outside the core: the first segment that may read its value (0: before any).
  std::vector<int> ready_for(n, 0);
  // For a node outside the core: the node outside it that its ready_for waits on (itself when
  // it reads the core), so the log can say what cuts each segment.
  std::vector<int> cut_by(n, -1);
  std::vector<std::pair<int, int>> first_of;  // per segment: (first node, what it waited for)
  std::vector<uint8_t> work(n, 0);
  int segments = 0;
  for (int id : order) {
    const node_item& item = ex.items_[id];
    const graph_node& node = g.node(id);
    bool core = !item.is_async && !item.is_send && !item.is_recv && item.kernel->is_capturable();
    if (core && !item.kernel->records_outside_inputs())
      for (const in_edge& e : node.inputs) core &= p->segment_of[e.src] >= 0;
    int at = 0, why = -1;
    auto look = [&](int src) {
      const int k = p->segment_of[src];
      const int here = k >= 0 ? (core ? k : k + 1) : ready_for[src];
      if (here <= at) return;
      at = here;
      why = k >= 0 ? id : cut_by[src];
    };
    for (const in_edge& e : node.inputs) look(e.src);
    for (int c : node.control_inputs) look(c);
    for (int a : waits_for[id]) look(a);
    if (core) {
      p->segment_of[id] = at;
      if (at >= segments) first_of.resize(at + 1, {id, why});
      segments = std::max(segments, at + 1);
      work[at] |= item.kernel->is_expensive() || node.num_inputs() > 0;
    } else {
      ready_for[id] = at;
      cut_by[id] = why;
    }
  }
  // Segments without a node are dropped; the order among the others stays.
  std::vector<int> renumber(static_cast<size_t>(segments), -1);
  int kept = 0;
  bool any_work = false;
  for (int id : order)
    if (const int k = p->segment_of[id]; k >= 0 && renumber[k] < 0) renumber[k] = kept++;
  for (int k = 0; k < segments; ++k) any_work |= work[k] != 0;
  if (!any_work) return nullptr;
  p->segments.resize(static_cast<size_t>(kept));
  for (int id : order) {
    int& k = p->segment_of[id];
    if (k < 0) continue;
    k = renumber[k];
    capture_plan::segment& seg = p->segments[k];
    seg.order.push_back(id);
    const graph_node& node = g.node(id);
    for (int i = 0; i < node.num_inputs(); ++i) {
      if (p->segment_of[node.inputs[i].src] >= 0) continue;
      ++seg.external_edges;
      seg.inlets.push_back({.node = id, .port = i});
    }
    for (int c : node.control_inputs) seg.external_edges += p->segment_of[c] >= 0 ? 0 : 1;
  }
  p->kept.resize(n);
  if (log_enabled(log_level::info)) {
    std::string sizes, cuts;
    for (const auto& seg : p->segments) sizes += (sizes.empty() ? "" : ", ") + std::to_string(seg.order.size());
    for (int k = 1; k < segments; ++k) {
      if (renumber[k] <= 0) continue;
      const auto [first, why] = first_of[k];
      cuts += "; segment " + std::to_string(renumber[k] + 1) + " starts at " + g.node(first).def->name;
      if (why >= 0) cuts += ", after " + g.node(why).def->name + " (" + g.node(why).def->op + ", not recorded)";
    }
    write_log(log_level::info, task_of_device(ex.dev_.name()), "partition of ", n, " nodes on ",
              ex.dev_.name(), ": recorded in ", p->segments.size(), " segment(s) of ", sizes,
              " nodes", cuts);
  }
  return p;
}

bool executor::gate_step(step_state* s) {
  capture_plan& p = *capture_;
  if (p.busy.exchange(true, std::memory_order_acquire)) return false;
  if (p.state == capture_plan::phase::off || p.warm_ups_left > 0) {
    if (p.warm_ups_left > 0) --p.warm_ups_left;
    p.busy.store(false, std::memory_order_release);
    return false;
  }
  s->gated = true;
  s->capture_mode = static_cast<int>(p.state);
  s->core_wait.reset(new std::atomic<int>[p.segments.size()]);
  for (size_t k = 0; k < p.segments.size(); ++k)
    s->core_wait[k].store(p.segments[k].external_edges, std::memory_order_relaxed);
  return true;
}

void executor::fall_back(const std::string& why, bool for_good) {
  capture_plan& p = *capture_;
  for (auto& seg : p.segments) {
    seg.graph.reset();
    for (auto& in : seg.inlets) in = {.node = in.node, .port = in.port};
  }
  if (for_good || ++p.fallbacks >= max_fallbacks) {
    p.state = capture_plan::phase::off;
  } else {
    p.state = capture_plan::phase::record;
    p.warm_ups_left = 1;
  }
  if (p.said_fallback && p.state != capture_plan::phase::off) return;
  p.said_fallback = true;
  write_log(log_level::warn, task_of_device(dev_.name()), "partition of ", items_.size(),
            " nodes on ", dev_.name(), " runs with plain launches ",
            p.state == capture_plan::phase::off ? "from now on" : "for this step", ": ", why);
}

bool executor::replay_matches(step_state* s, int k) const {
  for (const auto& in : capture_->segments[k].inlets) {
    const kernel_value& v = s->inputs[items_[in.node].input_start + in.port];
    if (in.var) {
      if (v.ref != in.var || buffer_of(*v.ref) != in.var_data) return false;
    } else if (in.fixed.initialized()) {
      if (v.value.type() != in.fixed.type() || v.value.shape() != in.fixed.shape()) return false;
    } else if (!same_host_value(v.value, in.host_value)) {
      return false;
    }
  }
  return true;
}

// Runs segment k's kernels in order, into a recording when `capture` is given. Their outputs
// read outside the segment go to capture_->kept; the first error stops the run and is returned
// with its node's name.
status executor::run_segment_nodes(step_state* s, int k, device_capture* capture) {
  capture_plan& p = *capture_;
  const capture_plan::segment& seg = p.segments[k];
  const graph& g = *graph_;
  // Values made in the segment, until their last reader in it ran.
  std::unordered_map<int, std::vector<kernel_value>> made;
  std::unordered_map<int, int> readers_left;
  for (int id : seg.order)
    for (const in_edge& e : g.node(id).inputs)
      if (p.segment_of[e.src] == k) ++readers_left[e.src];
  size_t next_inlet = 0;
  for (int id : seg.order) {
    const node_item& item = items_[id];
    const graph_node& node = g.node(id);
    // What the kernel reads: the recording's own buffers for device values from outside.
    struct call {
      std::vector<kernel_value> inputs, outputs;
      bool ran = false;
    };
    auto c = std::make_shared<call>();
    c->inputs.resize(item.num_inputs);
    for (int i = 0; i < item.num_inputs; ++i) {
      const in_edge& e = node.inputs[i];
      const int from = p.segment_of[e.src];
      if (from == k) {
        c->inputs[i] = made[e.src][e.src_port];
        if (--readers_left[e.src] == 0) made.erase(e.src);
      } else if (from >= 0) {
        c->inputs[i] = p.kept[e.src][e.src_port];  // an earlier segment's, this step
      } else {
        const capture_plan::inlet& in = seg.inlets[next_inlet++];
        if (capture && in.fixed.initialized()) c->inputs[i].value = in.fixed;
        else c->inputs[i] = s->inputs[item.input_start + i];
      }
    }
    c->outputs.resize(item.num_outputs);
    step_context step = s->step;
    auto run = [this, &item, c, step]() mutable -> status {
      std::vector<kernel_value> inputs = c->inputs;
      CAFLOW_RETURN_IF_ERROR(read_inputs(item, inputs.data()));
      std::vector<kernel_value> fresh(item.num_outputs);
      kernel_context ctx(*item.kernel, dev_, step, inputs.data(), fresh.data());
      item.kernel->compute(ctx);
      CAFLOW_RETURN_IF_ERROR(ctx.get_status());
      if (!c->ran) {
        c->ran = true;
        c->outputs = std::move(fresh);
        return {};
      }
      // A device that replays by calling again (tests) writes where the readers look.
      for (int o = 0; o < item.num_outputs; ++o)
        if (fresh[o].value.initialized() && c->outputs[o].value.initialized())
          CAFLOW_RETURN_IF_ERROR(dev_.copy_into(fresh[o].value, c->outputs[o].value));
      return {};
    };
    status st = capture ? capture->record(run) : run();
    if (!st.ok()) return node_error(id, st);
    if (readers_left.count(id)) made[id] = c->outputs;
    std::vector<kernel_value>& out = p.kept[id];
    out.clear();
    for (const out_edge& e : item.outputs) {
      if (e.is_control() || p.segment_of[e.dst] == k) continue;
      if (out.empty()) out.resize(item.num_outputs);
      out[e.src_port] = c->outputs[e.src_port];
    }
  }
  return {};
}

status executor::record_segment(step_state* s, int k) {
  capture_plan::segment& seg = capture_->segments[k];
  // The values from outside, before the recording opens (its pool is for the kernels' own).
  for (auto& in : seg.inlets) {
    const node_item& item = items_[in.node];
    const kernel_value& v = s->inputs[item.input_start + in.port];
    in = {.node = in.node, .port = in.port};
    if (v.handle) return errors::unimplemented("input ", in.port, " of ", error_prefix(in.node),
                                               " is a resource handle");
    if (v.ref) {
      in.var = v.ref;
      in.var_data = buffer_of(*v.ref);
    } else if (item.input[in.port] & input_flags::host_memory) {
      in.host_value = v.value;
    } else if (v.value.initialized()) {
      CAFLOW_ASSIGN_OR_RETURN(in.fixed,
                              tensor::allocate(dev_.get_allocator(), v.value.type(), v.value.shape()));
      CAFLOW_RETURN_IF_ERROR(dev_.copy_into(v.value, in.fixed));
    }
  }
  CAFLOW_ASSIGN_OR_RETURN(auto capture, dev_.begin_capture());
  status st = run_segment_nodes(s, k, capture.get());
  auto graph = st.ok() ? capture->finish() : status_or<std::unique_ptr<device_graph>>(st);
  if (!graph.ok()) return graph.get_status();
  seg.graph = std::move(graph).value();
  return {};
}

void executor::run_segment(step_state* s, int k, ready_list& ready) {
  using phase = capture_plan::phase;
  capture_plan& p = *capture_;
  capture_plan::segment& seg = p.segments[k];
  const bool last = k + 1 == static_cast<int>(p.segments.size());
  const auto began = times_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  status st;
  if (!s->errors.aborted()) {
    bool done = false;
    if (s->capture_mode == static_cast<int>(phase::replay)) {
      if (replay_matches(s, k)) {
        for (auto& in : seg.inlets) {
          if (!in.fixed.initialized() || !st.ok()) continue;
          st = dev_.copy_into(s->inputs[items_[in.node].input_start + in.port].value, in.fixed);
        }
        if (st.ok()) st = seg.graph->launch();
        done = true;
      } else {
        s->capture_mode = static_cast<int>(phase::off);  // the later segments too
        fall_back("the values it reads from outside differ from the recorded step's (a shape, a "
                  "host value or a variable's buffer); recording again",
                  false);
      }
    } else if (s->capture_mode == static_cast<int>(phase::record)) {
      status recorded = record_segment(s, k);
      if (recorded.ok()) {
        // A variable given a new buffer by the recording still gets the right values from this
        // launch, but a replay would read the old one.
        bool moved = false;
        for (const auto& in : seg.inlets) moved |= in.var && buffer_of(*in.var) != in.var_data;
        st = seg.graph->launch();
        done = true;
        if (moved) {
          s->capture_mode = static_cast<int>(phase::off);
          fall_back("a variable's buffer changed while it was recorded", false);
        } else if (last) {
          p.state = phase::replay;
        }
      } else {
        s->capture_mode = static_cast<int>(phase::off);
        fall_back(recorded.message(), true);
      }
    }
    if (!done) st = run_segment_nodes(s, k, nullptr);
    if (!st.ok()) {
      s->abort(st);
      s->step.cancellation->cancel();
    }
  }
  if (times_) add_segment_time(k, began);
  // A node none of whose outputs leaves the segment passes nothing on: no outputs are needed.
  const bool ok = st.ok() && !s->errors.aborted();
  for (int id : seg.order) {
    std::vector<kernel_value>& out = p.kept[id];
    finish_node(s, id, ok && !out.empty() ? out.data() : nullptr, status{}, ready);
  }
}

}  // namespace caflow
