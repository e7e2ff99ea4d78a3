// Runs and steps of the worker actor (actors/worker/worker_state.hpp): starting a run, answering
// it, and forgetting a step once it is over here.
#include <algorithm>
#include <atomic>

#include <caf/actor_cast.hpp>
#include <caf/send.hpp>

#include "graph/core/log.hpp"
#include "net/wire/send_batch.hpp"
#include "actors/worker/worker_state.hpp"
#include "graph/platform/thread_sanitizer.hpp"
#include "net/errors.hpp"
#include "net/loop/loop_scheduler.hpp"

namespace caflow::worker_internal {
namespace {

status check_run(const worker_state& st, const registered_graph& g, const run_graph_request& req,
                 const std::vector<tensor>& args) {
  if (st.steps->over(req.step_id))
    return errors::failed_precondition("step ", req.step_id, " is already over on task ",
                                       st.task_name, ": a master must not reuse step ids");
  if (!g.bound && !g.send_keys.empty())
    return errors::failed_precondition("graph '", g.handle, "' is not bound: its _Send key '",
                                       *g.send_keys.begin(), "' has no rendezvous actor");
  if (req.num_rets < g.rets_needed || req.num_rets > max_rets)
    return errors::invalid_argument("graph '", g.handle, "' writes ", g.rets_needed,
                                    " fetches but step ", req.step_id, " asks for ", req.num_rets);
  for (int64_t index : g.arg_indices) {
    if (index >= static_cast<int64_t>(args.size()) || !args[index].initialized())
      return errors::invalid_argument("graph '", g.handle, "' needs feed #", index, ", which step ",
                                      req.step_id, " does not carry");
    tsan_acquire(args[index].raw_data());  // written by the client or a kernel, on its thread
  }
  return {};
}

// Who a successful run answers itself, the moment it ends, when that is not inside the
// worker's start handler: a requester in this process (the master of this task, whose own
// partition ends when the values it waits for from other tasks come). Through the worker, the
// answer cost one more message: the run's run_done to the worker, then the worker's reply.
// Sent as CAF sends a response (to the request's sender, with its response id) without the
// promise, whose deliver() reads the worker's execution context from the run's thread.
// The worker still learns of the run's end from run_done, which then skips the answer: each
// claims `run_frame::answered` before it answers, so only one of them does.
// Requesters in other processes are answered by the worker: big fetches go ahead of the
// reply in chunks, sent by the worker.
struct run_answer {
  caf::strong_actor_ptr to;  // null: the worker answers
  caf::message_id id;

