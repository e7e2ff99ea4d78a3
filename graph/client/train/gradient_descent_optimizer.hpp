#pragma once
// tf.train.GradientDescentOptimizer: var -= learning_rate * grad. No slots.
#include "graph/client/train/optimizer.hpp"

namespace caflow::train {

struct gradient_descent_options {
  bool use_locking = false;
  std::string name = "GradientDescent";
};

class gradient_descent_optimizer final : public optimizer {
 public:
  explicit gradient_descent_optimizer(hyperparameter learning_rate,
                                      const gradient_descent_options& opts = {});

 private:
  output apply_dense(const scope& s, apply_context& ctx, const output& grad,
                     const variable& var) override;
  output apply_sparse(const scope& s, apply_context& ctx, const indexed_slices& grad,
                      const variable& var) override;
  bool sums_duplicate_indices() const override { return true; }

  hyperparameter learning_rate_;
};

}  // namespace caflow::train
