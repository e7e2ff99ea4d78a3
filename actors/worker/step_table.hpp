#pragma once
// The steps a worker takes part in: what each has run here, its cancellation, its abort's root
// cause, the master that runs it, and the big feeds that arrive for it in chunks. A step is
// recorded when its first run arrives, aborted at most once (the first root cause wins), and
// finished once its runs here are over; a finished step's late values and work are refused.
// Owned by the worker actor; not thread-safe (finished() and abandoned() are).
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "actors/worker/graph_registry.hpp"
#include "actors/worker/step_masters.hpp"
#include "kernels/framework/cancellation.hpp"
#include "kernels/framework/rendezvous.hpp"
#include "net/finished_steps.hpp"
#include "net/wire/chunked_values.hpp"

namespace caflow::worker_internal {

struct step_record {
  std::shared_ptr<cancellation_manager> cancel = std::make_shared<cancellation_manager>();
  status aborted;  // the root cause, once aborted
  int running = 0;
  int expected_runs = 0;  // run_graph_request::runs_here; 0: the master cleans the step up
  int succeeded = 0;
  bool cleanup_requested = false;
  std::vector<graph_ptr> graphs;  // asked to run in this step: whose edges to clean up
};

class step_table {
 public:
  // `task_name` names the task in logs; `local` is where the steps' received values wait.
  step_table(std::string task_name, std::shared_ptr<rendezvous> local)
      : task_name_(std::move(task_name)), local_(std::move(local)) {}

  // Whether the step is over here (the most recent 4096 finished steps).
  bool over(int64_t step_id) const { return finished_->contains(step_id); }
  // The step's record, made on first use.
  step_record& record(int64_t step_id) { return steps_[step_id]; }
  // Null when the step has no record.
  step_record* find(int64_t step_id);

  // Aborts a step on this task: pending _Recvs wake with `reason`, running kernels see the
  // cancellation, and later runs of the step are refused with `reason`. A finished step, or
  // one aborted already, stays as it is.
  void abort(int64_t step_id, const status& reason);
  // Aborts every step with `reason` (the worker is going away).
  void abort_all(const status& reason);
  // Forgets a step whose runs here are over and marks it finished (and, unless it
  // `succeeded`, abandoned). Returns the graphs that ran it here.
  std::vector<graph_ptr> finish(int64_t step_id, bool succeeded);

  step_masters& masters() { return masters_; }
  chunked_arrivals& chunked_args() { return chunked_args_; }
  // Steps cleaned up here: late values for them are dropped, late work refused. Shared with
  // the edges' rendezvous actors.
  const std::shared_ptr<finished_steps>& finished() const { return finished_; }
  // Those of them that did not succeed here: tensors still queued for them are dropped.
  const std::shared_ptr<finished_steps>& abandoned() const { return abandoned_; }

 private:
  std::string task_name_;
  std::shared_ptr<rendezvous> local_;
  std::unordered_map<int64_t, step_record> steps_;
  step_masters masters_;           // who runs each step: a lost master's steps end here too
  chunked_arrivals chunked_args_;  // big feeds from masters in other processes, by step
  std::shared_ptr<finished_steps> finished_ = std::make_shared<finished_steps>();
  std::shared_ptr<finished_steps> abandoned_ = std::make_shared<finished_steps>();
};

}  // namespace caflow::worker_internal
