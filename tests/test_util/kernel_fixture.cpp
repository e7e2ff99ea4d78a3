#include "test_util/kernel_fixture.hpp"

#include <cmath>

#include "devices/cpu_device.hpp"
#include "graph/ir/shape_inference.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow::testing {
namespace {

cpu_device& test_device() {
  static cpu_device dev("/job:localhost/replica:0/task:0/device:CPU:0",
                        cpu_device_options{.intra_op_threads = 2, .inter_op_threads = 2});
  return dev;
}

status infer_attrs(const op_def& op, const std::vector<tensor>& inputs, node_def& n) {
  // Inputs are consumed arg by arg; a list arg takes N inputs (N given, or all that remain
  // after the single-tensor args).
  const auto type_list = [&](const arg_def& a) {
    const attr_def* t = a.type_attr.empty() ? nullptr : op.find_attr(a.type_attr);
    return t && t->type == attr_type::list_type;
  };
  size_t singles = 0, lists = 0;
  for (const arg_def& a : op.inputs)
    (a.number_attr.empty() && !type_list(a) ? singles : lists) += 1;
  size_t next = 0;
  for (const arg_def& a : op.inputs) {
    size_t count = 1;
    if (type_list(a)) {
      // A list(type) arg takes the types of its inputs: all that remain after the singles.
      auto it = n.attrs.find(a.type_attr);
      if (it != n.attrs.end() && it->second.holds<std::vector<dtype>>()) {
        count = it->second.get<std::vector<dtype>>().size();
      } else {
        if (lists != 1 || inputs.size() < singles)
          return errors::invalid_argument("run_kernel: give attr '", a.type_attr, "'");
        count = inputs.size() - singles;
        std::vector<dtype> types;
        for (size_t i = next; i < next + count; ++i) types.push_back(inputs[i].type());
        n.attrs[a.type_attr] = std::move(types);
      }
      next += count;
      continue;
    }
    if (!a.number_attr.empty()) {
      auto it = n.attrs.find(a.number_attr);
      if (it != n.attrs.end() && it->second.holds<int64_t>()) {
        count = static_cast<size_t>(it->second.get<int64_t>());
      } else {
        if (lists != 1 || inputs.size() < singles)
          return errors::invalid_argument("run_kernel: give attr '", a.number_attr, "'");
        count = inputs.size() - singles;
        n.attrs[a.number_attr] = static_cast<int64_t>(count);
      }
    }
    if (!a.type_attr.empty() && !n.attrs.count(a.type_attr) && next < inputs.size())
      n.attrs[a.type_attr] = inputs[next].type();
    next += count;
  }
  return {};
}

}  // namespace

status_or<std::vector<tensor>> run_kernel(const std::string& op_name,
                                          const std::vector<tensor>& inputs,
                                          std::map<std::string, attr_value> attrs,
                                          const run_options& opts) {
  CAFLOW_ASSIGN_OR_RETURN(const op_def* op, op_registry::global().find(op_name));
  node_def n;
  n.name = "test_" + op_name;
  n.op = op_name;
  n.attrs = std::move(attrs);
  CAFLOW_RETURN_IF_ERROR(infer_attrs(*op, inputs, n));
  add_default_attrs(*op, n);
  CAFLOW_ASSIGN_OR_RETURN(node_signature sig, resolve_signature(*op, n));
  if (sig.input_types.size() != inputs.size())
    return errors::invalid_argument(describe_node(n), ": expects ", sig.input_types.size(),
                                    " inputs, got ", inputs.size());
  std::vector<partial_shape> shapes;
  std::vector<const tensor*> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].type() != sig.input_types[i])
      return errors::invalid_argument(describe_node(n), ": input ", i, " is ",
                                      dtype_name(inputs[i].type()), ", expected ",
                                      dtype_name(sig.input_types[i]));
    shapes.emplace_back(inputs[i].shape());
    values.push_back(&inputs[i]);
  }
  std::vector<partial_shape> inferred(sig.output_types.size(), partial_shape::unknown());
  if (op->infer_shape && opts.infer_shapes) {
    shape_context ctx(n, sig, shapes, values);
    CAFLOW_RETURN_IF_ERROR(op->infer_shape(ctx));
    inferred = ctx.outputs();
  }
  CAFLOW_ASSIGN_OR_RETURN(auto kernel, kernel_registry::global().create(n, sig, test_device()));
  std::vector<kernel_value> in(inputs.size()), out(sig.output_types.size());
  for (size_t i = 0; i < inputs.size(); ++i) in[i].value = inputs[i];
  cancellation_manager cancel;
  call_frame frame;
  step_context step{1, &frame, &cancel, nullptr};
  kernel_context ctx(*kernel, test_device(), step, in.data(), out.data());
  kernel->compute(ctx);
  if (!ctx.ok()) return ctx.get_status().with_context(describe_node(n));
  std::vector<tensor> result;
  for (size_t i = 0; i < out.size(); ++i) {
    const tensor& t = out[i].value;
    CHECK_MESSAGE(t.initialized(), "output ", i, " of ", op_name, " was never set");
    if (!t.initialized()) continue;
    CHECK_MESSAGE(t.type() == sig.output_types[i], "output ", i, " has dtype ",
                  dtype_name(t.type()), ", declared ", dtype_name(sig.output_types[i]));
    CHECK_MESSAGE(inferred[i].compatible_with(t.shape()), "output ", i, " has shape ",
                  t.shape().to_string(), " but shape inference said ", inferred[i].to_string());
    result.push_back(t);
  }
  return result;
}

void check_tensor(const tensor& actual, const tensor& expected, double tol) {
  REQUIRE(actual.initialized());
  REQUIRE_MESSAGE(actual.type() == expected.type(), "dtype ", dtype_name(actual.type()),
                  " != ", dtype_name(expected.type()));
  REQUIRE_MESSAGE(actual.shape() == expected.shape(), "shape ", actual.shape().to_string(),
                  " != ", expected.shape().to_string());
  visit_dtype(actual.type(), [&]<class T>() {
    const T* a = actual.data<T>();
    const T* e = expected.data<T>();
    for (int64_t i = 0; i < actual.num_elements(); ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        if (a[i] == e[i]) continue;  // also equal infinities, where the difference is NaN
        const double diff = std::abs(static_cast<double>(a[i]) - static_cast<double>(e[i]));
        const bool both_nan = std::isnan(a[i]) && std::isnan(e[i]);
        CHECK_MESSAGE((both_nan || diff <= tol * std::max(1.0, std::abs(double(e[i])))),
                      "element ", i, ": ", a[i], " vs expected ", e[i]);
      } else {
        CHECK_MESSAGE(a[i] == e[i], "element ", i, ": ", +a[i], " vs expected ", +e[i]);
      }
    }
  });
}

void check_error(const status& st, const std::string& needle) {
  REQUIRE_FALSE(st.ok());
  CHECK_MESSAGE(st.message().find(needle) != std::string::npos, "error '", st.to_string(),
                "' does not mention '", needle, "'");
}

}  // namespace caflow::testing
