#pragma once
// The area under the ROC curve of a binary classifier's scores: the probability that a
// positive example, drawn at random, scores above a negative one drawn at random, a tie
// counting one half (the Mann-Whitney U statistic over n_pos * n_neg pairs). Exact, not TF's
// tf.metrics.auc, which buckets the scores into thresholds.
#include <cstdint>
#include <span>

#include "graph/core/status.hpp"

namespace caflow::train_app {

// `labels` are 0 or 1, one per score. Errors: different lengths, a label other than 0 or 1,
// a NaN score, or no positive or no negative example (the AUC is undefined).
status_or<double> roc_auc(std::span<const float> scores, std::span<const int32_t> labels);

}  // namespace caflow::train_app
