#include "actors/executor/executor.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>

#include "actors/executor/executor_items.hpp"
#include "actors/executor/trace_recorder.hpp"
#include "graph/core/device_name.hpp"
#include "graph/ir/control_flow.hpp"
#include "graph/ir/partition.hpp"
#include "graph/platform/denormal.hpp"
#include "graph/platform/thread_sanitizer.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "kernels/framework/rendezvous.hpp"

namespace caflow {

status_or<std::shared_ptr<op_kernel>> kernel_cache::get_or_create(const graph_node& n, device& dev) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = kernels_[n.name()];
  if (!slot || !(slot->def() == *n.def)) {
    CAFLOW_ASSIGN_OR_RETURN(auto k, kernel_registry::global().create(*n.def, n.sig, dev));
    slot = std::move(k);
  }
  return slot;
}

namespace {

thread_local int actor_thread_depth = 0;

}  // namespace

executor::actor_thread_scope::actor_thread_scope() { ++actor_thread_depth; }
executor::actor_thread_scope::~actor_thread_scope() { --actor_thread_depth; }
bool executor::on_actor_thread() { return actor_thread_depth > 0; }

executor::executor(std::shared_ptr<const graph> g, device& dev)
    : graph_(std::move(g)), dev_(dev), memory_(dev.memory()), waits_(std::make_unique<recv_waits>()) {}
executor::~executor() {
  if (times_) log_node_times();
}

status_or<std::unique_ptr<executor>> executor::create(std::shared_ptr<const graph> g, device& dev,
                                                     kernel_cache* shared) {
  std::unique_ptr<executor> ex(new executor(g, dev));
  ex->items_.resize(g->num_nodes());
  int slot = 0;
  for (const graph_node& n : g->nodes()) {
    node_item& item = ex->items_[n.id];
    if (shared && n.op->is_stateful) {
      CAFLOW_ASSIGN_OR_RETURN(item.kernel, shared->get_or_create(n, dev));
    } else {
      // The kernel shares the graph's definition of its node. Not a cached kernel above: it may
      // outlive this graph, and would keep all of it alive.
      CAFLOW_ASSIGN_OR_RETURN(item.kernel,
                              kernel_registry::global().create(*n.def, n.sig, dev, g));
    }
    item.is_async = item.kernel->is_async();
    item.expensive = item.kernel->is_expensive();
    item.input_start = slot;
    item.num_inputs = n.num_inputs();
    item.num_outputs = n.num_outputs();
    slot += n.num_inputs();
    item.initial_pending = n.num_inputs() + static_cast<int>(n.control_inputs.size());
    item.outputs = n.outputs;
    item.is_send = n.def->op == "_Send";
    item.is_recv = n.def->op == "_Recv";
    item.input.resize(n.num_inputs());
    for (int i = 0; i < n.num_inputs(); ++i) {
      const graph_node& src = g->node(n.inputs[i].src);
      uint8_t flags = 0;
      if (src.sig.output_is_ref[n.inputs[i].src_port] && !n.sig.input_is_ref[i])
        flags |= input_flags::deref;
      // A reference lives with its variable; a _Send takes its value in either memory
      // (graph/ir/memory_types.hpp): its _Recv, or the _Send itself for another task, copies it.
      if (n.sig.input_is_ref[i] || item.is_send) flags |= input_flags::any_memory;
      if (item.kernel->input_on_host(i)) flags |= input_flags::host_memory;
      item.input[i] = flags;
    }
    // Stateful kernels may wait on a resource's lock; those declared cheap (_Arg, _Retval,
    // accumulator counters) do not.
    item.may_inline = !item.is_async && (!n.op->is_stateful || n.op->is_cheap);
    // `pending` lists waiting _Recvs at every step, untraced ones too.
    if (item.is_send || item.is_recv) item.info = ex->make_trace_info(n.id);
    if (item.initial_pending == 0) ex->roots_.push_back(n.id);
  }
  ex->num_input_slots_ = slot;
  const bool frames = needs_frames(g->def());
  if (ex->memory_ == nullptr && !frames) plan_sole_sends(*g, ex->items_);
  if (frames) {
    CAFLOW_ASSIGN_OR_RETURN(ex->frames_, plan_frames(*ex));
  }
  ex->capture_ = plan_capture(*ex);
  ex->times_ = make_node_times(ex->items_.size(), ex->capture_ ? ex->capture_->segments.size() : 0);
  ex->costs_.reset(new std::atomic<uint64_t>[ex->items_.size()]);
  for (size_t i = 0; i < ex->items_.size(); ++i)
    ex->costs_[i].store(~uint64_t{0}, std::memory_order_relaxed);
  return ex;
}

