#include "graph/tf/summary_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "graph/core/log.hpp"
#include "graph/tf/graph_def_export.hpp"
#include "graph/tf/histogram.hpp"
#include "graph/tf/proto/event.pb.h"
#include "graph/tf/proto/graph.pb.h"
#include "graph/tf/record_file.hpp"

namespace caflow::tf {
namespace {

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string host_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return "localhost";
  return host;
}

tfproto::Event event_at(int64_t step) {
  tfproto::Event e;
  e.set_wall_time(seconds_now());
  e.set_step(step);
  return e;
}

}  // namespace

std::string event_file_name(std::chrono::system_clock::time_point at, const std::string& host,
                            const std::string& suffix) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%010lld",
                static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(at.time_since_epoch()).count()));
  return std::string("events.out.tfevents.") + secs + "." + host + suffix;
}

status_or<std::unique_ptr<summary_writer>> summary_writer::open(const std::string& logdir,
                                                                const summary_writer_options& options) {
  std::error_code ec;
  std::filesystem::create_directories(logdir, ec);
  if (ec) return errors::not_found("logdir ", logdir, ": cannot create: ", ec.message());
  const std::string path =
      (std::filesystem::path(logdir) / event_file_name(std::chrono::system_clock::now(), host_name(),
                                                       options.filename_suffix)).string();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errors::not_found(path, ": cannot create: ", std::strerror(errno));
  std::unique_ptr<summary_writer> w(new summary_writer(path, fd, options));
  tfproto::Event version = event_at(0);
  version.set_file_version("brain.Event:2");
  version.mutable_source_metadata()->set_writer("caflow");
  w->add_event(version.SerializeAsString());
  CAFLOW_RETURN_IF_ERROR(w->flush());
  return w;
}

summary_writer::summary_writer(std::string path, int fd, const summary_writer_options& options)
    : path_(std::move(path)), fd_(fd), options_(options), flusher_([this] { flush_loop(); }) {}

summary_writer::~summary_writer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  flusher_.join();
  (void)flush();
  ::close(fd_);
}

void summary_writer::add_event(const std::string& serialized_event) {
  std::lock_guard<std::mutex> lock(mu_);
  append_record(buffer_, serialized_event);
  record_ends_.push_back(buffer_.size());
  // Past the cap (the disk has refused writes for a while), the oldest records go first.
  size_t drop = 0, records = 0;
  while (buffer_.size() - drop > options_.max_buffered_bytes && records + 1 < record_ends_.size())
    drop = record_ends_[records++];
  if (records == 0) return;
  buffer_.erase(0, drop);
  record_ends_.erase(record_ends_.begin(), record_ends_.begin() + static_cast<ptrdiff_t>(records));
  for (size_t& end : record_ends_) end -= drop;
  dropped_ += static_cast<int64_t>(records);
}

void summary_writer::add_scalar(const std::string& tag, int64_t step, double value) {
  tfproto::Event e = event_at(step);
  auto* v = e.mutable_summary()->add_value();
  v->set_tag(tag);
  v->set_simple_value(static_cast<float>(value));
  add_event(e.SerializeAsString());
}

status summary_writer::add_summary(std::string_view serialized_summary, int64_t step) {
  tfproto::Event e = event_at(step);
  if (!e.mutable_summary()->ParseFromArray(serialized_summary.data(),
                                            static_cast<int>(serialized_summary.size())))
    return errors::invalid_argument("summary for step ", step, " (", serialized_summary.size(),
                                    " bytes) is not a serialized Summary");
  add_event(e.SerializeAsString());
  return ok_status();
}

void summary_writer::add_run_metadata(const std::string& tag, int64_t step,
                                      const std::string& serialized) {
  tfproto::Event e = event_at(step);
  e.mutable_tagged_run_metadata()->set_tag(tag);
  e.mutable_tagged_run_metadata()->set_run_metadata(serialized);
  add_event(e.SerializeAsString());
}

void summary_writer::add_histogram(const std::string& tag, int64_t step, const tensor& values) {
  tfproto::Event e = event_at(step);
  auto* v = e.mutable_summary()->add_value();
  v->set_tag(tag);
  histogram_to_proto(histogram_of(values), v->mutable_histo());
  add_event(e.SerializeAsString());
}

void summary_writer::add_graph(const graph_def& graph) {
  tfproto::GraphDef proto;
  if (status st = graph_def_to_proto(graph, &proto); !st.ok()) {
    write_log(log_level::error, "summary_writer", path_, ": the graph is left out: ", st.message());
    return;
  }
  tfproto::Event e = event_at(0);
  e.set_graph_def(proto.SerializeAsString());
  add_event(e.SerializeAsString());
}

status summary_writer::flush() {
  std::lock_guard<std::mutex> lock(write_mu_);
  return write_out();
}

int64_t summary_writer::dropped_records() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

status summary_writer::write_out() {
  std::string data;
  std::vector<size_t> ends;
  {
    std::lock_guard<std::mutex> lock(mu_);
    data.swap(buffer_);
    ends.swap(record_ends_);
  }
  if (data.empty()) return {};
  size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::pwrite(fd_, data.data() + written, data.size() - written,
                               static_cast<off_t>(good_size_ + written));
    if (n > 0) {
      written += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const int err = n < 0 ? errno : ENOSPC;
    // Cut the file back to its whole records and keep the data for the next try, ahead of what
    // was added since.
    (void)::ftruncate(fd_, static_cast<off_t>(good_size_));
    {
      std::lock_guard<std::mutex> lock(mu_);
      const size_t later = data.size();
      buffer_.insert(0, data);
      for (size_t& end : record_ends_) end += later;
      record_ends_.insert(record_ends_.begin(), ends.begin(), ends.end());
    }
    status st = errors::resource_exhausted(path_, ": writing ", data.size(), " bytes of events failed: ",
                                           std::strerror(err), "; kept for the next try");
    if (!reported_) write_log(log_level::error, "summary_writer", st.message());
    reported_ = true;
    return st;
  }
  good_size_ += data.size();
  if (reported_) write_log(log_level::warn, "summary_writer", path_, ": writing again");
  reported_ = false;
  return {};
}

void summary_writer::flush_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    wake_.wait_for(lock, options_.flush_every, [&] { return stop_; });
    if (stop_) break;
    lock.unlock();
    {
      std::lock_guard<std::mutex> write_lock(write_mu_);
      (void)write_out();
    }
    lock.lock();
  }
}

}  // namespace caflow::tf
