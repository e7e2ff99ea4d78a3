// caflow-train --logdir: the chief's TensorBoard event file holds the graph, the scalars every
// --summary-every steps, the trainable variables' histograms every --histogram-every steps,
// the run metadata of a traced step every --trace-every steps, and each epoch's test accuracy;
// a logdir that cannot be made is refused before training.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <set>

#include "graph/tf/proto/event.pb.h"
#include "graph/tf/proto/step_stats.pb.h"
#include "graph/tf/record_file.hpp"
#include "test_util/temp_dir.hpp"
#include "test_util/train_app.hpp"

using namespace caflow;
using namespace caflow::testing;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST_CASE("caflow-train --logdir writes the events TensorBoard shows") {
  if (!have_fashion_mnist()) return;
  temp_dir dir("caflow_logdir_");
  child_process p({CAFLOW_TRAIN_BINARY, "--mode", "local", "--model", "mlp", "--epochs", "1",
                   "--logdir", dir.file("tb"), "--summary-every", "50", "--histogram-every", "150",
                   "--trace-every", "250"});
  REQUIRE(exit_code(p, 240s) == 0);
  CHECK(p.output().find("caflow-train: TensorBoard events in " + dir.file("tb") + "/events.out.tfevents.") !=
        std::string::npos);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir.file("tb"))) files.push_back(e.path());
  REQUIRE(files.size() == 1);
  auto records = tf::read_records(files[0].string());
  REQUIRE_MESSAGE(records.ok(), records.get_status().to_string());
  std::map<std::string, std::set<int64_t>> scalars, histograms;  // tag -> steps
  bool graph = false;
  std::map<std::string, std::set<std::string>> traced_ops;  // run metadata tag -> ops seen
  for (const std::string& r : *records) {
    tfproto::Event e;
    REQUIRE(e.ParseFromString(r));
    if (!e.graph_def().empty()) graph = true;
    if (e.has_tagged_run_metadata()) {
      tfproto::RunMetadata md;
      REQUIRE(md.ParseFromString(e.tagged_run_metadata().run_metadata()));
      CHECK(e.step() == std::stoll(e.tagged_run_metadata().tag().substr(4)));
      for (const auto& dev : md.step_stats().dev_stats()) {
        CHECK(dev.device().find("CPU:0") != std::string::npos);
        for (const auto& n : dev.node_stats()) {
          CHECK(n.all_start_micros() > 1'700'000'000'000'000);
          const std::string label = n.timeline_label();
          traced_ops[e.tagged_run_metadata().tag()].insert(label.substr(label.find(" = ") + 3));
        }
      }
    }
    for (const auto& v : e.summary().value()) {
      if (v.has_histo()) {
        histograms[v.tag()].insert(e.step());
        CHECK(v.histo().num() > 0);
      } else {
        scalars[v.tag()].insert(e.step());
      }
    }
  }
  CHECK(graph);
  // --trace-every 250: steps 250 and 500 traced, each with the MLP's matmuls in it.
  REQUIRE(traced_ops.size() == 2);
  CHECK(traced_ops.count("step250") == 1);
  CHECK(traced_ops.count("step500") == 1);
  for (const auto& [tag, ops] : traced_ops) {
    CAPTURE(tag);
    CHECK(ops.size() > 5);
    CHECK((ops.count("MatMul()") == 1 || ops.count("_FusedMatMul()") == 1));
  }
  // One epoch of 60,000 images in batches of 100: steps 0..599.
  const std::set<int64_t> every_50{0, 50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 550};
  for (const std::string tag : {"loss", "accuracy", "learning_rate"}) {
    CAPTURE(tag);
    CHECK(scalars[tag] == every_50);
  }
  for (const std::string tag : {"samples_per_second", "global_step_per_second"}) {
    CAPTURE(tag);
    CHECK(scalars[tag].size() == every_50.size() - 1);  // a rate needs an interval
  }
  CHECK(scalars["test_accuracy"].size() == 1);
  REQUIRE(!histograms.empty());
  for (const auto& [tag, steps] : histograms) {
    CAPTURE(tag);
    CHECK(steps == std::set<int64_t>{0, 150, 300, 450});
  }
}

TEST_CASE("a logdir that cannot be made is an error before training") {
  child_process p({CAFLOW_TRAIN_BINARY, "--mode", "local", "--model", "mlp", "--epochs", "1",
                   "--logdir", "/proc/caflow/no"});
  CHECK(exit_code(p, 120s) == 1);
  CHECK(p.output().find("logdir /proc/caflow/no: cannot create") != std::string::npos);
}
