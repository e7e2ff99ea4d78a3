#include "kernels/resources/conditional_accumulator.hpp"

#include <cstring>

namespace caflow {

conditional_accumulator::conditional_accumulator(std::string name, dtype type, partial_shape shape,
                                                 reduction r, bool sparse)
    : name_(std::move(name)), type_(type), shape_(std::move(shape)), reduction_(r),
      sparse_(sparse) {}

status_or<conditional_accumulator::reduction> conditional_accumulator::parse_reduction(
    const std::string& s) {
  if (s == "MEAN") return reduction::mean;
  if (s == "SUM") return reduction::sum;
  return errors::invalid_argument("reduction_type must be 'MEAN' or 'SUM', got '", s, "'");
}

std::string conditional_accumulator::debug_string() const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::string(sparse_ ? "SparseConditionalAccumulator '" : "ConditionalAccumulator '") + name_ + "' " + dtype_name(type_) + shape_.to_string() +
         " accumulated " + std::to_string(count_) + " global_step " +
         std::to_string(global_step_) + " dropped " + std::to_string(dropped_);
}

status conditional_accumulator::matches(dtype type, const partial_shape& shape, reduction r,
                                        bool sparse) const {
  if (sparse != sparse_)
    return errors::invalid_argument("shared accumulator '", name_, "' is ",
                                    sparse_ ? "sparse" : "dense", ", but this node asks for a ",
                                    sparse ? "sparse" : "dense", " one");
  if (type != type_ || !(shape == shape_) || r != reduction_)
    return errors::invalid_argument(
        "shared accumulator '", name_, "' holds ", dtype_name(type_), shape_.to_string(),
        reduction_ == reduction::mean ? " MEAN" : " SUM", ", but this node asks for ",
        dtype_name(type), shape.to_string(), r == reduction::mean ? " MEAN" : " SUM");
  return {};
}

status conditional_accumulator::apply_gradient(int64_t local_step, const tensor& gradient,
                                               const std::shared_ptr<allocator>& alloc,
                                               const add_fn& add) {
  if (gradient.type() != type_)
    return errors::invalid_argument("accumulator '", name_, "' takes ", dtype_name(type_),
                                    " gradients, got ", dtype_name(gradient.type()));
  if (!shape_.compatible_with(gradient.shape()))
    return errors::invalid_argument("gradient of shape ", gradient.shape().to_string(),
                                    " does not match accumulator '", name_, "' of shape ",
                                    shape_.to_string());
  completions out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (count_ > 0 && gradient.shape() != sum_.shape())
      return errors::invalid_argument("gradient of shape ", gradient.shape().to_string(),
                                      " does not match the ", count_,
                                      " gradient(s) of shape ", sum_.shape().to_string(),
                                      " accumulated so far in '", name_, "'");
    if (is_stale_locked(local_step)) return {};
    if (count_ == 0) {
      CAFLOW_ASSIGN_OR_RETURN(sum_, tensor::allocate(alloc, type_, gradient.shape()));
      if (gradient.byte_size() > 0) add(sum_, gradient, true);
    } else {
      add(sum_, gradient, false);
    }
    ++count_;
    flush_locked(out);
  }
  run(out);
  return {};
}

status conditional_accumulator::apply_sparse_gradient(int64_t local_step, const tensor& indices,
                                                      const tensor& values,
                                                      const tensor& dense_shape,
                                                      sparse_gradient_sum::add_fn add) {
  if (values.type() != type_)
    return errors::invalid_argument("accumulator '", name_, "' takes ", dtype_name(type_),
                                    " gradients, got ", dtype_name(values.type()));
  const bool shape_given = dense_shape.type() != dtype::invalid;
  if (shape_given) {
    if (dense_shape.type() != dtype::int64 || dense_shape.rank() != 1)
      return errors::invalid_argument("gradient_shape must be an int64 vector, got ",
                                      dtype_name(dense_shape.type()),
                                      dense_shape.shape().to_string());
    const int64_t* dims = dense_shape.data<int64_t>();
    bool fits = dense_shape.num_elements() > 0 &&
                (!shape_.rank_known() || shape_.rank() == dense_shape.num_elements());
    for (int d = 0; fits && shape_.rank_known() && d < shape_.rank(); ++d)
      fits = shape_.dim(d) < 0 || shape_.dim(d) == dims[d];
    if (!fits)
      return errors::invalid_argument("gradient_shape ",
                                      format_dims({dims, size_t(dense_shape.num_elements())}),
                                      " does not match accumulator '", name_, "' of shape ",
                                      shape_.to_string());
  }
  // Rows beyond the dense tensor would be silently kept and handed to the update.
  int64_t rows = shape_.rank_known() && shape_.rank() > 0 ? shape_.dim(0) : -1;
  if (shape_given) rows = dense_shape.data<int64_t>()[0];
  if (rows >= 0 && indices.type() == dtype::int64) {
    const int64_t* idx = indices.data<int64_t>();
    for (int64_t k = 0; k < indices.num_elements(); ++k)
      if (idx[k] >= rows)
        return errors::invalid_argument("gradient indices[", k, "] = ", idx[k],
                                        " is not below the ", rows, " rows of accumulator '",
                                        name_, "'");
  }
  completions out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (is_stale_locked(local_step)) return {};
    CAFLOW_RETURN_IF_ERROR(rows_.add(indices, values, add).with_context("accumulator '" + name_ + "'"));
    if (shape_given) dense_shape_ = dense_shape;
    ++count_;
    flush_locked(out);
  }
  run(out);
  return {};
}

