// TensorFlow GraphDefs in text, JSON and binary read into caflow's graph_def: attrs by the op's
// declarations, dropped defaults and annotations, and every refusal naming its culprit.
#include <doctest/doctest.h>

#include <fstream>

#include "graph/tf/graph_def_import.hpp"
#include "graph/tf/proto/graph.pb.h"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using tf::graph_encoding;

namespace {

// A small TF 1.x graph as TensorFlow writes it: devices, a colocation class, inferred shapes,
// and attrs newer TensorFlow versions add with their defaults.
const char* const text_graph = R"pb(
node {
  name: "x" op: "Placeholder" device: "/job:worker/replica:0/task:0/device:CPU:0"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } }
  attr { key: "_output_shapes" value { list { shape { dim { size: -1 } dim { size: 2 } } } } }
}
node {
  name: "w" op: "Const" device: "/job:ps/task:0"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } }
                                       tensor_content: "\000\000\200?\000\000\000@\000\000@@\000\000\200@" } } }
}
node {
  name: "w/read" op: "Identity" input: "w"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "_class" value { list { s: "loc:@w" } } }
}
node {
  name: "mm" op: "MatMul" input: "x" input: "w/read"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "transpose_a" value { b: false } }
  attr { key: "transpose_b" value { b: false } }
  attr { key: "grad_a" value { b: false } }
  attr { key: "grad_b" value { b: false } }
  attr { key: "_XlaCompile" value { b: false } }
}
node {
  name: "r" op: "Reshape" input: "mm" input: "shape" input: "^w"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "Tshape" value { type: DT_INT64 } }
}
node {
  name: "shape" op: "Const"
  attr { key: "dtype" value { type: DT_INT64 } }
  attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 4 } }
                                       int64_val: -1 int64_val: 2 int64_val: 1 int64_val: 1 } } }
}
node {
  name: "pool" op: "MaxPool" input: "r"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "ksize" value { list { i: 1 i: 1 i: 1 i: 1 } } }
  attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
  attr { key: "padding" value { s: "VALID" } }
  attr { key: "data_format" value { s: "NHWC" } }
  attr { key: "explicit_paddings" value { list { } } }
}
node {
  name: "sq" op: "Squeeze" input: "pool"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "squeeze_dims" value { list { } } }
}
versions { producer: 27 }
)pb";

// The same graph in protobuf JSON, as TensorFlow.js writes it: int64 as strings, bytes as
// base64, types by name, lowerCamelCase fields.
const char* const json_graph = R"({
  "node": [
    {"name": "x", "op": "Placeholder", "device": "/job:worker/replica:0/task:0/device:CPU:0",
     "attr": {"dtype": {"type": "DT_FLOAT"},
              "shape": {"shape": {"dim": [{"size": "-1"}, {"size": "2"}]}},
              "_output_shapes": {"list": {"shape": [{"dim": [{"size": "-1"}, {"size": "2"}]}]}}}},
    {"name": "w", "op": "Const", "device": "/job:ps/task:0",
     "attr": {"dtype": {"type": "DT_FLOAT"},
              "value": {"tensor": {"dtype": "DT_FLOAT",
                                   "tensorShape": {"dim": [{"size": "2"}, {"size": "2"}]},
                                   "tensorContent": "AACAPwAAAEAAAEBAAACAQA=="}}}},
    {"name": "w/read", "op": "Identity", "input": ["w"],
     "attr": {"T": {"type": "DT_FLOAT"}, "_class": {"list": {"s": ["bG9jOkB3"]}}}},
    {"name": "mm", "op": "MatMul", "input": ["x", "w/read"],
     "attr": {"T": {"type": "DT_FLOAT"}, "transpose_a": {"b": false}, "transpose_b": {"b": false},
              "grad_a": {"b": false}, "grad_b": {"b": false}, "_XlaCompile": {"b": false}}},
    {"name": "r", "op": "Reshape", "input": ["mm", "shape", "^w"],
     "attr": {"T": {"type": "DT_FLOAT"}, "Tshape": {"type": "DT_INT64"}}},
    {"name": "shape", "op": "Const",
     "attr": {"dtype": {"type": "DT_INT64"},
              "value": {"tensor": {"dtype": "DT_INT64", "tensorShape": {"dim": [{"size": "4"}]},
                                   "int64Val": ["-1", "2", "1", 1]}}}},
    {"name": "pool", "op": "MaxPool", "input": ["r"],
     "attr": {"T": {"type": "DT_FLOAT"}, "ksize": {"list": {"i": ["1", "1", "1", "1"]}},
              "strides": {"list": {"i": ["1", "1", "1", "1"]}}, "padding": {"s": "VkFMSUQ="},
              "data_format": {"s": "TkhXQw=="}, "explicit_paddings": {"list": {}}}},
    {"name": "sq", "op": "Squeeze", "input": ["pool"],
     "attr": {"T": {"type": "DT_FLOAT"}, "squeeze_dims": {"list": {}}}}
  ],
  "versions": {"producer": 27}
})";