std::string executor::error_prefix(int id) const {
  return describe_node(*graph_->node(id).def) + " on " + dev_.name();
}

std::shared_ptr<const error_source> executor::error_source_of(int id) const {
  return std::make_shared<const error_source>(
      error_source{graph_->node(id).def->name, dev_.name(), task_of_device(dev_.name())});
}

status executor::node_error(int id, status st) const {
  return std::move(st).with_context(error_prefix(id)).with_source(error_source_of(id));
}

std::shared_ptr<const node_trace_info> executor::make_trace_info(int id) const {
  const node_def& def = *graph_->node(id).def;
  auto info = std::make_shared<node_trace_info>();
  info->name = def.name;
  info->op = def.op;
  info->device = dev_.name();
  if (def.op == "_Send" || def.op == "_Recv") {
    const char* peer_attr = def.op == "_Send" ? "recv_device" : "send_device";
    if (auto it = def.attrs.find(peer_attr);
        it != def.attrs.end() && it->second.holds<std::string>())
      info->peer = it->second.get<std::string>();
    info->key = rendezvous_key(def);
  }
  return info;
}

trace_recorder* executor::tracer_for(const step_context& step) {
  trace_recorder* trace = step.trace ? step.trace
                          : trace_ && trace_->enabled() ? trace_.get()
                                                        : nullptr;
  if (trace)
    std::call_once(trace_infos_made_, [this] {
      for (size_t id = 0; id < items_.size(); ++id)
        if (!items_[id].info) items_[id].info = make_trace_info(static_cast<int>(id));
    });
  return trace;
}

// An output read by exactly one node, a _Send, outside any loop frame (whose keys change per
// iteration): nothing of this process reads it after the send, so its memory may be the
// link's (rendezvous::output_allocator).
void executor::plan_sole_sends(const graph& g, std::vector<node_item>& items) {
  for (const graph_node& n : g.nodes()) {
    if (n.def->op == "_Send" || n.def->op == "_Recv") continue;
    std::vector<int> readers(static_cast<size_t>(n.num_outputs()), 0);
    std::vector<int> send_of(static_cast<size_t>(n.num_outputs()), -1);
    for (const out_edge& e : n.outputs) {
      if (e.is_control()) continue;
      ++readers[e.src_port];
      if (g.node(e.dst).def->op == "_Send") send_of[e.src_port] = e.dst;
    }
    for (int p = 0; p < n.num_outputs(); ++p) {
      if (readers[p] != 1 || send_of[p] < 0) continue;
      node_item& item = items[n.id];
      item.sole_send_keys.resize(static_cast<size_t>(n.num_outputs()));
      item.sole_send_keys[p] = rendezvous_key(*g.node(send_of[p]).def);
    }
  }
}

void executor::run_async(const step_context& step, done_fn done) {
  if (items_.empty()) {
    done(status{});
    return;
  }
  if (frames_) {
    run_frames_async(step, std::move(done));
    return;
  }
  auto* s = new step_state;
  s->step = step;
  s->done = std::move(done);
  s->pending.reset(new std::atomic<int>[items_.size()]);
  for (size_t i = 0; i < items_.size(); ++i)
    s->pending[i].store(items_[i].initial_pending, std::memory_order_relaxed);
  s->inputs.resize(num_input_slots_);
  s->remaining.store(static_cast<int>(items_.size()), std::memory_order_relaxed);
  s->trace = tracer_for(step);
  // An outside cancellation (timeout, peer failure, console abort) aborts the step too.
  s->registered = step.cancellation->register_callback(&s->cancel_token, [s] {
    s->abort(errors::cancelled("step ", s->step.step_id, " was cancelled"));
  });
  if (!s->registered) s->abort(errors::cancelled("step ", step.step_id, " was cancelled"));
  const bool gated = capture_ && gate_step(s);
  ready_list ready;
  for (auto it = roots_.rbegin(); it != roots_.rend(); ++it) {
    if (gated && capture_->segment_of[*it] >= 0) continue;
    if (runs_here(s, *it)) ready.push(*it);
    else run_on_device(s, *it);
  }
  // Only the first segment may need nothing from outside (the others wait for earlier ones).
  if (gated && capture_->segments[0].external_edges == 0) run_segment(s, 0, ready);
  process(s, ready);
}

