// The executor's control-flow path, TensorFlow's design (Yu et al., EuroSys 2018, section 4):
//
// - A step runs in frames: the root frame, and one frame per while loop entered, per iteration
//   of the enclosing frame that enters it. A frame holds iterations; each iteration has its own
//   pending counts, dead counts and input slots for the nodes of that frame.
// - A value is either live or dead. A node with a dead input does not run; its outputs are all
//   dead. A Merge runs on its first live input, or is dead when every input is. _Send and _Recv
//   run either way so deadness crosses partitions (a dead value travels as an uninitialized
//   tensor).
// - Enter takes a value into iteration 0 of its frame (a constant Enter into every iteration),
//   NextIteration into the next iteration, Exit back to the enclosing frame. A NextIteration
//   that would start more than parallel_iterations live iterations waits until the oldest ends.
// - An iteration ends when none of its nodes is ready or running, no frame it entered is alive,
//   and the one before it has ended; a frame ends with its last iteration once every Enter has
//   arrived. The Exits that were dead in the last iteration then pass their deadness out (a loop
//   in an untaken branch).
//
// The step ends when no node is ready or running. One mutex per step guards the frames: kernels
// run outside it. The first error aborts the step as on the plain path.
#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "actors/executor/executor_items.hpp"
#include "kernels/framework/rendezvous.hpp"
#include "devices/device.hpp"
#include "graph/ir/graph.hpp"
#include "graph/platform/denormal.hpp"
#include "kernels/framework/cancellation.hpp"

namespace caflow {
namespace {

// A frame's id in rendezvous keys: the same in every partition that runs the loop, since each
// derives it from the enclosing frame's id, the iteration that entered it and the frame's name.
uint64_t child_frame_id(uint64_t parent, int64_t parent_iter, const std::string& name) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  auto mix = [&h](const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  };
  mix(&parent, sizeof parent);
  mix(&parent_iter, sizeof parent_iter);
  mix(name.data(), name.size());
  h &= 0x7fffffffffffffffull;  // parse_rendezvous_key reads it as int64
  return h == 0 ? 1 : h;
}

bool is_live(const kernel_value& v) { return v.value.initialized() || v.ref || v.handle; }

}  // namespace

status_or<std::unique_ptr<executor::frame_plan>> executor::plan_frames(const executor& ex) {
  const graph& g = *ex.graph_;
  CAFLOW_ASSIGN_OR_RETURN(control_flow_info cf, analyze_control_flow(g));
  auto plan = std::make_unique<frame_plan>();
  plan->frames.resize(cf.frames.size());
  for (size_t i = 0; i < cf.frames.size(); ++i) {
    frame_plan::frame& f = plan->frames[i];
    f.name = cf.frames[i].name;
    f.parent = cf.frames[i].parent;
    f.parallel_iterations = cf.frames[i].parallel_iterations;
    f.num_enters = cf.frames[i].num_enters;
  }
  std::unordered_map<std::string, int> frame_by_name;
  for (size_t i = 1; i < cf.frames.size(); ++i) frame_by_name[cf.frames[i].name] = static_cast<int>(i);
  plan->nodes.resize(g.num_nodes());
  for (const graph_node& n : g.nodes()) {
    frame_plan::node_info& info = plan->nodes[n.id];
    frame_plan::frame& f = plan->frames[cf.frame_of[n.id]];
    info.kind = control_flow_kind_of(n.def->op);
    info.frame = cf.frame_of[n.id];
    info.local_id = f.num_nodes++;
    info.local_input_start = f.num_input_slots;
    f.num_input_slots += n.num_inputs();
    const int controls = static_cast<int>(n.control_inputs.size());
    info.initial_pending =
        info.kind == control_flow_kind::merge ? 1 + 2 * controls : n.num_inputs() + controls;
    f.initial_pending.push_back(info.initial_pending);
    info.is_retval = n.def->op == "_Retval";
    info.is_transfer = ex.items_[n.id].is_send || ex.items_[n.id].is_recv;
    if (info.kind == control_flow_kind::enter) {
      std::string name;
      CAFLOW_RETURN_IF_ERROR(get_attr(*n.def, "frame_name", &name));
      CAFLOW_RETURN_IF_ERROR(get_attr(*n.def, "is_constant", &info.constant_enter));
      info.child_frame = frame_by_name.at(name);
    }
    if (info.frame == 0 && info.initial_pending == 0) plan->roots.push_back(n.id);
  }
  return plan;
}