void conditional_accumulator::take_gradient(int64_t num_required, const caller& from,
                                            take_done done) {
  completions out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto w = std::make_unique<take_waiter>();
    w->id = next_waiter_++;
    w->required = num_required;
    w->done = std::move(done);
    w->from = from;
    take_waiter* raw = w.get();
    bool live = true;
    if (from.cancellation) {
      // Under the lock: a cancellation arriving now finds the waiter in the list.
      std::weak_ptr<conditional_accumulator> self = weak_from_this();
      const int64_t id = w->id;
      live = from.cancellation->register_callback(&w->token, [self, id] {
        if (auto a = self.lock()) a->cancel_waiter(id);
      });
      w->registered = live;
    }
    if (!live) {
      finish_locked(*raw, errors::cancelled("take from accumulator '", name_, "' was cancelled"),
                    {}, out);
    } else {
      takers_.push_back(std::move(w));
      flush_locked(out);
      for (auto& t : takers_)
        if (t.get() == raw) t->in_call = false;
    }
  }
  run(out);
}

void conditional_accumulator::set_global_step(int64_t step) {
  std::lock_guard<std::mutex> lock(mu_);
  if (step < global_step_) {
    dropped_ += count_;
    clear_locked();
    rewound_ = true;
  }
  global_step_ = step;
}

bool conditional_accumulator::is_stale_locked(int64_t local_step) {
  // Without a restore, a step beyond the global step is kept: the chief hands out a step only
  // after every accumulator took it, so it cannot come from before one.
  const bool stale = local_step < global_step_ || (rewound_ && local_step > global_step_);
  if (stale) ++dropped_;
  return stale;
}

void conditional_accumulator::clear_locked() {
  sum_ = tensor();
  rows_ = sparse_gradient_sum();
  dense_shape_ = tensor();
  count_ = 0;
}

int64_t conditional_accumulator::num_accumulated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return count_;
}

int64_t conditional_accumulator::global_step() const {
  std::lock_guard<std::mutex> lock(mu_);
  return global_step_;
}

int64_t conditional_accumulator::num_dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

void conditional_accumulator::flush_locked(completions& out) {
  // One take per round: the next taker waits for gradients applied after this one's.
  if (takers_.empty() || count_ < takers_.front()->required) return;
  taken t{std::move(sum_), std::move(rows_), std::move(dense_shape_), count_};
  clear_locked();
  ++global_step_;
  finish_locked(*takers_.front(), {}, std::move(t), out);
  takers_.pop_front();
}

void conditional_accumulator::finish_locked(take_waiter& w, status st, taken t, completions& out) {
  if (w.registered) w.from.cancellation->deregister_callback(w.token);
  w.registered = false;
  out.push_back({w.in_call ? nullptr : w.from.dev,
                 [done = std::move(w.done), st = std::move(st), t = std::move(t)]() mutable {
                   done(st, std::move(t));
                 }});
}

void conditional_accumulator::cancel_waiter(int64_t id) {
  completions out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = takers_.begin(); it != takers_.end(); ++it) {
      if ((*it)->id != id) continue;
      (*it)->registered = false;  // the cancellation manager dropped the callback already
      finish_locked(**it, errors::cancelled("take from accumulator '", name_, "' was cancelled"),
                    {}, out);
      takers_.erase(it);
      break;
    }
    // The taker behind may need fewer gradients than are already in.
    flush_locked(out);
  }
  run(out);
}

void conditional_accumulator::run(completions& out) {
  for (completion& c : out) {
    if (c.dev) c.dev->schedule(std::move(c.fn));
    else c.fn();
  }
}

}  // namespace caflow
