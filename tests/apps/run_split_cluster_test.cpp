// A real model split across two worker processes: caflow-run puts MobileFaceNet's last stage and
// its head on worker 1 of a three-process cluster (one ps, two workers) with --place; its output
// must equal the local run's bit for bit, and the console must show the partitions of both tasks.
#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "apps/run/model_inputs.hpp"
#include "apps/run/placement_rules.hpp"
#include "apps/run/run_report.hpp"
#include "graph/tf/npy.hpp"
#include "test_util/caflow_run.hpp"
#include "test_util/console_run.hpp"
#include "test_util/temp_dir.hpp"
#include "test_util/tfjs_golden.hpp"
#include "test_util/three_process_cluster.hpp"

using namespace caflow;
using caflow::testing::caflow_run;
using caflow::testing::has_row;

namespace {

const char* const split = "stage4=/job:worker/task:1,dense=/job:worker/task:1,batchnorm0=/job:worker/task:1";

tensor read(const std::string& path) {
  auto t = tf::read_npy(path);
  REQUIRE_MESSAGE(t.ok(), t.get_status().to_string());
  return *t;
}

bool bitwise_equal(const tensor& a, const tensor& b) {
  return a.type() == b.type() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
}

}  // namespace

TEST_CASE("MobileFaceNet split over two worker processes equals the local run bit for bit") {
  const auto model = caflow::testing::model_cache() / "human-models" / "mobileface.json";
  CAFLOW_REQUIRE_MODEL(model);
  caflow::testing::temp_dir dir("caflow_run_split_");
  const std::string out_name = run_app::npy_file_name("batchnorm0/add_1:0");

  // One intra-op thread, as the servers run: Eigen may split a contraction's inner dimension
  // across threads, so the order of a sum, and its last bits, follow the thread count.
  auto local = caflow_run({model.string(), "--batch", "2", "--threads", "1", "--output-dir", dir.file("local")});
  MESSAGE(local.output);
  REQUIRE(local.exit_code == 0);

  caflow::testing::three_process_cluster c;
  REQUIRE(c.ready());
  auto remote = caflow_run({model.string(), "--batch", "2", "--target", c.target(), "--place", split,
                            "--output-dir", dir.file("split"), "--log-device-placement"});
  MESSAGE(remote.output);
  REQUIRE(remote.exit_code == 0);
  CHECK(remote.output.find("place stage4* on /job:worker/task:1: ") != std::string::npos);
  CHECK(remote.output.find("/job:worker/replica:0/task:1/device:CPU:0") != std::string::npos);

  const tensor a = read(dir.file("local/" + out_name));
  const tensor b = read(dir.file("split/" + out_name));
  CHECK(a.shape() == tensor_shape{2, 256});
  CHECK_MESSAGE(bitwise_equal(a, b), "local " << a.debug_string() << " vs split " << b.debug_string());

  // The console, while a session holds the same split: partitions on both workers.
  auto imported = tf::import_graph_def(model.string());
  REQUIRE(imported.ok());
  std::vector<std::string> notes;
  auto feeds = run_app::make_feeds(&*imported, {.batch = 2}, &notes);
  REQUIRE(feeds.ok());
  auto rules = run_app::parse_placement_rules(split);
  REQUIRE(rules.ok());
  REQUIRE(run_app::apply_placement_rules(*rules, &imported->graph).ok());
  session sess(caflow::testing::remote(c.target()));
  REQUIRE(sess.extend(imported->graph).ok());
  auto out = sess.run_named(*feeds, {"batchnorm0/add_1:0"});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  CHECK(bitwise_equal(out->at(0), a));
  auto console = caflow::testing::run_console(c.address(1), "graphs");
  MESSAGE(console.output);
  REQUIRE(console.exit_code == 0);
  for (const char* task : {"/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"})
    CHECK(has_row(console.output, {"/job:worker/replica:0/task:0", "session_\\d+", "\\d+", task,
                                   std::string(task) + "/device:CPU:0", "\\d+"}));
}
