#include "apps/train/trainer.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <thread>

#include <unistd.h>

#include "actors/session/session.hpp"
#include "apps/train/auc.hpp"
#include "apps/train/progress.hpp"
#include "apps/train/stall_signal.hpp"
#include "apps/train/tf_checkpoint.hpp"
#include "apps/train/training_summaries.hpp"
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

struct evaluation {
  double accuracy = 0;
  double auc = -1;  // for towers with scores (binary classifiers)
};

// The test set in batches: accuracy, and for a binary classifier the ROC AUC of its scores.
status_or<evaluation> evaluate(session& sess, const tower& t, const data::dataset& test) {
  constexpr int64_t eval_batch = 1000;
  int64_t correct = 0;
  const bool scored = t.scores.valid();
  std::vector<output> fetches{t.correct};
  if (scored) fetches.push_back(t.scores);
  std::vector<float> scores;
  for (int64_t begin = 0; begin < test.size(); begin += eval_batch) {
    const int64_t n = std::min(eval_batch, test.size() - begin);
    tensor inputs = test.images().slice_dim0(begin, begin + n);
    tensor labels = test.labels().slice_dim0(begin, begin + n);
    CAFLOW_ASSIGN_OR_RETURN(auto out, sess.run({{t.inputs, inputs}, {t.labels, labels}}, fetches));
    correct += out[0].data<int32_t>()[0];
    if (scored) scores.insert(scores.end(), out[1].data<float>(), out[1].data<float>() + n);
  }
  evaluation e;
  e.accuracy =
      static_cast<double>(correct) / static_cast<double>(std::max<int64_t>(test.size(), 1));
  if (scored) {
    CAFLOW_ASSIGN_OR_RETURN(
        e.auc, roc_auc(scores, {test.labels().data<int32_t>(), static_cast<size_t>(test.size())}));
  }
  return e;
}

status_or<int64_t> read_global_step(session& sess, const client_graph& g) {
  CAFLOW_ASSIGN_OR_RETURN(auto step, sess.run({g.global_step.ref}));
  return step[0].data<int64_t>()[0];
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
                       const train_options& o, progress_line& progress) {
  CAFLOW_ASSIGN_OR_RETURN(int64_t step, read_global_step(sess, g));
  auto index = saver.save(sess, o.checkpoint_dir, step);
  if (!index.ok()) {
    const error_code c = index.get_status().code();
    // A lost task is recovered from (the caller's business); a disk that refuses the files
    // (full, gone, read-only) is a line: the last complete checkpoint stays, training goes on,
    // and the next checkpoint tries again.
    if (c == error_code::unavailable || c == error_code::aborted || c == error_code::cancelled ||
        c == error_code::deadline_exceeded)
      return index.get_status();
    progress.note("caflow-train: checkpoint at step " + std::to_string(step) +
                  " not written: " + index.get_status().to_string());
    return {};
  }
  progress.note("caflow-train: saved checkpoint " + *index);
  // TensorFlow's copy is for other tools; recovery uses caflow's own, so a failure to write it
  // is a line, not a lost run.
  if (o.checkpoint_format == "tf") {
    auto prefix = write_tf_checkpoint(sess, saver, o.checkpoint_dir, step);
    progress.note(prefix.ok() ? "caflow-train: saved TensorFlow checkpoint " + *prefix
                              : "caflow-train: TensorFlow checkpoint not written: " +
                                    prefix.get_status().to_string());
  }
  return {};
}

// Only the chief checkpoints: one writer per directory.
bool writes_checkpoints(const train_options& o, const client_plan& plan) {
  return plan.is_chief() && !o.checkpoint_dir.empty();
}

// The chief's saver is built on its first attempt that checkpoints and kept for the retries.
status make_saver_once(const train_options& o, client_graph& g) {
  if (g.saver) return {};
  g.saver = std::make_unique<train::saver>(
      g.root, g.shared_vars, train::saver_options{.keep_last = o.keep_checkpoints});
  return g.root.get_status();
}

