#pragma once
// Synchronous data-parallel training, like tf.train.SyncReplicasOptimizer: every worker adds
// its gradients to one ConditionalAccumulator per variable (on the variable's ps); the chief
// waits for `replicas_to_aggregate` of them, applies their average with the wrapped
// optimizer, and hands out one token per other replica through a FIFO queue; each other
// worker's step ends by taking a token, which also tells it the new global step. A gradient
// computed against an older global step (a straggler's, with backup workers) is dropped by the
// accumulator.
//
//   train::adam_optimizer adam({.learning_rate = 0.001});
//   train::sync_replicas_optimizer sync(adam, {.replicas_to_aggregate = 2,
//                                              .is_chief = task == 0,
//                                              .local_device = "/job:worker/task:1"});
//   auto train_op = sync.minimize(root, loss, global_step, vars.trainable());
//   // chief: initialize vars + adam.variables(); everyone: then sync.local_initializer()
//
// Unlike TF, the chief aggregates inside its own training step (after adding its own
// gradients) instead of in a separate queue-runner thread: no extra thread, and a step that
// fails or is cancelled takes the aggregation with it. So the chief must never wait for a
// token (a fast worker may take two of one update, and the chief would then wait for an update
// only it can make): its step ends with the update itself.
#include "graph/client/train/optimizer.hpp"

namespace caflow::train {

struct sync_replicas_options {
  int replicas_to_aggregate = 1;
  // Replicas producing gradients; 0 means replicas_to_aggregate. More than that gives backup
  // workers: each update waits only for the first replicas_to_aggregate fresh gradients.
  int total_num_replicas = 0;
  bool is_chief = false;
  // Where this worker's own step counter lives (its own task): it must not be shared.
  std::string local_device;
  // Shared names of the token queue and accumulators: several independent synchronous
  // trainings on one cluster need distinct prefixes.
  std::string shared_prefix = "sync_replicas";
};

class sync_replicas_optimizer {
 public:
  sync_replicas_optimizer(optimizer& opt, sync_replicas_options opts)
      : opt_(opt), opts_(std::move(opts)) {}

  // This worker's training op. `global_step` is required (int64). The chief's op also
  // applies the aggregated gradients (creating the wrapped optimizer's slots).
  status_or<operation> apply_gradients(const scope& s,
                                       const std::vector<gradient_and_variable>& grads_and_vars,
                                       const variable& global_step);
  status_or<operation> minimize(const scope& s, const output& loss, const variable& global_step,
                                const std::vector<variable>& var_list);

  // Sets this worker's step counter: the chief's to the current global step, another
  // worker's to a token from the chief's initializer (it waits for one). Run it after the
  // shared variables are initialized, before the first training step.
  const operation& local_initializer() const { return local_step_.initializer; }
  // The chief's (TF's chief_init_op): every accumulator takes the current global step, then
  // each other replica gets a token for its first step. Run it after initializing or
  // restoring the shared variables: a restored global step is older than what the
  // accumulators of a ps that survived hold, and they would drop every gradient as stale (and
  // drop the gradients they held: conditional_accumulator::set_global_step). Invalid on other
  // workers.
  const operation& chief_initializer() const { return chief_init_; }
  // Closes the token queue: every worker waiting for a token, or asking for one later, fails
  // with OUT_OF_RANGE (is_end_of_training). The chief runs it after its last update, so
  // workers that ran ahead on a backup's surplus tokens stop instead of waiting for updates
  // that will never come.
  const operation& end_of_training() const { return close_tokens_; }
  // Whether a step failed because the chief ended training (end_of_training).
  bool is_end_of_training(const status& st) const;
  const variable& local_step() const { return local_step_; }
  // Gradients averaged into each update.
  int replicas_to_aggregate() const { return opts_.replicas_to_aggregate; }

 private:
  optimizer& opt_;
  sync_replicas_options opts_;
  variable local_step_;
  operation close_tokens_;
  operation chief_init_;
};

}  // namespace caflow::train
