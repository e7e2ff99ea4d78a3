// PadV2, MirrorPad and MirrorPadGrad: registrations and shape functions. The pads' rules
// (graph/util/pad_rules.hpp) are shared with the kernels.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/ops/array_op_util.hpp"
#include "graph/util/array_index_util.hpp"
#include "graph/util/pad_rules.hpp"

namespace caflow {
namespace {

using array_op_util::dims_of;

// Checks the paddings input (shape [rank, 2], and its values when constant) against the
// input and sets output 0: grown by the pads (`grow`) or shrunk by them (MirrorPadGrad).
status padded_shape(shape_context& c, pad_mode mode, bool grow) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 2));
  const partial_shape& input = c.input(0);
  const partial_shape& pads = c.input(1);
  int64_t rank = input.rank();
  if (pads.rank_known()) {
    if (pads.dim(1) >= 0 && pads.dim(1) != 2)
      return c.error("paddings must have shape [rank,2], got shape ", pads.to_string());
    if (rank >= 0 && pads.dim(0) >= 0 && pads.dim(0) != rank)
      return c.error("paddings has shape ", pads.to_string(), " but the input has rank ", rank,
                     " (shape ", input.to_string(), "); expected [", rank, ",2]");
    if (rank < 0) rank = pads.dim(0);
  }
  if (rank < 0) return shape_fns::unknown(c);
  if (rank > max_rank) return c.error("paddings has ", rank, " rows, more than the maximum rank");
  const tensor* pad_t = c.input_value(1);
  if (!pad_t) {
    c.set_output(0, partial_shape::unknown_of_rank(static_cast<int>(rank)));
    return {};
  }
  const std::vector<int64_t> p = index_values(*pad_t);
  std::vector<int64_t> dims = dims_of(input, static_cast<int>(rank));
  for (int i = 0; i < rank; ++i) {
    int64_t in = dims[i];
    // MirrorPadGrad's input is the padded tensor: the pads are checked against what remains.
    if (!grow && in >= 0) {
      in -= p[2 * i] + p[2 * i + 1];
      if (in < 0)
        return c.error("paddings[", i, "] = [", p[2 * i], ", ", p[2 * i + 1],
                       "] do not fit dimension ", i, " of the padded input ", input.to_string());
    }
    if (status st = check_pads(mode, i, p[2 * i], p[2 * i + 1], in); !st.ok())
      return c.error(st.message());
    if (dims[i] >= 0) dims[i] = grow ? dims[i] + p[2 * i] + p[2 * i + 1] : in;
  }
  c.set_output(0, partial_shape(dims));
  return {};
}

status pad_v2_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(2, 0));
  return padded_shape(c, pad_mode::constant, true);
}

status_or<pad_mode> mode_of(const shape_context& c) {
  std::string mode;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("mode", &mode));
  auto m = parse_mirror_mode(mode);
  if (!m.ok()) return c.error(m.get_status().message());
  return m;
}

status mirror_pad_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const pad_mode mode, mode_of(c));
  return padded_shape(c, mode, true);
}

status mirror_pad_grad_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const pad_mode mode, mode_of(c));
  return padded_shape(c, mode, false);
}

}  // namespace

CAFLOW_REGISTER_OP("PadV2")
    .input("input: T")
    .input("paddings: Tpaddings")
    .input("constant_values: T")
    .output("output: T")
    .attr("T: type")
    .attr("Tpaddings: {int32, int64} = int32")
    .set_shape_fn(pad_v2_shape);
CAFLOW_REGISTER_OP("MirrorPad")
    .input("input: T")
    .input("paddings: Tpaddings")
    .output("output: T")
    .attr("T: type")
    .attr("Tpaddings: {int32, int64} = int32")
    .attr("mode: string")
    .set_shape_fn(mirror_pad_shape);
CAFLOW_REGISTER_OP("MirrorPadGrad")
    .input("input: T")
    .input("paddings: Tpaddings")
    .output("output: T")
    .attr("T: type")
    .attr("Tpaddings: {int32, int64} = int32")
    .attr("mode: string")
    .set_shape_fn(mirror_pad_grad_shape);

}  // namespace caflow
