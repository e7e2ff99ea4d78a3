#include "apps/train/auc.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace caflow::train_app {

status_or<double> roc_auc(std::span<const float> scores, std::span<const int32_t> labels) {
  if (scores.size() != labels.size())
    return errors::invalid_argument("roc_auc: ", scores.size(), " scores but ", labels.size(),
                                    " labels");
  int64_t positives = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] != 0 && labels[i] != 1)
      return errors::invalid_argument("roc_auc: label ", i, " is ", labels[i],
                                      ", not 0 or 1");
    if (std::isnan(scores[i])) return errors::invalid_argument("roc_auc: score ", i, " is NaN");
    positives += labels[i];
  }
  const auto n = static_cast<int64_t>(labels.size());
  const int64_t negatives = n - positives;
  if (positives == 0 || negatives == 0)
    return errors::invalid_argument("roc_auc: needs both classes, got ", positives,
                                    " positive and ", negatives, " negative examples");
  // Ranks 1..n in ascending score order; a run of equal scores shares the mean of its ranks,
  // which counts each tied positive-negative pair as one half.
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return scores[a] < scores[b]; });
  double positive_rank_sum = 0;
  for (int64_t begin = 0; begin < n;) {
    int64_t end = begin + 1;
    while (end < n && scores[order[end]] == scores[order[begin]]) ++end;
    const double mean_rank = 0.5 * static_cast<double>(begin + 1 + end);  // ranks begin+1..end
    for (int64_t k = begin; k < end; ++k)
      if (labels[order[k]] == 1) positive_rank_sum += mean_rank;
    begin = end;
  }
  const auto p = static_cast<double>(positives);
  // U = (sum of the positives' ranks) - p (p + 1) / 2: the pairs a positive wins.
  return (positive_rank_sum - p * (p + 1) / 2) / (p * static_cast<double>(negatives));
}

}  // namespace caflow::train_app
