#include "graph/util/histogram.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

namespace caflow {
namespace {

std::vector<double> make_limits() {
  std::vector<double> positive;
  for (double v = 1e-12; v < 1e20; v *= 1.1) positive.push_back(v);
  positive.push_back(DBL_MAX);
  std::vector<double> limits;
  limits.reserve(2 * positive.size() + 1);
  for (auto it = positive.rbegin(); it != positive.rend(); ++it) limits.push_back(-*it);
  limits.push_back(0.0);
  limits.insert(limits.end(), positive.begin(), positive.end());
  return limits;
}

}  // namespace

const std::vector<double>& default_bucket_limits() {
  static const std::vector<double> limits = make_limits();  // immutable once built
  return limits;
}

histogram histogram_of(const tensor& values, int64_t* nan_count) {
  const std::vector<double>& limits = default_bucket_limits();
  std::vector<double> counts(limits.size(), 0.0);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, num = 0, sum = 0, sum_sq = 0;
  int64_t nans = 0;
  visit_dtype(values.type(), [&]<class T>() {
    const T* x = values.data<T>();
    for (int64_t i = 0; i < values.num_elements(); ++i) {
      const double v = static_cast<double>(x[i]);
      if (std::isnan(v)) {
        ++nans;
        continue;
      }
      // Bucket i holds [limits[i-1], limits[i]): the first limit above v, as TensorFlow counts.
      const size_t b = static_cast<size_t>(std::upper_bound(limits.begin(), limits.end(), v) - limits.begin());
      counts[std::min(b, counts.size() - 1)] += 1;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      num += 1;
      sum += v;
      sum_sq += v * v;
    }
  });
  histogram h;
  h.min = num > 0 ? lo : 0.0;
  h.max = num > 0 ? hi : 0.0;
  h.num = num;
  h.sum = sum;
  h.sum_squares = sum_sq;
  for (size_t i = 0; i < counts.size();) {
    double limit = limits[i], count = counts[i];
    ++i;
    if (count <= 0.0)  // a run of empty buckets becomes one, ending where the run ends
      while (i < counts.size() && counts[i] <= 0.0) limit = limits[i++];
    h.bucket_limit.push_back(limit);
    h.bucket.push_back(count);
  }
  if (nan_count != nullptr) *nan_count = nans;
  return h;
}

}  // namespace caflow
