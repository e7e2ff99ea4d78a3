#include "apps/train/ctr_data.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "graph/util/splitmix64.hpp"

namespace caflow::train_app {
namespace {

// A well-mixed 64-bit key of a tuple: each part is folded in by an odd multiply (a bijection)
// and a splitmix64 round.
uint64_t mix(uint64_t seed, uint64_t a, uint64_t b = 0, uint64_t c = 0) {
  uint64_t h = seed;
  for (const uint64_t part : {a, b, c}) {
    uint64_t state = h ^ (part * 0xd1342543de82ef95ULL);
    h = splitmix64(state);
  }
  return h;
}

// [0, 1) from the top 53 bits.
double uniform(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// A standard normal draw from a key (Box-Muller on two uniforms derived from it).
double gaussian(uint64_t key) {
  uint64_t state = key;
  const double u1 = 1.0 - uniform(splitmix64(state));  // (0, 1]: log is finite
  const double u2 = uniform(splitmix64(state));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// Salts keeping the planted model's parts and the streams apart.
enum salt : uint64_t { weight_salt = 1, group_salt = 2, interaction_salt = 3, hash_salt = 4 };

}  // namespace

status validate(const ctr_data_options& o) {
  if (o.columns < 1) return errors::invalid_argument("wide-deep: --wd-columns must be >= 1, got ", o.columns);
  if (o.rows < 1) return errors::invalid_argument("wide-deep: --wd-rows must be >= 1, got ", o.rows);
  if (o.vocab < 1) return errors::invalid_argument("wide-deep: --wd-vocab must be >= 1, got ", o.vocab);
  if (o.groups < 1) return errors::invalid_argument("wide-deep: groups must be >= 1, got ", o.groups);
  if (!(o.zipf_exponent > 0))
    return errors::invalid_argument("wide-deep: --wd-zipf must be > 0, got ", o.zipf_exponent);
  if (o.train_examples < 0 || o.test_examples < 0)
    return errors::invalid_argument("wide-deep: example counts must not be negative, got ",
                                    o.train_examples, " and ", o.test_examples);
  if (o.weight_stddev < 0 || o.interaction_stddev < 0)
    return errors::invalid_argument("wide-deep: standard deviations must not be negative");
  return {};
}

zipf_sampler::zipf_sampler(int64_t n, double exponent) : cumulative_(static_cast<size_t>(n)) {
  double sum = 0;
  for (int64_t k = 0; k < n; ++k) {
    sum += std::pow(static_cast<double>(k + 1), -exponent);
    cumulative_[k] = sum;
  }
  for (double& c : cumulative_) c /= sum;
  if (n > 0) cumulative_.back() = 1.0;  // no rounding gap above the last rank
}

int64_t zipf_sampler::rank(double u) const {
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
  return std::min<int64_t>(it - cumulative_.begin(), static_cast<int64_t>(cumulative_.size()) - 1);
}

double zipf_sampler::probability(int64_t rank) const {
  return cumulative_[rank] - (rank == 0 ? 0.0 : cumulative_[rank - 1]);
}

int64_t hashed_id(uint64_t seed, int column, int64_t rank, int64_t rows) {
  return static_cast<int64_t>(mix(seed, hash_salt, static_cast<uint64_t>(column),
                                  static_cast<uint64_t>(rank)) %
                              static_cast<uint64_t>(rows));
}

planted_ctr_model::planted_ctr_model(const ctr_data_options& o) : o_(o) {
  const int pairs = o.columns / 2;
  const int g = o.groups;
  interactions_.resize(static_cast<size_t>(pairs) * g * g);
  for (int p = 0; p < pairs; ++p)
    for (int a = 0; a < g; ++a)
      for (int b = 0; b < g; ++b)
        interactions_[static_cast<size_t>((p * g + a) * g + b)] =
            o.interaction_stddev *
            gaussian(mix(o.seed, interaction_salt, static_cast<uint64_t>(p),
                         static_cast<uint64_t>(a * g + b)));
}

double planted_ctr_model::weight(int column, int64_t id) const {
  return o_.weight_stddev *
         gaussian(mix(o_.seed, weight_salt, static_cast<uint64_t>(column), static_cast<uint64_t>(id)));
}

int planted_ctr_model::group(int column, int64_t id) const {
  return static_cast<int>(mix(o_.seed, group_salt, static_cast<uint64_t>(column),
                              static_cast<uint64_t>(id)) %
                          static_cast<uint64_t>(o_.groups));
}

double planted_ctr_model::logit(const int64_t* ids) const {
  double z = o_.bias;
  for (int c = 0; c < o_.columns; ++c) z += weight(c, ids[c]);
  const int g = o_.groups;
  for (int c = 0; c + 1 < o_.columns; c += 2)
    z += interactions_[static_cast<size_t>(((c / 2) * g + group(c, ids[c])) * g +
                                           group(c + 1, ids[c + 1]))];
  return z;
}

double planted_ctr_model::probability(const int64_t* ids) const {
  return 1.0 / (1.0 + std::exp(-logit(ids)));
}

ctr_split generate_ctr_split(const ctr_data_options& o, int64_t examples, uint64_t stream) {
  const zipf_sampler zipf(o.vocab, o.zipf_exponent);
  const planted_ctr_model planted(o);
  ctr_split s{tensor(dtype::int64, tensor_shape{examples, o.columns}),
              tensor(dtype::int32, tensor_shape{examples}),
              tensor(dtype::float32, tensor_shape{examples})};
  int64_t* ids = s.ids.data<int64_t>();
  int32_t* labels = s.labels.data<int32_t>();
  float* probs = s.planted.data<float>();
  uint64_t state = mix(o.seed, stream);
  for (int64_t i = 0; i < examples; ++i) {
    int64_t* row = ids + i * o.columns;
    for (int c = 0; c < o.columns; ++c)
      row[c] = hashed_id(o.seed, c, zipf.rank(uniform(splitmix64(state))), o.rows);
    const double p = planted.probability(row);
    probs[i] = static_cast<float>(p);
    labels[i] = uniform(splitmix64(state)) < p ? 1 : 0;
  }
  return s;
}

status_or<ctr_data> generate_ctr_data(const ctr_data_options& o) {
  CAFLOW_RETURN_IF_ERROR(validate(o));
  constexpr uint64_t train_stream = 0x7261696e, test_stream = 0x74657374;
  return ctr_data{generate_ctr_split(o, o.train_examples, train_stream),
                  generate_ctr_split(o, o.test_examples, test_stream)};
}

}  // namespace caflow::train_app