graph_def read(std::string_view bytes, graph_encoding e, const tf::import_options& o = {}) {
  auto g = tf::read_graph_def(bytes, e, "m", o);
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  return *g;
}

std::string error_of(std::string_view bytes, graph_encoding e, const tf::import_options& o = {}) {
  auto g = tf::read_graph_def(bytes, e, "m.x", o);
  REQUIRE_FALSE(g.ok());
  return g.get_status().message();
}

const node_def& node(const graph_def& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  FAIL("no node ", name);
  return g.nodes.front();
}

// A text GraphDef of one node of `op` with the attrs given in text.
std::string one_node(const std::string& op, const std::string& attrs, const std::string& inputs = "") {
  return "node { name: 'n' op: '" + op + "' " + inputs + " " + attrs + " }";
}

}  // namespace

TEST_CASE("a TF 1.x graph in text: devices and _class kept, defaults and annotations dropped") {
  const graph_def g = read(text_graph, graph_encoding::text);
  REQUIRE(g.nodes.size() == 8);
  CHECK(g.version == graph_def::current_version);

  const node_def& x = node(g, "x");
  CHECK(x.op == "Placeholder");
  CHECK(x.device == "/job:worker/replica:0/task:0/device:CPU:0");
  CHECK(x.attrs == std::map<std::string, attr_value>{{"dtype", dtype::float32},
                                                      {"shape", partial_shape{-1, 2}}});
  const node_def& w = node(g, "w");
  CHECK(w.device == "/job:ps/task:0");
  CHECK(w.attrs.at("value") == attr_value(tensor::from_vector<float>({1, 2, 3, 4}, {2, 2})));
  CHECK(node(g, "w/read").attrs.at("_class") == attr_value(std::vector<std::string>{"loc:@w"}));

  const node_def& mm = node(g, "mm");
  CHECK(mm.inputs == std::vector<std::string>{"x", "w/read"});
  CHECK(mm.attrs == std::map<std::string, attr_value>{
                        {"T", dtype::float32}, {"transpose_a", false}, {"transpose_b", false}});
  CHECK(node(g, "r").inputs == std::vector<std::string>{"mm", "shape", "^w"});
  CHECK(node(g, "shape").attrs.at("value") == attr_value(tensor::from_vector<int64_t>({-1, 2, 1, 1})));
  const node_def& pool = node(g, "pool");
  CHECK(pool.attrs.count("explicit_paddings") == 0);
  CHECK(pool.attrs.at("data_format") == attr_value("NHWC"));
  CHECK(pool.attrs.at("ksize") == attr_value(std::vector<int64_t>{1, 1, 1, 1}));
  // An empty list's element type comes from the op: Squeeze declares squeeze_dims list(int).
  CHECK(node(g, "sq").attrs.at("squeeze_dims") == attr_value(std::vector<int64_t>{}));
}

