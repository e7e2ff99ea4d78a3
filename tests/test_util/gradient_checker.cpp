#include "test_util/gradient_checker.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/ops.hpp"

namespace caflow::testing {
namespace {

// The checker works in double whatever the tensors hold.
std::vector<double> values_of(const tensor& t) {
  if (t.type() == dtype::float64) return t.to_vector<double>();
  if (t.type() == dtype::float32) {
    const std::vector<float> v = t.to_vector<float>();
    return {v.begin(), v.end()};
  }
  FAIL("gradient checker: ", dtype_name(t.type()), " tensors cannot be differentiated");
  return {};
}

tensor make_tensor(dtype type, const tensor_shape& shape, const std::vector<double>& v) {
  if (type == dtype::float32) return tensor::from_vector<float>({v.begin(), v.end()}, shape);
  return tensor::from_vector<double>(v, shape);
}

// "[1, 2]" for flat index 5 of a [2, 3] tensor.
std::string element_name(const tensor_shape& shape, int64_t flat) {
  std::vector<int64_t> index(static_cast<size_t>(shape.rank()));
  for (int d = shape.rank() - 1; d >= 0; --d) {
    index[d] = flat % shape.dim(d);
    flat /= shape.dim(d);
  }
  std::ostringstream os;
  os << "[";
  for (size_t d = 0; d < index.size(); ++d) os << (d ? ", " : "") << index[d];
  os << "]";
  return os.str();
}

}  // namespace

double check_gradients(const scope& root, const std::vector<output>& xs, const output& y,
                       const std::vector<tensor>& x_values, const gradient_check_options& opts) {
  REQUIRE(xs.size() == x_values.size());
  const output grad_y = ops::placeholder(root.with_op_name("gradient_check_dy"), y.type);
  std::vector<output> grads;
  const status built = add_symbolic_gradients(root, {y}, xs, {grad_y}, &grads);
  REQUIRE_MESSAGE(built.ok(), built.to_string());
  REQUIRE(grads.size() == xs.size());

  session sess(root);
  session::feed_list feeds = opts.extra_feeds;
  for (size_t k = 0; k < xs.size(); ++k) feeds.emplace_back(xs[k], x_values[k]);
  auto run_y = [&](const session::feed_list& f) {
    auto out = sess.run(f, {y});
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    return out->at(0);
  };
  const tensor y0 = run_y(feeds);
  const tensor_shape y_shape = y0.shape();
  const int64_t m = y0.num_elements();

  // symbolic[k][j * n_k + i] = d y[j] / d xs[k][i], one run per element of y.
  std::vector<std::vector<double>> symbolic(xs.size());
  for (int64_t j = 0; j < m; ++j) {
    std::vector<double> one_hot(static_cast<size_t>(m), 0.0);
    one_hot[j] = 1.0;
    session::feed_list f = feeds;
    f.emplace_back(grad_y, make_tensor(y.type, y_shape, one_hot));
    auto out = sess.run(f, grads);
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    for (size_t k = 0; k < xs.size(); ++k) {
      const tensor& g = out->at(k);
      REQUIRE_MESSAGE(g.shape() == x_values[k].shape(), "gradient of xs[", k, "] has shape ",
                      g.shape().to_string(), ", x has ", x_values[k].shape().to_string());
      const std::vector<double> row = values_of(g);
      symbolic[k].insert(symbolic[k].end(), row.begin(), row.end());
    }
  }

  double max_error = 0;
  bool reported = false;
  for (size_t k = 0; k < xs.size(); ++k) {
    const std::vector<double> x0 = values_of(x_values[k]);
    const int64_t n = static_cast<int64_t>(x0.size());
    for (int64_t i = 0; i < n; ++i) {
      auto y_at = [&](double delta) {
        std::vector<double> x = x0;
        x[i] += delta;
        session::feed_list f = feeds;
        f[opts.extra_feeds.size() + k].second =
            make_tensor(x_values[k].type(), x_values[k].shape(), x);
        return values_of(run_y(f));
      };
      const std::vector<double> plus = y_at(opts.delta), minus = y_at(-opts.delta);
      for (int64_t j = 0; j < m; ++j) {
        const double numeric = (plus[j] - minus[j]) / (2 * opts.delta);
        const double sym = symbolic[k][static_cast<size_t>(j * n + i)];
        const double error = std::abs(sym - numeric) / std::max(1.0, std::abs(numeric));
        if (!(error <= opts.tolerance) && !reported) {
          reported = true;
          CHECK_MESSAGE(error <= opts.tolerance, "d ", y.name(), element_name(y_shape, j), " / d ",
                        xs[k].name(), element_name(x_values[k].shape(), i), ": symbolic ", sym,
                        ", numeric ", numeric, " (relative error ", error, ", tolerance ",
                        opts.tolerance, ")");
        }
        // NaN counts as the worst error.
        max_error = std::isnan(error) ? error : std::max(max_error, error);
      }
    }
  }
  return max_error;
}

double check_gradient(const scope& root, const output& x, const output& y, const tensor& x_value,
                      const gradient_check_options& opts) {
  return check_gradients(root, {x}, y, {x_value}, opts);
}

output ramp_weighted(const scope& s, const output& y) {
  auto n = ops::size(s, y);
  auto ramp = ops::range(s, ops::constant(s, int32_t{1}), ops::add(s, n, ops::constant(s, 1)),
                         ops::constant(s, int32_t{1}));
  return ops::mul(s, y, ops::reshape(s, ops::cast(s, ramp, y.type), ops::shape(s, y)));
}

}  // namespace caflow::testing
