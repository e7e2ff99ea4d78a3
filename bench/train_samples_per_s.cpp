// Training samples per second of caflow-train's models in a local session (no cluster):
// batch 100, Adam (the app's default optimizer), 2 intra-op threads and 1 inter-op thread.
//
//   bench_train_samples_per_s --model mlp|cnn [--steps N] [--warmup N] [--baseline S]
//                             [--device cpu|gpu] [--batch N] [--gpu-graphs on|off]
//                             [--disable-pass NAME]...
//       prints RESULT train_<model>_samples_per_s (train_<model>_gpu_b<N>_samples_per_s on the
//       GPU, with _nographs when steps are not replayed as CUDA graphs); with --baseline (PyTorch's samples/s on the same model, batch, threads and data,
//       measured by bench/pytorch_train.py in the same bench/run) also the ratio. Target ratio:
//       at least 1.2 against PyTorch's best (bench/run: its fastest OpenBLAS core, at 1 and 2
//       threads, the faster). On the GPU the towers run on GPU:0 (what has no GPU kernel on the CPU),
//       as caflow-train --device gpu runs them; without a GPU it prints one line saying why.
//       --disable-pass skips a graph pass (remapper, ...) for an A/B of what it buys.
//   bench_train_samples_per_s --write-batches FILE
//       writes the batch set (below) for bench/pytorch_train.py and exits.
//
// Data: the first batch_count * 100 Fashion-MNIST training images (a fixed synthetic set of
// the same shape where the dataset is not installed; the RESULT line's note says which),
// cycled in order, identical bytes on both sides. Its layout in FILE, little-endian:
//   "CFTB" | uint32 batches | uint32 batch size | float32 images [batches*batch, 28, 28, 1]
//          | int32 labels [batches*batch]
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <string>

#include "actors/session/session.hpp"
#include "apps/train/replication.hpp"
#include "bench_util.hpp"
#include "devices/gpu_devices.hpp"
#include "graph/client/data/fashion_mnist.hpp"

using namespace caflow;
using namespace caflow::train_app;

namespace {

constexpr int32_t batch_count = 10;
constexpr int64_t pixels = 28 * 28;
constexpr int threads = 2;

struct batch_set {
  tensor images;  // [batch_count * batch_size, 28, 28, 1]
  tensor labels;  // [batch_count * batch_size]
  const char* source;
};

// Splitmix64: a fixed sequence on every platform (std distributions are not).
uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

batch_set make_batches(int32_t batch_size) {
  const int64_t n = int64_t{batch_count} * batch_size;
  if (auto all = data::load_fashion_mnist(data::fashion_mnist_split::train); all.ok()) {
    auto first = all->take(n);
    if (first.ok() && first->size() == n)
      return {first->images(), first->labels(), "fashion-mnist"};
  }
  batch_set b{tensor(dtype::float32, tensor_shape{n, 28, 28, 1}),
              tensor(dtype::int32, tensor_shape{n}), "synthetic"};
  uint64_t state = 20240601;
  float* img = b.images.data<float>();
  // Pixels in [0, 1) on a 1/256 grid, like the dataset's bytes / 255.
  for (int64_t i = 0; i < n * pixels; ++i)
    img[i] = static_cast<float>(next_random(state) >> 56) / 256.0f;
  int32_t* lab = b.labels.data<int32_t>();
  for (int64_t i = 0; i < n; ++i) lab[i] = static_cast<int32_t>(next_random(state) % 10);
  return b;
}

void write_batches(const batch_set& b, int32_t batch_size, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  const uint32_t header[2] = {batch_count, static_cast<uint32_t>(batch_size)};
  out.write("CFTB", 4);
  out.write(reinterpret_cast<const char*>(header), sizeof(header));
  out.write(reinterpret_cast<const char*>(b.images.data<float>()),
            static_cast<std::streamsize>(b.images.num_elements() * sizeof(float)));
  out.write(reinterpret_cast<const char*>(b.labels.data<int32_t>()),
            static_cast<std::streamsize>(b.labels.num_elements() * sizeof(int32_t)));
  bench::check(out.good(), "cannot write the batch file");
}

struct args {
  model_kind model = model_kind::mlp;
  int steps = 0;  // 0: the model's default
  int warmup = 5;
  double baseline = 0;
  std::string write_path;
  bool gpu = false;
  bool graphs = true;  // CUDA graphs (devices/device_graph.hpp)
  int32_t batch = 100;
  std::set<std::string, std::less<>> disabled_passes;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: bench_train_samples_per_s --model mlp|cnn [--steps N] [--warmup N] "
               "[--baseline SAMPLES_PER_S] [--device cpu|gpu] [--batch N] [--gpu-graphs on|off] "
               "[--disable-pass NAME]...\n"
               "       bench_train_samples_per_s [--batch N] --write-batches FILE\n");
  std::exit(2);
}