struct executor::frame_step {
  struct iteration {
    int64_t iter = 0;
    std::vector<kernel_value> inputs;
    std::vector<int> pending;
    std::vector<int> dead;
    int outstanding_ops = 0;     // nodes ready or running
    int outstanding_frames = 0;  // frames entered from here that are alive
  };
  struct held_value {
    int node;
    kernel_value value;
    bool dead;
  };
  struct frame {
    int index = 0;  // into frame_plan::frames
    uint64_t id = 0;
    frame* parent = nullptr;
    iteration* parent_iteration = nullptr;
    std::tuple<frame*, int64_t, int> key;  // in frame_step::children
    int64_t iteration_count = 0;           // the newest iteration
    int outstanding_iterations = 1;
    int pending_inputs = 0;  // Enters not yet arrived
    std::deque<std::unique_ptr<iteration>> iterations;  // oldest first
    std::vector<held_value> deferred;    // NextIteration values waiting for a free iteration
    std::vector<held_value> invariants;  // constant Enters, given to every iteration
    std::vector<int> dead_exits;         // Exits dead in the newest iteration

    iteration* find(int64_t iter) {
      if (iterations.empty()) return nullptr;
      const int64_t at = iter - iterations.front()->iter;
      return at >= 0 && at < static_cast<int64_t>(iterations.size()) ? iterations[at].get()
                                                                      : nullptr;
    }
  };
  struct tagged {
    int id;
    frame* f;
    iteration* it;
    bool dead;
  };
  using ready_list = std::vector<tagged>;

  executor& ex;
  const frame_plan& plan;
  step_context step;
  done_fn done;
  trace_recorder* trace = nullptr;
  std::mutex mu;  // frames, iterations, pending and dead counts, input slots being filled
  frame root;
  std::map<std::tuple<frame*, int64_t, int>, std::unique_ptr<frame>> children;
  std::atomic<int> outstanding{0};  // nodes ready or running in the whole step
  std::atomic<int> last_frame{0};   // where_loops_are
  std::atomic<int64_t> last_iteration{0};
  step_errors errors;
  cancellation_manager::token cancel_token = 0;
  bool registered = false;

  frame_step(executor& e, const step_context& s, done_fn d)
      : ex(e), plan(*e.frames_), step(s), done(std::move(d)) {}

  void abort(const status& st) { errors.abort(st); }

  void fail(const status& st) {
    abort(st);
    step.cancellation->cancel();
  }

  std::unique_ptr<iteration> new_iteration_state(int frame_index, int64_t iter) {
    const frame_plan::frame& f = plan.frames[frame_index];
    auto it = std::make_unique<iteration>();
    it->iter = iter;
    it->inputs.resize(f.num_input_slots);
    it->pending = f.initial_pending;
    it->dead.assign(f.num_nodes, 0);
    return it;
  }

  void start() {
    root.iterations.push_back(new_iteration_state(0, 0));
    root.pending_inputs = 0;
    trace = ex.tracer_for(step);
    registered = step.cancellation->register_callback(&cancel_token, [this] {
      abort(errors::cancelled("step ", step.step_id, " was cancelled", where_loops_are()));
    });
    if (!registered) abort(errors::cancelled("step ", step.step_id, " was cancelled"));
    iteration* it = root.iterations.front().get();
    ready_list ready;
    for (auto r = plan.roots.rbegin(); r != plan.roots.rend(); ++r) {
      ++it->outstanding_ops;
      ready.push_back({*r, &root, it, false});
    }
    outstanding.store(static_cast<int>(ready.size()), std::memory_order_relaxed);
    process(ready);
  }

  // For a cancelled step (a timeout, most often a loop that never ends): the loop that last
  // started an iteration, read without the frames' lock (its holder may be that very loop).
  std::string where_loops_are() const {
    const int frame = last_frame.load(std::memory_order_relaxed);
    if (frame <= 0) return {};
    return " while while loop '" + plan.frames[frame].name + "' ran iteration " +
           std::to_string(last_iteration.load(std::memory_order_relaxed));
  }

  void process(ready_list& ready) {
    if (ready.empty()) return;  // as on the plain path: the step may be over
    const rendezvous_pass pass(step.rdv);
    while (!ready.empty()) {
      const tagged t = ready.back();
      ready.pop_back();
      const node_item& item = ex.items_[t.id];
      bool here;
      if (executor::on_actor_thread())
        here = t.dead || item.is_send || item.is_recv ||
               plan.nodes[t.id].kind != control_flow_kind::none;
      else
        here = !item.expensive || ready.empty();  // keeps one expensive node for this thread
      if (here) run(t, ready);
      else schedule(t);
    }
  }

