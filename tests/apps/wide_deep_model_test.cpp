// --model wide-deep's graph (apps/train/wide_deep_model.hpp): tables sharded over the ps
// tasks with their lookups beside them, the logistic loss, and training in one process.
#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "actors/session/session.hpp"
#include "apps/train/auc.hpp"
#include "apps/train/model_family.hpp"
#include "apps/train/replication.hpp"
#include "apps/train/wide_deep_model.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/gradient_checker.hpp"

using namespace caflow;
using namespace caflow::train_app;

namespace {

train_options small_wide_deep(replication mode) {
  train_options o;
  o.model = model_kind::wide_deep;
  o.mode = mode;
  o.optimizer = "adagrad";
  o.learning_rate = 0.1;
  o.adagrad_initial_accumulator = 0.001;
  o.wide_deep.rows = 101;
  o.wide_deep.dim = 4;
  o.wide_deep.hidden = 8;
  o.wide_deep.columns = 3;
  return o;
}

const node_def* find_node(const graph_def& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

TEST_CASE("every table is split over both ps tasks, its gathers on the shards' tasks") {
  const train_options o = small_wide_deep(replication::sync);
  auto g = build_client_graph(o, {.mode = replication::sync, .ps_tasks = 2, .workers = 2});
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  const graph_def def = (*g)->root.to_graph_def();
  for (const std::string table : {"embedding_0", "embedding_2", "linear"}) {
    std::set<std::string> devices;
    for (int part = 0; part < 2; ++part) {
      const node_def* shard = find_node(def, "wide_deep/" + table + "/part_" + std::to_string(part));
      REQUIRE_MESSAGE(shard != nullptr, table);
      CHECK(shard->op == "VariableV2");
      devices.insert(shard->device);
    }
    const std::set<std::string> both_ps{"/job:ps/task:0", "/job:ps/task:1"};
    CHECK_MESSAGE(devices == both_ps, table);
  }
  // The linear table holds a row per (column, bucket); the embeddings' shards split 101 rows.
  const node_def* linear = find_node(def, "wide_deep/linear/part_0");
  REQUIRE(linear != nullptr);
  CHECK(linear->attrs.at("shape").get<partial_shape>() == partial_shape({152, 1}));
  const node_def* emb = find_node(def, "wide_deep/embedding_1/part_1");
  REQUIRE(emb != nullptr);
  CHECK(emb->attrs.at("shape").get<partial_shape>() == partial_shape({50, 4}));
  // Each GatherV2 of a lookup is colocated with the shard it reads (so it runs on its ps).
  int gathers = 0;
  for (const auto& n : def.nodes) {
    if (n.op != "GatherV2" || n.name.rfind("tower/", 0) != 0 ||
        n.name.find("embedding_lookup") == std::string::npos)
      continue;
    ++gathers;
    auto cls = n.attrs.find("_class");
    REQUIRE_MESSAGE(cls != n.attrs.end(), n.name);
    const auto& groups = cls->second.get<std::vector<std::string>>();
    REQUIRE(groups.size() == 1);
    CHECK_MESSAGE(groups[0].find("loc:@wide_deep/") == 0, n.name);
    CHECK_MESSAGE(groups[0].find("/part_") != std::string::npos, n.name);
  }
  CHECK(gathers == 2 * (3 + 1));  // two shards per table: three embeddings and the linear one
}

TEST_CASE("wide-deep is refused in model-parallel mode, naming the modes it runs in") {
  train_options o = small_wide_deep(replication::model_parallel);
  const status st = model_family_for(model_kind::wide_deep).check(o);
  REQUIRE_FALSE(st.ok());
  CHECK(st.message().find("--model wide-deep has no layers to spread") != std::string::npos);
}

TEST_CASE("sigmoid_cross_entropy_with_logits: TF's stable formula, and its gradient") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float64);
  auto z = ops::placeholder(root, dtype::float64);
  auto loss = sigmoid_cross_entropy_with_logits(root, z, x);
  session sess(root);
  const std::vector<double> xs{-60, -2, 0, 0.5, 3, 60}, zs{0, 1, 1, 0, 1, 0};
  auto out = sess.run({{x, tensor::from_vector<double>(xs, {6})},
                       {z, tensor::from_vector<double>(zs, {6})}},
                      {loss});
  REQUIRE(out.ok());
  for (size_t i = 0; i < xs.size(); ++i) {
    // -z log(p) - (1 - z) log(1 - p), p = sigmoid(x), in closed form where it is exact.
    const double p = 1 / (1 + std::exp(-xs[i]));
    const double expected = std::abs(xs[i]) > 30
                                ? (zs[i] == 1 ? std::max(-xs[i], 0.0) : std::max(xs[i], 0.0))
                                : -(zs[i] * std::log(p) + (1 - zs[i]) * std::log(1 - p));
    CHECK(out->at(0).data<double>()[i] == doctest::Approx(expected).epsilon(1e-9));
  }
  // d loss / d x = sigmoid(x) - z (away from x = 0, where |x| has a kink).
  testing::check_gradient(root, x, loss, tensor::from_vector<double>({-2, -0.5, 0.7, 3}, {4}),
                          {.extra_feeds = {{z, tensor::from_vector<double>({1, 0, 1, 0}, {4})}}});
}

