#include "apps/train/trainer.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <thread>

#include <unistd.h>

#include "actors/session.hpp"
#include "apps/train/progress.hpp"
#include "graph/client/train/saver.hpp"

namespace caflow::train_app {
namespace {

using clock_type = std::chrono::steady_clock;

// Non-chief clients wait for the chief's initialization, polling (bounded).
status wait_until_initialized(session& sess, const client_graph& g) {
  const auto deadline = clock_type::now() + std::chrono::seconds(120);
  while (true) {
    CAFLOW_ASSIGN_OR_RETURN(auto ready, sess.run({g.shared_ready}));
    if (ready[0].data<bool>()[0]) return {};
    if (clock_type::now() > deadline)
      return errors::deadline_exceeded("the chief did not initialize the shared variables "
                                       "within 120 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

status_or<double> evaluate(session& sess, const tower& t, const data::dataset& test) {
  constexpr int64_t eval_batch = 1000;
  int64_t correct = 0;
  for (int64_t begin = 0; begin < test.size(); begin += eval_batch) {
    const int64_t n = std::min(eval_batch, test.size() - begin);
    tensor images = test.images().slice_dim0(begin, begin + n);
    tensor labels = test.labels().slice_dim0(begin, begin + n);
    CAFLOW_ASSIGN_OR_RETURN(auto out, sess.run({{t.images, images}, {t.labels, labels}},
                                                {t.correct}));
    correct += out[0].data<int32_t>()[0];
  }
  return static_cast<double>(correct) / static_cast<double>(std::max<int64_t>(test.size(), 1));
}

// The chief's initialization when it checkpoints: the newest usable checkpoint, or fresh
// values when there is none. Restoring initializes every shared variable (the saver saves all
// of them), so the other clients, waiting for the shared variables, never start from values
// the restore is about to replace. Returns the global step to resume from.
status_or<int64_t> restore_or_initialize(session& sess, const client_graph& g,
                                         const train::saver& saver, const std::string& dir) {
  auto restored = saver.restore_latest(sess, dir);
  if (!restored.ok() && restored.get_status().code() == error_code::not_found) {
    CAFLOW_RETURN_IF_ERROR(sess.run_targets({g.shared_init}));
    return 0;
  }
  if (!restored.ok()) return restored.get_status();
  for (const status& why : restored->skipped)
    std::printf("caflow-train: skipped a checkpoint: %s\n", why.message().c_str());
  std::printf("caflow-train: restored checkpoint %s (global step %lld)\n",
              restored->index_file.c_str(), static_cast<long long>(restored->step));
  std::fflush(stdout);
  return restored->step;
}

status save_checkpoint(session& sess, const client_graph& g, const train::saver& saver,
                       const std::string& dir, progress_line& progress) {
  CAFLOW_ASSIGN_OR_RETURN(auto step, sess.run({g.global_step.ref}));
  CAFLOW_ASSIGN_OR_RETURN(std::string index, saver.save(sess, dir, step[0].data<int64_t>()[0]));
  progress.note("caflow-train: saved checkpoint " + index);
  return {};
}

// One attempt: a new session, initialization or restore, then training from the global step
// found. `trained` is set once initialization is done (a later failure is a new loss).
status_or<client_result> train_once(const train_options& o, const client_plan& plan,
                                    client_graph& g, const std::string& target,
                                    const std::vector<data::dataset>& shards,
                                    const data::dataset& test, bool print_progress,
                                    bool* trained) {
  session_options sopts;
  sopts.target = target;
  if (o.threads > 0) sopts.cpu.intra_op_threads = o.threads;
  sopts.security = o.security;
  // Only the chief checkpoints: one writer per directory.
  const bool checkpoints = plan.is_chief() && !o.checkpoint_dir.empty();
  if (checkpoints && !g.saver) {
    g.saver = std::make_unique<train::saver>(
        g.root, g.shared_vars, train::saver_options{.keep_last = o.keep_checkpoints});
    CAFLOW_RETURN_IF_ERROR(g.root.get_status());
  }
  session sess(g.root, sopts);
  // Training steps wait on tasks outside their own partitions (sync mode): they run in a
  // session that fails them when one of those is lost. Initialization, checkpoints and the
  // evaluation do not, and must not fail because a replica that finished its share has left.
  std::optional<session> training_session;
  if (auto required = required_tasks(o, plan); !required.empty()) {
    session_options topts = sopts;
    topts.required_tasks = std::move(required);
    training_session.emplace(g.root, topts);
  }
  session& stepper = training_session ? *training_session : sess;

  int64_t resumed_global_step = 0;
  if (checkpoints) {
    CAFLOW_ASSIGN_OR_RETURN(resumed_global_step,
                            restore_or_initialize(sess, g, *g.saver, o.checkpoint_dir));
  } else if (plan.is_chief()) {
    CAFLOW_RETURN_IF_ERROR(sess.run_targets({g.shared_init}));
  } else {
    CAFLOW_RETURN_IF_ERROR(wait_until_initialized(sess, g));
    // A resumed job: the other clients pick up where the chief's checkpoint left off.
    if (!o.checkpoint_dir.empty()) {
      CAFLOW_ASSIGN_OR_RETURN(auto step, sess.run({g.global_step.ref}));
      resumed_global_step = step[0].data<int64_t>()[0];
    }
  }
  if (!g.local_init.empty()) CAFLOW_RETURN_IF_ERROR(sess.run_targets(g.local_init));
  *trained = true;

  // Every tower takes the same number of full batches per epoch, so replicas stay in step.
  std::vector<data::batch_iterator> batchers;
  int64_t steps_per_epoch = INT64_MAX;
  for (size_t t = 0; t < shards.size(); ++t) {
    const uint64_t seed = o.seed * 7919 + static_cast<uint64_t>(plan.worker_index) * 31 + t;
    CAFLOW_ASSIGN_OR_RETURN(auto it, shards[t].batches(o.batch_size, {.drop_remainder = true,
                                                                      .shuffle = true,
                                                                      .seed = seed}));
    steps_per_epoch = std::min(steps_per_epoch, it.batches_per_epoch());
    batchers.push_back(std::move(it));
  }
  if (steps_per_epoch <= 0)
    return errors::invalid_argument("a training shard of ", shards[0].size(),
                                    " examples is smaller than one batch of ", o.batch_size);

  const int64_t towers = static_cast<int64_t>(g.towers.size());
  const int64_t replicas = plan.mode == replication::async || plan.mode == replication::sync
                               ? plan.workers
                               : 1;
  const progress_style style = !o.progress    ? progress_style::per_epoch
                              : ::isatty(1) ? progress_style::live
                                            : progress_style::periodic;
  progress_line progress(o.epochs, steps_per_epoch, o.batch_size * towers * replicas, style);
  std::vector<output> fetches{g.global_step.ref};
  for (const auto& t : g.towers) {
    fetches.push_back(t.loss);
    fetches.push_back(t.correct);
  }
  // This client's steps already done: the global step counts one per update, and in async mode
  // every worker's step is an update of its own.
  const int64_t total_steps = static_cast<int64_t>(o.epochs) * steps_per_epoch;
  const int64_t updates_per_step = plan.mode == replication::async ? plan.workers : 1;
  const int64_t done_steps = std::min(total_steps, resumed_global_step / updates_per_step);
  if (done_steps > 0) {
    // The same batches as an uninterrupted run: replay the iterators' order.
    for (auto& it : batchers)
      for (int64_t i = 0; i < done_steps; ++i) it.next();
    progress.skip(done_steps);
    if (print_progress)
      std::printf("caflow-train: resuming at epoch %lld step %lld (%lld of %lld steps done)\n",
                  static_cast<long long>(done_steps / steps_per_epoch + 1),
                  static_cast<long long>(done_steps % steps_per_epoch),
                  static_cast<long long>(done_steps), static_cast<long long>(total_steps));
    std::fflush(stdout);
  }

  const tensor training = tensor::scalar(true);
  client_result result;
  const bool plotting = plan.is_chief() && !o.plot.empty();
  // In sync mode the chief makes exactly the updates of the run; the others train until it
  // closes the token queue: with backup workers they run ahead of their share, and stopping
  // by their own count could leave the chief waiting for gradients nobody sends.
  const bool until_closed = g.sync && !plan.is_chief();
  // At most ~1000 points per curve.
  history_recorder history(std::max<int64_t>(1, total_steps / 1000));
  int64_t saved_at = -1;  // result.steps at the last checkpoint
  double loss_sum = 0, correct_sum = 0;
  int64_t in_epoch = 0;  // steps summed in loss_sum/correct_sum
  const auto start = clock_type::now();
  for (int64_t index = done_steps; until_closed || index < total_steps; ++index) {
    const int epoch = static_cast<int>(index / steps_per_epoch);
    const int64_t step = index % steps_per_epoch;
    session::feed_list feeds;
    for (int64_t t = 0; t < towers; ++t) {
      data::batch b = batchers[static_cast<size_t>(t)].next();
      feeds.push_back({g.towers[t].images, std::move(b.images)});
      feeds.push_back({g.towers[t].labels, std::move(b.labels)});
      feeds.push_back({g.towers[t].training, training});
    }
    auto out = stepper.run(feeds, fetches, {g.train_op});
    if (!out.ok() && until_closed && g.sync->is_end_of_training(out.get_status())) break;
    // The chief leaves after its last update and closing the token queue; a step begun just
    // then can find the chief gone before it finds the queue closed. The global step (on a ps)
    // tells a chief that finished from one that died mid-run.
    if (!out.ok() && until_closed && out.get_status().code() == error_code::unavailable) {
      // If the global step cannot be read either (a ps lost), the step's error stands.
      auto reached = sess.run({g.global_step.ref});
      if (reached.ok() && (*reached)[0].data<int64_t>()[0] >= total_steps * updates_per_step)
        break;
    }
    if (!out.ok()) return out.get_status();
    float loss = 0;
    int64_t correct = 0;
    for (int64_t t = 0; t < towers; ++t) {
      loss += (*out)[1 + 2 * t].data<float>()[0] / static_cast<float>(towers);
      correct += (*out)[2 + 2 * t].data<int32_t>()[0];
    }
    loss_sum += loss;
    correct_sum += static_cast<double>(correct) / static_cast<double>(o.batch_size * towers);
    ++in_epoch;
    result.last_loss = loss;
    ++result.steps;
    if (epoch >= o.epochs) continue;  // past the run's end, waiting for the chief to close it
    const auto averaged = static_cast<double>(in_epoch);
    if (plotting)
      history.step(done_steps + result.steps, epoch + 1, loss,
                   static_cast<double>(correct) / static_cast<double>(o.batch_size * towers));
    if (print_progress)
      progress.step(epoch, step + 1, (*out)[0].data<int64_t>()[0],
                    static_cast<float>(loss_sum / averaged), correct_sum / averaged);
    if (checkpoints && o.checkpoint_every > 0 &&
        (done_steps + result.steps) % o.checkpoint_every == 0) {
      CAFLOW_RETURN_IF_ERROR(save_checkpoint(sess, g, *g.saver, o.checkpoint_dir, progress));
      saved_at = result.steps;
    }
    if (step + 1 < steps_per_epoch) continue;
    double test_accuracy = -1;
    if (plotting) {
      CAFLOW_ASSIGN_OR_RETURN(test_accuracy, evaluate(sess, g.towers[0], test));
      history.end_epoch(done_steps + result.steps, epoch + 1, loss_sum / averaged,
                        correct_sum / averaged, test_accuracy);
    }
    if (print_progress)
      progress.end_epoch(epoch, static_cast<float>(loss_sum / averaged), correct_sum / averaged,
                         test_accuracy);
    result.test_accuracy = test_accuracy;
    loss_sum = correct_sum = 0;
    in_epoch = 0;
  }
  if (g.sync && plan.is_chief()) CAFLOW_RETURN_IF_ERROR(sess.run_targets({g.sync->end_of_training()}));
  if (plotting) result.history = history.history();
  if (checkpoints && saved_at != result.steps)
    CAFLOW_RETURN_IF_ERROR(save_checkpoint(sess, g, *g.saver, o.checkpoint_dir, progress));
  result.seconds = std::chrono::duration<double>(clock_type::now() - start).count();
  result.samples_per_second =
      static_cast<double>(result.steps * o.batch_size * towers) / std::max(result.seconds, 1e-9);
  // With --plot the last epoch's evaluation is the final one.
  if (plan.is_chief() && result.test_accuracy < 0) {
    CAFLOW_ASSIGN_OR_RETURN(result.test_accuracy, evaluate(sess, g.towers[0], test));
  }
  return result;
}

// Losses a training job survives by starting over from its newest checkpoint: a task that
// died or restarted.
bool recoverable(const train_options& o, const status& why) {
  return !o.checkpoint_dir.empty() &&
         (why.code() == error_code::unavailable || why.code() == error_code::aborted);
}

}  // namespace

status_or<client_result> run_client(const train_options& o, const client_plan& plan,
                                    client_graph& g, const std::string& target,
                                    const std::vector<data::dataset>& shards,
                                    const data::dataset& test, bool print_progress) {
  const std::string who = "worker " + std::to_string(plan.worker_index);
  int recoveries = 0;
  std::optional<clock_type::time_point> failing_since;
  while (true) {
    bool trained = false;
    auto result = train_once(o, plan, g, target, shards, test, print_progress, &trained);
    if (result.ok() || !recoverable(o, result.get_status())) return result;
    const status& why = result.get_status();
    const auto now = clock_type::now();
    if (trained || !failing_since) {
      if (recoveries == o.max_recoveries)
        return why.with_context("gave up after " + std::to_string(recoveries) + " recoveries");
      ++recoveries;
      failing_since = now;
      std::printf("caflow-train: %s: %s; recovering from the newest checkpoint (%d of %d)\n",
                  who.c_str(), why.to_string().c_str(), recoveries, o.max_recoveries);
      std::fflush(stdout);
    } else if (now - *failing_since > std::chrono::seconds(o.recovery_timeout)) {
      return why.with_context("not recovered within " + std::to_string(o.recovery_timeout) +
                              " s");
    }
    // The lost task is being restarted: try again shortly.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace caflow::train_app
