#include "apps/run/model_inputs.hpp"

#include <algorithm>
#include <map>

#include "graph/tf/npy.hpp"

namespace caflow::run_app {
namespace {

std::string feed_name(const tf::model_tensor& in) { return in.node + ":" + std::to_string(in.port); }

std::string input_list(const std::vector<tf::model_tensor>& inputs) {
  std::string out;
  for (const auto& in : inputs) out += (out.empty() ? "" : ", ") + in.name;
  return out.empty() ? "none" : out;
}

// The input named by a flag's NAME: its tensor name ("data:0"), or its node for port 0.
const tf::model_tensor* find_input(const std::vector<tf::model_tensor>& inputs, const std::string& name) {
  for (const auto& in : inputs)
    if (in.name == name || feed_name(in) == name || (in.port == 0 && in.node == name)) return &in;
  return nullptr;
}

status_or<tensor> from_file(const tf::model_tensor& in, const std::string& file) {
  CAFLOW_ASSIGN_OR_RETURN(tensor t, tf::read_npy(file));
  if (in.type != dtype::invalid && t.type() != in.type)
    return errors::invalid_argument("input '", in.name, "' is ", dtype_name(in.type), ", ", file,
                                    " holds ", dtype_name(t.type()));
  if (!in.shape.compatible_with(t.shape()))
    return errors::invalid_argument("input '", in.name, "' has shape ", in.shape.to_string(), ", ",
                                    file, " holds ", t.shape().to_string());
  return t;
}

// The pattern's shape: the input's, its leading dimension `batch` when unknown or relaxed.
status_or<tensor_shape> pattern_shape(tf::model_tensor* in, int64_t batch, bool* relaxed) {
  if (!in->shape.rank_known())
    return errors::invalid_argument("input '", in->name, "' has no known rank; feed it with --input ",
                                    in->node, "=FILE.npy or give --shape ", in->node, "=D0,D1,...");
  std::vector<int64_t> dims = in->shape.dim_vector();
  for (size_t i = 1; i < dims.size(); ++i)
    if (dims[i] < 0)
      return errors::invalid_argument("input '", in->name, "' has shape ", in->shape.to_string(),
                                      ": dimension ", i, " is unknown; feed it with --input ",
                                      in->node, "=FILE.npy or give --shape ", in->node, "=D0,D1,...");
  *relaxed = false;
  if (!dims.empty()) {
    if (dims[0] < 0) {
      dims[0] = batch > 0 ? batch : 1;
    } else if (batch > 0 && dims[0] != batch) {
      dims[0] = batch;
      *relaxed = true;
    }
  }
  return tensor_shape::make(dims);
}

// "NAME=VALUE" flags by the feed name of the input NAME names; errors name the flag.
status_or<std::map<std::string, std::string>> by_input(const std::vector<tf::model_tensor>& inputs,
                                                       const std::vector<std::string>& flags,
                                                       const char* option, const char* value) {
  std::map<std::string, std::string> out;
  for (const std::string& flag : flags) {
    const size_t eq = flag.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == flag.size())
      return errors::invalid_argument(option, " '", flag, "': expected NAME=", value);
    const std::string name = flag.substr(0, eq);
    const tf::model_tensor* in = find_input(inputs, name);
    if (in == nullptr)
      return errors::not_found(option, " '", flag, "': the model has no input '", name,
                               "' (its inputs: ", input_list(inputs), ")");
    if (!out.emplace(feed_name(*in), flag.substr(eq + 1)).second)
      return errors::invalid_argument(option, ": input '", name, "' is given twice");
  }
  return out;
}

// "1,128,128,3", which must fit the input's shape.
status_or<tensor_shape> given_shape(const tf::model_tensor& in, const std::string& text) {
  std::vector<int64_t> dims;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string piece = text.substr(start, end - start);
    if (piece.empty() || piece.size() > 12 || piece.find_first_not_of("0123456789") != std::string::npos)
      return errors::invalid_argument("--shape ", in.node, "=", text, ": '", piece,
                                      "' is not a dimension (a non-negative integer)");
    dims.push_back(std::stoll(piece));
    start = end + 1;
  }
  CAFLOW_ASSIGN_OR_RETURN(tensor_shape shape, tensor_shape::make(dims));
  if (!in.shape.compatible_with(shape))
    return errors::invalid_argument("--shape ", in.node, "=", text, ": input '", in.name,
                                    "' has shape ", in.shape.to_string());
  return shape;
}

void relax_leading_dim(graph_def* g, tf::model_tensor* in) {
  std::vector<int64_t> dims = in->shape.dim_vector();
  dims[0] = -1;
  in->shape = partial_shape(dims);
  for (node_def& n : g->nodes)
    if (n.name == in->node && n.op == "Placeholder") n.attrs["shape"] = attr_value(in->shape);
}

}  // namespace

tensor input_pattern(dtype type, const tensor_shape& shape) {
  tensor t(type, shape);
  visit_dtype(type, [&]<class T>() {
    T* x = t.data<T>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        x[i] = i % 2 != 0;
      } else if constexpr (std::is_floating_point_v<T>) {
        x[i] = static_cast<T>(static_cast<double>((i * 7919) % 1000) / 1000 - 0.5);
      } else {
        x[i] = static_cast<T>((i * 7919) % 1000);
      }
    }
  });
  return t;
}

status_or<session::named_feed_list> make_feeds(tf::imported_model* model, const feed_request& request,
                                               std::vector<std::string>* notes) {
  CAFLOW_ASSIGN_OR_RETURN(auto files, by_input(model->inputs, request.files, "--input", "FILE.npy"));
  CAFLOW_ASSIGN_OR_RETURN(auto shapes, by_input(model->inputs, request.shapes, "--shape", "D0,D1,..."));
  session::named_feed_list feeds;
  for (tf::model_tensor& in : model->inputs) {
    if (auto f = files.find(feed_name(in)); f != files.end()) {
      CAFLOW_ASSIGN_OR_RETURN(tensor t, from_file(in, f->second));
      feeds.emplace_back(feed_name(in), std::move(t));
      continue;
    }
    bool relaxed = false;
    tensor_shape shape;
    if (auto s = shapes.find(feed_name(in)); s != shapes.end()) {
      CAFLOW_ASSIGN_OR_RETURN(shape, given_shape(in, s->second));
    } else {
      CAFLOW_ASSIGN_OR_RETURN(shape, pattern_shape(&in, request.batch, &relaxed));
    }
    if (relaxed) {
      notes->push_back("input '" + in.name + "' fixes its leading dimension at " +
                       std::to_string(in.shape.dim_vector()[0]) + "; run with it relaxed to --batch " +
                       std::to_string(request.batch));
      relax_leading_dim(&model->graph, &in);
    }
    feeds.emplace_back(feed_name(in), input_pattern(in.type == dtype::invalid ? dtype::float32 : in.type, shape));
  }
  return feeds;
}

}  // namespace caflow::run_app
