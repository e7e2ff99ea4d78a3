// Checkpoints of partitioned variables on an in-process cluster of 2 ps tasks and 1 worker, as
// tf.train.Saver with save_slice_info: each shard saved by its own ps task under the full name
// with its slice, restored into another number of shards (3->2, 2->3, 3->1, 1->3) with every
// row checked, each restore on its shard's device; and a checkpoint of another full shape or
// dtype refused, naming the variable and both shapes, with no variable changed.
#include <doctest/doctest.h>

#include <set>

#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/initializers.hpp"
#include "graph/client/train/partitioned_variable.hpp"
#include "graph/client/train/replica_device_setter.hpp"
#include "graph/client/train/saver.hpp"
#include "graph/ir/checkpoint_file.hpp"
#include "test_util/in_process_cluster.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::temp_dir;

namespace {

// One cluster for the whole file: ps 0, ps 1, worker 0.
const std::vector<std::unique_ptr<server>>& cluster() {
  static auto servers = caflow::testing::start_in_process_cluster(2, 1);
  REQUIRE_MESSAGE(servers.ok(), servers.get_status().to_string());
  return *servers;
}

std::string fresh_container() {
  static int models = 0;
  return "model_" + std::to_string(models++);
}

scope ps_root() {
  return scope::new_root().with_device_function(
      train::replica_device_setter({.ps_tasks = 2, .worker_device = "/job:worker/task:0"}));
}

// A model as a between-graph client builds it: "w" (a plain variable) and "emb" [rows, 4],
// partitioned into `shards` shards, or one plain variable when `shards` is 0, placed over the
// 2 ps tasks by replica_device_setter. Initial values: iota from `start`.
template <class T = float>
struct model {
  scope root = ps_root();
  train::variable w;
  train::partitioned_variable emb;  // shards == 0: emb.shards holds the one plain variable
  train::variable_set vars;
  operation init;
  std::unique_ptr<train::saver> saver;
  std::unique_ptr<session> sess;

  model(int shards, T start, int64_t rows = 10) {
    // The ps tasks keep variables by container and name across sessions, as TF's servers do:
    // each model gets its own container, as if each ran on a fresh cluster.
    const train::variable_attrs attrs{.container = fresh_container()};
    const auto f = static_cast<float>(start);
    w = train::create_variable(root, "w", ops::constant(root, std::vector<float>{f, f}, {2}),
                               attrs);
    const output full = ops::constant(root, iota<T>({rows, 4}, start));
    if (shards > 0) {
      emb = train::create_partitioned_variable(root, "emb", full,
                                               train::fixed_size_partitioner(shards), attrs);
    } else {
      emb.name = "emb";
      emb.shards = {train::create_variable(root, "emb", full, attrs)};
      emb.offsets = {0};
    }
    vars.add(w);
    vars.add(emb.shards);
    init = train::global_variables_initializer(root, vars);
    saver = std::make_unique<train::saver>(root, vars);
    REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
    sess = std::make_unique<session>(root, session_options{.target = cluster()[2]->target()});
    const status st = sess->run_targets({init});
    REQUIRE_MESSAGE(st.ok(), st.to_string());
  }

  std::string device_of(const output& o) const { return root.find_node(o.node)->device; }

  // The whole variable, shard by shard: rows [offset, offset + rows) of each.
  std::vector<T> read_rows() {
    std::vector<T> all;
    for (size_t i = 0; i < emb.shards.size(); ++i) {
      auto v = sess->run({emb.shards[i].ref});
      REQUIRE_MESSAGE(v.ok(), v.get_status().to_string());
      const auto part = v->at(0).template to_vector<T>();
      CHECK(v->at(0).dim(0) * 4 == static_cast<int64_t>(part.size()));
      CHECK(static_cast<int64_t>(all.size()) == emb.offsets[i] * 4);
      all.insert(all.end(), part.begin(), part.end());
    }
    return all;
  }
  std::vector<float> read_w() { return sess->run({w.ref})->at(0).template to_vector<float>(); }
};

std::vector<float> iota_rows(int64_t rows, float start) {
  return iota<float>({rows, 4}, start).to_vector<float>();
}

// Saves a model of `from` shards with values 0..39 and restores it into one of `to` shards
// initialized to 1000..1039: every row must come back.
void round_trip(int from, int to) {
  CAPTURE(from);
  CAPTURE(to);
  temp_dir dir("caflow_partitioned_saver_test_");
  model saved(from, 0.0f);
  REQUIRE(saved.saver->save(*saved.sess, dir.path.string(), 7).ok());

  model restored(to, 1000.0f);
  CHECK(restored.read_rows() == iota_rows(10, 1000));
  auto r = restored.saver->restore_latest(*restored.sess, dir.path.string());
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  CHECK(r->step == 7);
  CHECK(restored.read_rows() == iota_rows(10, 0));
  CHECK(restored.read_w() == std::vector<float>{0, 0});
  const auto whole = restored.sess->run({restored.emb.as_tensor(restored.root)});
  REQUIRE(whole.ok());
  check_tensor(whole->at(0), {10, 4}, iota_rows(10, 0));
}

}  // namespace

