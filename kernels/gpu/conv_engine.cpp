#include "kernels/gpu/conv_engine.hpp"

#include <algorithm>

#include "devices/gpu/cuda_status.hpp"
#include "kernels/gpu/conv_engine_policy.hpp"

namespace caflow::gpu {
namespace {

// The operands' ids in a graph and in its variant packs.
constexpr int64_t x_uid = 1, w_uid = 2, y_uid = 3;

// The attribute names of one direction's operation, in one table rather than three copies of
// the graph's construction.
struct operation_attributes {
  cudnnBackendDescriptorType_t type;
  cudnnBackendAttributeName_t alpha, beta, conv, x, w, y;
};
const operation_attributes& attributes_of(conv_direction d) {
  static const operation_attributes table[] = {
      {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y},
      {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY},
      {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY},
  };
  return table[static_cast<int>(d)];
}

status_or<backend_descriptor> make_tensor(int64_t uid, const strided_dims& s, int64_t alignment) {
  CAFLOW_ASSIGN_OR_RETURN(backend_descriptor t,
                          backend_descriptor::make(CUDNN_BACKEND_TENSOR_DESCRIPTOR));
  const cudnnDataType_t type = CUDNN_DATA_FLOAT;
  CAFLOW_RETURN_IF_ERROR(set_attribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, type));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, s.dims.data()));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, s.strides.data()));
  CAFLOW_RETURN_IF_ERROR(set_attribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, uid));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, alignment));
  CAFLOW_RETURN_IF_ERROR(finalize(t));
  return t;
}

// A float32 cross-correlation (TensorFlow's "convolution") with the geometry's strides and
// its padding split into pre and post (conv_engine_layout.hpp).
status_or<backend_descriptor> make_convolution(const conv2d_geometry& g) {
  CAFLOW_ASSIGN_OR_RETURN(backend_descriptor c,
                          backend_descriptor::make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR));
  const pre_post rows =
      backend_padding(g.in_rows, g.filter_rows, g.stride_rows, g.out_rows, g.pad_top);
  const pre_post cols =
      backend_padding(g.in_cols, g.filter_cols, g.stride_cols, g.out_cols, g.pad_left);
  const int64_t spatial = 2;
  const int64_t dilations[] = {1, 1};
  const int64_t strides[] = {g.stride_rows, g.stride_cols};
  const int64_t pre[] = {rows.pre, cols.pre};
  const int64_t post[] = {rows.post, cols.post};
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, compute));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, mode));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, spatial));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dilations));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, strides));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pre));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, post));
  CAFLOW_RETURN_IF_ERROR(finalize(c));
  return c;
}

// The one-operation graph of this convolution with the filter in `layout`.
status_or<backend_descriptor> make_graph(cudnnHandle_t h, conv_direction direction,
                                         const conv2d_geometry& g, filter_layout layout,
                                         const conv_alignments& a) {
  const operation_attributes& names = attributes_of(direction);
  CAFLOW_ASSIGN_OR_RETURN(
      backend_descriptor x,
      make_tensor(x_uid, nhwc_strided(g.batch, g.in_rows, g.in_cols, g.in_depth), a.x));
  CAFLOW_ASSIGN_OR_RETURN(
      backend_descriptor w,
      make_tensor(w_uid, filter_strided(g, layout), layout == filter_layout::hwio ? a.w : 16));
  CAFLOW_ASSIGN_OR_RETURN(
      backend_descriptor y,
      make_tensor(y_uid, nhwc_strided(g.batch, g.out_rows, g.out_cols, g.out_depth), a.y));
  CAFLOW_ASSIGN_OR_RETURN(backend_descriptor conv, make_convolution(g));
  CAFLOW_ASSIGN_OR_RETURN(backend_descriptor op, backend_descriptor::make(names.type));
  const float alpha = 1, beta = 0;
  CAFLOW_RETURN_IF_ERROR(set_attribute(op, names.alpha, CUDNN_TYPE_FLOAT, alpha));
  CAFLOW_RETURN_IF_ERROR(set_attribute(op, names.beta, CUDNN_TYPE_FLOAT, beta));
  CAFLOW_RETURN_IF_ERROR(set_descriptor(op, names.conv, conv));
  CAFLOW_RETURN_IF_ERROR(set_descriptor(op, names.x, x));
  CAFLOW_RETURN_IF_ERROR(set_descriptor(op, names.w, w));
  CAFLOW_RETURN_IF_ERROR(set_descriptor(op, names.y, y));
  CAFLOW_RETURN_IF_ERROR(finalize(op));

  CAFLOW_ASSIGN_OR_RETURN(backend_descriptor graph,
                          backend_descriptor::make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, h));
  CAFLOW_RETURN_IF_ERROR(set_descriptor(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, op));
  CAFLOW_RETURN_IF_ERROR(finalize(graph));
  return graph;
}