bool executor::runs_here(const step_state* s, int id) const {
  if (actor_thread_depth == 0) return true;
  const node_item& item = items_[id];
  if (item.is_send || item.is_recv || s->errors.aborted(std::memory_order_relaxed)) return true;
  if (!item.may_inline) return false;
  const int64_t cost = cost_of(id);
  if (cost < 0 || cost > light_node_ns) return false;
  size_t bytes = 0;
  for (int i = 0; i < item.num_inputs; ++i) {
    const kernel_value& in = s->inputs[item.input_start + i];
    if (item.input[i] & input_flags::deref) return false;  // its size is known once read
    bytes += in.value.initialized() ? in.value.byte_size() : 0;
  }
  return bytes <= light_input_bytes;
}

void executor::run_on_device(step_state* s, int id) {
  dev_.schedule([this, s, id] {
    ready_list more;
    run_node(s, id, more, true);
    process(s, more);
  });
}

// The last two measurements share one word (32 bits of nanoseconds each, saturated; all ones
// while unmeasured); the cost is the smaller, so one preempted run does not move a light node.
int64_t executor::cost_of(int id) const {
  const uint64_t both = costs_[id].load(std::memory_order_relaxed);
  const uint64_t cost = std::min(both >> 32, both & 0xffffffffu);
  return cost == 0xffffffffu ? -1 : static_cast<int64_t>(cost);
}

void executor::record_cost(int id, int64_t ns) {
  const uint64_t latest = static_cast<uint64_t>(std::clamp<int64_t>(ns, 0, 0xfffffffe));
  const uint64_t before = costs_[id].load(std::memory_order_relaxed);
  costs_[id].store((before << 32) | latest, std::memory_order_relaxed);
}

void executor::process(step_state* s, ready_list& ready) {
  // With nothing ready here, the step may be over already (its nodes ran on the device's
  // threads) and `s` freed: touch nothing of it.
  if (ready.empty()) return;
  // This pass's values for other processes go out together (rendezvous::begin_pass); the pass
  // ends without the step, which its last node may end.
  const rendezvous_pass pass(s->step.rdv);
  while (!ready.empty()) run_node(s, ready.pop(), ready);
}

bool executor::prepare_inputs(step_state* s, const node_item& item, kernel_value* inputs) {
  status st = read_inputs(item, inputs);
  if (st.ok()) [[likely]]
    return true;
  s->abort(st);
  s->step.cancellation->cancel();
  return false;
}

status executor::read_inputs(const node_item& item, kernel_value* inputs) const {
  for (int i = 0; i < item.num_inputs; ++i) {
    kernel_value& in = inputs[i];
    const uint8_t flags = item.input[i];
    if ((flags & input_flags::deref) && in.ref) {  // no reference: a dead input
      in.value = in.ref->snapshot();
      if (!in.value.initialized())
        return errors::failed_precondition(error_prefix(id_of(item)), ": input ", i,
                                           " reads uninitialized variable '", in.ref->name(), "'")
            .with_source(error_source_of(id_of(item)));
      in.ref.reset();
    }
    if ((flags & input_flags::any_memory) || !in.value.buf()) continue;
    memory_space* want = (flags & input_flags::host_memory) ? nullptr : memory_;
    if (memory_space* at = in.value.space(); at != want) {
      return errors::internal(error_prefix(id_of(item)), ": input ", i, " is in ",
                              at ? "the memory of " + at->space_name() : std::string("host memory"),
                              " but the kernel reads it in ",
                              want ? "the memory of " + want->space_name()
                                   : std::string("host memory"),
                              " (a copy between memories is missing)")
          .with_source(error_source_of(id_of(item)));
    }
  }
  return {};
}

namespace {

// What a trace says a synchronous node moved: a _Send's bytes.
template <class Item>
int64_t traced_bytes(const Item& item, const kernel_value* inputs) {
  return item.is_send ? static_cast<int64_t>(inputs[0].value.byte_size()) : -1;
}

}  // namespace

