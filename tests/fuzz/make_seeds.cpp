// Writes the seed corpora of the fuzz targets: small valid archives and wire values, so the
// fuzzer starts from inputs that reach deep into each parser. Usage:
//   fuzz_make_seeds <corpus root>    (writes <root>/<target>/seed-*; run once, commit them)
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz/wire_types.hpp"
#include "graph/ir/checkpoint_file.hpp"
#include "graph/ir/serialization.hpp"
#include "net/bulk/bulk_frame.hpp"

using namespace caflow;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string text(const std::vector<char>& bytes) { return {bytes.begin(), bytes.end()}; }

graph_def example_graph() {
  graph_def g;
  node_def x{"x", "Placeholder", "/job:worker/task:0", {}, {{"dtype", dtype::float32},
                                                           {"shape", partial_shape{-1, 2}}}};
  node_def w{"w", "Const", "", {}, {{"dtype", dtype::float32},
                                    {"value", tensor::from_vector<float>({1, 2, 3, 4}, {2, 2})}}};
  node_def y{"y", "MatMul", "/job:ps/task:0", {"x", "w:0", "^init"},
             {{"transpose_a", false}, {"transpose_b", true}, {"T", dtype::float32}}};
  node_def lists{"lists", "NoOp", "", {}, {{"ints", std::vector<int64_t>{1, -2, 3}},
                                           {"floats", std::vector<float>{0.5f, -1}},
                                           {"bools", std::vector<bool>{true, false}},
                                           {"strings", std::vector<std::string>{"a", ""}},
                                           {"types", std::vector<dtype>{dtype::int32, dtype::uint8}},
                                           {"shapes", std::vector<partial_shape>{partial_shape::unknown()}},
                                           {"tensors", std::vector<tensor>{tensor::scalar<int64_t>(9)}},
                                           {"f", 2.5f}, {"i", int64_t{7}}, {"s", "text"}}};
  g.nodes = {x, w, y, lists};
  return g;
}

std::vector<named_tensor> example_tensors() {
  return {{"w", tensor::from_vector<float>({1, 2, 3, 4}, {2, 2})},
          {"b", tensor::from_vector<double>({-1.5})},
          {"step", tensor::scalar<int64_t>(100)},
          {"i", tensor::from_vector<int32_t>({7, 8, 9})},
          {"u", tensor::from_vector<uint8_t>({255, 0})},
          {"m", tensor::from_vector<bool>({true, false, true})},
          {"empty", tensor(dtype::float32, tensor_shape{0, 3})}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus root>\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];

  write(root / "graph_def", "seed-graph", serialize_graph(example_graph()));
  write(root / "graph_def", "seed-empty", serialize_graph(graph_def{}));

  int n = 0;
  for (const auto& [name, t] : example_tensors())
    write(root / "tensor", "seed-" + std::to_string(n++) + "-" + name, serialize_tensor(t));
  write(root / "tensor", "seed-uninitialized", serialize_tensor(tensor{}));
  write(root / "tensor", "seed-list", serialize_tensors(example_tensors()));

  write(root / "checkpoint", "seed-shard", serialize_tensors(example_tensors()));
  write(root / "checkpoint", "seed-index",
        serialize_tensors({{"step", tensor::scalar<int64_t>(7)},
                           {"num_shards", tensor::scalar<int64_t>(2)}}));
  write(root / "checkpoint", "seed-name", checkpoint::shard_file_name(7, 0, 1));

  struct wire_config : caf::actor_system_config {
    wire_config() {
      add_wire_types(*this);
      set("scheduler.max-threads", 1);
    }
  } cfg;
  caf::actor_system sys{cfg};
  const auto& types = fuzz::wire_types();
  for (size_t i = 0; i < types.size(); ++i) {
    const std::string selector(1, static_cast<char>(i));
    const auto value = types[i].example(sys);
    write(root / "wire", std::string("seed-") + (types[i].name + 8), selector + text(value));
  }
  // Whole messages as BASP carries them: an atom and a value, type names included.
  const std::string message(1, static_cast<char>(fuzz::message_selector()));
  run_graph_request request;
  request.graph_handle = "g";
  request.args = {wire_tensor{fuzz::small_tensor()}};
  auto msg = caf::make_message(cf_run_graph_atom::value, request);
  write(root / "wire", "seed-message-run_graph", message + text(fuzz::encode(sys, msg)));
  edge_value edge;
  edge.key = "k";
  edge.value = wire_tensor{tensor::scalar<float>(1)};
  msg = caf::make_message(cf_push_atom::value, edge);
  write(root / "wire", "seed-message-push", message + text(fuzz::encode(sys, msg)));
  auto chunks = make_chunks(3, "k", tensor::from_vector<int64_t>({1, 2, 3}), 8);
  msg = caf::make_message(cf_chunk_atom::value, chunks.at(0));
  write(root / "wire", "seed-message-chunk", message + text(fuzz::encode(sys, msg)));
  msg = caf::make_message(
      cf_abort_atom::value, int64_t{5},
      step_error{13, "task /job:w/replica:0/task:1 was lost", {}, {}, "/job:w/replica:0/task:1"});
  write(root / "wire", "seed-message-abort", message + text(fuzz::encode(sys, msg)));
  msg = caf::make_message(cf_inspect_atom::value, admin_query{{"trace", "on"}});
  write(root / "wire", "seed-message-admin", message + text(fuzz::encode(sys, msg)));
  const auto frame = encode_bulk_header({.actor_id = 12, .step_id = 5, .key = "a;b;x:0",
                                         .type = static_cast<uint8_t>(dtype::float32),
                                         .dims = {1024, 1024}, .total_bytes = 4 << 20});
  write(root / "bulk_frame", "seed-frame", text(frame));
  std::printf("seeds written under %s\n", root.c_str());
  return 0;
}
