#include <caf/all.hpp>

#include "graph/core/log.hpp"
#include "actors/master/master_state.hpp"
#include "net/wire/send_batch.hpp"
#include "net/errors.hpp"
#include "net/loop/loop_scheduler.hpp"

namespace caflow::master_internal {
namespace {

void finish_step(master_pointer self, int64_t step_id) {
  auto it = self->state.steps.find(step_id);
  if (it == self->state.steps.end()) return;
  in_flight_step& s = it->second;
  if (s.root_cause.ok()) {
    run_step_reply reply;
    if (!s.run->reported) {
      reply = s.run->report;
      s.run->reported = true;
    }
    reply.fetches = std::move(s.fetches);
    reply.trace = std::move(s.trace);
    if (s.client.remote) {
      reply.transfer = step_id;
      for (size_t i = 0; i < reply.fetches.size(); ++i) {
        if (!travels_in_chunks(reply.fetches[i].value)) continue;
        send_chunks(self, caf::actor_cast<caf::actor>(s.client.remote), step_id,
                    chunk_key("fetch", i), reply.fetches[i].value);
        reply.fetches[i] = wire_tensor{};
        reply.chunked_fetches.push_back(static_cast<int32_t>(i));
      }
    }
    s.client.deliver(std::move(reply));
  } else {
    s.client.fail(s.root_cause);
  }
  self->state.arrivals.forget(step_id);
  // After a success every worker has cleaned up by itself (run_graph_request::runs_here).
  if (!s.root_cause.ok())
    for (const auto& p : s.run->parts) self->send(p.worker, cf_cleanup_atom::value, step_id);
  if (auto ss = self->state.sessions.find(s.session); ss != self->state.sessions.end())
    ss->second.latency.record(s.started, s.root_cause.ok());
  if (!s.root_cause.ok())
    write_log(log_level::info, own_task(self->state), "step ", step_id, " of ", s.session,
              " failed: ", s.root_cause.to_string());
  self->state.steps.erase(it);
  note_step_running(self->home_system(), false);
}

}  // namespace

// Records a partition's failure; the first real (not cancelled) error is the root cause.
void step_failed(master_pointer self, int64_t step_id, const status& why) {
  auto& s = self->state.steps.at(step_id);
  if (s.root_cause.ok() ||
      (s.root_cause.code() == error_code::cancelled && why.code() != error_code::cancelled))
    s.root_cause = why;
  if (!s.aborted) {
    s.aborted = true;
    const step_error root_cause = to_step_error(s.root_cause);
    for (const auto& p : s.run->parts)
      self->send(p.worker, cf_abort_atom::value, step_id, root_cause);
  }
}

void partition_done(master_pointer self, int64_t step_id, size_t part) {
  auto it = self->state.steps.find(step_id);
  if (it == self->state.steps.end() || it->second.replied[part]) return;
  it->second.replied[part] = true;
  if (--it->second.pending == 0) finish_step(self, step_id);
}

void start_step(master_pointer self, std::shared_ptr<prepared_run> run, run_step_request req,
                step_client client) {
  if (!run->failed.ok()) {
    client.fail(run->failed);
    return;
  }
  int64_t step_id = 0;
  do {
    step_id = static_cast<int64_t>(self->state.step_ids() >> 1);
  } while (step_id == 0 || self->state.steps.count(step_id));
  in_flight_step s{run, std::move(client), std::vector<bool>(run->parts.size()), run->parts.size(),
                   std::vector<wire_tensor>(run->contract.num_fetches), status{}, false, req.session,
                   std::chrono::steady_clock::now()};
  self->state.steps.emplace(step_id, std::move(s));
  note_step_running(self->home_system(), true);
  for (size_t i = 0; i < run->parts.size(); ++i) {
    const auto& p = run->parts[i];
    run_graph_request r{p.handle, step_id, std::vector<wire_tensor>(req.feeds.size()),
                        static_cast<int32_t>(run->contract.num_fetches), {}, p.runs_on_worker, true,
                        req.trace};
    for (int64_t a : p.arg_indices) {
      if (p.remote && travels_in_chunks(req.feeds[a].value)) {
        // Ahead of the request, from this actor to the same worker: they arrive in order.
        send_chunks(self, p.worker, step_id,
                    chunk_key("arg", static_cast<size_t>(a)), req.feeds[a].value);
        r.chunked_args.push_back(static_cast<int32_t>(a));
      } else {
        r.args[a] = req.feeds[a];
      }
    }
    // No timeout on the request itself: CAF 0.17 keeps a request's timeout entry until it would
    // fire, even after the reply, so 3 requests per step under a 60 s timeout held memory for
    // every step of the last minute (bench soak). One periodic tick enforces step deadlines.
    self->request(p.worker, caf::infinite, cf_run_graph_atom::value, std::move(r))
        .then(
            [=, task = p.task](run_graph_reply& reply) {
              // Even for a step that is over here: its edge actors give shm blocks back.
              const status handed = send_batch::hand_over(std::move(reply.sends), self->node());
              auto it = self->state.steps.find(step_id);
              if (it == self->state.steps.end()) return;
              if (!handed.ok()) step_failed(self, step_id, handed.with_context("task " + task));
              for (trace_event& e : reply.trace) it->second.trace.push_back(std::move(e));
              for (size_t k = 0; k < reply.rets.size() && k < it->second.fetches.size(); ++k)
                if (reply.rets[k].value.initialized()) it->second.fetches[k] = reply.rets[k];
              if (status claimed = claim_chunked(self->state.arrivals, step_id, "ret",
                                                 reply.chunked_rets, it->second.fetches);
                  !claimed.ok())
                step_failed(self, step_id, claimed.with_context("task " + task));
              partition_done(self, step_id, i);
            },
            [=, task = p.task](caf::error& e) {
              if (!self->state.steps.count(step_id)) return;
              // Kernel errors say where they arose; any other names the partition's task.
              status why = to_status(e);
              if (why.message().find(task) == std::string::npos)
                why = why.with_context("task " + task);
              if (!why.source()) why = why.with_source(task_source(task));
              step_failed(self, step_id, why);
              partition_done(self, step_id, i);
            });
  }
}

// Puts the feeds that came ahead in chunks into `req`.
status claim_chunked_feeds(chunked_arrivals& arrivals, run_step_request& req) {
  int32_t at = 0;
  status result = claim_chunked(arrivals, req.transfer, "feed", req.chunked_feeds, req.feeds, &at);
  if (!result.ok() && at >= 0 && static_cast<size_t>(at) < req.feed_names.size())
    result = result.with_context("feed '" + req.feed_names[static_cast<size_t>(at)] + "'");
  if (!req.chunked_feeds.empty()) arrivals.forget(req.transfer);
  req.chunked_feeds.clear();
  return result;
}

status check_feeds(const prepared_run& run, const run_step_request& req) {
  if (req.feeds.size() != req.feed_names.size())
    return errors::invalid_argument(req.feeds.size(), " feed values for ", req.feed_names.size(),
                                    " feed names");
  for (size_t i = 0; i < req.feeds.size(); ++i)
    CAFLOW_RETURN_IF_ERROR(run.contract.check_feed(i, req.feed_names[i], req.feeds[i].value));
  return {};
}

// Fails the steps that have run longer than the step timeout, naming every task they still
// wait on (the stuck one is among them; the others may only wait for it).
void check_deadlines(master_pointer self) {
  const auto now = std::chrono::steady_clock::now();
  const auto limit = self->state.opts.step_timeout;
  std::vector<int64_t> late;
  for (const auto& [id, s] : self->state.steps)
    if (now - s.started > limit) late.push_back(id);
  for (int64_t id : late) {
    auto it = self->state.steps.find(id);
    if (it == self->state.steps.end()) continue;
    std::vector<size_t> waiting;
    std::string tasks;
    for (size_t i = 0; i < it->second.run->parts.size(); ++i)
      if (!it->second.replied[i]) {
        waiting.push_back(i);
        tasks += (tasks.empty() ? "" : ", ") + it->second.run->parts[i].task;
      }
    step_failed(self, id, errors::deadline_exceeded("step ", id, " ran past the step timeout of ",
                                                    limit.count(), " ms waiting for ", tasks));
    for (size_t i : waiting) partition_done(self, id, i);
  }
}

}  // namespace caflow::master_internal