void executor::run_node(step_state* s, int id, ready_list& ready, bool off_actor) {
  // Kernels run here on actor threads too, whose mode caflow does not set at their start.
  const scoped_flush_denormal flush;
  const node_item& item = items_[id];
  kernel_value* inputs = s->inputs.data() + item.input_start;
  if (s->errors.aborted() || !prepare_inputs(s, item, inputs)) {
    finish_node(s, id, nullptr, status{}, ready);
    return;
  }
  if (item.is_async) {
    struct async_call {
      async_call(const node_item& item, device& dev, step_context& step, kernel_value* inputs)
          : outputs(item.num_outputs), ctx(*item.kernel, dev, step, inputs, outputs.data()) {}
      std::vector<kernel_value> outputs;
      kernel_context ctx;
    };
    auto* call = new async_call(item, dev_, s->step, inputs);
    const auto began = times_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    // A _Recv may complete inline, so it is listed as waiting before it asks.
    if (item.is_recv) waits_->add(s->step.step_id, id, item.info);
    const auto start = s->trace ? trace_recorder::clock::now() : trace_recorder::clock::time_point{};
    static_cast<async_op_kernel*>(item.kernel.get())->compute_async(call->ctx, [this, s, id, call,
                                                                                 start, began] {
      const node_item& done_item = items_[id];
      if (times_) add_node_time(id, began);
      if (done_item.is_recv) waits_->remove(s->step.step_id, id);
      if (s->trace) {
        const int64_t bytes = done_item.is_recv && !call->outputs.empty()
                                  ? static_cast<int64_t>(call->outputs[0].value.byte_size())
                                  : -1;
        s->trace->record(done_item.info, s->step.step_id, start, trace_recorder::clock::now(),
                         bytes);
      }
      ready_list more;
      finish_node(s, id, call->outputs.data(), call->ctx.get_status(), more);
      delete call;
      process(s, more);
    });
    return;
  }
  // What this pass holds for other processes leaves before a kernel that takes a while (a
  // GEMM), so that the receivers work on it meanwhile; light kernels' values join it.
  if (s->step.rdv && s->step.rdv->holding()) {
    const int64_t cost = cost_of(id);
    if (cost < 0 || cost > light_node_ns) s->step.rdv->flush();
  }
  kernel_value small[4];
  std::vector<kernel_value> large;
  kernel_value* outputs = small;
  if (item.num_outputs > 4) {
    large.resize(item.num_outputs);
    outputs = large.data();
  }
  kernel_context ctx(*item.kernel, dev_, s->step, inputs, outputs);
  // Held on the stack like the outputs: no allocation per run for the usual few outputs.
  std::shared_ptr<allocator> direct_small[4];
  std::vector<std::shared_ptr<allocator>> direct_large;
  if (!item.sole_send_keys.empty() && s->step.rdv) [[unlikely]] {
    std::shared_ptr<allocator>* direct = direct_small;
    if (item.sole_send_keys.size() > 4) {
      direct_large.resize(item.sole_send_keys.size());
      direct = direct_large.data();
    }
    for (size_t p = 0; p < item.sole_send_keys.size(); ++p)
      if (!item.sole_send_keys[p].empty())
        direct[p] = s->step.rdv->output_allocator(item.sole_send_keys[p]);
    ctx.set_output_allocators(direct);
  }
  if (times_) [[unlikely]] {
    const auto began = std::chrono::steady_clock::now();
    item.kernel->compute(ctx);
    add_node_time(id, began);
    finish_node(s, id, outputs, ctx.get_status(), ready);
    return;
  }
  // Always on an actor's thread: a node whose cost grew with its inputs' values (a Fill of a
  // bigger shape) goes back to the device's threads from its next step on.
  const bool measure = item.may_inline && (off_actor || actor_thread_depth > 0 ||
                                           (s->step.step_id & 15) == 0 || cost_of(id) < 0);
  if (measure) {
    const auto start = std::chrono::steady_clock::now();
    item.kernel->compute(ctx);
    const auto end = std::chrono::steady_clock::now();
    record_cost(id, std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
    if (s->trace) s->trace->record(item.info, s->step.step_id, start, end, traced_bytes(item, inputs));
  } else if (s->trace == nullptr) [[likely]] {
    item.kernel->compute(ctx);
  } else {
    const auto start = trace_recorder::clock::now();
    item.kernel->compute(ctx);
    s->trace->record(item.info, s->step.step_id, start, trace_recorder::clock::now(),
                     traced_bytes(item, inputs));
  }
  finish_node(s, id, outputs, ctx.get_status(), ready);
}

void executor::finish_node(step_state* s, int id, kernel_value* outputs, const status& st,
                           ready_list& ready) {
  const node_item& item = items_[id];
  if (!st.ok()) {
    // A _Recv woken by an abort keeps the root cause's source: where the step failed first.
    s->abort(node_error(id, st));
    s->step.cancellation->cancel();
    outputs = nullptr;
  }
#ifdef CAFLOW_TSAN
  // Outputs may leave through actors (a Send, a fetch) whose hand-over TSan cannot see; their
  // readers acquire (graph/platform/thread_sanitizer.hpp).
  if (outputs)
    for (int i = 0; i < item.num_outputs; ++i) tsan_release(outputs[i].value.raw_data());
#endif
  // Inputs are no longer needed: release their buffers early.
  for (int i = 0; i < item.num_inputs; ++i) s->inputs[item.input_start + i] = kernel_value{};
  int expensive_ready = -1;
  int segment_ready = -1;
  for (const out_edge& e : item.outputs) {
    const node_item& dst = items_[e.dst];
    if (s->gated && capture_->segment_of[e.dst] >= 0) {
      if (capture_->segment_of[id] >= 0) continue;  // within the core: kept by the plan
      if (!e.is_control() && outputs) s->inputs[dst.input_start + e.dst_port] = outputs[e.src_port];
      const int k = capture_->segment_of[e.dst];
      if (s->core_wait[k].fetch_sub(1, std::memory_order_acq_rel) == 1) segment_ready = k;
      continue;
    }
    if (!e.is_control() && outputs) s->inputs[dst.input_start + e.dst_port] = outputs[e.src_port];
    if (s->pending[e.dst].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
    if (!runs_here(s, e.dst)) {
      run_on_device(s, e.dst);
    } else if (!dst.expensive || actor_thread_depth > 0 ||
               s->errors.aborted(std::memory_order_relaxed)) {
      ready.push(e.dst);
    } else {
      // Keep one expensive node for this thread; hand the others to the pool.
      if (expensive_ready >= 0) run_on_device(s, expensive_ready);
      expensive_ready = e.dst;
    }
  }
  if (expensive_ready >= 0) ready.push(expensive_ready);
  // Before this node counts as done, so the step cannot end inside run_segment. One node's
  // edges complete at most one segment: a later one also waits for the earlier's values.
  if (segment_ready >= 0) run_segment(s, segment_ready, ready);
  if (s->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    if (s->registered) s->step.cancellation->deregister_callback(s->cancel_token);
    if (s->gated) capture_->busy.store(false, std::memory_order_release);
    const status result = s->errors.first();
    done_fn done = std::move(s->done);
    delete s;
    done(result);
  }
}

std::vector<waiting_recv> executor::waiting_recvs() const { return waits_->snapshot(); }

status executor::run(const step_context& step, std::chrono::milliseconds timeout) {
  struct waiter {
    std::mutex mu;
    std::condition_variable cv;
    bool finished = false;
    status result;
  } w;
  auto finished = [&w](const status& st) {
    std::lock_guard<std::mutex> lock(w.mu);
    w.result = st;
    w.finished = true;
    w.cv.notify_one();
  };
  // A loop may run for as long as its inputs say: on this thread it would keep the timeout
  // below from ever being checked.
  if (frames_) dev_.schedule([this, &step, finished] { run_async(step, finished); });
  else run_async(step, finished);
  std::unique_lock<std::mutex> lock(w.mu);
  if (timeout.count() > 0 && !w.cv.wait_for(lock, timeout, [&] { return w.finished; })) {
    lock.unlock();
    step.cancellation->cancel();
    lock.lock();
    w.cv.wait(lock, [&] { return w.finished; });
    // What the step was doing (for a loop: which one, at which iteration) comes along.
    return errors::deadline_exceeded("step ", step.step_id, " did not finish within ",
                                     timeout.count(), " ms and was cancelled",
                                     w.result.ok() ? std::string() : " (" + w.result.message() + ")");
  }
  w.cv.wait(lock, [&] { return w.finished; });
  return w.result;
}

}  // namespace caflow