  void schedule(const tagged& t) {
    ex.dev_.schedule([this, t] {
      ready_list more;
      run(t, more);
      process(more);
    });
  }

  void run(const tagged& t, ready_list& ready) {
    const scoped_flush_denormal flush;  // as on the plain path (graph/platform/denormal.hpp)
    const node_item& item = ex.items_[t.id];
    const frame_plan::node_info& info = plan.nodes[t.id];
    kernel_value* inputs = t.it->inputs.data() + info.local_input_start;
    if (errors.aborted()) {
      finish(t, nullptr, {}, ready);
      return;
    }
    if (t.dead && !info.is_transfer) {
      if (info.is_retval) {
        fail(ex.node_error(t.id, errors::invalid_argument(
                                     "the fetched value is dead: it comes from a branch of a "
                                     "cond that was not taken")));
        finish(t, nullptr, {}, ready);
        return;
      }
      finish_dead(t, ready);
      return;
    }
    if (status st = ex.read_inputs(item, inputs); !st.ok()) {
      fail(st);
      finish(t, nullptr, {}, ready);
      return;
    }
    const frame_iter where{t.f->id, t.it->iter};
    if (item.is_async) {
      struct async_call {
        async_call(const node_item& item, device& dev, step_context& step, kernel_value* inputs)
            : outputs(item.num_outputs), ctx(*item.kernel, dev, step, inputs, outputs.data()) {}
        std::vector<kernel_value> outputs;
        kernel_context ctx;
      };
      auto* call = new async_call(item, ex.dev_, step, inputs);
      call->ctx.set_frame_iter(where);
      if (item.is_recv) ex.waits_->add(step.step_id, t.id, item.info);
      const auto start = trace ? trace_recorder::clock::now() : trace_recorder::clock::time_point{};
      static_cast<async_op_kernel*>(item.kernel.get())->compute_async(call->ctx, [this, t, call, start] {
        const node_item& done_item = ex.items_[t.id];
        if (done_item.is_recv) ex.waits_->remove(step.step_id, t.id);
        if (trace) trace->record(done_item.info, step.step_id, start, trace_recorder::clock::now(), -1);
        ready_list more;
        finish(t, call->outputs.data(), call->ctx.get_status(), more);
        delete call;
        process(more);
      });
      return;
    }
    // As on the plain path.
    if (item.expensive && step.rdv && step.rdv->holding()) step.rdv->flush();
    // As on the plain path: most nodes have few outputs, kept off the heap.
    kernel_value small[4];
    std::vector<kernel_value> large;
    kernel_value* outputs = small;
    if (item.num_outputs > 4) {
      large.resize(item.num_outputs);
      outputs = large.data();
    }
    kernel_context ctx(*item.kernel, ex.dev_, step, inputs, outputs);
    ctx.set_frame_iter(where);
    if (trace) {
      const auto start = trace_recorder::clock::now();
      item.kernel->compute(ctx);
      trace->record(item.info, step.step_id, start, trace_recorder::clock::now(), -1);
    } else {
      item.kernel->compute(ctx);
    }
    finish(t, outputs, ctx.get_status(), ready);
  }

  // A node that did not run because an input was dead: its outputs are all dead.
  void finish_dead(const tagged& t, ready_list& ready) {
    clear_inputs(t);
    {
      std::lock_guard<std::mutex> lock(mu);
      propagate(t, nullptr, true, ready);
      --t.it->outstanding_ops;
      cleanup(t.f, ready);
    }
    node_done();
  }

  // `outputs` may be null for a node without outputs (a _Send): its control edges still carry
  // its completion on.
  void finish(const tagged& t, kernel_value* outputs, const status& st, ready_list& ready) {
    bool ran = st.ok();
    if (!ran) fail(ex.node_error(t.id, st));
    if (ran && !errors.aborted()) {
      if (status missing = check_outputs(t, outputs); !missing.ok()) {
        fail(missing);
        ran = false;
      }
    }
    clear_inputs(t);
    if (ran && !errors.aborted()) {
      std::lock_guard<std::mutex> lock(mu);
      propagate(t, outputs, false, ready);
      --t.it->outstanding_ops;
      cleanup(t.f, ready);
    }
    node_done();
  }

