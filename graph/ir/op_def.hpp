#pragma once
// An op's contract, declared once with TensorFlow-style specs:
//
//   CAFLOW_REGISTER_OP("MatMul")
//       .input("a: T").input("b: T").output("product: T")
//       .attr("transpose_a: bool = false").attr("transpose_b: bool = false")
//       .attr("T: {float32, float64, int32, int64}")
//       .set_shape_fn(matmul_shape);
//
// Input/output specs: "name: float32" (fixed), "name: T" (type attr), "name: N * T" (a list
// of N tensors of type T), "name: Ref(T)" (a reference to mutable state).
// Attr specs: "name: type", "name: type = default", "T: {float32, int32}" (a type attr
// restricted to those), "N: int >= 1".
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/ir/attr_value.hpp"

namespace caflow {

class shape_context;
using shape_fn = std::function<status(shape_context&)>;

struct arg_def {
  std::string name;
  dtype fixed_type = dtype::invalid;
  std::string type_attr;
  std::string number_attr;
  bool is_ref = false;
};

struct attr_def {
  std::string name;
  attr_type type = attr_type::none;
  std::optional<attr_value> default_value;
  std::vector<dtype> allowed_types;  // empty: any
  std::optional<int64_t> minimum;
};

struct op_def {
  std::string name;
  std::vector<arg_def> inputs;
  std::vector<arg_def> outputs;
  std::vector<attr_def> attrs;
  bool is_stateful = false;    // never merged, folded or pruned as pure
  bool is_commutative = false; // for value numbering
  bool is_cheap = false;       // kernels may run inline on the scheduling thread
  // When set, output 0 always equals this tensor attr (Const's "value"): shape inference and
  // graph passes may read the value without running anything.
  std::string constant_value_attr;
  shape_fn infer_shape;
  // The source file that registered the op (CAFLOW_REGISTER_OP's __FILE__): caflow-ops groups
  // ops by it ("graph/ops/math_ops.cpp" -> "math"). Empty when built without the macro.
  std::string source_file;

  const attr_def* find_attr(std::string_view n) const;
};

class op_def_builder {
 public:
  explicit op_def_builder(std::string name, std::string source_file = {});
  op_def_builder& input(std::string_view spec);
  op_def_builder& output(std::string_view spec);
  op_def_builder& attr(std::string_view spec);
  op_def_builder& stateful();
  op_def_builder& commutative();
  op_def_builder& cheap();
  op_def_builder& constant_value(std::string attr);
  op_def_builder& set_shape_fn(shape_fn fn);
  // Parses every spec; errors name the op and the spec.
  status_or<op_def> finalize() const;

 private:
  op_def def_;
  std::vector<std::string> input_specs_, output_specs_, attr_specs_;
};

class op_registry {
 public:
  // Filled during static initialization by CAFLOW_REGISTER_OP, read-only afterwards.
  static op_registry& global();
  // Aborts with a message on a malformed spec or a duplicate: those are programming errors.
  void add(const op_def_builder& b);
  // nullptr when unknown.
  const op_def* lookup(std::string_view name) const;
  status_or<const op_def*> find(std::string_view name) const;
  std::vector<std::string> op_names() const;

 private:
  std::vector<std::unique_ptr<op_def>> ops_;
  std::map<std::string, const op_def*, std::less<>> by_name_;
};

struct op_registrar {
  op_registrar(const op_def_builder& b) { op_registry::global().add(b); }  // NOLINT
};

}  // namespace caflow

#define CAFLOW_REGISTER_OP(name)                                                   \
  static const ::caflow::op_registrar CAFLOW_CONCAT(caflow_op_registrar_, __COUNTER__) = \
      ::caflow::op_def_builder(name, __FILE__)
