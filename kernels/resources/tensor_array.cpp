#include "kernels/resources/tensor_array.hpp"

#include <cstring>
#include <type_traits>

namespace caflow {
namespace {

// a + b, element-wise, for the numeric dtypes (bool: or).
status_or<tensor> add(const tensor& a, const tensor& b) {
  tensor sum(a.type(), a.shape());
  bool ok = visit_dtype(a.type(), [&]<class T>() {
    const T *x = a.data<T>(), *y = b.data<T>();
    T* z = sum.data<T>();
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      if constexpr (std::is_same_v<T, bool>) z[i] = x[i] || y[i];
      else z[i] = static_cast<T>(x[i] + y[i]);
    }
  });
  if (!ok) return errors::invalid_argument("cannot add tensors of dtype ", dtype_name(a.type()));
  return sum;
}

}  // namespace

tensor_array::tensor_array(int64_t size, tensor_array_options opts)
    : opts_(std::move(opts)), entries_(static_cast<size_t>(size)) {}

std::string tensor_array::debug_string() const {
  std::lock_guard<std::mutex> lock(mu_);
  return "TensorArray '" + opts_.name + "' of " + std::to_string(entries_.size()) + " " +
         dtype_name(opts_.type) + " elements";
}

status tensor_array::check_open() const {
  if (closed_)
    return errors::invalid_argument("TensorArray '", opts_.name, "' has already been closed");
  return {};
}

status tensor_array::check_index(int64_t index, const char* verb) const {
  if (index < 0 || index >= static_cast<int64_t>(entries_.size()))
    return errors::invalid_argument("TensorArray '", opts_.name, "': tried to ", verb,
                                    " index ", index, " but the array has size ",
                                    entries_.size());
  return {};
}

status tensor_array::write(int64_t index, const tensor& value) {
  std::lock_guard<std::mutex> lock(mu_);
  CAFLOW_RETURN_IF_ERROR(check_open());
  if (value.type() != opts_.type)
    return errors::invalid_argument("TensorArray '", opts_.name, "' holds ",
                                    dtype_name(opts_.type), " but the value written at index ",
                                    index, " is ", dtype_name(value.type()));
  if (index >= static_cast<int64_t>(entries_.size()) && opts_.dynamic_size)
    entries_.resize(static_cast<size_t>(index) + 1);
  CAFLOW_RETURN_IF_ERROR(check_index(index, "write"));
  if (!opts_.element_shape.compatible_with(value.shape()))
    return errors::invalid_argument("TensorArray '", opts_.name, "': could not write index ",
                                    index, ": the value has shape ", value.shape().to_string(),
                                    ", incompatible with the element shape ",
                                    opts_.element_shape.to_string());
  if (opts_.identical_element_shapes) opts_.element_shape = value.shape();
  entry& e = entries_[static_cast<size_t>(index)];
  if (e.cleared)
    return errors::invalid_argument("TensorArray '", opts_.name, "': could not write index ",
                                    index, ": it was already written and then read and cleared");
  if (e.written) {
    if (!opts_.multiple_writes_aggregate)
      return errors::invalid_argument("TensorArray '", opts_.name, "': could not write index ",
                                      index, " because it has already been written to");
    if (e.value.shape() != value.shape())
      return errors::invalid_argument("TensorArray '", opts_.name, "': could not aggregate at ",
                                      "index ", index, ": shapes ", e.value.shape().to_string(),
                                      " and ", value.shape().to_string(), " differ");
    CAFLOW_ASSIGN_OR_RETURN(e.value, add(e.value, value));
    return {};
  }
  e.value = value;
  e.written = true;
  return {};
}

status_or<tensor> tensor_array::read_locked(int64_t index) {
  CAFLOW_RETURN_IF_ERROR(check_open());
  CAFLOW_RETURN_IF_ERROR(check_index(index, "read"));
  entry& e = entries_[static_cast<size_t>(index)];
  if (e.cleared)
    return errors::invalid_argument("TensorArray '", opts_.name, "': could not read index ",
                                    index, " twice because it was cleared after a previous read",
                                    " (perhaps try setting clear_after_read = false?)");
  if (!e.written) {
    if (!opts_.element_shape.fully_defined())
      return errors::invalid_argument(
          "TensorArray '", opts_.name, "': could not read index ", index,
          " because it has not been written to and the element shape ",
          opts_.element_shape.to_string(), " is not fully defined (with a full element shape, "
          "unwritten elements read as zeros)");
    tensor zeros(opts_.type, opts_.element_shape.to_shape());
    if (zeros.byte_size() > 0) std::memset(zeros.raw_data(), 0, zeros.byte_size());
    return zeros;
  }
  tensor value = e.value;
  if (opts_.clear_after_read) {
    e.value = tensor();
    e.cleared = true;
  }
  return value;
}

status_or<tensor> tensor_array::read(int64_t index) {
  std::lock_guard<std::mutex> lock(mu_);
  return read_locked(index);
}

status_or<std::vector<tensor>> tensor_array::read_all() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<tensor> values;
  for (size_t i = 0; i < entries_.size(); ++i) {
    CAFLOW_ASSIGN_OR_RETURN(tensor v, read_locked(static_cast<int64_t>(i)));
    values.push_back(std::move(v));
  }
  return values;
}

status_or<int64_t> tensor_array::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  CAFLOW_RETURN_IF_ERROR(check_open());
  return static_cast<int64_t>(entries_.size());
}

partial_shape tensor_array::element_shape() const {
  std::lock_guard<std::mutex> lock(mu_);
  return opts_.element_shape;
}

status tensor_array::close() {
  std::lock_guard<std::mutex> lock(mu_);
  CAFLOW_RETURN_IF_ERROR(check_open());
  closed_ = true;
  entries_.clear();
  return {};
}

status_or<std::shared_ptr<tensor_array>> tensor_array::grad(const std::string& source) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_)
    return errors::invalid_argument("TensorArray '", opts_.name,
                                    "' has already been closed: cannot make its gradient array");
  auto& g = grads_[source];
  if (!g) {
    tensor_array_options o;
    o.type = opts_.type;
    o.element_shape = opts_.element_shape;
    o.identical_element_shapes = opts_.identical_element_shapes;
    o.multiple_writes_aggregate = true;
    o.clear_after_read = true;
    o.name = opts_.name + "@" + source;
    g = std::make_shared<tensor_array>(static_cast<int64_t>(entries_.size()), std::move(o));
  }
  return g;
}

}  // namespace caflow
