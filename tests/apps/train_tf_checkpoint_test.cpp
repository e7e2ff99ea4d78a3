// caflow-train --checkpoint-format tf: beside each of caflow's checkpoints, TensorFlow's bundle
// model.ckpt-N and its `checkpoint` state file, holding every variable with the values caflow's
// own checkpoint holds; bundles of pruned checkpoints go with them.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "graph/ir/checkpoint_reader.hpp"
#include "graph/tf/tensor_bundle.hpp"
#include "test_util/temp_dir.hpp"
#include "test_util/train_app.hpp"

using namespace caflow;
using namespace caflow::testing;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST_CASE("caflow-train --checkpoint-format tf writes TensorFlow's bundles beside its own") {
  if (!have_fashion_mnist()) return;
  temp_dir dir("caflow_tf_ckpt_");
  child_process p({CAFLOW_TRAIN_BINARY, "--mode", "local", "--model", "mlp", "--epochs", "1",
                   "--checkpoint-dir", dir.path.string(), "--checkpoint-every", "200",
                   "--keep-checkpoints", "2", "--checkpoint-format", "tf"});
  REQUIRE(exit_code(p, 240s) == 0);
  CHECK(p.output().find("caflow-train: saved TensorFlow checkpoint " + dir.file("model.ckpt-600")) !=
        std::string::npos);
  // 600 steps, a checkpoint every 200, two kept: 400 and 600.
  CHECK(fs::exists(dir.file("model.ckpt-600.index")));
  CHECK(fs::exists(dir.file("model.ckpt-400.data-00000-of-00001")));
  CHECK_FALSE(fs::exists(dir.file("model.ckpt-200.index")));
  std::ifstream state(dir.file("checkpoint"));
  const std::string text{std::istreambuf_iterator<char>(state), {}};
  CHECK(text == "model_checkpoint_path: \"model.ckpt-600\"\n"
                "all_model_checkpoint_paths: \"model.ckpt-400\"\n"
                "all_model_checkpoint_paths: \"model.ckpt-600\"\n");

  auto bundle = tf::bundle_reader::open(dir.file("model.ckpt-600"));
  REQUIRE_MESSAGE(bundle.ok(), bundle.get_status().to_string());
  auto ours = checkpoint_reader::open({dir.file("ckpt-600.shard-0-of-1")});
  REQUIRE_MESSAGE(ours.ok(), ours.get_status().to_string());
  CHECK(bundle->entries().size() >= 5);  // global_step, two layers' kernels and biases, Adam's slots
  CHECK(bundle->contains("global_step"));
  for (const auto& [key, entry] : bundle->entries()) {
    CAPTURE(key);
    auto t = bundle->read(key);
    REQUIRE_MESSAGE(t.ok(), t.get_status().to_string());
    auto same = ours->lookup(key, "", t->type());
    REQUIRE_MESSAGE(same.ok(), same.get_status().to_string());
    CHECK(*same == *t);
  }
}

TEST_CASE("a partitioned variable is written as TensorFlow's Saver writes it: slices of its full name") {
  // wide-deep: embeddings partitioned over two ps tasks, generated data (no data set needed).
  temp_dir dir("caflow_tf_ckpt_wd_");
  child_process p({CAFLOW_TRAIN_BINARY, "--model", "wide-deep", "--epochs", "1", "--wd-rows", "1000",
                   "--wd-vocab", "800", "--wd-train-examples", "2000", "--wd-test-examples", "500",
                   "--checkpoint-dir", dir.path.string(), "--checkpoint-format", "tf"});
  REQUIRE(exit_code(p, 240s) == 0);
  const std::vector<int64_t> steps = [&] {
    std::vector<int64_t> s;
    for (const auto& e : fs::directory_iterator(dir.path))
      if (e.path().filename().string().starts_with("ckpt-") && e.path().extension() == ".index")
        s.push_back(std::stoll(e.path().stem().string().substr(5)));
    return s;
  }();
  REQUIRE(steps.size() == 1);
  const std::string step = std::to_string(steps[0]);
  auto bundle = tf::bundle_reader::open(dir.file("model.ckpt-" + step));
  REQUIRE_MESSAGE(bundle.ok(), bundle.get_status().to_string());
  std::vector<std::string> shards;
  for (const auto& e : fs::directory_iterator(dir.path))
    if (e.path().filename().string().starts_with("ckpt-" + step + ".shard-")) shards.push_back(e.path().string());
  REQUIRE(shards.size() == 2);
  auto ours = checkpoint_reader::open(shards);
  REQUIRE_MESSAGE(ours.ok(), ours.get_status().to_string());
  int whole_embeddings = 0;
  for (const auto& [key, entry] : bundle->entries()) {
    if (tf::is_bundle_slice_key(key)) continue;  // a slice's bytes, read through its tensor
    CAPTURE(key);
    auto t = bundle->read(key);
    REQUIRE_MESSAGE(t.ok(), t.get_status().to_string());
    auto same = ours->lookup(key, "", t->type());  // caflow's reader puts the shards together
    REQUIRE_MESSAGE(same.ok(), same.get_status().to_string());
    CHECK(*same == *t);
    if (t->rank() == 2 && t->dim(0) == 1000) {
      ++whole_embeddings;
      CHECK(entry.slices.size() == 2);  // one slice per ps task's shard
    }
  }
  CHECK(whole_embeddings >= 4);  // one per column at least (more with optimizer slots)
}