session_options session_options_for(const train_options& o, const std::string& target) {
  session_options sopts;
  sopts.target = target;
  // The client waits a little longer than the master, whose answer names the late tasks.
  sopts.operation_timeout = std::chrono::seconds(o.step_timeout + 5);
  if (o.threads > 0) sopts.cpu.intra_op_threads = o.threads;
  sopts.security = o.security;
  auto type = tower_device_type(o);
  const bool gpu = type.ok() && *type == device_gpu;
  // Towers ask for GPU:k; what has no kernel there runs on the same task's CPU, as in TF.
  sopts.allow_soft_placement = type.ok() && *type != device_cpu;
  sopts.gpu = o.gpu;
  if (!gpu) sopts.device_count[device_gpu] = 0;  // a "local" session then stays on its CPU
  return sopts;
}

// Training steps wait on tasks outside their own partitions (sync mode): they run in a
// session that fails them when one of those is lost. Initialization, checkpoints and the
// evaluation do not, and must not fail because a replica that finished its share has left.
struct client_sessions {
  client_sessions(client_graph& g, const session_options& opts,
                  std::vector<std::string> required_tasks)
      : plain(g.root, opts) {
    if (required_tasks.empty()) return;
    session_options topts = opts;
    topts.required_tasks = std::move(required_tasks);
    training.emplace(g.root, topts);
  }
  session& stepper() { return training ? *training : plain; }

  session plain;
  std::optional<session> training;  // only with required tasks
};

// The chief initializes (or restores) the shared variables, the others wait for them; then
// every client initializes its local ones. Returns the global step to resume from.
status_or<int64_t> initialize_variables(const train_options& o, const client_plan& plan,
                                        client_graph& g, session& sess) {
  int64_t resumed_global_step = 0;
  if (writes_checkpoints(o, plan)) {
    CAFLOW_ASSIGN_OR_RETURN(resumed_global_step,
                            restore_or_initialize(sess, g, *g.saver, o.checkpoint_dir));
  } else if (plan.is_chief()) {
    CAFLOW_RETURN_IF_ERROR(sess.run_targets({g.shared_init}));
  } else {
    CAFLOW_RETURN_IF_ERROR(wait_until_initialized(sess, g));
  }
  // The accumulators of a ps that outlived the last attempt hold a newer global step than a
  // restored one: the chief resets them before anyone's gradients come, and then hands each
  // other worker the token its local initializer waits for.
  if (g.sync && plan.is_chief()) CAFLOW_RETURN_IF_ERROR(sess.run_targets({g.sync->chief_initializer()}));
  if (!g.local_init.empty()) CAFLOW_RETURN_IF_ERROR(sess.run_targets(g.local_init));
  // A resumed job: the other clients pick up where the chief's checkpoint left off (in sync
  // mode, read only after the chief's token, so after its restore).
  if (!plan.is_chief() && !o.checkpoint_dir.empty()) {
    CAFLOW_ASSIGN_OR_RETURN(resumed_global_step, read_global_step(sess, g));
  }
  return resumed_global_step;
}

struct tower_batches {
  std::vector<data::batch_iterator> iterators;  // one per tower
  int64_t steps_per_epoch = INT64_MAX;
};

// Every tower takes the same number of full batches per epoch, so replicas stay in step.
status_or<tower_batches> make_tower_batches(const train_options& o, const client_plan& plan,
                                            const std::vector<data::dataset>& shards) {
  tower_batches batches;
  for (size_t t = 0; t < shards.size(); ++t) {
    const uint64_t seed = o.seed * 7919 + static_cast<uint64_t>(plan.worker_index) * 31 + t;
    CAFLOW_ASSIGN_OR_RETURN(auto it, shards[t].batches(o.batch_size, {.drop_remainder = true,
                                                                      .shuffle = true,
                                                                      .seed = seed}));
    batches.steps_per_epoch = std::min(batches.steps_per_epoch, it.batches_per_epoch());
    batches.iterators.push_back(std::move(it));
  }
  if (batches.steps_per_epoch <= 0)
    return errors::invalid_argument("a training shard of ", shards[0].size(),
                                    " examples is smaller than one batch of ", o.batch_size);
  return batches;
}

