#pragma once
// Synthetic click-through data for --model wide-deep. No public click log is installed on
// these machines, so examples come from a documented generator whose true model is known:
//
//   features  `columns` categorical columns. In each, a raw value is drawn by its popularity
//             rank k in [0, vocab) with P(k) proportional to 1 / (k + 1)^zipf_exponent (Zipf,
//             as real click logs' ids are), then hashed into one of `rows` buckets (TF's
//             categorical_column_with_hash_bucket). The model sees the bucket: an int64 id
//             in [0, rows) per column.
//   labels    1 (click) with the probability of a PLANTED model over those bucket ids:
//               logit = bias + sum_c w_c(id_c) + sum_{pairs (c, c+1), c even} M_c[g_c(id_c), g_{c+1}(id_{c+1})]
//             w_c(id) ~ N(0, weight_stddev^2): a weight per id (what the wide part learns);
//             g_c(id) in [0, groups): a hidden segment per id, and M_c a groups x groups
//             matrix ~ N(0, interaction_stddev^2): an interaction between two columns that no
//             linear model captures (what the deep part learns from the embeddings).
//
// Every weight, segment and matrix entry is a hash of (seed, column, id), not a stored table,
// so a 1M-row table costs nothing to plant. The planted probability of each example is kept:
// its AUC on the test set is the best any model can reach (Bayes-optimal scores), the
// reference the trained model is compared with.
//
// Deterministic for a seed on every platform (splitmix64 streams, no std distributions). The
// test set comes from its own stream: it does not change with the number of training examples.
#include <cstdint>
#include <vector>

#include "graph/core/tensor.hpp"

namespace caflow::train_app {

struct ctr_data_options {
  int columns = 4;
  int64_t rows = 1000000;  // hash buckets per column: the embedding tables' rows
  int64_t vocab = 10000;   // distinct raw values per column
  double zipf_exponent = 1.5;
  int64_t train_examples = 400000;
  int64_t test_examples = 50000;
  uint64_t seed = 1;
  // The planted model.
  double bias = -1.0;
  double weight_stddev = 0.8;
  int groups = 4;
  double interaction_stddev = 1.0;
};

// Errors (naming the option): columns, rows, vocab, groups < 1; a negative example count or
// standard deviation; a Zipf exponent that is not positive.
status validate(const ctr_data_options& o);

// Ranks 0 .. n-1 with P(k) proportional to 1 / (k + 1)^exponent, by inverting the cumulative
// distribution (a table of n doubles).
class zipf_sampler {
 public:
  zipf_sampler(int64_t n, double exponent);
  // The rank whose cumulative interval holds u, u in [0, 1).
  int64_t rank(double u) const;
  double probability(int64_t rank) const;

 private:
  std::vector<double> cumulative_;  // cumulative_[k] = P(rank <= k)
};

// The bucket of raw value `rank` of `column`: a hash of (seed, column, rank) modulo rows.
int64_t hashed_id(uint64_t seed, int column, int64_t rank, int64_t rows);

// The planted model's logit and probability for one example's ids (one per column).
class planted_ctr_model {
 public:
  explicit planted_ctr_model(const ctr_data_options& o);
  double logit(const int64_t* ids) const;
  double probability(const int64_t* ids) const;
  double weight(int column, int64_t id) const;  // w_c(id)
  int group(int column, int64_t id) const;      // g_c(id)

 private:
  ctr_data_options o_;
  std::vector<double> interactions_;  // pair p's matrix at [p * groups^2 + g_a * groups + g_b]
};

struct ctr_split {
  tensor ids;       // int64 [N, columns], bucket ids
  tensor labels;    // int32 [N], 0 or 1
  tensor planted;   // float32 [N], the planted model's probability of a click
};

struct ctr_data {
  ctr_split train, test;
};

status_or<ctr_data> generate_ctr_data(const ctr_data_options& o);
// One split of `examples` from the stream `stream` (train and test use different ones).
ctr_split generate_ctr_split(const ctr_data_options& o, int64_t examples, uint64_t stream);

}  // namespace caflow::train_app
