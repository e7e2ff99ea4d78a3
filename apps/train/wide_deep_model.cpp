#include "apps/train/wide_deep_model.hpp"

#include <cmath>
#include <memory>

#include "graph/client/ops/ops.hpp"
#include "graph/client/train/embedding_lookup.hpp"
#include "graph/client/train/initializers.hpp"
#include "graph/client/train/partitioners.hpp"

namespace caflow::train_app {
namespace {

// Truncated normal of stddev `stddev`. A partitioned table calls the initializer once per
// shard: each call takes the next seed2, so the shards draw different values (the same seed
// pair would give every shard of equal shape the same rows).
train::initializer scaled_truncated_normal(double stddev, int64_t seed) {
  auto calls = std::make_shared<int64_t>(0);
  return [=](const scope& s, const tensor_shape& shape, dtype type) {
    const output draw = ops::truncated_normal(s, std::vector<int64_t>(shape.dims().begin(), shape.dims().end()), type,
                                              {.seed = seed, .seed2 = ++*calls});
    return ops::mul(s, draw, ops::cast(s, ops::constant(s, stddev), type));
  };
}

output dense(const scope& s, const output& x, const train::variable& kernel,
             const train::variable& bias) {
  return ops::bias_add(s, ops::mat_mul(s, x, kernel), bias);
}

}  // namespace

model_params create_wide_deep_params(const scope& s, const wide_deep_flags& f, int ps_tasks,
                                     uint64_t seed) {
  model_params p;
  p.kind = model_kind::wide_deep;
  const auto shards = train::fixed_size_partitioner(std::max(1, ps_tasks));
  int64_t next_seed = static_cast<int64_t>(seed) * 1000;
  const scope ws = s.new_sub_scope("wide_deep");
  for (int c = 0; c < f.columns; ++c)
    p.tables.push_back(train::create_partitioned_variable(
        ws, "embedding_" + std::to_string(c), tensor_shape{f.rows, f.dim}, dtype::float32,
        scaled_truncated_normal(1.0 / std::sqrt(static_cast<double>(f.dim)), ++next_seed),
        shards));
  p.tables.push_back(train::create_partitioned_variable(
      ws, "linear", tensor_shape{f.columns * f.rows, 1}, dtype::float32,
      train::zeros_initializer(), shards));
  const int64_t concat_width = int64_t{f.columns} * f.dim;
  for (const auto& [name, kernel] :
       {std::pair{"hidden", tensor_shape{concat_width, f.hidden}},
        std::pair{"logit", tensor_shape{f.hidden, 1}}}) {
    const scope ls = ws.new_sub_scope(name);
    p.weights.push_back(train::create_variable(ls, "kernel", kernel, dtype::float32,
                                               train::glorot_uniform_initializer(++next_seed)));
    p.weights.push_back(train::create_variable(ls, "bias", tensor_shape{kernel.dim(1)},
                                               dtype::float32, train::zeros_initializer()));
  }
  return p;
}

output sigmoid_cross_entropy_with_logits(const scope& s, const output& labels,
                                         const output& logits) {
  const scope xs = s.new_sub_scope("logistic_loss");
  return ops::add(xs, ops::sub(xs, ops::relu(xs, logits), ops::mul(xs, logits, labels)),
                  ops::softplus(xs, ops::neg(xs, ops::abs(xs, logits))));
}

tower build_wide_deep_tower(const scope& s, const model_params& p) {
  tower t;
  const auto columns = static_cast<int>(p.tables.size()) - 1;
  const int64_t rows = p.tables[0].shape.dim(0);
  t.inputs = ops::placeholder(s.with_op_name("feature_ids"), dtype::int64,
                              {.shape = partial_shape({-1, columns})});
  t.labels = ops::placeholder(s.with_op_name("labels"), dtype::int32,
                              {.shape = partial_shape({-1})});
  // No dropout: the flag is fed by the trainer, and kept so every model's tower looks alike.
  t.training = ops::placeholder_with_default(s.with_op_name("training"),
                                             ops::constant(s, false), partial_shape({}));
  // Deep: one lookup per column, concatenated.
  const scope ds = s.new_sub_scope("deep");
  std::vector<output> embedded;
  for (int c = 0; c < columns; ++c) {
    const output ids = ops::gather(ds, t.inputs, ops::constant(ds, c), ops::constant(ds, 1));
    embedded.push_back(nn::embedding_lookup(ds, p.tables[c], ids));
  }
  const output hidden =
      ops::relu(ds, dense(ds.new_sub_scope("hidden"), ops::concat(ds, embedded, 1), p.weights[0],
                          p.weights[1]));
  const output deep =
      ops::reshape(ds, dense(ds.new_sub_scope("logit"), hidden, p.weights[2], p.weights[3]), {-1});
  // Wide: column c's ids at rows c*rows + id of the one linear table.
  const scope ws = s.new_sub_scope("wide");
  std::vector<int64_t> offsets;
  for (int c = 0; c < columns; ++c) offsets.push_back(c * rows);
  const output linear_ids =
      ops::add(ws, t.inputs, ops::constant(ws, offsets, tensor_shape{columns}));
  const output wide =
      ops::sum(ws, nn::embedding_lookup(ws, p.tables[columns], linear_ids), {1, 2});
  t.logits = ops::add(s.with_op_name("logit"), deep, wide);

  const scope ls = s.new_sub_scope("loss");
  const output labels = ops::cast(ls, t.labels, dtype::float32);
  t.loss = ops::mean(ls, sigmoid_cross_entropy_with_logits(ls, labels, t.logits), {0});
  const scope as = s.new_sub_scope("accuracy");
  const output predicted =
      ops::cast(as, ops::greater(as, t.logits, ops::constant(as, 0.0f)), dtype::int32);
  t.correct =
      ops::sum(as, ops::cast(as, ops::equal(as, predicted, t.labels), dtype::int32), {0});
  t.scores = ops::sigmoid(s.with_op_name("score"), t.logits);
  return t;
}

}  // namespace caflow::train_app