TEST_CASE("the same graph in protobuf JSON reads equal: int64 strings, base64 bytes, DT_ names") {
  CHECK(read(json_graph, graph_encoding::json) == read(text_graph, graph_encoding::text));
}

TEST_CASE("a TensorFlow.js model.json: its modelTopology, weights left to the caller") {
  const std::string model = R"({"format": "graph-model", "generatedBy": "2.15.0",
    "modelTopology": {"node": [
      {"name": "w", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}}},
      {"name": "y", "op": "Identity", "input": ["w"], "attr": {"T": {"type": "DT_FLOAT"}}}],
      "versions": {"producer": 1482}},
    "weightsManifest": [{"paths": ["group1-shard1of1.bin"],
                         "weights": [{"name": "w", "shape": [2], "dtype": "float32"}]}]})";
  const graph_def g = read(model, graph_encoding::json, {.const_values_external = true});
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.nodes[0].attrs == std::map<std::string, attr_value>{{"dtype", dtype::float32}});
  CHECK(error_of(model, graph_encoding::json) ==
        "m.x: node 'w' (op Const): lacks attr 'value' (tensor), which has no default");
  CHECK(error_of(R"({"modelTopology": {"class_name": "Sequential", "config": {}}})", graph_encoding::json) ==
        "m.x: modelTopology is a Keras layers model (TensorFlow.js LayersModel), not a graph model");
}

TEST_CASE("ops caflow lacks: one error naming each op and every node that uses it") {
  const std::string g = R"pb(
    node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "h1" op: "HashTableV2" }
    node { name: "s1" op: "LookupTableFindV2" input: "h1" input: "a" input: "a" }
    node { name: "h2" op: "HashTableV2" }
    node { name: "s2" op: "LookupTableFindV2" input: "h2" input: "a" input: "a" }
    node { name: "h3" op: "HashTableV2" })pb";
  const std::string e = error_of(g, graph_encoding::text);
  CHECK(e == "m.x: caflow lacks 2 ops the graph uses: HashTableV2 (nodes 'h1', 'h2' and 'h3'); "
             "LookupTableFindV2 (nodes 's1' and 's2')");
  auto st = tf::read_graph_def(g, graph_encoding::text, "m.x");
  CHECK(st.get_status().code() == error_code::unimplemented);
}

TEST_CASE("a non-empty function library is refused by name") {
  const std::string g = R"pb(
    node { name: "a" op: "NoOp" }
    library { function { signature { name: "cond_true_7" } }
              function { signature { name: "body_3" } }
              gradient { function_name: "body_3" gradient_func: "body_3_grad" } })pb";
  CHECK(error_of(g, graph_encoding::text) ==
        "m.x: the graph's function library holds functions 'cond_true_7' and 'body_3' and "
        "gradients of 'body_3'; caflow runs no TensorFlow functions (freeze or inline them into "
        "the graph first)");
  // An empty library is no library.
  CHECK(read("node { name: 'a' op: 'NoOp' } library { }", graph_encoding::text).nodes.size() == 1);
}