progress_line make_progress_line(const train_options& o, const client_plan& plan, int64_t towers,
                                 int64_t steps_per_epoch) {
  const int64_t replicas = plan.mode == replication::async || plan.mode == replication::sync
                               ? plan.workers
                               : 1;
  const progress_style style = !o.progress    ? progress_style::per_epoch
                              : ::isatty(1) ? progress_style::live
                                            : progress_style::periodic;
  return progress_line(o.epochs, steps_per_epoch, o.batch_size * towers * replicas, style);
}

// The global step, then each tower's loss and number of correct predictions.
std::vector<output> step_fetches(const client_graph& g) {
  std::vector<output> fetches{g.global_step.ref};
  for (const auto& t : g.towers) {
    fetches.push_back(t.loss);
    fetches.push_back(t.correct);
  }
  return fetches;
}

// The epochs of one attempt, from the steps a resumed run already did to the run's end, and
// the sums, history and result they build up.
class training_loop {
 public:
  training_loop(const train_options& o, const client_plan& plan, client_graph& g,
                client_sessions& sessions, tower_batches batches, const data::dataset& test,
                bool print_progress);

  void skip_resumed_steps(int64_t resumed_global_step);
  status run_epochs();
  status_or<client_result> finish();
  // Whether a training step of this attempt succeeded: progress since the last recovery.
  bool stepped() const { return stepped_; }

 private:
  struct step_metrics {
    int64_t global_step = 0;
    float loss = 0;       // averaged over the towers
    double accuracy = 0;  // over every tower's batch
  };

  status_or<std::vector<tensor>> run_step();
  bool run_ended_by_chief(const status& why);
  step_metrics count_step(const std::vector<tensor>& out);
  status after_step(int epoch, int64_t step, const step_metrics& m);
  status end_epoch(int epoch);
  void set_rates();

  const train_options& o_;
  const client_plan& plan_;
  client_graph& g_;
  session& sess_;
  session& stepper_;
  const data::dataset& test_;
  const bool print_progress_;
  const bool checkpoints_;
  const bool plotting_;
  std::unique_ptr<training_summaries> summaries_;  // the chief's, with --logdir
  // In sync mode the chief makes exactly the updates of the run; the others train until it
  // closes the token queue: with backup workers they run ahead of their share, and stopping
  // by their own count could leave the chief waiting for gradients nobody sends.
  const bool until_closed_;
  std::vector<data::batch_iterator> batchers_;
  const int64_t steps_per_epoch_;
  const int64_t towers_;
  const int64_t total_steps_;
  const int64_t updates_per_step_;
  int64_t done_steps_ = 0;
  bool stepped_ = false;
  progress_line progress_;
  const std::vector<output> fetches_;
  const tensor training_ = tensor::scalar(true);
  history_recorder history_;
  client_result result_;
  int64_t saved_at_ = -1;  // result_.steps at the last checkpoint
  double loss_sum_ = 0, correct_sum_ = 0;
  int64_t in_epoch_ = 0;  // steps summed in loss_sum_/correct_sum_
  // The global step after this client's first and latest steps, and when: the global rate.
  int64_t first_global_step_ = -1, last_global_step_ = -1;
  clock_type::time_point first_global_at_, last_global_at_;
  clock_type::time_point start_;
};

training_loop::training_loop(const train_options& o, const client_plan& plan, client_graph& g,
                             client_sessions& sessions, tower_batches batches,
                             const data::dataset& test, bool print_progress)
    : o_(o),
      plan_(plan),
      g_(g),
      sess_(sessions.plain),
      stepper_(sessions.stepper()),
      test_(test),
      print_progress_(print_progress),
      checkpoints_(writes_checkpoints(o, plan)),
      plotting_(plan.is_chief() && !o.plot.empty()),
      until_closed_(g.sync && !plan.is_chief()),
      batchers_(std::move(batches.iterators)),
      steps_per_epoch_(batches.steps_per_epoch),
      towers_(static_cast<int64_t>(g.towers.size())),
      total_steps_(static_cast<int64_t>(o.epochs) * steps_per_epoch_),
      updates_per_step_(plan.mode == replication::async ? plan.workers : 1),
      progress_(make_progress_line(o, plan, towers_, steps_per_epoch_)),
      fetches_(step_fetches(g)),
      // At most ~1000 points per curve.
      history_(std::max<int64_t>(1, total_steps_ / 1000)) {}

