#pragma once
// Writes a TensorBoard event file: `tensorboard --logdir DIR` shows what a caflow run reports.
//
//   CAFLOW_ASSIGN_OR_RETURN(auto w, tf::summary_writer::open("/tmp/run1"));
//   w->add_graph(graph);                        // the graph tab
//   w->add_scalar("loss", step, 0.42);          // a curve
//   w->add_histogram("dense/kernel", step, t);  // the distributions and histograms tabs
//   w->add_summary(merged.string_at(0), step);  // what the summary ops computed in a step
//
// The file is DIR/events.out.tfevents.<seconds>.<host>, TFRecord-framed Events
// (graph/tf/record_file.hpp) starting with the file-version event, as TensorFlow's EventsWriter
// writes it. Adding only appends to a buffer; a thread of the writer writes the buffer out every
// `flush_every`, flush() does at once, and the destructor does last. A write that fails (a full
// disk) is cut back to the last whole record, reported once on stderr and by flush(), and what it
// held is kept and written again at the next flush, up to `max_buffered_bytes`; past that the
// oldest records are dropped and counted. Training never waits on the disk.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "graph/ir/graph_def.hpp"

namespace caflow::tf {

struct summary_writer_options {
  std::chrono::milliseconds flush_every{2000};
  size_t max_buffered_bytes = size_t{64} << 20;
  std::string filename_suffix = "";  // after the host name, as TF's filename_suffix
};

class summary_writer {
 public:
  // Creates `logdir` (and its parents) and the file, and writes the file-version event.
  static status_or<std::unique_ptr<summary_writer>> open(const std::string& logdir,
                                                         const summary_writer_options& options = {});
  ~summary_writer();
  summary_writer(const summary_writer&) = delete;
  summary_writer& operator=(const summary_writer&) = delete;

  void add_graph(const graph_def& graph);
  void add_scalar(const std::string& tag, int64_t step, double value);
  // The histogram of every element of `values` (graph/tf/histogram.hpp).
  void add_histogram(const std::string& tag, int64_t step, const tensor& values);
  // A serialized Summary, as the summary ops compute in a step (graph/client/ops/summary_ops.hpp);
  // INVALID_ARGUMENT, and nothing added, when the bytes are not one.
  status add_summary(std::string_view serialized_summary, int64_t step);
  // A traced step's serialized RunMetadata (graph/tf/step_stats.hpp) under `tag`: TensorBoard's
  // graph tab offers it by tag ("step100") to color nodes by compute time.
  void add_run_metadata(const std::string& tag, int64_t step, const std::string& serialized);
  // A serialized Event (for callers that build their own).
  void add_event(const std::string& serialized_event);

  // Writes what is buffered now; the error of this write, if any.
  status flush();
  const std::string& path() const { return path_; }
  // Records dropped because the disk refused them for longer than the buffer could hold.
  int64_t dropped_records() const;

 private:
  summary_writer(std::string path, int fd, const summary_writer_options& options);
  status write_out();  // REQUIRES: write_mu_ held
  void flush_loop();

  const std::string path_;
  const int fd_;
  const summary_writer_options options_;
  mutable std::mutex mu_;  // guards buffer_, stop_, dropped_
  std::condition_variable wake_;
  std::string buffer_;
  std::vector<size_t> record_ends_;  // where each buffered record ends, to drop whole ones
  bool stop_ = false;
  int64_t dropped_ = 0;
  std::mutex write_mu_;  // one write at a time; guards good_size_ and reported_
  uint64_t good_size_ = 0;  // bytes of whole records on disk
  bool reported_ = false;
  std::thread flusher_;
};

// "events.out.tfevents.<10-digit seconds>.<host><suffix>"
std::string event_file_name(std::chrono::system_clock::time_point at, const std::string& host,
                            const std::string& suffix = "");

}  // namespace caflow::tf