TEST_CASE("attrs the op does not declare: dropped only when harmless, else an error naming them") {
  const std::string relu_t = "attr { key: 'T' value { type: DT_FLOAT } }";
  CHECK(error_of(one_node("Relu", relu_t + " attr { key: 'alpha' value { f: 0.2 } }", "input: 'n'"),
                 graph_encoding::text) ==
        "m.x: node 'n' (op Relu) attr 'alpha': is not an attr of caflow's op Relu (its attrs: T)");
  CHECK(error_of(one_node("MaxPool",
                          "attr { key: 'ksize' value { list { i: 1 i: 2 i: 2 i: 1 } } } "
                          "attr { key: 'strides' value { list { i: 1 i: 2 i: 2 i: 1 } } } "
                          "attr { key: 'padding' value { s: 'EXPLICIT' } } "
                          "attr { key: 'explicit_paddings' value { list { i: 0 i: 0 i: 1 i: 1 i: 1 i: 1 i: 0 i: 0 } } }",
                          "input: 'n'"),
                 graph_encoding::text) ==
        "m.x: node 'n' (op MaxPool) attr 'explicit_paddings': holds [0, 0, 1, 1, 1, 1, 0, 0], but "
        "caflow's op MaxPool implements only TensorFlow's default [] (it does not declare the attr)");
  CHECK(error_of(one_node("MatMul", relu_t + " attr { key: 'grad_a' value { b: true } }", "input: 'n' input: 'n'"),
                 graph_encoding::text)
            .starts_with("m.x: node 'n' (op MatMul) attr 'grad_a': holds true, but caflow's op MatMul "
                         "implements only TensorFlow's default false"));
  // A type attr caflow reads off the edges must still hold a type.
  CHECK(error_of(one_node("Relu", relu_t + " attr { key: 'Tidx' value { i: 3 } }", "input: 'n'"),
                 graph_encoding::text)
            .starts_with("m.x: node 'n' (op Relu) attr 'Tidx': is not an attr of caflow's op Relu"));
  // A declared attr without a default must be there.
  CHECK(error_of(one_node("Relu", "", "input: 'n'"), graph_encoding::text) ==
        "m.x: node 'n' (op Relu): lacks attr 'T' (type), which has no default");
  // '_' annotations other than the dropped ones are kept as they are.
  const graph_def g = read(one_node("NoOp", "attr { key: '_mine' value { list { f: 1.5 } } } "
                                            "attr { key: '_grappler_layout' value { s: 'x' } } "
                                            "attr { key: '_user_specified_name' value { s: 'x' } }"),
                           graph_encoding::text);
  CHECK(g.nodes[0].attrs == std::map<std::string, attr_value>{{"_mine", std::vector<float>{1.5f}}});
}

TEST_CASE("node-level mistakes name the node") {
  CHECK(error_of("node { name: 'a' op: 'NoOp' } node { name: 'a' op: 'NoOp' }", graph_encoding::text) ==
        "m.x: node[1]: a second node named 'a'");
  CHECK(error_of("node { op: 'NoOp' }", graph_encoding::text) == "m.x: node[0] (op NoOp) has no name");
  CHECK(error_of("node { name: 'a' }", graph_encoding::text) == "m.x: node[0] 'a' has no op");
  // Text and JSON take any bytes into a string field; a binary GraphDef may not hold them.
  CHECK(error_of("node { name: 'a\\377' op: 'NoOp' }", graph_encoding::text) ==
        "m.x: node[0].name is not UTF-8");
  CHECK(error_of("node { name: 'a' op: 'NoOp' input: '\\300' }", graph_encoding::text) ==
        "m.x: node[0].input[0] is not UTF-8");
  CHECK(error_of("node { name: 'a' op: 'NoOp' input: 'b:x' }", graph_encoding::text)
            .starts_with("m.x: node 'a' (op NoOp): input 0: "));
}

