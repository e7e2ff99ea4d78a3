#include "apps/train/model_family.hpp"

#include <map>

namespace caflow::train_app {

const model_family& model_family_for(model_kind kind) {
  static const std::map<model_kind, const model_family*> families{
      {model_kind::mlp, &image_model_family(model_kind::mlp)},
      {model_kind::cnn, &image_model_family(model_kind::cnn)},
      {model_kind::rnn, &image_model_family(model_kind::rnn)},
      {model_kind::wide_deep, &wide_deep_family()},
  };
  return *families.at(kind);
}

}  // namespace caflow::train_app