args parse(int argc, char** argv) {
  args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage();
    const std::string value = argv[++i];
    if (flag == "--model" && (value == "mlp" || value == "cnn"))
      a.model = value == "mlp" ? model_kind::mlp : model_kind::cnn;
    else if (flag == "--steps")
      a.steps = std::stoi(value);
    else if (flag == "--warmup")
      a.warmup = std::stoi(value);
    else if (flag == "--baseline")
      a.baseline = std::stod(value);
    else if (flag == "--write-batches")
      a.write_path = value;
    else if (flag == "--device" && (value == "cpu" || value == "gpu"))
      a.gpu = value == "gpu";
    else if (flag == "--batch" && std::stoi(value) > 0)
      a.batch = std::stoi(value);
    else if (flag == "--gpu-graphs" && (value == "on" || value == "off"))
      a.graphs = value == "on";
    else if (flag == "--disable-pass")
      a.disabled_passes.insert(value);
    else
      usage();
  }
  // About 10 s each on a 2-core machine.
  if (a.steps <= 0) a.steps = a.model == model_kind::mlp ? 4500 : 80;
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const args a = parse(argc, argv);
  const int32_t batch_size = a.batch;
  const batch_set data = make_batches(batch_size);
  if (!a.write_path.empty()) {
    write_batches(data, batch_size, a.write_path);
    return 0;
  }
  const std::string name =
      std::string("train_") + to_string(a.model) +
      (a.gpu ? "_gpu_b" + std::to_string(batch_size) + (a.graphs ? "" : "_nographs")
             : std::string()) +
      "_samples_per_s";
  if (a.gpu && local_gpus().gpus.empty()) {
    std::printf("%s: skipped: no GPU (%s)\n", name.c_str(), local_gpus().why_none.c_str());
    return 0;
  }

  train_options opts;
  opts.model = a.model;
  opts.mode = replication::local;
  opts.batch_size = batch_size;
  opts.threads = threads;
  opts.device = a.gpu ? "gpu" : "cpu";
  auto graph = build_client_graph(opts, {});
  bench::check(graph.ok(), "building the training graph failed");
  client_graph& g = **graph;
  const tower& t = g.towers.at(0);

  session_options sopts;
  sopts.cpu = {.intra_op_threads = threads, .inter_op_threads = 1};
  if (!a.gpu) sopts.device_count[device_gpu] = 0;
  sopts.gpu.capture_graphs = a.graphs;
  sopts.optimizer.disabled = a.disabled_passes;
  session sess(g.root, sopts);
  bench::check(sess.run_targets({g.shared_init}).ok(), "initializing the variables failed");

  std::vector<session::feed_list> feeds;
  for (int64_t b = 0; b < batch_count; ++b)
    feeds.push_back({{t.inputs, data.images.slice_dim0(b * batch_size, (b + 1) * batch_size)},
                     {t.labels, data.labels.slice_dim0(b * batch_size, (b + 1) * batch_size)},
                     {t.training, tensor::scalar(true)}});
  float first_loss = 0, last_loss = 0;
  auto step = [&](int i) {
    auto out = sess.run(feeds[static_cast<size_t>(i % batch_count)], {t.loss}, {g.train_op});
    if (!out.ok()) std::fprintf(stderr, "step %d: %s\n", i, out.get_status().to_string().c_str());
    bench::check(out.ok(), "a training step failed");
    last_loss = out->at(0).data<float>()[0];
    if (i == 0) first_loss = last_loss;
  };

  for (int i = 0; i < a.warmup; ++i) step(i);
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  for (int i = 0; i < a.steps; ++i) step(a.warmup + i);
  const double seconds = std::chrono::duration<double>(clock::now() - start).count();
  bench::check(std::isfinite(last_loss), "the loss is not finite");

  const double samples_per_s = double(a.steps) * batch_size / seconds;
  std::printf("caflow %s: %d steps of batch %d in %.2f s, loss %.3f -> %.3f\n",
              to_string(a.model), a.steps, batch_size, seconds, first_loss, last_loss);
  // bench_util's format with a note on where the images came from.
  std::printf("RESULT %s value=%.4g unit=samples/s", name.c_str(), samples_per_s);
  if (a.baseline > 0)
    std::printf(" baseline=%.4g ratio=%.3f", a.baseline, samples_per_s / a.baseline);
  std::printf(" note=%s-data\n", data.source);
  std::fflush(stdout);
  return 0;
}
