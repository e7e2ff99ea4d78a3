#pragma once
// What caflow-train needs of a model, so that the trainer and the replication modes do not
// know which model they run: its data, its variables, a tower over them, the defaults of the
// flags it is trained with, and the modes it supports. Each model kind has one family
// (model_family_for): the Fashion-MNIST image models (mlp, cnn, rnn; model.cpp) and the
// click-through model (wide-deep; wide_deep_model.cpp).
#include <string>
#include <vector>

#include "apps/train/data.hpp"
#include "apps/train/model.hpp"

namespace caflow::train_app {

// The model's defaults for the flags that were not given: images train differently from
// click logs.
struct model_defaults {
  int epochs = 20;
  int batch_size = 100;
  double learning_rate = 0.001;
  std::string optimizer = "adam";
  double adagrad_initial_accumulator = 0.1;
  int ps_tasks = 1;  // the embedded cluster's
};

class model_family {
 public:
  virtual ~model_family() = default;
  virtual model_defaults defaults() const = 0;
  // Whether the options suit the model (a mode it cannot run, a flag it does not take); the
  // error names the model and the flag.
  virtual status check(const train_options& o) const = 0;
  // Its training and test sets (loaded or generated).
  virtual status_or<train_data> load_data(const train_options& o) const = 0;
  // Its variables, created through `s` so that a device function there (replica_device_setter)
  // places them; `ps_tasks` (0 without a cluster) decides how many shards a partitioned table
  // has.
  virtual model_params create_params(const scope& s, const train_options& o,
                                     int ps_tasks) const = 0;
  // One tower over `params`; `layer_devices` (model parallelism, when the family supports
  // it) places its layers one by one.
  virtual tower build_tower(const scope& s, const model_params& params, uint64_t seed,
                            const std::vector<std::string>& layer_devices) const = 0;
};

const model_family& model_family_for(model_kind kind);

// The image models' family for `kind` (mlp, cnn or rnn) and the click-through model's.
const model_family& image_model_family(model_kind kind);
const model_family& wide_deep_family();

}  // namespace caflow::train_app
