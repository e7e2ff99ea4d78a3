#include "graph/tf/model_import.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "graph/tf/saved_model.hpp"
#include "graph/tf/tfjs_model.hpp"

namespace caflow::tf {
namespace {

imported_model with_graph_io(graph_def g, graph_encoding encoding) {
  imported_model out;
  out.inputs = graph_inputs(g);
  out.outputs = graph_outputs(g);
  out.graph = std::move(g);
  out.format = std::string(graph_encoding_name(encoding)) + " GraphDef";
  return out;
}

// A TF.js model.json names its GraphDef "modelTopology"; a bare GraphDef in JSON has "node" at
// the top. Sniffed from the text rather than parsed twice: the key cannot appear elsewhere
// before the first node of a GraphDef.
bool is_tfjs_model_json(std::string_view text) {
  return text.find("\"modelTopology\"") != std::string_view::npos;
}

}  // namespace

status_or<imported_model> import_graph_def(std::string_view bytes, graph_encoding encoding,
                                           const std::string& origin) {
  CAFLOW_ASSIGN_OR_RETURN(graph_def g, read_graph_def(bytes, encoding, origin));
  return with_graph_io(std::move(g), encoding);
}

status_or<imported_model> import_graph_def(const std::string& path) {
  const std::string_view p = path;
  // A SavedModel is a folder; its saved_model.pb alone is no GraphDef, so naming it means the
  // folder too.
  const std::filesystem::path fs_path(path);
  if (is_saved_model_dir(path) || fs_path.filename() == "saved_model.pb") {
    const std::string dir = fs_path.filename() == "saved_model.pb" ? fs_path.parent_path().string() : path;
    CAFLOW_ASSIGN_OR_RETURN(saved_model m, load_saved_model(dir.empty() ? "." : dir));
    return std::move(m.model);
  }
  if (p.ends_with(".json")) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return errors::not_found(path, ": cannot open: ", std::strerror(errno));
    std::string text{std::istreambuf_iterator<char>(in), {}};
    if (is_tfjs_model_json(text)) {
      CAFLOW_ASSIGN_OR_RETURN(tfjs_model m, read_tfjs_model(path));
      return imported_model{std::move(m.graph), std::move(m.inputs), std::move(m.outputs),
                            m.inputs_source, m.outputs_source, "TensorFlow.js graph model"};
    }
    return import_graph_def(text, graph_encoding::json, path);
  }
  CAFLOW_ASSIGN_OR_RETURN(graph_def g, read_graph_def_file(path));
  return with_graph_io(std::move(g), p.ends_with(".pbtxt") ? graph_encoding::text : graph_encoding::binary);
}

}  // namespace caflow::tf