// The engine configurations cuDNN's heuristics in `mode` offer for `graph`, best guess first.
status_or<std::vector<backend_descriptor>> heuristic_configs(const backend_descriptor& graph,
                                                             cudnnBackendHeurMode_t mode) {
  CAFLOW_ASSIGN_OR_RETURN(backend_descriptor heur,
                          backend_descriptor::make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR));
  CAFLOW_RETURN_IF_ERROR(set_descriptor(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, mode));
  CAFLOW_RETURN_IF_ERROR(finalize(heur));
  CAFLOW_ASSIGN_OR_RETURN(int64_t count, get_attribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, nullptr));
  // cuDNN fills descriptors the caller made.
  std::vector<backend_descriptor> configs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int64_t i = 0; i < count; ++i) {
    CAFLOW_ASSIGN_OR_RETURN(backend_descriptor c,
                            backend_descriptor::make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    raw.push_back(c.get());
    configs.push_back(std::move(c));
  }
  CAFLOW_ASSIGN_OR_RETURN(
      int64_t got, get_attribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                 count, raw.data()));
  configs.resize(static_cast<size_t>(std::clamp<int64_t>(got, 0, count)));
  return configs;
}

engine_note note_of(cudnnBackendNumericalNote_t n) {
  switch (n) {
    case CUDNN_NUMERICAL_NOTE_TENSOR_CORE:
      return engine_note::tensor_core;
    case CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS:
      return engine_note::down_convert_inputs;
    case CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION:
      return engine_note::reduced_precision_reduction;
    default:
      return engine_note::other;
  }
}
engine_note note_of(cudnnBackendBehaviorNote_t n) {
  switch (n) {
    case CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION:
      return engine_note::runtime_compilation;
    case CUDNN_BEHAVIOR_NOTE_REQUIRES_FILTER_INT8x32_REORDER:
    case CUDNN_BEHAVIOR_NOTE_REQUIRES_BIAS_INT8x32_REORDER:
      return engine_note::requires_reorder;
    default:
      return engine_note::other;
  }
}

// Appends the engine's notes of one kind (numerical or behaviour) to `out`.
template <class Note>
status append_notes(const backend_descriptor& engine, cudnnBackendAttributeName_t name,
                    cudnnBackendAttributeType_t type, std::vector<engine_note>& out) {
  Note notes[32];
  CAFLOW_ASSIGN_OR_RETURN(int64_t count, get_attribute(engine, name, type, 32, notes));
  count = std::clamp<int64_t>(count, 0, 32);
  for (int64_t i = 0; i < count; ++i) out.push_back(note_of(notes[i]));
  return {};
}

// The configuration's engine: its global index and notes.
struct engine_facts {
  int64_t index = -1;
  std::vector<engine_note> notes;
};
status_or<engine_facts> facts_of(const backend_descriptor& config) {
  CAFLOW_ASSIGN_OR_RETURN(backend_descriptor engine,
                          backend_descriptor::make(CUDNN_BACKEND_ENGINE_DESCRIPTOR));
  cudnnBackendDescriptor_t raw = engine.get();
  CAFLOW_RETURN_IF_ERROR(
      get_attribute(config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw)
          .get_status());
  engine_facts f;
  CAFLOW_ASSIGN_OR_RETURN(f.index, get_int64(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX));
  // Without its numerical notes an engine's precision is unknown: it is not taken.
  CAFLOW_RETURN_IF_ERROR(append_notes<cudnnBackendNumericalNote_t>(
      engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, f.notes));
  // Behaviour notes only bound the search's cost: an engine without them is still taken.
  append_notes<cudnnBackendBehaviorNote_t>(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
                                           CUDNN_TYPE_BEHAVIOR_NOTE, f.notes)
      .ignore();
  return f;
}

