#pragma once
// caflow-train's models, split into parameters and a forward pass so that in-graph
// replication can run one tower per worker on shared parameters. Each kind's family
// (model_family.hpp) builds them; the Fashion-MNIST ones are:
//   mlp: 784 -> 256 -> 128 -> 100 -> 10, ReLU (the dataset README's MLPClassifier 256-128-100)
//   cnn: TF's benchmark/convnet.py: conv 5x5x32 SAME + ReLU, max-pool 2, conv 5x5x64 SAME +
//        ReLU, max-pool 2, dense 1024 + ReLU, dropout 0.4, dense 10
//   rnn: an LSTM of 128 units over the image's 28 rows (a while_loop, TF's dynamic_rnn), dense 10
// and wide-deep is the click-through model of wide_deep_model.hpp.
#include <cstdint>

#include "apps/train/options.hpp"
#include "graph/client/train/partitioned_variable.hpp"
#include "graph/client/train/variables.hpp"

namespace caflow::train_app {

struct model_params {
  model_kind kind = model_kind::mlp;
  std::vector<train::variable> weights;  // kernel, bias per layer, in layer order
  // Tables split over the ps tasks (wide-deep's embeddings); their shards are not in weights.
  std::vector<train::partitioned_variable> tables;
  // Everything trained: the weights, then every table's shards.
  std::vector<train::variable> trainable() const;
};

// Creates an image model's variables (glorot-uniform kernels, zero biases) through `s`, so a
// device function there (replica_device_setter) places them.
model_params create_params(const scope& s, model_kind kind, uint64_t seed);

// One tower: its inputs and what it computes.
struct tower {
  output inputs;    // placeholder: float32 [batch, 28, 28, 1] images, or wide-deep's int64
                    // [batch, columns] feature ids
  output labels;    // int32 [batch] placeholder
  output training;  // bool scalar, default false: turns dropout on
  output logits;    // [batch, classes] (wide-deep: [batch], the click logit)
  output loss;      // mean cross entropy, scalar
  output correct;   // int32 scalar: how many predictions equal the label
  // Binary classifiers only (wide-deep): float32 [batch], the probability of label 1, from
  // which the test AUC is computed. Invalid for the image models.
  output scores;
};

// An image model's tower. `layer_devices` (optional) places the model's four layers one by one, for model
// parallelism: e.g. the first two on one worker and the last two on another.
tower build_tower(const scope& s, const model_params& params, uint64_t seed,
                  const std::vector<std::string>& layer_devices = {});

}  // namespace caflow::train_app
