#pragma once
// Optimizers, as in TensorFlow 1.x's tf.train:
//
//   train::variable w = train::create_variable(root, "w", ops::constant(root, start));
//   train::variable step = train::create_global_step(root);
//   train::variable_set vars{w, step};
//   train::adam_optimizer opt({.learning_rate = 0.01});
//   auto train_op = opt.minimize(root, loss, step, vars.trainable());  // status_or<operation>
//   vars.add(opt.variables());                                         // Adam's slots
//   auto init = train::global_variables_initializer(root, vars);
//   session sess(root);
//   sess.run_targets({init});
//   for (...) sess.run_targets({*train_op}, feeds);
//
// minimize = compute_gradients (symbolic gradients of the loss) + apply_gradients (one Apply*
// op per variable). Each update is built colocated with its variable, so it runs on the
// variable's device; so are the optimizer's slot variables (momentum accumulators, Adam's
// moments). Slots are created the first time a variable is updated and are ordinary variables:
// the caller initializes them, through variables() or a variable_set.
//
// An optimizer object belongs to one graph: it remembers the slots it created there.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "graph/client/gradients/gradients.hpp"
#include "graph/client/train/variables.hpp"

namespace caflow::train {

// A hyperparameter (learning rate, decay, epsilon...): a number, or a scalar tensor computed
// in the graph (a decaying learning rate, a placeholder).
class hyperparameter {
 public:
  hyperparameter(double value) : value_(value) {}          // NOLINT
  hyperparameter(const output& value) : tensor_(value) {}  // NOLINT

  bool is_tensor() const { return tensor_.valid(); }
  double value() const { return value_; }
  const output& tensor() const { return tensor_; }
  // A scalar of `type` in `s`: a Const of the number, or the tensor (cast when its dtype
  // differs).
  output as(const scope& s, dtype type) const;

 private:
  double value_ = 0;
  output tensor_;
};

// A gradient is dense, or IndexedSlices for a variable read through a gather (an embedding
// table): apply_gradients then updates only the rows it names, with the optimizer's sparse
// kernel (SparseApply*, TF's _apply_sparse), on the variable's device.
struct gradient_and_variable {
  gradient_value gradient;  // invalid: no gradient; apply_gradients leaves the variable alone
  variable var;
};

class optimizer {
 public:
  virtual ~optimizer() = default;
  optimizer(const optimizer&) = delete;
  optimizer& operator=(const optimizer&) = delete;

  // "GradientDescent", "Momentum", "Adam", ...: the name scope of its nodes and slots.
  const std::string& name() const { return name_; }

  // The gradient of `loss` (a float tensor; non-scalar losses are summed) with respect to each
  // variable of `var_list` (float32 or float64), built in `s` under "gradients/". A variable
  // the loss does not depend on gets no gradient (TF's None: apply_gradients leaves it alone);
  // one the loss reads only through gathers gets IndexedSlices. `options` are
  // add_symbolic_gradients' (colocate_gradients_with_ops, aggregation, unconnected...).
  status_or<std::vector<gradient_and_variable>> compute_gradients(
      const scope& s, const output& loss, const std::vector<variable>& var_list,
      const gradient_options& options = {}) const;

  // Builds one update per (gradient, variable) pair, named "<name>/update_<var>/Apply...",
  // colocated with the variable, after creating the slots it needs. Pairs without a gradient
  // are skipped (it is an error when all are). Then the optimizer's own bookkeeping (Adam's
  // beta powers) runs after all updates and, when `global_step` (an int32 or int64 variable)
  // is valid, the step is incremented after that. Returns the op that runs all of it.
  status_or<operation> apply_gradients(const scope& s,
                                       const std::vector<gradient_and_variable>& grads_and_vars,
                                       const variable& global_step = {});

  // compute_gradients followed by apply_gradients.
  status_or<operation> minimize(const scope& s, const output& loss,
                                const std::vector<variable>& var_list);
  status_or<operation> minimize(const scope& s, const output& loss, const variable& global_step,
                                const std::vector<variable>& var_list);

  // Every variable this optimizer created (slots, Adam's beta powers), in creation order: add
  // them to the variables the initializer runs.
  const std::vector<variable>& variables() const { return created_; }
  // The slot `slot_name` of `var` ("momentum", "m", "v", "accumulator", "rms"), or an invalid
  // variable when it has none (yet).
  variable get_slot(const variable& var, std::string_view slot_name) const;
  // The slot names this optimizer creates for each variable.
  virtual std::vector<std::string> get_slot_names() const { return {}; }

 protected:
  optimizer(std::string name, bool use_locking) : name_(std::move(name)), use_locking_(use_locking) {}

  // What one apply_gradients call shares between the updates of its variables.
  class apply_context {
   public:
    explicit apply_context(scope shared) : shared_(std::move(shared)) {}
    // `h` as a scalar of `type`, built under "<name>/" once per call and dtype.
    output param(const hyperparameter& h, std::string_view name, dtype type);
    // The scope ("<name>/") of nodes shared by all updates.
    const scope& shared() const { return shared_; }

   private:
    scope shared_;
    std::map<std::pair<const hyperparameter*, dtype>, output> params_;
  };

  // Creates the slots (and any other state) the updates of `vars` need, with create_slot.
  // Errors go to the scope.
  virtual void create_slots(const scope& s, const std::vector<variable>& vars);
  // The update of one variable; `s` is colocated with it. Errors go to the scope.
  virtual output apply_dense(const scope& s, apply_context& ctx, const output& grad,
                             const variable& var) = 0;
  // The update of the rows `grad` names. apply_gradients has summed the values of repeated
  // indices (TF's _apply_sparse_duplicate_indices) unless sums_duplicate_indices() says the
  // update adds them up itself.
  virtual output apply_sparse(const scope& s, apply_context& ctx, const indexed_slices& grad,
                              const variable& var) = 0;
  // Whether apply_sparse of repeated indices equals that of their sum (plain gradient descent).
  virtual bool sums_duplicate_indices() const { return false; }
  // Nodes that must run after every update (they are given as `s`'s control dependencies),
  // e.g. Adam's beta power decay. Errors go to the scope.
  virtual std::vector<operation> finish(const scope& s, apply_context& ctx);

  // The slot `slot_name` of `var`, created when missing: a non-trainable variable like `var`
  // named "<var>/<name()>" (made unique), colocated with it, initialized to `value`
  // everywhere. REQUIRES var's shape to be known (errors go to the scope).
  variable create_slot(const scope& s, const variable& var, const std::string& slot_name,
                       double value);
  // A variable of this optimizer not tied to one variable (Adam's "beta1_power"), created
  // once, colocated with `colocate_with`, initialized to `initial_value` (a scalar).
  variable create_non_slot(const scope& s, const std::string& name, const output& initial_value,
                           const variable& colocate_with);
  variable get_non_slot(const std::string& name) const;
  bool use_locking() const { return use_locking_; }

 private:
  output apply_one(const scope& s, apply_context& ctx, const gradient_value& grad,
                   const variable& var);

  std::string name_;
  bool use_locking_;
  std::map<std::string, std::map<std::string, variable, std::less<>>, std::less<>> slots_;
  std::map<std::string, variable> non_slots_;
  std::vector<variable> created_;
};

}  // namespace caflow::train
