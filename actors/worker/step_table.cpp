#include "actors/worker/step_table.hpp"

#include "graph/core/log.hpp"

namespace caflow::worker_internal {

step_record* step_table::find(int64_t step_id) {
  auto it = steps_.find(step_id);
  return it == steps_.end() ? nullptr : &it->second;
}

void step_table::abort(int64_t step_id, const status& reason) {
  if (finished_->contains(step_id)) return;
  step_record& s = steps_[step_id];
  if (!s.aborted.ok()) return;
  write_log(log_level::debug, task_name_, "step ", step_id, " aborted: ", reason.to_string());
  s.aborted = reason;
  // Before the cancellation, whose _Recv callbacks would abort with a plain "cancelled".
  local_->abort_step(step_id, reason);
  s.cancel->cancel();
}

void step_table::abort_all(const status& reason) {
  for (auto& [step_id, s] : steps_) {
    if (s.aborted.ok()) {
      s.aborted = reason;
      local_->abort_step(step_id, reason);
    }
    s.cancel->cancel();
  }
}

std::vector<graph_ptr> step_table::finish(int64_t step_id, bool succeeded) {
  std::vector<graph_ptr> graphs;
  if (auto it = steps_.find(step_id); it != steps_.end()) {
    graphs = std::move(it->second.graphs);
    steps_.erase(it);
  }
  masters_.remove(step_id);
  // Marked before the rendezvous actors hear of it, so that they drop the step's late values.
  finished_->add(step_id);
  chunked_args_.forget(step_id);
  local_->cleanup_step(step_id);
  if (!succeeded) abandoned_->add(step_id);
  return graphs;
}

}  // namespace caflow::worker_internal
