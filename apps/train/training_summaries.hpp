#pragma once
// The chief's TensorBoard events (caflow-train --logdir): the training graph, then every
// --summary-every steps the scalars loss, accuracy, learning_rate, samples_per_second and
// global_step_per_second (over the steps since the last ones), every --histogram-every steps
// the histogram of every trainable variable, every --trace-every steps a traced step's run
// metadata (tag "stepN"), and each epoch's test accuracy. Written through
// tf::summary_writer, which buffers and never makes training wait on the disk; the scalars are
// also reported to the session's master, where caflow-console's `summaries` shows them.
#include <chrono>
#include <memory>

#include "actors/session/session.hpp"
#include "apps/train/options.hpp"
#include "apps/train/replication.hpp"
#include "graph/tf/summary_writer.hpp"

namespace caflow::train_app {

class training_summaries {
 public:
  // Opens the event file in `o.logdir` and writes the graph.
  static status_or<std::unique_ptr<training_summaries>> open(const train_options& o, const client_graph& g);

  // After a step: `step` this client's step (0-based; the events' x axis), `global_step` as
  // fetched with it (for the global rate), `samples` this client's samples in that step.
  // Fetches the variables (through `sess`) when histograms are due; a failed fetch is reported
  // once on stderr and training goes on.
  void step(session& sess, int64_t step, int64_t global_step, double loss, double accuracy,
            int64_t samples);
  void test_accuracy(session& sess, int64_t step, double accuracy);
  // Whether this client's step `step` is to be traced (--trace-every), and its trace.
  bool trace_due(int64_t step) const;
  void traced(int64_t step, const step_metadata& md);
  const std::string& path() const { return writer_->path(); }

 private:
  void scalar(const std::string& tag, int64_t step, double value);
  void report(session& sess);  // sends the scalars written since the last report

  training_summaries(const train_options& o, const client_graph& g, std::unique_ptr<tf::summary_writer> w);

  const train_options& o_;
  const client_graph& g_;
  std::unique_ptr<tf::summary_writer> writer_;
  // Where the last scalars were written: the rates are over the steps since.
  int64_t last_step_ = -1;
  int64_t last_global_step_ = 0;
  int64_t samples_since_ = 0;
  std::chrono::steady_clock::time_point last_at_;
  bool histogram_failed_ = false;
  std::vector<summary_scalar> unreported_;
  bool report_failed_ = false;
};

}  // namespace caflow::train_app