TEST_CASE("malformed bytes: the file and the field at fault, never a crash") {
  // Binary: a GraphDef cut inside a tensor's content.
  tfproto::GraphDef proto;
  auto* n = proto.add_node();
  n->set_name("w");
  n->set_op("Const");
  auto& value = (*n->mutable_attr())["value"];
  value.mutable_tensor()->set_dtype(tfproto::DT_FLOAT);
  value.mutable_tensor()->set_tensor_content(std::string(400, 'x'));
  const std::string bytes = proto.SerializeAsString();
  REQUIRE(bytes.size() == 434);
  CHECK(error_of(std::string_view(bytes).substr(0, bytes.size() - 50), graph_encoding::binary) ==
        "m.x: node[0].attr['value'].tensor.tensor_content: a length-delimited value of 400 bytes "
        "runs past the end (350 bytes left)");
  CHECK(error_of(std::string_view(bytes).substr(0, 2), graph_encoding::binary) ==
        "m.x: node[0]: a length runs past the end");
  CHECK(error_of(std::string("\x0a\x05\x0a\x03\xff\xfe\xfd", 7), graph_encoding::binary) ==
        "m.x: node[0].name: a string field holds bytes that are not UTF-8");
  CHECK(error_of(std::string("\x0b", 1), graph_encoding::binary) ==
        "m.x: node[0]: uses protobuf groups (wire type 3), which no TensorFlow message has");
  CHECK(error_of(std::string("\x22\x02\x08", 3), graph_encoding::binary) ==
        "m.x: versions.producer: a varint runs past the end or over 10 bytes");

  // Text: line and column.
  const std::string text_error =
      error_of("node { name: 'a' op: 'NoOp' }\nnode { nme: 'b' }", graph_encoding::text);
  CHECK(text_error == "m.x:2:11: Message type \"caflow.tfproto.NodeDef\" has no field named \"nme\".");
  // JSON: not JSON, wrong types, bad base64, misspelt fields.
  CHECK(error_of("{\"node\": [", graph_encoding::json).starts_with("m.x: not JSON"));
  CHECK(error_of("[1, 2]", graph_encoding::json) == "m.x: expected a GraphDef object, got JSON array");
  CHECK(error_of(R"({"node": [{"name": 5, "op": "NoOp"}]})", graph_encoding::json)
            .find("name") != std::string::npos);
  CHECK(error_of(R"({"node": [{"name": 5, "op": "NoOp"}]})", graph_encoding::json).starts_with("m.x: "));
  CHECK(error_of(R"({"node": [{"name": "a", "op": "NoOp", "attr": {"_x": {"i": "seven"}}}]})",
                 graph_encoding::json)
            .find("seven") != std::string::npos);
  const std::string base64_error =
      error_of(R"({"node": [{"name": "c", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"},
                  "value": {"tensor": {"dtype": "DT_FLOAT", "tensorContent": "@@@"}}}}]})",
               graph_encoding::json);
  CHECK(base64_error ==
        "m.x: (node[0].attr[1].value.tensor.tensor_content): invalid value \"@@@\" for type TYPE_BYTES");
  CHECK(error_of(R"({"nodes": []})", graph_encoding::json) == "m.x: unknown field 'nodes'");
  CHECK(error_of(R"({"node": [{"name": "a", "opp": "NoOp"}]})", graph_encoding::json) ==
        "m.x: node[0]: unknown field 'opp'");
  CHECK(error_of(std::string(200, '[') + std::string(200, ']'), graph_encoding::json) ==
        "m.x: JSON nested deeper than 64 levels");
  // A tensor shorter than its shape, in any encoding.
  CHECK(error_of(R"pb(node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
                       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } }
                                                            tensor_content: "abcd" } } } })pb",
                 graph_encoding::text) ==
        "m.x: node 'c' (op Const) attr 'value': tensor_content holds 4 bytes but shape [3] of "
        "DT_FLOAT needs 12");
}

TEST_CASE("files are read by extension, and named in every error") {
  caflow::testing::temp_dir dir("caflow_tf_import_");
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir.path / name, std::ios::binary) << bytes;
    return (dir.path / name).string();
  };
  const graph_def expected = read(text_graph, graph_encoding::text);
  CHECK(tf::read_graph_def_file(write("g.pbtxt", text_graph)).value() == expected);
  CHECK(tf::read_graph_def_file(write("g.json", json_graph)).value() == expected);
  auto proto_text = tf::read_graph_def_file(write("bad.pb", "\x0a\x09"));
  CHECK(proto_text.get_status().message() ==
        (dir.path / "bad.pb").string() + ": node[0]: a length-delimited value of 9 bytes runs past the end (0 bytes left)");
  const std::string other = write("g.txt", "");
  CHECK(tf::read_graph_def_file(other).get_status().message().starts_with(other + ": unknown GraphDef file extension"));
  const std::string missing = (dir.path / "missing.pb").string();
  CHECK(tf::read_graph_def_file(missing).get_status().message() ==
        missing + ": cannot open: No such file or directory");
}
