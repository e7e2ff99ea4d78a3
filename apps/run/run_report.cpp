#include "apps/run/run_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace caflow::run_app {

std::string summarize(const tensor& t) {
  double sum = 0;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  visit_dtype(t.type(), [&]<class T>() {
    const T* x = t.data<T>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      const double v = static_cast<double>(x[i]);
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  });
  char text[160];
  if (t.num_elements() == 0) {
    std::snprintf(text, sizeof text, " (empty)");
  } else {
    std::snprintf(text, sizeof text, " sum=%.9g min=%.9g max=%.9g", sum, lo, hi);
  }
  return std::string(dtype_name(t.type())) + t.shape().to_string() + text;
}

latency_summary summarize_latency(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  auto rank = [&](double p) {
    const size_t k = static_cast<size_t>(std::ceil(p * static_cast<double>(ms.size())));
    return ms[std::clamp<size_t>(k, 1, ms.size()) - 1];
  };
  double total = 0;
  for (double v : ms) total += v;
  return {rank(0.5), rank(0.9), rank(0.99), ms.front(), total / static_cast<double>(ms.size())};
}

std::string npy_file_name(const std::string& tensor_name) {
  std::string out = tensor_name;
  for (char& c : out)
    if (c == '/' || c == ':' || c == '\\') c = '_';
  return out + ".npy";
}

}  // namespace caflow::run_app
