// TensorBoard event files: what the writer puts in them, read back two ways (caflow's record
// reader, and tests/graph/tf/read_events.py, which checks the framing and CRCs with its own code
// and decodes with `protoc --decode_raw`, knowing no .proto), TensorFlow's histogram buckets,
// and a disk that refuses writes for a while losing nothing.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "graph/client/ops/ops.hpp"
#include "graph/tf/histogram.hpp"
#include "graph/tf/proto/event.pb.h"
#include "graph/tf/proto/graph.pb.h"
#include "graph/tf/proto/step_stats.pb.h"
#include "graph/tf/step_stats.hpp"
#include "graph/tf/record_file.hpp"
#include "graph/tf/summary_writer.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using caflow::testing::check_error;
namespace fs = std::filesystem;

namespace {

std::vector<tfproto::Event> events_in(const std::string& path) {
  auto records = tf::read_records(path);
  REQUIRE_MESSAGE(records.ok(), records.get_status().to_string());
  std::vector<tfproto::Event> out;
  for (const std::string& r : *records) {
    tfproto::Event e;
    REQUIRE(e.ParseFromString(r));
    out.push_back(e);
  }
  return out;
}

std::string run(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

}  // namespace

TEST_CASE("an event file holds the version, the graph, scalars and histograms, in order") {
  caflow::testing::temp_dir dir("caflow_events_");
  auto root = scope::new_root();
  ops::add(root.with_op_name("sum"), ops::constant(root.with_op_name("a"), 1.0f), ops::constant(root.with_op_name("b"), 2.0f));
  std::string path;
  {
    auto w = tf::summary_writer::open(dir.file("run1"));
    REQUIRE_MESSAGE(w.ok(), w.get_status().to_string());
    path = (*w)->path();
    (*w)->add_graph(root.to_graph_def());
    (*w)->add_scalar("loss", 10, 0.25);
    (*w)->add_scalar("loss", 20, 0.125);
    (*w)->add_histogram("weights", 20, tensor::from_vector<float>({-1, 0, 0.5f, 0.5f, 3}, {5}));
  }  // the destructor flushes
  CHECK(fs::path(path).parent_path() == fs::path(dir.file("run1")));
  CHECK(fs::path(path).filename().string().starts_with("events.out.tfevents."));

  const auto events = events_in(path);
  REQUIRE(events.size() == 5);
  CHECK(events[0].file_version() == "brain.Event:2");
  CHECK(events[0].source_metadata().writer() == "caflow");
  CHECK(events[0].wall_time() > 1.7e9);
  tfproto::GraphDef g;
  REQUIRE(g.ParseFromString(events[1].graph_def()));
  CHECK(g.node_size() == 3);
  CHECK(events[2].step() == 10);
  REQUIRE(events[2].summary().value_size() == 1);
  CHECK(events[2].summary().value(0).tag() == "loss");
  CHECK(events[2].summary().value(0).simple_value() == 0.25f);
  CHECK(events[3].summary().value(0).simple_value() == 0.125f);
  const auto& h = events[4].summary().value(0).histo();
  CHECK(h.num() == 5);
  CHECK(h.min() == -1);
  CHECK(h.max() == 3);
  CHECK(h.sum() == doctest::Approx(3.0));
  CHECK(h.sum_squares() == doctest::Approx(10.5));
  double total = 0;
  for (double c : h.bucket()) total += c;
  CHECK(total == 5);

  // The independent reading: both CRCs of every record, and the fields by number.
  const std::string listing =
      run("/usr/bin/python3 " CAFLOW_SOURCE_DIR "/tests/graph/tf/read_events.py " + path + " 2>&1; echo exit=$?");
  MESSAGE(listing);
  CHECK(listing.find("exit=0") != std::string::npos);
  CHECK(listing.find("record 0: 1: 0x") != std::string::npos);             // wall_time, a double
  CHECK(listing.find("3: \"brain.Event:2\"") != std::string::npos);       // file_version
  CHECK(listing.find("record 2: 1: 0x") != std::string::npos);
  // decode_raw prints fixed-width numbers as their bits: 0.25f is 0x3e800000.
  CHECK(listing.find("2: 10 5 { 1 { 1: \"loss\" 2: 0x3e800000 } }") != std::string::npos);  // step, summary{value{tag, simple_value}}
  // histo: min -1, max 3, num 5, sum 3, sum_squares 10.5 as doubles.
  CHECK(listing.find("1: \"weights\" 5 { 1: 0xbff0000000000000 2: 0x4008000000000000 3: 0x4014000000000000 "
                     "4: 0x4008000000000000 5: 0x4025000000000000 6: ") != std::string::npos);
}

TEST_CASE("TensorFlow's default histogram buckets, with empty runs merged") {
  const auto& limits = default_bucket_limits();
  REQUIRE(limits.size() == 1551);
  CHECK(limits.front() == -DBL_MAX);
  CHECK(limits.back() == DBL_MAX);
  CHECK(limits[775] == 0.0);
  CHECK(limits[776] == 1e-12);
  CHECK(limits[777] == doctest::Approx(1.1e-12));
  tfproto::HistogramProto h;
  tf::histogram_to_proto(histogram_of(tensor::from_vector<double>({0.0, 1.0, 1.0}, {3})), &h);
  // 0 lands in [0, 1e-12); 1 in the bucket whose limit is the first above 1 (1.1^290 * 1e-12).
  // Between and around them, runs of empty buckets collapse into one entry each.
  REQUIRE(h.bucket_size() == h.bucket_limit_size());
  std::vector<std::pair<double, double>> populated;
  for (int i = 0; i < h.bucket_size(); ++i)
    if (h.bucket(i) > 0) populated.emplace_back(h.bucket_limit(i), h.bucket(i));
  REQUIRE(populated.size() == 2);
  CHECK(populated[0] == std::pair<double, double>{1e-12, 1.0});
  CHECK(populated[1].first > 1.0);
  CHECK(populated[1].first < 1.1);
  CHECK(populated[1].second == 2.0);
  CHECK(h.bucket_size() == 5);  // empty run, [0,1e-12), empty run, the bucket of 1, empty run to DBL_MAX
  CHECK(h.bucket_limit(h.bucket_size() - 1) == DBL_MAX);
  int64_t nans = 0;
  tf::histogram_to_proto(histogram_of(tensor::from_vector<float>({NAN, 2}, {2}), &nans), &h);
  CHECK(nans == 1);
  CHECK(h.num() == 1);
}

TEST_CASE("a disk that refuses writes loses no record: the file is cut back and written again") {
  caflow::testing::temp_dir dir("caflow_events_full_");
  auto w = tf::summary_writer::open(dir.file("run"), {.flush_every = std::chrono::hours(1)});
  REQUIRE(w.ok());
  const auto size_on_disk = [&] { return fs::file_size((*w)->path()); };
  const auto before = size_on_disk();
  // RLIMIT_FSIZE stands in for a full disk: writes past it fail (EFBIG, SIGXFSZ ignored).
  auto* old = ::signal(SIGXFSZ, SIG_IGN);
  rlimit saved{};
  ::getrlimit(RLIMIT_FSIZE, &saved);
  rlimit small = saved;
  small.rlim_cur = before + 100;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  for (int step = 0; step < 50; ++step) (*w)->add_scalar("loss", step, 1.0 / (step + 1));
  const status refused = (*w)->flush();
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, old);
  check_error(refused, "kept for the next try");
  CHECK(size_on_disk() == before);  // cut back to whole records
  REQUIRE((*w)->flush().ok());
  const auto events = events_in((*w)->path());
  REQUIRE(events.size() == 51);
  CHECK(events[50].step() == 49);
  CHECK(events[50].summary().value(0).simple_value() == doctest::Approx(1.0 / 50));
  CHECK((*w)->dropped_records() == 0);
}