// The plan of one configuration, or why it cannot be had.
status_or<engine_plan> make_plan(cudnnHandle_t h, const backend_descriptor& graph,
                                 const backend_descriptor& config, filter_layout layout) {
  CAFLOW_ASSIGN_OR_RETURN(engine_facts facts, facts_of(config));
  if (const char* why = refusal_of(facts.notes))
    return errors::unimplemented("engine ", facts.index, " is not taken: it ", why);
  engine_plan p;
  CAFLOW_ASSIGN_OR_RETURN(p.plan,
                          backend_descriptor::make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(p.plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, h));
  CAFLOW_RETURN_IF_ERROR(set_descriptor(p.plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config));
  CAFLOW_RETURN_IF_ERROR(finalize(p.plan).with_context(errors::concat("engine ", facts.index)));
  CAFLOW_ASSIGN_OR_RETURN(p.workspace_bytes,
                          get_int64(p.plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE));
  if (p.workspace_bytes < 0 || p.workspace_bytes > max_engine_workspace)
    return errors::resource_exhausted("engine ", facts.index, " asks for ", p.workspace_bytes,
                                      " bytes of workspace, more than the ", max_engine_workspace,
                                      " allowed");
  p.config = config;
  p.graph = graph;
  p.layout = layout;
  p.engine = facts.index;
  return p;
}

// What tells two plans apart (the heuristics' modes offer some alike): cuDNN's description of
// the plan (engine, knobs, layout). A plan it cannot describe is taken as new: timing a
// duplicate costs a little, dropping a distinct plan could cost the fastest.
std::string identity_of(const engine_plan& p) {
  auto size = get_attribute(p.plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                            0, nullptr);
  if (size.ok() && *size > 0) {
    std::string json(static_cast<size_t>(*size), '\0');
    auto n = get_attribute(p.plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                           *size, json.data());
    if (n.ok() && *n > 0) {
      json.resize(static_cast<size_t>(std::min(*n, *size)));
      return errors::concat(to_string(p.layout), " ", json);
    }
  }
  return errors::concat("plan ", reinterpret_cast<uintptr_t>(p.plan.get()));
}

}  // namespace

status_or<std::vector<engine_plan>> engine_candidates(cudnnHandle_t h, conv_direction direction,
                                                      const conv2d_geometry& g,
                                                      const conv_alignments& alignments) {
  std::vector<engine_plan> plans;
  std::vector<std::string> seen;
  status last = errors::not_found("cuDNN's heuristics offer no engine for this convolution");
  for (filter_layout layout : {filter_layout::hwio, filter_layout::krsc}) {
    auto graph = make_graph(h, direction, g, layout, alignments);
    if (!graph.ok()) {
      last = graph.get_status().with_context(errors::concat(to_string(layout), " filter"));
      continue;
    }
    for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
      auto configs = heuristic_configs(*graph, mode);
      if (!configs.ok()) {
        last = configs.get_status();
        continue;
      }
      size_t taken = 0;
      for (const backend_descriptor& config : *configs) {
        if (taken == max_configs_per_query) break;
        auto plan = make_plan(h, *graph, config, layout);
        if (!plan.ok()) {
          last = plan.get_status();
          continue;
        }
        std::string id = identity_of(*plan);
        if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
        seen.push_back(std::move(id));
        plans.push_back(std::move(plan).value());
        ++taken;
      }
    }
  }
  if (plans.empty()) return last;
  return plans;
}

status execute(cudnnHandle_t h, const engine_plan& p, const conv_pointers& operands,
               void* workspace) {
  CAFLOW_ASSIGN_OR_RETURN(backend_descriptor pack,
                          backend_descriptor::make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR));
  const int64_t uids[] = {x_uid, w_uid, y_uid};
  void* pointers[] = {operands.x, operands.w, operands.y};
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers));
  CAFLOW_RETURN_IF_ERROR(
      set_attribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, workspace));
  CAFLOW_RETURN_IF_ERROR(finalize(pack));
  return cudnn_status(cudnnBackendExecute(h, p.plan.get(), pack.get()), "cudnnBackendExecute");
}

}  // namespace caflow::gpu