  template <class Worker>
  void send(run_frame& run, const Worker& worker) const {
    if (run.answered.exchange(true, std::memory_order_acq_rel)) return;  // the worker's, first
    run_graph_reply reply;
    reply.rets.reserve(run.frame.rets.size());
    for (tensor& t : run.frame.rets) reply.rets.push_back(wire_tensor{std::move(t)});
    if (run.trace) reply.trace = run.trace->collect();
    to->enqueue(caf::actor_cast<caf::strong_actor_ptr>(worker), id.response_id(),
                caf::make_message(std::move(reply)), nullptr);
  }
};

// Read from the request being handled, before make_response_promise takes its sender.
run_answer answer_from_run(worker_pointer self) {
  const caf::mailbox_element* e = self->current_mailbox_element();
  if (!e || !e->sender || !e->stages.empty() || !e->mid.is_request() ||
      in_other_process(e->sender, self))
    return {};
  return {e->sender, e->mid};
}

}  // namespace

void finish_step(worker_pointer self, int64_t step_id, bool succeeded) {
  auto& st = self->state;
  std::vector<graph_ptr> graphs = st.steps->finish(step_id, succeeded);
  if (succeeded) return;
  if (graphs.empty()) {  // no run here (refused or never sent): any edge may hold a value
    st.graphs->for_each_endpoint([step_id](const rendezvous_actor& e) {
      caf::anon_send(e, cf_cleanup_atom::value, step_id);
    });
    return;
  }
  std::sort(graphs.begin(), graphs.end());
  graphs.erase(std::unique(graphs.begin(), graphs.end()), graphs.end());
  for (const graph_ptr& g : graphs)
    for (const std::string& key : g->recv_keys)
      if (const rendezvous_actor* e = st.graphs->endpoint(key))
        caf::anon_send(*e, cf_cleanup_atom::value, step_id);
}

// A master that registered graphs or ran steps here is gone (its process died, or the link to
// it broke): its abort, cleanup and deregistration cannot come any more, so its steps are
// aborted and cleaned up here and its graphs released once their runs are over. A master that
// only lost its link sees this task lost too (its monitor fires on the same broken connection),
// drops the runs that used the task and registers them again on its next step.
void master_lost(worker_pointer self, const caf::down_msg& dm) {
  auto& st = self->state;
  const auto steps = st.steps->masters().lost(dm.source);
  const std::string reason = self->home_system().render(dm.reason);
  const status why = errors::aborted("the master that ran the step here was lost (", reason, ")");
  for (int64_t step_id : steps) {
    st.steps->abort(step_id, why);
    if (step_record* s = st.steps->find(step_id); s && s->running > 0)
      s->cleanup_requested = true;  // once its runs have answered the abort
    else
      finish_step(self, step_id);
  }
  const size_t graphs = st.graphs->remove_owned_by(dm.source);
  if (steps.empty() && graphs == 0) return;
  write_log(log_level::warn, st.task_name, "a master was lost (", reason, "); aborted its ",
            steps.size(), " steps and released its ", graphs, " graphs here");
}

caf::result<run_graph_reply> start_run(worker_pointer self, const run_graph_request& req) {
  auto& st = self->state;
  const graph_ptr g = st.graphs->find(req.graph_handle);
  if (!g)
    return to_caf_error(errors::not_found("no graph '", req.graph_handle,
                                          "' is registered on task ", st.task_name));
  std::vector<tensor> args;
  args.reserve(req.args.size());
  for (const wire_tensor& a : req.args) args.push_back(a.value);
  if (status claimed =
          claim_chunked(st.steps->chunked_args(), req.step_id, "arg", req.chunked_args, args);
      !claimed.ok())
    return to_caf_error(claimed.with_context("task " + st.task_name));
  if (status bad = check_run(st, *g, req, args); !bad.ok()) return to_caf_error(bad);
  step_record& s = st.steps->record(req.step_id);
  s.graphs.push_back(g);
  s.expected_runs = std::max(s.expected_runs, req.runs_here);
  if (!s.aborted.ok()) return to_caf_error(s.aborted);

  auto run = std::make_shared<run_frame>();
  run->frame.args = std::move(args);
  run->frame.rets.resize(static_cast<size_t>(req.num_rets));
  run->cancel = s.cancel;
  run->rdv = g->rdv;
  if (req.trace) {
    run->trace = std::make_shared<trace_recorder>(st.task_name);
    run->trace->set_enabled(true);
  }
  const uint64_t run_id = st.next_run++;
  // Where the reply goes (the last forwarding stage, else the sender): another process?
  // Read before make_response_promise, which moves the sender out of the request.
  caf::strong_actor_ptr reply_to = reply_destination(self);
  if (reply_to &&
      st.steps->masters().add(caf::actor_cast<caf::actor_addr>(reply_to), req.step_id))
    self->monitor(reply_to);
  if (!in_other_process(reply_to, self)) reply_to = nullptr;
  const caf::node_id reply_node =
      reply_to && req.reply_carries_sends ? reply_to->node() : caf::node_id{};
  const run_answer answer = answer_from_run(self);
  auto promise = self->make_response_promise<run_graph_reply>();
  st.runs.emplace(run_id, pending_run{req.step_id, g, run, promise, std::move(reply_to)});
  ++s.running;
  graph_registry::start_run(*g);
  note_step_running(self->home_system(), true);
  st.counter->start();
  // The device's actor starts the run with its light nodes; the executor hands every other
  // node to the device's threads. A partition on the CPU starts here instead, on the worker's
  // thread (the light-node fast path): the extra hand-over to the device's actor cost a small
  // distributed step 13% (bench/dist_step_latency_us 82 -> 93 us on 2 cores), and the CPU's
  // state is no less its actor's for it.
  auto dev_run = std::make_shared<device_run>();
  dev_run->exec = g->exec.get();
  dev_run->step = {req.step_id, &run->frame, run->cancel.get(), run->rdv.get(), run->trace.get()};
  // A small partition often ends before this handler does. Its end is then handled right
  // here, one loop turn sooner than a run_done message: whichever of the run's end and this
  // handler's comes second does it.
  auto ended_first = std::make_shared<std::atomic<bool>>(false);
  dev_run->done = [run, run_id, reply_node, ended_first, answer, counter = st.counter,
                   me = caf::actor_cast<worker_impl>(self)](const status& result) {
    run->result = result;
    // Called in the executor's last pass, before its batch goes out (net/wire/send_batch.hpp).
    if (result.ok() && reply_node) run->sends = send_batch::take(reply_node);
    counter->finish();
    if (ended_first->exchange(true, std::memory_order_acq_rel)) {  // the handler has returned
      if (result.ok() && answer.to) answer.send(*run, me);
      caf::anon_send(me, cf_run_done_atom::value, run_id);
    }
  };
  if (g->start_here) {
    executor::actor_thread_scope on_actor;
    dev_run->exec->run_async(dev_run->step, std::move(dev_run->done));
  } else {
    self->send(g->dev, cf_dev_run_atom::value, std::move(dev_run));
  }
  if (ended_first->exchange(true, std::memory_order_acq_rel)) run_done(self, run_id);
  return promise;
}

void run_done(worker_pointer self, uint64_t run_id) {
  auto& st = self->state;
  auto it = st.runs.find(run_id);
  if (it == st.runs.end()) return;
  pending_run r = std::move(it->second);
  st.runs.erase(it);
  step_record& s = *st.steps->find(r.step_id);
  const status& result = r.run->result;
  if (r.run->answered.exchange(true, std::memory_order_acq_rel)) {
    // The run answered its requester when it ended (answer_from_run).
  } else if (result.ok()) {
    run_graph_reply reply;
    reply.rets.reserve(r.run->frame.rets.size());
    for (size_t i = 0; i < r.run->frame.rets.size(); ++i) {
      tensor& t = r.run->frame.rets[i];
      if (r.reply_to && travels_in_chunks(t)) {
        // Ahead of the reply, which the same actor sends the same way: they arrive in order.
        send_chunks(self, caf::actor_cast<master_actor>(r.reply_to), r.step_id,
                    chunk_key("ret", i), t);
        reply.chunked_rets.push_back(static_cast<int32_t>(i));
        reply.rets.emplace_back();
      } else {
        reply.rets.push_back(wire_tensor{std::move(t)});
      }
    }
    reply.sends = std::exchange(r.run->sends, edge_batch{});
    if (r.run->trace) reply.trace = r.run->trace->collect();
    r.promise.deliver(std::move(reply));
  } else if (!s.aborted.ok()) {
    // Woken by the abort: the root cause says more than this task's echo of it.
    r.promise.deliver(to_caf_error(s.aborted));
  } else {
    // Kernel errors name node, op and device, and so the task.
    const bool names_task = result.message().find(st.task_name) != std::string::npos;
    r.promise.deliver(
        to_caf_error(names_task ? result : result.with_context("task " + st.task_name)));
  }
  if (result.ok()) ++s.succeeded;
  st.graphs->finish_run(*r.graph);
  note_step_running(self->home_system(), false);
  if (--s.running > 0) return;
  if (s.cleanup_requested)
    finish_step(self, r.step_id);
  else if (s.expected_runs > 0 && s.succeeded == s.expected_runs && s.aborted.ok())
    finish_step(self, r.step_id, true);
}

}  // namespace caflow::worker_internal
