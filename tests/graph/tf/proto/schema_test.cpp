// The project's .proto files say on the wire what TensorFlow says: hand-assembled bytes with
// TensorFlow's field numbers and enum values parse into the fields they name, and messages
// serialize to those bytes.
#include <doctest/doctest.h>

#include "graph/tf/proto/graph.pb.h"

using namespace caflow::tfproto;

namespace {

// A field's key byte: (number << 3) | wire type (0 varint, 2 length-delimited, 5 fixed32).
constexpr char key(int number, int wire) { return static_cast<char>((number << 3) | wire); }

std::string delimited(int number, const std::string& body) {
  return std::string{key(number, 2), static_cast<char>(body.size())} + body;
}

}  // namespace

TEST_CASE("GraphDef, NodeDef and AttrValue use TensorFlow's field numbers") {
  // NodeDef: name=1, op=2, input=3, device=4, attr=5 (map entry: key=1, value=2).
  // AttrValue: list=1, s=2, i=3, f=4, b=5, type=6, shape=7, tensor=8.
  const std::string attr_value = delimited(2, std::string{key(6, 0), 1});  // type: DT_FLOAT
  const std::string node = delimited(1, "n") + delimited(2, "Op") + delimited(3, "a:1") +
                           delimited(4, "/cpu:0") + delimited(5, delimited(1, "T") + attr_value);
  // GraphDef: node=1, library=2, version=3, versions=4 (VersionDef producer=1, min_consumer=2).
  const std::string graph = delimited(1, node) + std::string{key(3, 0), 7} +
                            delimited(4, std::string{key(1, 0), 27, key(2, 0), 12});
  GraphDef g;
  REQUIRE(g.ParseFromString(graph));
  REQUIRE(g.node_size() == 1);
  CHECK(g.node(0).name() == "n");
  CHECK(g.node(0).op() == "Op");
  CHECK(g.node(0).input(0) == "a:1");
  CHECK(g.node(0).device() == "/cpu:0");
  CHECK(g.node(0).attr().at("T").type() == DT_FLOAT);
  CHECK(GraphDef::descriptor()->FindFieldByName("version")->number() == 3);  // deprecated
  CHECK(g.versions().producer() == 27);
  CHECK(g.versions().min_consumer() == 12);
  CHECK(g.SerializeAsString() == graph);

  AttrValue v;
  REQUIRE(v.ParseFromString(std::string{key(3, 0), 5}));
  CHECK(v.i() == 5);
  REQUIRE(v.ParseFromString(std::string{key(5, 0), 1}));
  CHECK(v.b());
  REQUIRE(v.ParseFromString(std::string{key(4, 5), 0, 0, static_cast<char>(0x80), 0x3f}));
  CHECK(v.f() == 1.0f);
  REQUIRE(v.ParseFromString(delimited(1, std::string{key(3, 2), 2, 1, 2})));  // list { i: [1, 2] }
  CHECK(v.list().i_size() == 2);
  REQUIRE(v.ParseFromString(delimited(7, std::string{key(3, 0), 1})));  // shape { unknown_rank }
  CHECK(v.shape().unknown_rank());
}

TEST_CASE("TensorProto and TensorShapeProto use TensorFlow's field numbers") {
  // TensorProto: dtype=1, tensor_shape=2 (dim=2: size=1), tensor_content=4, float_val=5,
  // int_val=7, int64_val=10, bool_val=11, half_val=13.
  const std::string shape = delimited(2, std::string{key(1, 0), 3});
  TensorProto t;
  REQUIRE(t.ParseFromString(std::string{key(1, 0), 19} + delimited(2, shape) +
                            delimited(13, std::string{static_cast<char>(0x80), 0x78})));
  CHECK(t.dtype() == DT_HALF);
  CHECK(t.tensor_shape().dim(0).size() == 3);
  CHECK(t.half_val(0) == 0x3c00);
  REQUIRE(t.ParseFromString(delimited(4, "abcd") + delimited(7, std::string{1, 2}) +
                            delimited(10, std::string{3}) + delimited(11, std::string{1})));
  CHECK(t.tensor_content() == "abcd");
  CHECK(t.int_val_size() == 2);
  CHECK(t.int64_val(0) == 3);
  CHECK(t.bool_val(0));
}

TEST_CASE("DataType carries TensorFlow's numbers, references at +100") {
  CHECK(DT_FLOAT == 1);
  CHECK(DT_DOUBLE == 2);
  CHECK(DT_INT32 == 3);
  CHECK(DT_UINT8 == 4);
  CHECK(DT_INT16 == 5);
  CHECK(DT_INT8 == 6);
  CHECK(DT_STRING == 7);
  CHECK(DT_INT64 == 9);
  CHECK(DT_BOOL == 10);
  CHECK(DT_BFLOAT16 == 14);
  CHECK(DT_UINT16 == 17);
  CHECK(DT_HALF == 19);
  CHECK(DT_RESOURCE == 20);
  CHECK(DT_UINT32 == 22);
  CHECK(DT_UINT64 == 23);
  CHECK(DT_FLOAT_REF == 101);
  CHECK(DT_UINT64_REF == 123);
}
