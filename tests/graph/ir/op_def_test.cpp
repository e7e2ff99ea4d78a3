#include <doctest/doctest.h>

#include "graph/ir/graph.hpp"
#include "graph/ir/op_def.hpp"

using namespace caflow;

TEST_CASE("TF-style specs parse into args and attrs") {
  auto d = op_def_builder("Demo")
               .input("a: T")
               .input("xs: N * T")
               .input("r: Ref(float32)")
               .output("out: int64")
               .attr("T: {float32, int32} = float32")
               .attr("N: int >= 2")
               .attr("flag: bool = true")
               .attr("name: string = 'hi'")
               .attr("dims: list(int) = [1, -2, 3]")
               .attr("s: shape = [2, -1]")
               .finalize();
  REQUIRE(d.ok());
  REQUIRE(d->inputs.size() == 3);
  CHECK(d->inputs[0].type_attr == "T");
  CHECK(d->inputs[1].number_attr == "N");
  CHECK(d->inputs[1].type_attr == "T");
  CHECK(d->inputs[2].is_ref);
  CHECK(d->inputs[2].fixed_type == dtype::float32);
  CHECK(d->outputs[0].fixed_type == dtype::int64);
  const attr_def* t = d->find_attr("T");
  REQUIRE(t);
  CHECK(t->allowed_types == std::vector<dtype>{dtype::float32, dtype::int32});
  CHECK(t->default_value->get<dtype>() == dtype::float32);
  CHECK(d->find_attr("N")->minimum == 2);
  CHECK_FALSE(d->find_attr("N")->default_value.has_value());
  CHECK(d->find_attr("flag")->default_value->get<bool>() == true);
  CHECK(d->find_attr("name")->default_value->get<std::string>() == "hi");
  CHECK(d->find_attr("dims")->default_value->get<std::vector<int64_t>>() == std::vector<int64_t>{1, -2, 3});
  CHECK(d->find_attr("s")->default_value->get<partial_shape>().to_string() == "[2,?]");
}

TEST_CASE("malformed specs name the op and the spec") {
  auto missing_attr = op_def_builder("Bad").input("a: T").finalize();
  REQUIRE_FALSE(missing_attr.ok());
  CHECK(missing_attr.get_status().message().find("op Bad, spec 'a: T'") != std::string::npos);
  auto bad_type = op_def_builder("Bad").attr("x: complex").finalize();
  REQUIRE_FALSE(bad_type.ok());
  CHECK(bad_type.get_status().message().find("unknown attr type 'complex'") != std::string::npos);
  CHECK_FALSE(op_def_builder("Bad").attr("x: int = abc").finalize().ok());
  CHECK_FALSE(op_def_builder("Bad").attr("x").finalize().ok());
}

TEST_CASE("node signatures: allowed types, minimums and list expansion") {
  const op_def* c = op_registry::global().lookup("Const");
  REQUIRE(c);
  node_def n{"k", "Const", "", {}, {{"value", tensor::scalar(1)}, {"dtype", dtype::int32}}};
  auto sig = resolve_signature(*c, n);
  REQUIRE(sig.ok());
  CHECK(sig->output_types == std::vector<dtype>{dtype::int32});

  auto d = op_def_builder("ListDemo").input("xs: N * T").output("y: T").attr("T: {float32}").attr("N: int >= 2").finalize();
  REQUIRE(d.ok());
  node_def l{"l", "ListDemo", "", {}, {{"T", dtype::float32}, {"N", 3}}};
  auto ls = resolve_signature(*d, l);
  REQUIRE(ls.ok());
  CHECK(ls->input_types.size() == 3);
  l.attrs["N"] = 1;
  auto too_few = resolve_signature(*d, l);
  REQUIRE_FALSE(too_few.ok());
  CHECK(too_few.get_status().message() == "node 'l' (ListDemo): attr 'N' is 1, below its minimum 2");
  l.attrs["N"] = 2;
  l.attrs["T"] = dtype::int32;
  auto wrong = resolve_signature(*d, l);
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.get_status().message() == "node 'l' (ListDemo): attr 'T' is int32, not one of {float32}");
}

TEST_CASE("a list attr's minimum bounds its length") {
  auto d = op_def_builder("ListMin").attr("dims: list(int) >= 1").finalize();
  REQUIRE(d.ok());
  node_def n{"m", "ListMin", "", {}, {{"dims", std::vector<int64_t>{}}}};
  auto empty = resolve_signature(*d, n);
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.get_status().message() == "node 'm' (ListMin): attr 'dims' is [], below its minimum 1 elements");
  n.attrs["dims"] = std::vector<int64_t>{4};
  CHECK(resolve_signature(*d, n).ok());
}

TEST_CASE("input names parse and malformed ones are rejected") {
  CHECK(parse_input("a").value().port == 0);
  CHECK(parse_input("scope/a:3").value().node == "scope/a");
  CHECK(parse_input("scope/a:3").value().port == 3);
  CHECK(parse_input("^b").value().is_control());
  CHECK_FALSE(parse_input("").ok());
  CHECK_FALSE(parse_input("a:").ok());
  CHECK_FALSE(parse_input("a:x").ok());
  CHECK_FALSE(parse_input("^").ok());
  CHECK(tensor_name("n", 0) == "n");
  CHECK(tensor_name("n", 2) == "n:2");
}

TEST_CASE("list(type) args: one tensor per listed type") {
  auto d = op_def_builder("TypeListDemo")
               .input("h: float32")
               .input("xs: Tx")
               .output("ys: Ty")
               .attr("Tx: list(type) >= 1")
               .attr("Ty: list(type)")
               .finalize();
  REQUIRE(d.ok());
  node_def n{"t", "TypeListDemo", "", {},
             {{"Tx", std::vector<dtype>{dtype::int32, dtype::boolean}}, {"Ty", std::vector<dtype>{}}}};
  auto sig = resolve_signature(*d, n);
  REQUIRE(sig.ok());
  CHECK(sig->input_types == std::vector<dtype>{dtype::float32, dtype::int32, dtype::boolean});
  CHECK(sig->output_types.empty());
  n.attrs["Tx"] = std::vector<dtype>{};
  auto empty = resolve_signature(*d, n);
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.get_status().message() == "node 't' (TypeListDemo): attr 'Tx' is [], below its minimum 1 elements");
  auto counted = op_def_builder("Bad").input("xs: N * Tx").attr("N: int").attr("Tx: list(type)").finalize();
  REQUIRE_FALSE(counted.ok());
  CHECK(counted.get_status().message().find("a list(type) arg takes no length attr") != std::string::npos);
}
