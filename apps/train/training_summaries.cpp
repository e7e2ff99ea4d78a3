#include "apps/train/training_summaries.hpp"

#include "graph/core/log.hpp"
#include "graph/tf/step_stats.hpp"

namespace caflow::train_app {

status_or<std::unique_ptr<training_summaries>> training_summaries::open(const train_options& o,
                                                                        const client_graph& g) {
  CAFLOW_ASSIGN_OR_RETURN(auto writer, tf::summary_writer::open(o.logdir));
  std::unique_ptr<training_summaries> s(new training_summaries(o, g, std::move(writer)));
  s->writer_->add_graph(g.root.to_graph_def());
  return s;
}

training_summaries::training_summaries(const train_options& o, const client_graph& g,
                                       std::unique_ptr<tf::summary_writer> w)
    : o_(o), g_(g), writer_(std::move(w)), last_at_(std::chrono::steady_clock::now()) {}

void training_summaries::step(session& sess, int64_t step, int64_t global_step, double loss,
                              double accuracy, int64_t samples) {
  samples_since_ += samples;
  if (o_.summary_every > 0 && step % o_.summary_every == 0) {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - last_at_).count();
    scalar("loss", step, loss);
    scalar("accuracy", step, accuracy);
    scalar("learning_rate", step, o_.learning_rate);
    if (last_step_ >= 0 && seconds > 0) {
      scalar("samples_per_second", step, static_cast<double>(samples_since_) / seconds);
      scalar("global_step_per_second", step,
             static_cast<double>(global_step - last_global_step_) / seconds);
    }
    report(sess);
    last_step_ = step;
    last_global_step_ = global_step;
    last_at_ = now;
    samples_since_ = 0;
  }
  if (o_.histogram_every <= 0 || step % o_.histogram_every != 0) return;
  const std::vector<train::variable> vars = g_.shared_vars.trainable();
  std::vector<output> values(vars.begin(), vars.end());
  auto got = sess.run(values);
  if (!got.ok()) {
    if (!histogram_failed_)
      write_log(log_level::error, "caflow-train", "variable histograms left out: ", got.get_status().message());
    histogram_failed_ = true;
    return;
  }
  for (size_t k = 0; k < vars.size(); ++k) writer_->add_histogram(vars[k].name(), step, (*got)[k]);
}

void training_summaries::test_accuracy(session& sess, int64_t step, double accuracy) {
  scalar("test_accuracy", step, accuracy);
  report(sess);
}

bool training_summaries::trace_due(int64_t step) const {
  return o_.trace_every > 0 && step > 0 && step % o_.trace_every == 0;
}

void training_summaries::traced(int64_t step, const step_metadata& md) {
  std::vector<tf::executed_node> nodes;
  nodes.reserve(md.nodes.size());
  for (const trace_event& e : md.nodes)
    nodes.push_back({e.device, e.node, e.op, e.start_us, e.dur_us});
  writer_->add_run_metadata("step" + std::to_string(step), step, tf::serialized_run_metadata(nodes));
}

void training_summaries::scalar(const std::string& tag, int64_t step, double value) {
  writer_->add_scalar(tag, step, value);
  const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  unreported_.push_back({tag, step, value, now_us});
}

void training_summaries::report(session& sess) {
  summary_report r{o_.logdir, writer_->path(), std::move(unreported_)};
  unreported_.clear();
  // The console's view only: a master that cannot be told now is told with the next scalars.
  if (status st = sess.report_summaries(std::move(r)); !st.ok() && !report_failed_) {
    write_log(log_level::warn, "caflow-train", "summaries not shown to the console: ", st.message());
    report_failed_ = true;
  }
}

}  // namespace caflow::train_app