TEST_CASE("one local session learns the planted model's ranking") {
  train_options o = small_wide_deep(replication::local);
  o.wide_deep.rows = 3000;
  o.wide_deep.vocab = 1000;
  o.wide_deep.dim = 8;
  o.wide_deep.columns = 4;
  o.wide_deep.train_examples = 60000;
  o.wide_deep.test_examples = 10000;
  auto data = model_family_for(o.model).load_data(o);
  REQUIRE_MESSAGE(data.ok(), data.get_status().to_string());
  CHECK(data->reference_auc > 0.75);
  auto g = build_client_graph(o, {});
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  const tower& t = (*g)->towers[0];
  REQUIRE(t.scores.valid());
  session sess((*g)->root);
  REQUIRE(sess.run_targets({(*g)->shared_init}).ok());
  auto batches = data->train.batches(256, {.drop_remainder = true, .shuffle = true, .seed = 3});
  REQUIRE(batches.ok());
  float first = 0, last = 0;
  for (int step = 0; step < 2 * batches->batches_per_epoch(); ++step) {
    data::batch b = batches->next();
    auto out = sess.run({{t.inputs, b.images}, {t.labels, b.labels}}, {t.loss}, {(*g)->train_op});
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    (step == 0 ? first : last) = out->at(0).data<float>()[0];
  }
  CHECK(last < first);
  auto scores = sess.run({{t.inputs, data->test.images()}}, {t.scores});
  REQUIRE(scores.ok());
  CHECK(scores->at(0).shape() == tensor_shape{10000});
  auto auc = roc_auc({scores->at(0).data<float>(), 10000},
                     {data->test.labels().data<int32_t>(), 10000});
  REQUIRE(auc.ok());
  MESSAGE("test AUC ", *auc, ", planted model's ", data->reference_auc);
  CHECK(*auc > 0.7);
  CHECK(*auc > data->reference_auc - 0.06);
}

TEST_CASE("no node on a worker reads a whole shard: only its rows cross the network") {
  const train_options o = small_wide_deep(replication::async);
  auto g = build_client_graph(o, {.mode = replication::async, .ps_tasks = 2, .workers = 2});
  REQUIRE(g.ok());
  const graph_def def = (*g)->root.to_graph_def();
  int readers = 0;
  for (const auto& n : def.nodes)
    for (const auto& in : n.inputs) {
      const auto ref = parse_input(in);
      REQUIRE(ref.ok());
      const std::string shard(ref->node);
      if (shard.rfind("wide_deep/", 0) != 0 || shard.find("/part_") == std::string::npos ||
          shard.find('/', shard.find("/part_") + 1) != std::string::npos)
        continue;
      ++readers;
      // Ops taking the variable by reference run where it is; anything else must be
      // colocated with it (the gathers, the sparse updates).
      if (n.op == "Assign" || n.op == "IsVariableInitialized") continue;
      auto cls = n.attrs.find("_class");
      const bool colocated =
          cls != n.attrs.end() &&
          cls->second.get<std::vector<std::string>>() == std::vector<std::string>{"loc:@" + shard};
      CHECK_MESSAGE(colocated, n.name, " (", n.op, ") reads ", shard, " on ", n.device);
    }
  CHECK(readers > 0);
}

TEST_CASE("tables are updated sparsely on their ps; --dense-gradients applies whole tables") {
  for (const bool dense : {false, true}) {
    train_options o = small_wide_deep(replication::async);
    o.dense_gradients = dense;
    auto g = build_client_graph(o, {.mode = replication::async, .ps_tasks = 2, .workers = 2});
    REQUIRE(g.ok());
    int sparse_updates = 0, dense_updates = 0;
    for (const auto& n : (*g)->root.to_graph_def().nodes) {
      if (n.op == "SparseApplyAdagrad") ++sparse_updates;
      if (n.op == "ApplyAdagrad") ++dense_updates;
    }
    CAPTURE(dense);
    // Two shards of each of the 3 embeddings and the linear table; 4 dense tower variables.
    CHECK(sparse_updates == (dense ? 0 : 8));
    CHECK(dense_updates == (dense ? 12 : 4));
  }
}
