#pragma once
// tf.train.RMSPropOptimizer (not centered):
//   rms = decay * rms + (1 - decay) * grad^2
//   mom = momentum * mom + learning_rate * grad / sqrt(rms + epsilon)
//   var -= mom
// Slots "rms" ("<var>/RMSProp", initialized to ones, as TensorFlow 1.x does) and "momentum"
// ("<var>/RMSProp_1", zeros).
#include "graph/client/train/optimizer.hpp"

namespace caflow::train {

struct rmsprop_options {
  hyperparameter decay = 0.9;
  hyperparameter momentum = 0.0;
  hyperparameter epsilon = 1e-10;
  bool use_locking = false;
  std::string name = "RMSProp";
};

class rmsprop_optimizer final : public optimizer {
 public:
  explicit rmsprop_optimizer(hyperparameter learning_rate, const rmsprop_options& opts = {});
  std::vector<std::string> get_slot_names() const override { return {"rms", "momentum"}; }

 private:
  void create_slots(const scope& s, const std::vector<variable>& vars) override;
  output apply_dense(const scope& s, apply_context& ctx, const output& grad,
                     const variable& var) override;
  output apply_sparse(const scope& s, apply_context& ctx, const indexed_slices& grad,
                      const variable& var) override;

  hyperparameter learning_rate_, decay_, momentum_, epsilon_;
};

}  // namespace caflow::train