void training_loop::skip_resumed_steps(int64_t resumed_global_step) {
  // This client's steps already done: the global step counts one per update, and in async mode
  // every worker's step is an update of its own.
  done_steps_ = std::min(total_steps_, resumed_global_step / updates_per_step_);
  if (done_steps_ <= 0) return;
  // The same batches as an uninterrupted run: replay the iterators' order.
  for (auto& it : batchers_)
    for (int64_t i = 0; i < done_steps_; ++i) it.next();
  progress_.skip(done_steps_);
  if (print_progress_)
    std::printf("caflow-train: resuming at epoch %lld step %lld (%lld of %lld steps done)\n",
                static_cast<long long>(done_steps_ / steps_per_epoch_ + 1),
                static_cast<long long>(done_steps_ % steps_per_epoch_),
                static_cast<long long>(done_steps_), static_cast<long long>(total_steps_));
  std::fflush(stdout);
}

status training_loop::run_epochs() {
  if (plan_.is_chief() && !o_.logdir.empty() && !summaries_) {
    CAFLOW_ASSIGN_OR_RETURN(summaries_, training_summaries::open(o_, g_));
    progress_.note("caflow-train: TensorBoard events in " + summaries_->path());
  }
  start_ = clock_type::now();
  for (int64_t index = done_steps_; until_closed_ || index < total_steps_; ++index) {
    auto out = run_step();
    if (!out.ok() && run_ended_by_chief(out.get_status())) break;
    if (!out.ok()) return out.get_status();
    stepped_ = true;
    const step_metrics m = count_step(*out);
    const int epoch = static_cast<int>(index / steps_per_epoch_);
    if (epoch >= o_.epochs) continue;  // past the run's end, waiting for the chief to close it
    const int64_t step = index % steps_per_epoch_;
    CAFLOW_RETURN_IF_ERROR(after_step(epoch, step, m));
    if (step + 1 == steps_per_epoch_) CAFLOW_RETURN_IF_ERROR(end_epoch(epoch));
  }
  return {};
}

status_or<std::vector<tensor>> training_loop::run_step() {
  session::feed_list feeds;
  for (int64_t t = 0; t < towers_; ++t) {
    data::batch b = batchers_[static_cast<size_t>(t)].next();
    feeds.push_back({g_.towers[t].inputs, std::move(b.images)});
    feeds.push_back({g_.towers[t].labels, std::move(b.labels)});
    feeds.push_back({g_.towers[t].training, training_});
  }
  const int64_t step = done_steps_ + result_.steps;  // this client's, as the summaries count
  if (g_.debug_stall_when.valid()) {
    // At a step: once per process, since a recovery replays that step.
    const bool at_step = !g_.debug_stall_fed && step == o_.debug_stall_ps_at_step;
    if (at_step) g_.debug_stall_fed = true;
    if (at_step || (o_.debug_stall_ps_on_signal && take_stall_request()))
      feeds.push_back({g_.debug_stall_when, tensor::scalar(true)});
  }
  if (summaries_ && summaries_->trace_due(step)) {
    step_metadata md;
    auto out = stepper_.run(step_options{.trace = true}, feeds, fetches_, {g_.train_op}, &md);
    if (out.ok()) summaries_->traced(step, md);
    return out;
  }
  return stepper_.run(feeds, fetches_, {g_.train_op});
}

