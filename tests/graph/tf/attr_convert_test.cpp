// Every AttrValue kind into caflow's attr_value and back.
#include <doctest/doctest.h>

#include <google/protobuf/text_format.h>

#include "graph/tf/attr_convert.hpp"
#include "graph/tf/proto/graph.pb.h"

using namespace caflow;
namespace tfp = caflow::tfproto;

namespace {

tfp::AttrValue parse(const std::string& text) {
  tfp::AttrValue v;
  REQUIRE_MESSAGE(google::protobuf::TextFormat::ParseFromString(text, &v), text);
  return v;
}

attr_def declared_as(attr_type t) {
  attr_def d;
  d.name = "a";
  d.type = t;
  return d;
}

attr_value convert(const std::string& text, const attr_def* declared = nullptr) {
  auto v = tf::attr_from_proto(parse(text), declared, "m.pbtxt: node 'n' (op X) attr 'a'");
  REQUIRE_MESSAGE(v.ok(), v.get_status().to_string());
  return *v;
}

std::string error_of(const std::string& text, const attr_def* declared = nullptr) {
  auto v = tf::attr_from_proto(parse(text), declared, "m.pbtxt: node 'n' (op X) attr 'a'");
  REQUIRE_FALSE(v.ok());
  return v.get_status().message();
}

}  // namespace

TEST_CASE("every scalar kind converts") {
  CHECK(convert("s: 'VALID'") == attr_value("VALID"));
  CHECK(convert("i: -7") == attr_value(int64_t{-7}));
  CHECK(convert("i: 9000000000") == attr_value(int64_t{9000000000}));
  CHECK(convert("f: 0.25") == attr_value(0.25f));
  CHECK(convert("b: true") == attr_value(true));
  CHECK(convert("b: false") == attr_value(false));
  CHECK(convert("type: DT_INT64") == attr_value(dtype::int64));
  CHECK(convert("type: DT_HALF") == attr_value(dtype::float32));
  CHECK(convert("type: DT_FLOAT_REF") == attr_value(dtype::float32));
  CHECK(convert("shape { dim { size: -1 } dim { size: 3 } }") == attr_value(partial_shape{-1, 3}));
  CHECK(convert("shape { unknown_rank: true }") == attr_value(partial_shape::unknown()));
  CHECK(convert("shape { }") == attr_value(partial_shape(tensor_shape{})));
  CHECK(convert("tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 4 }") ==
        attr_value(tensor::from_vector<int32_t>({4, 4})));
}

TEST_CASE("lists of every kind convert; an empty one takes its type from the op") {
  CHECK(convert("list { s: 'a' s: 'b' }") == attr_value(std::vector<std::string>{"a", "b"}));
  CHECK(convert("list { i: 1 i: 2 i: 2 i: 1 }") == attr_value(std::vector<int64_t>{1, 2, 2, 1}));
  CHECK(convert("list { f: 0.5 f: -1 }") == attr_value(std::vector<float>{0.5f, -1}));
  CHECK(convert("list { b: true b: false }") == attr_value(std::vector<bool>{true, false}));
  CHECK(convert("list { type: DT_FLOAT type: DT_BOOL }") ==
        attr_value(std::vector<dtype>{dtype::float32, dtype::boolean}));
  CHECK(convert("list { shape { dim { size: 2 } } shape { unknown_rank: true } }") ==
        attr_value(std::vector<partial_shape>{partial_shape{2}, partial_shape::unknown()}));
  CHECK(convert("list { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 3 } }") ==
        attr_value(std::vector<tensor>{tensor::scalar(3.0f)}));

  const attr_type list_types[] = {attr_type::list_int,    attr_type::list_float, attr_type::list_bool,
                                  attr_type::list_string, attr_type::list_type,  attr_type::list_shape,
                                  attr_type::list_tensor};
  for (attr_type t : list_types) {
    const attr_def d = declared_as(t);
    const attr_value v = convert("list { }", &d);
    CHECK(v.type() == t);
  }
  CHECK(error_of("list { }") ==
        "m.pbtxt: node 'n' (op X) attr 'a': an empty list whose element type is unknown (the op "
        "does not declare this attr)");
  const attr_def as_int = declared_as(attr_type::int_);
  CHECK(error_of("list { }", &as_int) ==
        "m.pbtxt: node 'n' (op X) attr 'a': an empty list, but the op declares it int");
}

TEST_CASE("values that do not fit are errors naming the attr") {
  const attr_def as_float = declared_as(attr_type::float_);
  CHECK(error_of("i: 3", &as_float) ==
        "m.pbtxt: node 'n' (op X) attr 'a': is int but the op declares it float");
  CHECK(error_of("list { s: 'x' i: 1 }") ==
        "m.pbtxt: node 'n' (op X) attr 'a': list holds both s and i values (a list has one kind)");
  CHECK(error_of("func { name: 'f' }") ==
        "m.pbtxt: node 'n' (op X) attr 'a': names the function 'f' (caflow runs no TensorFlow functions)");
  CHECK(error_of("placeholder: 'T'").find("only a function body may hold") != std::string::npos);
  CHECK(error_of("") == "m.pbtxt: node 'n' (op X) attr 'a': holds no value");
  CHECK(error_of("type: DT_COMPLEX64").starts_with("m.pbtxt: node 'n' (op X) attr 'a': type: DT_COMPLEX64 has no caflow dtype"));
  CHECK(error_of("list { type: DT_FLOAT type: DT_COMPLEX128 }")
            .starts_with("m.pbtxt: node 'n' (op X) attr 'a': list.type[1]: DT_COMPLEX128 has no caflow dtype"));
  CHECK(error_of("shape { dim { size: -2 } }").find("shape dim 0 is -2") != std::string::npos);
}

TEST_CASE("every attr_value writes and reads back equal") {
  const std::vector<attr_value> values = {
      attr_value("SAME"), attr_value(int64_t{-3}), attr_value(1.5f), attr_value(true),
      attr_value(dtype::uint8), attr_value(partial_shape{-1, 4}), attr_value(partial_shape::unknown()),
      attr_value(tensor::from_vector<int64_t>({5, 6})), attr_value(std::vector<int64_t>{1, 2}),
      attr_value(std::vector<float>{0.5f}), attr_value(std::vector<bool>{false, true}),
      attr_value(std::vector<std::string>{"loc:@w"}), attr_value(std::vector<dtype>{dtype::float64}),
      attr_value(std::vector<partial_shape>{partial_shape{3}}),
      attr_value(std::vector<tensor>{tensor::scalar<bool>(true)})};
  for (const attr_value& v : values) {
    tfp::AttrValue p;
    REQUIRE(tf::attr_to_proto(v, &p).ok());
    const attr_def d = declared_as(v.type());
    CHECK(tf::attr_from_proto(p, &d, "x").value() == v);
  }
  tfp::AttrValue p;
  REQUIRE(tf::attr_to_proto(attr_value(std::vector<int64_t>{}), &p).ok());
  CHECK(p.has_list());
  CHECK(tf::attr_to_proto(attr_value(), &p).message() == "attr holds no value");
}
