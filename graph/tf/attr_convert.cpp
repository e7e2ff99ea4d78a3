#include "graph/tf/attr_convert.hpp"

#include "graph/tf/proto/graph.pb.h"
#include "graph/tf/tensor_proto.hpp"
#include "graph/tf/tf_dtype.hpp"

namespace caflow::tf {
namespace {

namespace tfp = ::caflow::tfproto;

status_or<dtype> type_from_proto(int t, const std::string& where) {
  auto d = dtype_from_tf(t);
  if (!d.ok()) return d.get_status().with_context(where);
  return d;
}

// The non-empty fields of a ListValue, by name; more than one is an error.
std::vector<const char*> kinds_in(const tfp::AttrValue::ListValue& l) {
  std::vector<const char*> kinds;
  if (l.s_size()) kinds.push_back("s");
  if (l.i_size()) kinds.push_back("i");
  if (l.f_size()) kinds.push_back("f");
  if (l.b_size()) kinds.push_back("b");
  if (l.type_size()) kinds.push_back("type");
  if (l.shape_size()) kinds.push_back("shape");
  if (l.tensor_size()) kinds.push_back("tensor");
  if (l.func_size()) kinds.push_back("func");
  return kinds;
}

// An empty list, of the type the op declares.
status_or<attr_value> empty_list(const attr_def* declared, const std::string& where) {
  if (!declared)
    return errors::invalid_argument(where, ": an empty list whose element type is unknown (the "
                                    "op does not declare this attr)");
  switch (declared->type) {
    case attr_type::list_int: return attr_value(std::vector<int64_t>{});
    case attr_type::list_float: return attr_value(std::vector<float>{});
    case attr_type::list_bool: return attr_value(std::vector<bool>{});
    case attr_type::list_string: return attr_value(std::vector<std::string>{});
    case attr_type::list_type: return attr_value(std::vector<dtype>{});
    case attr_type::list_shape: return attr_value(std::vector<partial_shape>{});
    case attr_type::list_tensor: return attr_value(std::vector<tensor>{});
    default:
      return errors::invalid_argument(where, ": an empty list, but the op declares it ",
                                      attr_type_name(declared->type));
  }
}

status_or<attr_value> list_from_proto(const tfp::AttrValue::ListValue& l,
                                      const attr_def* declared, const std::string& where) {
  const auto kinds = kinds_in(l);
  if (kinds.empty()) return empty_list(declared, where);
  if (kinds.size() > 1)
    return errors::invalid_argument(where, ": list holds both ", kinds[0], " and ", kinds[1],
                                    " values (a list has one kind)");
  const std::string kind = kinds[0];
  if (kind == "s") return attr_value(std::vector<std::string>(l.s().begin(), l.s().end()));
  if (kind == "i") return attr_value(std::vector<int64_t>(l.i().begin(), l.i().end()));
  if (kind == "f") return attr_value(std::vector<float>(l.f().begin(), l.f().end()));
  if (kind == "b") return attr_value(std::vector<bool>(l.b().begin(), l.b().end()));
  if (kind == "type") {
    std::vector<dtype> types;
    for (int k = 0; k < l.type_size(); ++k) {
      CAFLOW_ASSIGN_OR_RETURN(dtype d,
                              type_from_proto(l.type(k), errors::concat(where, ": list.type[", k, "]")));
      types.push_back(d);
    }
    return attr_value(std::move(types));
  }
  if (kind == "shape") {
    std::vector<partial_shape> shapes;
    for (int k = 0; k < l.shape_size(); ++k) {
      CAFLOW_ASSIGN_OR_RETURN(partial_shape s,
                              shape_from_proto(l.shape(k), errors::concat(where, ": list.shape[", k, "]")));
      shapes.push_back(std::move(s));
    }
    return attr_value(std::move(shapes));
  }
  if (kind == "tensor") {
    std::vector<tensor> tensors;
    for (int k = 0; k < l.tensor_size(); ++k) {
      CAFLOW_ASSIGN_OR_RETURN(tensor t, tensor_from_proto(l.tensor(k),
                                                          errors::concat(where, ": list.tensor[", k, "]")));
      tensors.push_back(std::move(t));
    }
    return attr_value(std::move(tensors));
  }
  return errors::unimplemented(where, ": a list of functions (caflow runs no TensorFlow "
                               "functions)");
}

status_or<attr_value> convert(const tfp::AttrValue& p, const attr_def* declared,
                              const std::string& where) {
  switch (p.value_case()) {
    case tfp::AttrValue::kS: return attr_value(p.s());
    case tfp::AttrValue::kI: return attr_value(int64_t{p.i()});
    case tfp::AttrValue::kF: return attr_value(p.f());
    case tfp::AttrValue::kB: return attr_value(p.b());
    case tfp::AttrValue::kType: {
      CAFLOW_ASSIGN_OR_RETURN(dtype d, type_from_proto(p.type(), where + ": type"));
      return attr_value(d);
    }
    case tfp::AttrValue::kShape: {
      CAFLOW_ASSIGN_OR_RETURN(partial_shape s, shape_from_proto(p.shape(), where));
      return attr_value(std::move(s));
    }
    case tfp::AttrValue::kTensor: {
      CAFLOW_ASSIGN_OR_RETURN(tensor t, tensor_from_proto(p.tensor(), where));
      return attr_value(std::move(t));
    }
    case tfp::AttrValue::kList: return list_from_proto(p.list(), declared, where);
    case tfp::AttrValue::kFunc:
      return errors::unimplemented(where, ": names the function '", p.func().name(),
                                   "' (caflow runs no TensorFlow functions)");
    case tfp::AttrValue::kPlaceholder:
      return errors::invalid_argument(where, ": is the function placeholder '", p.placeholder(),
                                      "', which only a function body may hold");
    case tfp::AttrValue::VALUE_NOT_SET: break;
  }
  return errors::invalid_argument(where, ": holds no value");
}

}  // namespace

status_or<attr_value> attr_from_proto(const tfp::AttrValue& proto, const attr_def* declared,
                                      const std::string& where) {
  CAFLOW_ASSIGN_OR_RETURN(attr_value v, convert(proto, declared, where));
  if (declared && v.type() != declared->type)
    return errors::invalid_argument(where, ": is ", attr_type_name(v.type()),
                                    " but the op declares it ", attr_type_name(declared->type));
  return v;
}

status attr_to_proto(const attr_value& value, tfp::AttrValue* p) {
  p->Clear();
  status st;
  std::visit(
      [&](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::monostate>) {
          st = errors::invalid_argument("attr holds no value");
        } else if constexpr (std::is_same_v<V, int64_t>) {
          p->set_i(v);
        } else if constexpr (std::is_same_v<V, float>) {
          p->set_f(v);
        } else if constexpr (std::is_same_v<V, bool>) {
          p->set_b(v);
        } else if constexpr (std::is_same_v<V, std::string>) {
          p->set_s(v);
        } else if constexpr (std::is_same_v<V, dtype>) {
          p->set_type(static_cast<tfp::DataType>(tf_type_of(v)));
        } else if constexpr (std::is_same_v<V, partial_shape>) {
          shape_to_proto(v, p->mutable_shape());
        } else if constexpr (std::is_same_v<V, tensor>) {
          st = tensor_to_proto(v, p->mutable_tensor());
        } else {
          auto* l = p->mutable_list();  // present even when empty
          for (const auto& e : v) {
            using E = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<V, std::vector<bool>>) {
              l->add_b(e);
            } else if constexpr (std::is_same_v<E, int64_t>) {
              l->add_i(e);
            } else if constexpr (std::is_same_v<E, float>) {
              l->add_f(e);
            } else if constexpr (std::is_same_v<E, std::string>) {
              l->add_s(e);
            } else if constexpr (std::is_same_v<E, dtype>) {
              l->add_type(static_cast<tfp::DataType>(tf_type_of(e)));
            } else if constexpr (std::is_same_v<E, partial_shape>) {
              shape_to_proto(e, l->add_shape());
            } else if constexpr (std::is_same_v<E, tensor>) {
              if (st.ok()) st = tensor_to_proto(e, l->add_tensor());
            }
          }
        }
      },
      value.value());
  return st;
}

}  // namespace caflow::tf
