#pragma once
// tf.train.MomentumOptimizer: accum = momentum * accum + grad; var -= learning_rate * accum
// (Nesterov: var -= learning_rate * (grad + momentum * accum)). One slot, "momentum", named
// "<var>/Momentum" and initialized to zeros.
#include "graph/client/train/optimizer.hpp"

namespace caflow::train {

struct momentum_options {
  bool use_locking = false;
  bool use_nesterov = false;
  std::string name = "Momentum";
};

class momentum_optimizer final : public optimizer {
 public:
  momentum_optimizer(hyperparameter learning_rate, hyperparameter momentum,
                     const momentum_options& opts = {});
  std::vector<std::string> get_slot_names() const override { return {"momentum"}; }

 private:
  void create_slots(const scope& s, const std::vector<variable>& vars) override;
  output apply_dense(const scope& s, apply_context& ctx, const output& grad,
                     const variable& var) override;
  output apply_sparse(const scope& s, apply_context& ctx, const indexed_slices& grad,
                      const variable& var) override;

  hyperparameter learning_rate_, momentum_;
  bool use_nesterov_;
};

}  // namespace caflow::train
