// --model wide-deep's family: generated click-through data (ctr_data.hpp) and the model of
// wide_deep_model.hpp.
#include <cstdio>

#include "apps/train/auc.hpp"
#include "apps/train/ctr_data.hpp"
#include "apps/train/model_family.hpp"
#include "apps/train/wide_deep_model.hpp"

namespace caflow::train_app {
namespace {

ctr_data_options data_options(const train_options& o) {
  const wide_deep_flags& f = o.wide_deep;
  ctr_data_options d;
  d.columns = f.columns;
  d.rows = f.rows;
  d.vocab = f.vocab;
  d.zipf_exponent = f.zipf;
  d.train_examples = f.train_examples;
  d.test_examples = f.test_examples;
  d.seed = o.seed;
  return d;
}

status_or<data::dataset> limited(tensor ids, tensor labels, int64_t limit) {
  CAFLOW_ASSIGN_OR_RETURN(auto all, data::dataset::make(std::move(ids), std::move(labels)));
  if (limit <= 0) return all;
  return all.take(limit);
}

class wide_deep final : public model_family {
 public:
  // Click logs train on few passes of large batches, with Adagrad (the optimizer of TF's
  // DNNLinearCombinedClassifier deep part), and a table per column sharded over two ps tasks.
  // The accumulators start at 0.001, not TF's 0.1: a rare id's row gets a few small gradients
  // (its share of a mean over the batch), which an accumulator of 0.1 would shrink about
  // tenfold; the planted model is recovered to within ~0.013 AUC instead of ~0.03.
  model_defaults defaults() const override {
    return {.epochs = 2, .batch_size = 256, .learning_rate = 0.1, .optimizer = "adagrad",
            .adagrad_initial_accumulator = 0.001, .ps_tasks = 2};
  }

  status check(const train_options& o) const override {
    if (o.mode == replication::model_parallel)
      return errors::invalid_argument(
          "--model wide-deep has no layers to spread over workers: use --mode local, "
          "in-graph, async or sync");
    return validate(data_options(o));
  }

  status_or<train_data> load_data(const train_options& o) const override {
    const ctr_data_options d = data_options(o);
    CAFLOW_ASSIGN_OR_RETURN(ctr_data generated, generate_ctr_data(d));
    CAFLOW_ASSIGN_OR_RETURN(auto train, limited(generated.train.ids, generated.train.labels,
                                                o.train_limit));
    const int64_t tests = o.test_limit > 0 ? std::min(o.test_limit, d.test_examples)
                                           : d.test_examples;
    CAFLOW_ASSIGN_OR_RETURN(auto test, limited(generated.test.ids, generated.test.labels, tests));
    // The planted model's scores on the same test examples: the Bayes-optimal AUC.
    const ctr_split& t = generated.test;
    CAFLOW_ASSIGN_OR_RETURN(
        double planted_auc,
        roc_auc({t.planted.data<float>(), static_cast<size_t>(tests)},
                {t.labels.data<int32_t>(), static_cast<size_t>(tests)}));
    char description[320];
    std::snprintf(description, sizeof description,
                  "%lld training and %lld test examples generated: %d columns, Zipf(%.2f) over "
                  "%lld values hashed into %lld buckets each, planted model's test AUC %.4f",
                  static_cast<long long>(train.size()), static_cast<long long>(test.size()),
                  d.columns, d.zipf_exponent, static_cast<long long>(d.vocab),
                  static_cast<long long>(d.rows), planted_auc);
    return train_data{std::move(train), std::move(test), description, planted_auc};
  }

  model_params create_params(const scope& s, const train_options& o,
                             int ps_tasks) const override {
    return create_wide_deep_params(s, o.wide_deep, ps_tasks, o.seed);
  }

  tower build_tower(const scope& s, const model_params& params, uint64_t,
                    const std::vector<std::string>&) const override {
    return build_wide_deep_tower(s, params);
  }
};

}  // namespace

const model_family& wide_deep_family() {
  static const wide_deep family;
  return family;
}

}  // namespace caflow::train_app