  void node_done() {
    if (outstanding.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    if (registered) step.cancellation->deregister_callback(cancel_token);
    if (status stalled = stalled_loops(); !stalled.ok()) errors.abort(stalled);
    const status result = errors.first();
    done_fn finished = std::move(done);
    delete this;
    finished(result);
  }

  // Nothing is ready or running, yet a loop has not finished: some of its nodes wait for inputs
  // that can no longer come (a runtime bug, or a graph built by hand whose frames do not close).
  // Reported, naming the loop and the nodes, rather than ending the step without its values.
  status stalled_loops() {
    std::lock_guard<std::mutex> lock(mu);
    if (children.empty() || errors.aborted()) return {};
    const frame& f = *children.begin()->second;
    std::string waiting;
    int shown = 0;
    if (!f.iterations.empty()) {
      const iteration& it = *f.iterations.front();
      for (size_t id = 0; id < plan.nodes.size() && shown < 5; ++id) {
        const frame_plan::node_info& n = plan.nodes[id];
        if (n.frame != f.index || it.pending[n.local_id] <= 0 ||
            it.pending[n.local_id] == n.initial_pending)
          continue;
        waiting += (shown++ ? ", '" : "'") + ex.graph_->node(static_cast<int>(id)).name() + "'";
      }
    }
    return errors::internal("while loop '", plan.frames[f.index].name, "' stopped at iteration ",
                            f.iterations.empty() ? f.iteration_count : f.iterations.front()->iter,
                            " (", f.pending_inputs, " Enter inputs missing) with nodes waiting "
                            "for inputs that never came",
                            waiting.empty() ? std::string() : ": " + waiting);
  }

  void clear_inputs(const tagged& t) {
    kernel_value* inputs = t.it->inputs.data() + plan.nodes[t.id].local_input_start;
    for (int i = 0; i < ex.items_[t.id].num_inputs; ++i) inputs[i] = kernel_value{};
  }

  // Only a Switch leaves an output unset on purpose (its untaken side), and a _Recv whose value
  // was dead; any other node that does is a kernel bug, reported rather than read as dead.
  status check_outputs(const tagged& t, const kernel_value* outputs) const {
    const frame_plan::node_info& info = plan.nodes[t.id];
    if (info.kind == control_flow_kind::switch_ || ex.items_[t.id].is_recv) return {};
    const node_item& item = ex.items_[t.id];
    for (const out_edge& e : item.outputs)
      if (!e.is_control() && !is_live(outputs[e.src_port]))
        return ex.node_error(t.id, errors::internal("produced no value for output ", e.src_port));
    return {};
  }

  // --- under mu ---

  void propagate(const tagged& t, kernel_value* outputs, bool dead, ready_list& ready) {
    const frame_plan::node_info& info = plan.nodes[t.id];
    frame* f = t.f;
    switch (info.kind) {
      case control_flow_kind::enter: {
        frame* child = child_frame(t, info.child_frame);
        if (info.constant_enter) {
          child->invariants.push_back({t.id, outputs ? outputs[0] : kernel_value{}, dead});
          const held_value& inv = child->invariants.back();
          for (auto& it : child->iterations)
            activate(child, it.get(), t.id, &inv.value, inv.dead, ready);
        } else {
          activate(child, child->find(0), t.id, outputs, dead, ready);
        }
        --child->pending_inputs;
        cleanup(child, ready);
        return;
      }
      case control_flow_kind::exit:
        if (dead || !is_live(outputs[0])) {
          if (t.it->iter == f->iteration_count) f->dead_exits.push_back(t.id);
        } else {
          activate(f->parent, f->parent_iteration, t.id, outputs, false, ready);
        }
        return;
      case control_flow_kind::next_iteration: {
        if (dead || !is_live(outputs[0])) return;  // the loop ends here
        const int parallel = plan.frames[f->index].parallel_iterations;
        if (t.it->iter == f->iteration_count && f->outstanding_iterations >= parallel) {
          f->deferred.push_back({t.id, outputs[0], false});
          return;
        }
        iteration* next =
            t.it->iter == f->iteration_count ? next_iteration(f, ready) : f->find(t.it->iter + 1);
        activate(f, next, t.id, outputs, false, ready);
        return;
      }
      default:
        activate(f, t.it, t.id, outputs, dead, ready);
    }
  }

  // Hands node `src`'s outputs (dead when `src_dead`, or where unset) to its consumers in
  // iteration `it` of frame `f`; those now ready join `ready`.
  void activate(frame* f, iteration* it, int src, const kernel_value* outputs, bool src_dead,
                ready_list& ready) {
    const bool from_enter = plan.nodes[src].kind == control_flow_kind::enter;
    for (const out_edge& e : ex.items_[src].outputs) {
      const frame_plan::node_info& dst = plan.nodes[e.dst];
      const int local = dst.local_id;
      const bool control = e.is_control();
      const bool live = !src_dead && (control || (outputs && is_live(outputs[e.src_port])));
      bool now = false;
      bool dst_dead = false;
      int& pending = it->pending[local];
      if (dst.kind == control_flow_kind::merge) {
        const int data_inputs = ex.items_[e.dst].num_inputs;
        if (control) {
          pending -= 2;
          dst_dead = it->dead[local] == data_inputs;
          now = pending == 0 || (pending == 1 && dst_dead);
        } else if (live) {
          now = pending == 1;
          if (pending & 1) {  // the first live input is the one the Merge forwards
            it->inputs[dst.local_input_start + e.dst_port] = outputs[e.src_port];
            pending -= 1;
          }
        } else {
          // A dead Enter kills its loop at once: the loop sits in an untaken branch, and its
          // back edge will never bring a live value.
          dst_dead = ++it->dead[local] == data_inputs || from_enter;
          now = pending == 1 && dst_dead;
        }
        if (now) pending = 0;  // ready once, whatever comes later
      } else {
        if (!live) ++it->dead[local];
        else if (!control) it->inputs[dst.local_input_start + e.dst_port] = outputs[e.src_port];
        now = --pending == 0;
        dst_dead = it->dead[local] > 0;
      }
      if (!now) continue;
      ++it->outstanding_ops;
      outstanding.fetch_add(1, std::memory_order_relaxed);
      ready.push_back({e.dst, f, it, dst_dead});
    }
  }

  frame* child_frame(const tagged& t, int index) {
    auto key = std::make_tuple(t.f, t.it->iter, index);
    auto& slot = children[key];
    if (slot) return slot.get();
    slot = std::make_unique<frame>();
    frame* c = slot.get();
    c->index = index;
    c->id = child_frame_id(t.f->id, t.it->iter, plan.frames[index].name);
    c->parent = t.f;
    c->parent_iteration = t.it;
    c->key = key;
    c->pending_inputs = plan.frames[index].num_enters;
    c->iterations.push_back(new_iteration_state(index, 0));
    ++t.it->outstanding_frames;
    return c;
  }

  iteration* next_iteration(frame* f, ready_list& ready) {
    ++f->iteration_count;
    last_frame.store(f->index, std::memory_order_relaxed);
    last_iteration.store(f->iteration_count, std::memory_order_relaxed);
    ++f->outstanding_iterations;
    f->dead_exits.clear();
    f->iterations.push_back(new_iteration_state(f->index, f->iteration_count));
    iteration* it = f->iterations.back().get();
    for (const held_value& inv : f->invariants) activate(f, it, inv.node, &inv.value, inv.dead, ready);
    return it;
  }

  bool iteration_done(const frame* f, const iteration* it) const {
    return it->outstanding_ops == 0 && it->outstanding_frames == 0 &&
           (it->iter != 0 || f->pending_inputs == 0);
  }

  // Ends the oldest iterations of `f` that are done (starting deferred ones in their place),
  // then `f` itself when nothing of it is left.
  void cleanup(frame* f, ready_list& ready) {
    if (f == &root) return;  // the root's only iteration lasts the whole step
    while (!f->iterations.empty() && iteration_done(f, f->iterations.front().get())) {
      // The newest iteration is never ended while a NextIteration value waits to follow it.
      f->iterations.pop_front();
      --f->outstanding_iterations;
      if (!f->deferred.empty()) {
        iteration* it = next_iteration(f, ready);
        std::vector<held_value> deferred = std::move(f->deferred);
        f->deferred.clear();
        for (const held_value& d : deferred) activate(f, it, d.node, &d.value, false, ready);
      }
    }
    if (f->pending_inputs != 0 || f->outstanding_iterations != 0) return;
    frame* parent = f->parent;
    iteration* pit = f->parent_iteration;
    for (int exit : f->dead_exits) activate(parent, pit, exit, nullptr, true, ready);
    --pit->outstanding_frames;
    children.erase(f->key);
    cleanup(parent, ready);
  }
};

void executor::run_frames_async(const step_context& step, done_fn done) {
  auto* s = new frame_step(*this, step, std::move(done));
  s->start();
}

}  // namespace caflow
