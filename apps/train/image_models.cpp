// The Fashion-MNIST models' family: mlp, cnn and rnn (model.cpp builds them).
#include "apps/train/model_family.hpp"

namespace caflow::train_app {
namespace {

class image_family final : public model_family {
 public:
  explicit image_family(model_kind kind) : kind_(kind) {}

  model_defaults defaults() const override { return {}; }

  status check(const train_options& o) const override {
    if (kind_ == model_kind::rnn && o.mode == replication::model_parallel)
      return errors::invalid_argument(
          "--model rnn runs its LSTM loop on one device: use --mode local, in-graph, async or "
          "sync");
    return {};
  }

  status_or<train_data> load_data(const train_options& o) const override {
    return load_fashion_mnist(o.data_dir, o.train_limit, o.test_limit);
  }

  model_params create_params(const scope& s, const train_options& o, int) const override {
    return train_app::create_params(s, kind_, o.seed);
  }

  tower build_tower(const scope& s, const model_params& params, uint64_t seed,
                    const std::vector<std::string>& layer_devices) const override {
    return train_app::build_tower(s, params, seed, layer_devices);
  }

 private:
  model_kind kind_;
};

}  // namespace

const model_family& image_model_family(model_kind kind) {
  static const image_family mlp(model_kind::mlp), cnn(model_kind::cnn), rnn(model_kind::rnn);
  return kind == model_kind::cnn ? cnn : kind == model_kind::rnn ? rnn : mlp;
}

}  // namespace caflow::train_app
