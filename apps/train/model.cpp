#include "apps/train/model.hpp"

#include "graph/client/ops/ops.hpp"
#include "graph/client/train/initializers.hpp"
#include "graph/client/train/layers.hpp"

namespace caflow::train_app {
namespace {

constexpr int64_t image_size = 28;
constexpr int64_t num_classes = 10;
constexpr int64_t lstm_units = 128;

struct layer_shape {
  const char* name;
  tensor_shape kernel;
};

std::vector<layer_shape> layer_shapes(model_kind kind) {
  if (kind == model_kind::mlp)
    return {{"dense1", {784, 256}}, {"dense2", {256, 128}}, {"dense3", {128, 100}},
            {"logits", {100, num_classes}}};
  if (kind == model_kind::rnn)
    return {{"lstm", {image_size + lstm_units, 4 * lstm_units}},
            {"logits", {lstm_units, num_classes}}};
  return {{"conv1", {5, 5, 1, 32}},
          {"conv2", {5, 5, 32, 64}},
          {"dense1", {7 * 7 * 64, 1024}},
          {"logits", {1024, num_classes}}};
}

output dense(const scope& s, const output& x, const train::variable& kernel,
             const train::variable& bias, bool relu) {
  auto y = ops::bias_add(s, ops::mat_mul(s, x, kernel), bias);
  return relu ? ops::relu(s, y) : y;
}

output conv_pool(const scope& s, const output& x, const train::variable& kernel,
                 const train::variable& bias) {
  auto y = ops::relu(s, ops::bias_add(s, ops::conv2d(s, x, kernel, {.padding = "SAME"}), bias));
  return ops::max_pool(s, y, {.ksize = {1, 2, 2, 1}, .strides = {1, 2, 2, 1}, .padding = "SAME"});
}

// Layer i's scope: its own name scope, on layer_devices[i] when given (model parallelism).
struct layer_scopes {
  const scope& s;
  const std::vector<std::string>& devices;
  scope operator()(int i, const char* name) const {
    const scope ls = s.new_sub_scope(name);
    return i < static_cast<int>(devices.size()) ? ls.with_device(devices[i]) : ls;
  }
};

// TF's dynamic_rnn over an LSTM cell (BasicLSTMCell, forget bias 1): the image's 28 rows are
// 28 time steps of 28 pixels, run by a while_loop; the last output feeds the logits.
output lstm_last_output(const scope& s, const output& images, const train::variable& kernel,
                        const train::variable& bias) {
  const output rows = ops::reshape(s, images, {-1, image_size, image_size});
  const output steps = ops::transpose(s, rows, {1, 0, 2});  // [time, batch, pixels]
  const output batch = ops::gather(s, ops::shape(s, images), ops::constant(s, 0));
  const output zeros = ops::fill(
      s, ops::pack(s, {batch, ops::constant(s, static_cast<int32_t>(lstm_units))}),
      ops::constant(s, 0.0f));
  const output state =
      ops::reshape(s.with_op_name("initial_state"), zeros, {-1, lstm_units});
  auto out = ops::while_loop(
      s, {ops::constant(s, 0), state, state},
      [&](const scope& c, const std::vector<output>& v) {
        return ops::less(c, v[0], ops::constant(c, static_cast<int32_t>(image_size)));
      },
      [&](const scope& b, const std::vector<output>& v) {
        const output x = ops::gather(b, steps, v[0]);
        const output z =
            ops::bias_add(b, ops::mat_mul(b, ops::concat(b, {x, v[1]}, 1), kernel), bias);
        const std::vector<output> gates = ops::split(b, 1, z, 4);  // i, j, f, o
        const output c = ops::add(
            b, ops::mul(b, v[2], ops::sigmoid(b, ops::add(b, gates[2], ops::constant(b, 1.0f)))),
            ops::mul(b, ops::sigmoid(b, gates[0]), ops::tanh(b, gates[1])));
        const output h = ops::mul(b, ops::sigmoid(b, gates[3]), ops::tanh(b, c));
        return std::vector{ops::add(b, v[0], ops::constant(b, 1)), h, c};
      },
      {.parallel_iterations = 4, .maximum_iterations = {}, .shape_invariants = {}});
  return out.size() == 3 ? out[1] : output{};
}

output forward(const layer_scopes& layer, const model_params& p, const output& images,
               const output& training, uint64_t seed) {
  const auto& w = p.weights;
  if (p.kind == model_kind::rnn) {
    const output h = lstm_last_output(layer(0, "lstm"), images, w[0], w[1]);
    return dense(layer(1, "logits"), h, w[2], w[3], false);
  }
  if (p.kind == model_kind::mlp) {
    output x = layers::flatten(layer(0, "input"), images);
    x = dense(layer(0, "dense1"), x, w[0], w[1], true);
    x = dense(layer(1, "dense2"), x, w[2], w[3], true);
    x = dense(layer(2, "dense3"), x, w[4], w[5], true);
    return dense(layer(3, "logits"), x, w[6], w[7], false);
  }
  output x = conv_pool(layer(0, "conv1"), images, w[0], w[1]);
  x = conv_pool(layer(1, "conv2"), x, w[2], w[3]);
  x = layers::flatten(layer(2, "input"), x);
  x = dense(layer(2, "dense1"), x, w[4], w[5], true);
  x = layers::dropout(layer(2, "dropout"), x, 0.4, training, {.seed = static_cast<int64_t>(seed)});
  return dense(layer(3, "logits"), x, w[6], w[7], false);
}

}  // namespace

std::vector<train::variable> model_params::trainable() const {
  std::vector<train::variable> all = weights;
  for (const auto& t : tables) all.insert(all.end(), t.shards.begin(), t.shards.end());
  return all;
}

model_params create_params(const scope& s, model_kind kind, uint64_t seed) {
  model_params p;
  p.kind = kind;
  int64_t layer_seed = static_cast<int64_t>(seed) * 1000;
  for (const auto& l : layer_shapes(kind)) {
    const scope ls = s.new_sub_scope(l.name);
    p.weights.push_back(train::create_variable(ls, "kernel", l.kernel, dtype::float32,
                                               train::glorot_uniform_initializer(++layer_seed)));
    const int64_t units = l.kernel.dim(l.kernel.rank() - 1);
    p.weights.push_back(train::create_variable(ls, "bias", tensor_shape{units}, dtype::float32,
                                               train::zeros_initializer()));
  }
  return p;
}

tower build_tower(const scope& s, const model_params& params, uint64_t seed,
                  const std::vector<std::string>& layer_devices) {
  tower t;
  t.inputs = ops::placeholder(s.with_op_name("images"), dtype::float32,
                              {.shape = partial_shape({-1, image_size, image_size, 1})});
  t.labels = ops::placeholder(s.with_op_name("labels"), dtype::int32,
                              {.shape = partial_shape({-1})});
  t.training = ops::placeholder_with_default(s.with_op_name("training"),
                                             ops::constant(s, false), partial_shape({}));
  t.logits = forward(layer_scopes{s, layer_devices}, params, t.inputs, t.training, seed);
  const scope ls = s.new_sub_scope("loss");
  auto xent = ops::sparse_softmax_cross_entropy_with_logits(ls, t.logits, t.labels);
  t.loss = ops::mean(ls, xent.loss, {0});
  const scope as = s.new_sub_scope("accuracy");
  auto predicted = ops::arg_max(as, t.logits, 1, {.output_type = dtype::int32});
  t.correct = ops::sum(as, ops::cast(as, ops::equal(as, predicted, t.labels), dtype::int32), {0});
  return t;
}

}  // namespace caflow::train_app