TEST_CASE("each ps task saves its shards under the full name with their slices") {
  temp_dir dir("caflow_partitioned_saver_test_");
  model m(3, 0.0f);
  // Round robin: w on ps 0, then emb/part_0 on ps 1, part_1 on ps 0, part_2 on ps 1.
  CHECK(m.device_of(m.w.ref) == "/job:ps/task:0");
  CHECK(m.device_of(m.emb.shards[0].ref) == "/job:ps/task:1");
  CHECK(m.device_of(m.emb.shards[1].ref) == "/job:ps/task:0");
  CHECK(m.saver->num_shards() == 2);
  REQUIRE(m.saver->save(*m.sess, dir.path.string(), 1).ok());

  auto ps0 = checkpoint::read_tensors(dir.file(checkpoint::shard_file_name(1, 0, 2)));
  auto ps1 = checkpoint::read_tensors(dir.file(checkpoint::shard_file_name(1, 1, 2)));
  REQUIRE(ps0.ok());
  REQUIRE(ps1.ok());
  REQUIRE(ps0->size() == 2);
  CHECK(ps0->at(0).first == "w");
  CHECK(ps0->at(1).first == "emb:10 4 4,3:-");
  check_tensor(ps0->at(1).second, {3, 4}, iota<float>({3, 4}, 16).to_vector<float>());
  REQUIRE(ps1->size() == 2);
  CHECK(ps1->at(0).first == "emb:10 4 0,4:-");
  check_tensor(ps1->at(0).second, {4, 4}, iota_rows(4, 0));
  CHECK(ps1->at(1).first == "emb:10 4 7,3:-");
  check_tensor(ps1->at(1).second, {3, 4}, iota<float>({3, 4}, 28).to_vector<float>());

  // Each shard's attr says where it lies; the saver reads it.
  const auto attr = m.root.find_node(m.emb.shards[2].name())->attrs.at("_save_slice_info");
  CHECK(attr.get<std::vector<std::string>>() == std::vector<std::string>{"emb", "10 4 7,3:-"});
}

TEST_CASE("restore into another number of shards: 3->2, 2->3, 3->1, 1->3, 1->1") {
  round_trip(3, 2);
  round_trip(2, 3);
  round_trip(3, 1);
  round_trip(1, 3);
  round_trip(3, 0);  // into one unpartitioned variable
  round_trip(0, 3);  // from one
  round_trip(0, 0);
}

TEST_CASE("each shard's RestoreV2 runs on the shard's device and asks for its rows only") {
  model m(3, 0.0f);
  std::map<std::string, std::set<std::string>> slices_by_device;
  for (const auto& n : m.root.to_graph_def().nodes) {
    if (n.op != "RestoreV2") continue;
    for (const auto& s : n.attrs.at("shape_and_slices").get<std::vector<std::string>>())
      slices_by_device[n.device].insert(s);
  }
  CHECK(slices_by_device["/job:ps/task:1"] == std::set<std::string>{"10 4 0,4:-", "10 4 7,3:-"});
  CHECK(slices_by_device["/job:ps/task:0"] == std::set<std::string>{"2 -", "10 4 4,3:-"});
  CHECK(slices_by_device.size() == 2);
}

TEST_CASE("a checkpoint of another full shape or dtype is refused and changes nothing") {
  temp_dir dir("caflow_partitioned_saver_test_");
  {
    model saved(3, 0.0f);
    REQUIRE(saved.saver->save(*saved.sess, dir.path.string(), 3).ok());
  }
  // 12 rows instead of 10. "w" would restore fine, but no Assign runs unless all can.
  model wider(2, 500.0f, 12);
  auto r = wider.saver->restore_latest(*wider.sess, dir.path.string());
  check_error(r, "variable 'emb' has full shape [12,4], but the checkpoint holds it with full "
                 "shape [10,4] (checkpoint files '" + dir.file("ckpt-3.shard-0-of-2") + "', '" +
                 dir.file("ckpt-3.shard-1-of-2") + "')");
  CHECK(wider.read_rows() == iota_rows(12, 500));
  CHECK(wider.read_w() == std::vector<float>{500, 500});

  model<double> other_type(2, 500.0);
  auto d = other_type.saver->restore_latest(*other_type.sess, dir.path.string());
  check_error(d, "hold 'emb' as float32[10,4], expected float64");
  CHECK(other_type.read_rows() == iota<double>({10, 4}, 500).to_vector<double>());

  // An unpartitioned variable of another shape is refused the same way.
  model plain(0, 500.0f, 8);
  check_error(plain.saver->restore_latest(*plain.sess, dir.path.string()),
              "variable 'emb' has full shape [8,4]");
  CHECK(plain.read_rows() == iota_rows(8, 500));
}

TEST_CASE("a missing shard file is named; a shard's slice must match its shape") {
  temp_dir dir("caflow_partitioned_saver_test_");
  model saved(3, 0.0f);
  REQUIRE(saved.saver->save(*saved.sess, dir.path.string(), 4).ok());
  const std::string gone = dir.file(checkpoint::shard_file_name(4, 1, 2));
  std::filesystem::remove(gone);
  auto r = saved.saver->restore_latest(*saved.sess, dir.path.string());
  check_error(r, "lacks its shard file '" + gone + "'");

  // A shard variable whose attr disagrees with its shape is caught when the saver is built.
  auto root = scope::new_root();
  auto v = train::create_variable(root, "x", tensor_shape{3, 4}, dtype::float32,
                                  train::zeros_initializer(),
                                  {.save_slice_info = {"x_full", "10 4 0,4:-"}});
  train::saver bad(root, train::variable_set{v});
  check_error(root.get_status(),
              "saver: variable 'x' has shape [3,4], but its slice '10 4 0,4:-' of 'x_full' is [4,4]");
}
