#pragma once
// tf.train.AdamOptimizer (Kingma & Ba):
//   lr_t = learning_rate * sqrt(1 - beta2^t) / (1 - beta1^t)
//   m = beta1 * m + (1 - beta1) * grad;  v = beta2 * v + (1 - beta2) * grad^2
//   var -= lr_t * m / (sqrt(v) + epsilon)
// Slots "m" ("<var>/Adam") and "v" ("<var>/Adam_1"), zeros. beta1^t and beta2^t live in two
// variables of the optimizer, "beta1_power" and "beta2_power" (colocated with the first
// variable by name, initialized to beta1 and beta2), multiplied by beta1 and beta2 after every
// step's updates.
#include "graph/client/train/optimizer.hpp"

namespace caflow::train {

struct adam_options {
  hyperparameter learning_rate = 0.001;
  hyperparameter beta1 = 0.9;
  hyperparameter beta2 = 0.999;
  hyperparameter epsilon = 1e-8;
  bool use_locking = false;
  std::string name = "Adam";
};

class adam_optimizer final : public optimizer {
 public:
  explicit adam_optimizer(const adam_options& opts = {});
  std::vector<std::string> get_slot_names() const override { return {"m", "v"}; }
  // beta1^t and beta2^t (invalid before the first apply_gradients).
  variable beta1_power() const { return get_non_slot("beta1_power"); }
  variable beta2_power() const { return get_non_slot("beta2_power"); }

 private:
  void create_slots(const scope& s, const std::vector<variable>& vars) override;
  output apply_dense(const scope& s, apply_context& ctx, const output& grad,
                     const variable& var) override;
  output apply_sparse(const scope& s, apply_context& ctx, const indexed_slices& grad,
                      const variable& var) override;
  std::vector<operation> finish(const scope& s, apply_context& ctx) override;

  hyperparameter learning_rate_, beta1_, beta2_, epsilon_;
};

}  // namespace caflow::train
