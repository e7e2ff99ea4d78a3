// SaveV2 and RestoreV2 on the CPU, through checkpoint_file and checkpoint_reader. SaveV2 writes
// one file; RestoreV2 reads every file its prefix matches (a path or a glob pattern, as TF's
// RestoreSlice file_pattern), so a slice is assembled from whichever task saved its rows.
// They block on disk I/O (SaveV2 waits for fsync), so they are never cheap and run on the
// device's inter-op pool.
#include <glob.h>

#include "graph/ir/checkpoint_file.hpp"
#include "graph/ir/checkpoint_format.hpp"
#include "graph/ir/checkpoint_reader.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// The attrs both ops share, read and checked once per node.
// (Their shape function has checked names, slices and dtypes against each other.)
struct io_attrs {
  std::vector<std::string> names;
  std::vector<std::string> slices;  // one per name; "" for a whole tensor
  std::vector<dtype> types;
};

status read_io_attrs(kernel_construction& c, io_attrs& a) {
  CAFLOW_RETURN_IF_ERROR(c.get_attr("tensor_names", &a.names));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("shape_and_slices", &a.slices));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("dtypes", &a.types));
  if (a.names.size() != a.types.size())
    return errors::invalid_argument("tensor_names has ", static_cast<int64_t>(a.names.size()),
                                    " entries for ", static_cast<int64_t>(a.types.size()),
                                    " tensors");
  if (a.slices.empty()) a.slices.resize(a.names.size());
  if (a.slices.size() != a.names.size())
    return errors::invalid_argument("shape_and_slices has ", static_cast<int64_t>(a.slices.size()),
                                    " entries for ", static_cast<int64_t>(a.names.size()),
                                    " tensors");
  return {};
}

// The files a RestoreV2 prefix names, sorted: every match of the glob pattern, or the path
// itself when nothing matches (so that reading it reports why: not_found naming it).
status_or<std::vector<std::string>> matching_files(const std::string& pattern) {
  glob_t g{};
  const int rc = ::glob(pattern.c_str(), GLOB_ERR, nullptr, &g);
  std::vector<std::string> paths;
  for (size_t i = 0; rc == 0 && i < g.gl_pathc; ++i) paths.emplace_back(g.gl_pathv[i]);
  ::globfree(&g);
  if (rc == GLOB_ABORTED) return errors::internal("cannot list the files matching '", pattern, "'");
  if (paths.empty()) paths.push_back(pattern);
  return paths;
}

status_or<std::string> prefix_path(const kernel_context& ctx) {
  const tensor& prefix = ctx.input(0);
  if (prefix.rank() != 1)
    return errors::invalid_argument("prefix must be a vector of the path's bytes, got shape ",
                                    prefix.shape().to_string());
  if (prefix.num_elements() == 0) return errors::invalid_argument("prefix is an empty path");
  std::string path = checkpoint::path_of(prefix);
  if (path.find('\0') != std::string::npos)
    return errors::invalid_argument("prefix holds a NUL byte");
  // Before anything is opened: a server's file ops stay below its own roots.
  CAFLOW_RETURN_IF_ERROR(ctx.dev().files().check(path));
  return path;
}

class save_v2_op final : public op_kernel {
 public:
  explicit save_v2_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_io_attrs(c, attrs_));
  }
  void compute(kernel_context& ctx) override {
    auto path = prefix_path(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, path.get_status());
    std::vector<named_tensor> tensors;
    tensors.reserve(attrs_.names.size());
    for (size_t i = 0; i < attrs_.names.size(); ++i) {
      const tensor& t = ctx.input(static_cast<int>(i) + 1);
      CAFLOW_OP_REQUIRES(ctx, t.initialized(),
                         errors::failed_precondition("tensor '", attrs_.names[i],
                                                     "' to save has no value"));
      const std::string& slice = attrs_.slices[i];
      if (!slice.empty()) {
        // A shard of a partitioned variable: it must be shaped as its box.
        auto box = parse_shape_and_slice(slice);
        CAFLOW_OP_REQUIRES_OK(ctx, box.get_status());
        CAFLOW_OP_REQUIRES(ctx, box->shape() == t.shape(),
                           errors::invalid_argument(
                               "tensor '", attrs_.names[i], "' to save as slice '", slice,
                               "' is ", t.shape().to_string(), ", the slice is ",
                               box->shape().to_string()));
      }
      tensors.emplace_back(checkpoint::entry_key(attrs_.names[i], slice), t);
    }
    ctx.set_status(checkpoint::write_tensors(*path, tensors));
  }

 private:
  io_attrs attrs_;
};

class restore_v2_op final : public op_kernel {
 public:
  explicit restore_v2_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_io_attrs(c, attrs_));
  }
  void compute(kernel_context& ctx) override {
    auto path = prefix_path(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, path.get_status());
    // Another format's checkpoint (TensorFlow's bundles: prefix.index), read by its own reader.
    if (const checkpoint_format* format = checkpoint_format_of(*path)) {
      auto got = format->read(*path, attrs_.names, attrs_.slices, attrs_.types);
      CAFLOW_OP_REQUIRES_OK(ctx, got.get_status());
      for (size_t i = 0; i < got->size(); ++i) ctx.set_output(static_cast<int>(i), std::move((*got)[i]));
      return;
    }
    auto files = matching_files(*path);
    CAFLOW_OP_REQUIRES_OK(ctx, files.get_status());
    auto reader = checkpoint_reader::open(*files, ctx.dev().get_allocator());
    CAFLOW_OP_REQUIRES_OK(ctx, reader.get_status());
    // Every tensor first, outputs after: a failure sets none of them.
    std::vector<tensor> out;
    for (size_t i = 0; i < attrs_.names.size(); ++i) {
      auto t = reader->lookup(attrs_.names[i], attrs_.slices[i], attrs_.types[i]);
      CAFLOW_OP_REQUIRES_OK(ctx, t.get_status());
      out.push_back(std::move(t).value());
    }
    for (size_t i = 0; i < out.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(out[i]));
  }

 private:
  io_attrs attrs_;
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("SaveV2").device(device_cpu), save_v2_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("RestoreV2").device(device_cpu), restore_v2_op);

}  // namespace caflow