// A failed step of a sync non-chief that only found the run over.
bool training_loop::run_ended_by_chief(const status& why) {
  if (!until_closed_) return false;
  if (g_.sync->is_end_of_training(why)) return true;
  // The chief leaves after its last update and closing the token queue; a step begun just
  // then can find the chief gone before it finds the queue closed. The global step (on a ps)
  // tells a chief that finished from one that died mid-run.
  if (why.code() != error_code::unavailable) return false;
  // If the global step cannot be read either (a ps lost), the step's error stands.
  auto reached = read_global_step(sess_, g_);
  return reached.ok() && *reached >= total_steps_ * updates_per_step_;
}

// Adds the step to this client's count and to the epoch's sums.
training_loop::step_metrics training_loop::count_step(const std::vector<tensor>& out) {
  step_metrics m;
  m.global_step = out[0].data<int64_t>()[0];
  if (first_global_step_ < 0) {
    first_global_step_ = m.global_step;
    first_global_at_ = clock_type::now();
  } else {
    last_global_step_ = m.global_step;
    last_global_at_ = clock_type::now();
  }
  int64_t correct = 0;
  for (int64_t t = 0; t < towers_; ++t) {
    m.loss += out[1 + 2 * t].data<float>()[0] / static_cast<float>(towers_);
    correct += out[2 + 2 * t].data<int32_t>()[0];
  }
  m.accuracy = static_cast<double>(correct) / static_cast<double>(o_.batch_size * towers_);
  loss_sum_ += m.loss;
  correct_sum_ += m.accuracy;
  ++in_epoch_;
  result_.last_loss = m.loss;
  ++result_.steps;
  return m;
}

// The plotted history, the progress line and the periodic checkpoints.
status training_loop::after_step(int epoch, int64_t step, const step_metrics& m) {
  const auto averaged = static_cast<double>(in_epoch_);
  if (plotting_) history_.step(done_steps_ + result_.steps, epoch + 1, m.loss, m.accuracy);
  // By this client's own step count: the global step fetched beside the update may read before
  // or after it, and a summary every N steps must not skip one.
  if (summaries_)
    summaries_->step(sess_, done_steps_ + result_.steps - 1, m.global_step, m.loss, m.accuracy,
                     o_.batch_size * towers_);
  if (print_progress_)
    progress_.step(epoch, step + 1, m.global_step, static_cast<float>(loss_sum_ / averaged),
                   correct_sum_ / averaged);
  if (checkpoints_ && o_.checkpoint_every > 0 &&
      (done_steps_ + result_.steps) % o_.checkpoint_every == 0) {
    CAFLOW_RETURN_IF_ERROR(save_checkpoint(sess_, g_, *g_.saver, o_, progress_));
    saved_at_ = result_.steps;
  }
  return {};
}

status training_loop::end_epoch(int epoch) {
  const auto averaged = static_cast<double>(in_epoch_);
  double test_accuracy = -1;
  if (plotting_ || summaries_) {
    CAFLOW_ASSIGN_OR_RETURN(const evaluation e, evaluate(sess_, g_.towers[0], test_));
    test_accuracy = e.accuracy;
    if (summaries_) summaries_->test_accuracy(sess_, done_steps_ + result_.steps - 1, e.accuracy);
    result_.test_auc = e.auc;
    history_.end_epoch(done_steps_ + result_.steps, epoch + 1, loss_sum_ / averaged,
                       correct_sum_ / averaged, test_accuracy);
  }
  if (print_progress_)
    progress_.end_epoch(epoch, static_cast<float>(loss_sum_ / averaged), correct_sum_ / averaged,
                        test_accuracy);
  result_.test_accuracy = test_accuracy;
  loss_sum_ = correct_sum_ = 0;
  in_epoch_ = 0;
  return {};
}

// Both rates over the same window, from this client's first step to its last: the first step
// also plans and registers the graph, which is no training throughput.
void training_loop::set_rates() {
  const int64_t samples_per_step = o_.batch_size * towers_;
  const double window = std::chrono::duration<double>(last_global_at_ - first_global_at_).count();
  if (result_.steps < 2 || window <= 0) {
    result_.samples_per_second =
        static_cast<double>(result_.steps * samples_per_step) / std::max(result_.seconds, 1e-9);
    return;
  }
  result_.samples_per_second = static_cast<double>((result_.steps - 1) * samples_per_step) / window;
  // A sync update averages replicas_to_aggregate batches; any other update is one step's.
  const int64_t per_update = samples_per_step * (g_.sync ? g_.sync->replicas_to_aggregate() : 1);
  result_.global_samples_per_second =
      static_cast<double>((last_global_step_ - first_global_step_) * per_update) / window;
}

