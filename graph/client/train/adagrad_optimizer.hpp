#pragma once
// tf.train.AdagradOptimizer: accum += grad^2; var -= learning_rate * grad / sqrt(accum). One
// slot, "accumulator", named "<var>/Adagrad" and initialized to initial_accumulator_value.
#include "graph/client/train/optimizer.hpp"

namespace caflow::train {

struct adagrad_options {
  double initial_accumulator_value = 0.1;  // must be positive
  bool use_locking = false;
  std::string name = "Adagrad";
};

class adagrad_optimizer final : public optimizer {
 public:
  explicit adagrad_optimizer(hyperparameter learning_rate, const adagrad_options& opts = {});
  std::vector<std::string> get_slot_names() const override { return {"accumulator"}; }

 private:
  void create_slots(const scope& s, const std::vector<variable>& vars) override;
  output apply_dense(const scope& s, apply_context& ctx, const output& grad,
                     const variable& var) override;
  output apply_sparse(const scope& s, apply_context& ctx, const indexed_slices& grad,
                      const variable& var) override;

  hyperparameter learning_rate_;
  double initial_accumulator_value_;
};

}  // namespace caflow::train