TEST_CASE("record files: a torn or corrupt record is DATA_LOSS naming the file, record and offset") {
  std::string bytes;
  tf::append_record(bytes, "first");
  tf::append_record(bytes, "second");
  auto ok = tf::parse_records(bytes, "f");
  REQUIRE(ok.ok());
  CHECK(*ok == std::vector<std::string>{"first", "second"});
  std::string torn = bytes.substr(0, bytes.size() - 3);
  check_error(tf::parse_records(torn, "ev"), "ev: record 1 at byte 21: its 6 bytes of data and CRC run past the end");
  std::string flipped = bytes;
  flipped[14] ^= 1;
  check_error(tf::parse_records(flipped, "ev"), "ev: record 0 at byte 0: the data's CRC does not match");
  std::string bad_length = bytes;
  bad_length[0] = 9;
  check_error(tf::parse_records(bad_length, "ev"), "ev: record 0 at byte 0: the length's CRC does not match");
  check_error(tf::read_records("/nonexistent/events"), "/nonexistent/events: cannot open");
  check_error(tf::summary_writer::open("/proc/no/such/dir"), "logdir /proc/no/such/dir: cannot create");
}

TEST_CASE("summaries computed in a step and a traced step's run metadata, read back two ways") {
  caflow::testing::temp_dir dir("caflow_events_ops_");
  // What ScalarSummary + HistogramSummary + MergeSummary compute (tests/kernels/cpu/summary_ops_test
  // checks the ops); here the writer's part: a serialized Summary becomes an Event at its step.
  tfproto::Summary s;
  auto* v = s.add_value();
  v->set_tag("loss");
  v->set_simple_value(0.5f);
  tf::executed_node mul{"/job:worker/replica:0/task:0/device:CPU:0", "dense/MatMul", "MatMul",
                        1'700'000'000'000'100, 42};
  tf::executed_node add{"/job:worker/replica:0/task:0/device:CPU:0", "dense/add", "Add",
                        1'700'000'000'000'150, 3};
  tf::executed_node ps{"/job:ps/replica:0/task:0/device:CPU:0", "w", "VariableV2",
                       1'700'000'000'000'000, 1};
  std::string path;
  {
    auto w = tf::summary_writer::open(dir.file("run"));
    REQUIRE(w.ok());
    path = (*w)->path();
    REQUIRE((*w)->add_summary(s.SerializeAsString(), 7).ok());
    auto bad = (*w)->add_summary("\x0a\x09oops", 8);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.message() == "summary for step 8 (6 bytes) is not a serialized Summary");
    (*w)->add_run_metadata("step7", 7, tf::serialized_run_metadata({add, mul, ps}));
  }
  const auto events = events_in(path);
  REQUIRE(events.size() == 3);  // the version, the summary, the run metadata: nothing for step 8
  CHECK(events[1].step() == 7);
  CHECK(events[1].summary().value(0).tag() == "loss");
  CHECK(events[2].tagged_run_metadata().tag() == "step7");
  tfproto::RunMetadata md;
  REQUIRE(md.ParseFromString(events[2].tagged_run_metadata().run_metadata()));
  REQUIRE(md.step_stats().dev_stats_size() == 2);  // devices in name order
  const auto& ps_dev = md.step_stats().dev_stats(0);
  CHECK(ps_dev.device() == "/job:ps/replica:0/task:0/device:CPU:0");
  const auto& worker = md.step_stats().dev_stats(1);
  REQUIRE(worker.node_stats_size() == 2);
  CHECK(worker.node_stats(0).node_name() == "dense/MatMul");  // by start time
  CHECK(worker.node_stats(0).all_start_micros() == 1'700'000'000'000'100);
  CHECK(worker.node_stats(0).all_end_rel_micros() == 42);
  CHECK(worker.node_stats(0).timeline_label() == "dense/MatMul = MatMul()");
  CHECK(worker.node_stats(1).node_name() == "dense/add");

  const std::string listing =
      run("/usr/bin/python3 " CAFLOW_SOURCE_DIR "/tests/graph/tf/read_events.py " + path + " 2>&1; echo exit=$?");
  MESSAGE(listing);
  CHECK(listing.find("exit=0") != std::string::npos);
  CHECK(listing.find("2: 7 5 { 1 { 1: \"loss\" 2: 0x3f000000 } }") != std::string::npos);
  // Event.tagged_run_metadata = 8 { tag = 1, run_metadata = 2 (bytes: decode_raw shows them
  // as a nested message when they parse as one) }.
  CHECK(listing.find("8 { 1: \"step7\" 2 { 1 { 1 { 1: \"/job:ps/replica:0/task:0/device:CPU:0\"") !=
        std::string::npos);
}
