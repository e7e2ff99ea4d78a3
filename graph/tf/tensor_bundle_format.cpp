// TensorFlow's tensor bundles as a checkpoint format of caflow's RestoreV2
// (graph/ir/checkpoint_format.hpp): a graph built in C++ restores variables a TensorFlow run saved,
// by name, as tf.train.Saver would.
#include <cstdio>
#include <cstring>

#include "graph/ir/checkpoint_format.hpp"
#include "graph/tf/tensor_bundle.hpp"

namespace caflow::tf {
namespace {

class bundle_format final : public checkpoint_format {
 public:
  std::string_view name() const override { return "tf"; }

  // A LevelDB table ends with its 8-byte magic number, little-endian.
  bool holds(const std::string& prefix) const override {
    std::FILE* f = std::fopen(bundle_index_path(prefix).c_str(), "rb");
    if (f == nullptr) return false;
    unsigned char tail[8] = {};
    const bool ok = std::fseek(f, -8, SEEK_END) == 0 && std::fread(tail, 1, 8, f) == 8;
    std::fclose(f);
    static const unsigned char magic[8] = {0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb};
    return ok && std::memcmp(tail, magic, 8) == 0;
  }

  status_or<std::vector<tensor>> read(const std::string& prefix, const std::vector<std::string>& names,
                                      const std::vector<std::string>& slices,
                                      const std::vector<dtype>& types) const override {
    CAFLOW_ASSIGN_OR_RETURN(bundle_reader bundle, bundle_reader::open(prefix));
    std::vector<tensor> out;
    for (size_t i = 0; i < names.size(); ++i) {
      if (!bundle.contains(names[i]) || is_bundle_slice_key(names[i]))
        return errors::not_found(bundle_index_path(prefix), ": no tensor '", names[i],
                                 "' (it holds: ", bundle.names(), ")");
      CAFLOW_ASSIGN_OR_RETURN(tensor t, bundle.read(names[i]));
      if (!slices[i].empty()) {  // the rows (or box) one shard of a partitioned variable holds
        CAFLOW_ASSIGN_OR_RETURN(tensor_slice box, parse_shape_and_slice(slices[i]));
        if (t.shape() != box.full)
          return errors::invalid_argument(bundle_index_path(prefix), ": '", names[i], "' has shape ",
                                          t.shape().to_string(), ", but slice '", slices[i],
                                          "' is of full shape ", box.full.to_string());
        tensor part(t.type(), box.shape());
        copy_slice(t, whole_slice(box.full), part, box, box);
        t = std::move(part);
      }
      if (t.type() != types[i])
        return errors::invalid_argument(bundle_index_path(prefix), ": '", names[i], "' is ",
                                        dtype_name(t.type()), ", restored as ", dtype_name(types[i]));
      out.push_back(std::move(t));
    }
    return out;
  }
};

const bool registered = [] {
  register_checkpoint_format(std::make_unique<bundle_format>());
  return true;
}();

}  // namespace
}  // namespace caflow::tf