status_or<client_result> training_loop::finish() {
  // Ends the other sync clients' training (see until_closed_).
  if (g_.sync && plan_.is_chief())
    CAFLOW_RETURN_IF_ERROR(sess_.run_targets({g_.sync->end_of_training()}));
  if (plotting_) result_.history = history_.history();
  if (checkpoints_ && saved_at_ != result_.steps)
    CAFLOW_RETURN_IF_ERROR(save_checkpoint(sess_, g_, *g_.saver, o_, progress_));
  result_.seconds = std::chrono::duration<double>(clock_type::now() - start_).count();
  set_rates();
  // With --plot the last epoch's evaluation is the final one.
  if (plan_.is_chief() && result_.test_accuracy < 0) {
    CAFLOW_ASSIGN_OR_RETURN(const evaluation e, evaluate(sess_, g_.towers[0], test_));
    result_.test_accuracy = e.accuracy;
    result_.test_auc = e.auc;
  }
  return std::move(result_);
}

// One attempt: a new session, initialization or restore, then training from the global step
// found. `trained` is set once a training step succeeded: a later failure is a new loss,
// while an attempt that fails before (a task still down) is the same loss, retried within
// --recovery-timeout instead of spending a recovery every half second.
status_or<client_result> train_once(const train_options& o, const client_plan& plan,
                                    client_graph& g, const std::string& target,
                                    const std::vector<data::dataset>& shards,
                                    const data::dataset& test, bool print_progress,
                                    bool* trained) {
  if (writes_checkpoints(o, plan)) CAFLOW_RETURN_IF_ERROR(make_saver_once(o, g));
  session_options sopts = session_options_for(o, target);
  sopts.device_filters = device_filters_for(o, plan);
  client_sessions sessions(g, sopts, required_tasks(o, plan));
  const status_or<int64_t> resumed = initialize_variables(o, plan, g, sessions.plain);
  // A sync worker waits in its local initializer for a first token. A backup worker that gets
  // there only after the chief's last update finds the token queue closed: the run is over
  // without it, which is no failure.
  const bool ended_before_joining = !resumed.ok() && g.sync && !plan.is_chief() &&
                                    g.sync->is_end_of_training(resumed.get_status());
  if (ended_before_joining) {
    if (print_progress)
      std::printf("caflow-train: the run ended before this worker's first step (the chief made "
                  "its last update with the other workers' gradients)\n");
    return client_result{};
  }
  CAFLOW_RETURN_IF_ERROR(resumed.get_status());
  const int64_t resumed_global_step = *resumed;
  CAFLOW_ASSIGN_OR_RETURN(tower_batches batches, make_tower_batches(o, plan, shards));
  training_loop loop(o, plan, g, sessions, std::move(batches), test, print_progress);
  loop.skip_resumed_steps(resumed_global_step);
  const status ran = loop.run_epochs();
  *trained = loop.stepped();
  CAFLOW_RETURN_IF_ERROR(ran);
  return loop.finish();
}

// Losses a training job survives by starting over from its newest checkpoint: a task that
// died or restarted, or a step that ran past the step timeout (a hung peer: the master failed
// it and aborted its partitions).
bool recoverable(const train_options& o, const status& why) {
  return !o.checkpoint_dir.empty() &&
         (why.code() == error_code::unavailable || why.code() == error_code::aborted ||
          why.code() == error_code::deadline_exceeded);
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
    // A step past the step timeout is a new loss (it took the whole timeout to show), not a
    // task still down being retried.
    const bool new_loss = trained || !failing_since ||
                          why.code() == error_code::deadline_exceeded;
    if (new_loss) {
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
