#!/usr/bin/env node
// Converts a binary TensorFlow GraphDef (a frozen .pb) into a TF.js graph model:
//
//   node pb_to_tfjs.js <in.pb> <out dir>
//
// writes <out dir>/model.json and <out dir>/group1-shard1of1.bin. This is the step that
// tensorflowjs_converter performs for a frozen graph; TF.js itself reads only the JSON form, so
// without it a .pb cannot be run by TF.js at all.
//
// The .pb is decoded with protobufjs against the TensorFlow message definitions that ship in
// @tensorflow/tfjs-node (src/proto/api.proto, assembled by the TensorFlow.js team from
// tensorflow/core/framework/*.proto), never against caflow's own declarations, so that a field
// number or type that caflow gets wrong shows up here instead of being read back the same wrong
// way.
//
// modelTopology is the GraphDef in protobuf's JSON mapping, the form TF.js's converter writes and
// its loader reads: lowerCamelCase field names, int64 as decimal strings, enums by name
// (DT_FLOAT), bytes as base64, map keys (attr names) as they are. Every Const node keeps only the
// dtype and shape of its value; the values themselves go, in node order, into one weight group
// whose single shard is group1-shard1of1.bin, which is where TF.js's loader looks them up (by
// the Const node's name).
//
// Anything that cannot be carried over faithfully is refused with an error naming the node.
'use strict';
const fs = require('fs');
const path = require('path');
const protobuf = require('protobufjs');

const PROTO = require.resolve('@tensorflow/tfjs-node/src/proto/api.proto');
const SHARD = 'group1-shard1of1.bin';

class Refusal extends Error {}

function refuse(node, what) {
  throw new Refusal(node ? `node "${node.name}" (${node.op}): ${what}` : what);
}

// DT_INT64 is stored as int32, as tensorflowjs_converter does: TF.js has no int64 and reads an
// int64 attr or placeholder as int32 anyway. Values outside int32 are refused rather than
// wrapped, so that a conversion never changes a number silently.
const DTYPES = {
  DT_FLOAT: {tfjs: 'float32', bytes: 4, field: 'floatVal'},
  DT_INT32: {tfjs: 'int32', bytes: 4, field: 'intVal'},
  DT_INT64: {tfjs: 'int32', bytes: 8, field: 'int64Val'},
  DT_BOOL: {tfjs: 'bool', bytes: 1, field: 'boolVal'},
};

function loadGraphDefType() {
  return protobuf.loadSync(PROTO).lookupType('tensorflow.GraphDef');
}

function shapeOf(node, shapeProto) {
  if (!shapeProto) return [];
  if (shapeProto.unknownRank) refuse(node, 'the value has an unknown rank');
  return (shapeProto.dim || []).map(d => {
    const size = Number(d.size);
    if (!Number.isSafeInteger(size) || size < 0) refuse(node, `the value has a dimension of size ${d.size}`);
    return size;
  });
}

function toInt32(node, v) {
  const n = typeof v === 'object' && v !== null ? BigInt(v.toString()) : BigInt(v);
  if (n < -2147483648n || n > 2147483647n) refuse(node, `int64 value ${n} does not fit in int32, which TF.js uses for int64`);
  return Number(n);
}

// Returns the bytes of the tensor in TF.js's weight layout (little-endian, row-major).
function constBytes(node, tensor, dtypeName, count) {
  const info = DTYPES[dtypeName];
  const out = Buffer.alloc(count * (info.tfjs === 'bool' ? 1 : 4));
  const content = tensor.tensorContent;
  if (content && content.length > 0) {
    // tensor_content is TensorFlow's in-memory layout of the whole tensor; it wins over the typed
    // fields, as in TensorFlow's Tensor::FromProto.
    if (content.length !== count * info.bytes) {
      refuse(node, `tensor_content has ${content.length} bytes, ${count} ${dtypeName} elements need ${count * info.bytes}`);
    }
    const buf = Buffer.from(content.buffer, content.byteOffset, content.length);
    if (dtypeName === 'DT_INT64') {
      for (let i = 0; i < count; ++i) out.writeInt32LE(toInt32(node, buf.readBigInt64LE(i * 8)), i * 4);
    } else if (dtypeName === 'DT_BOOL') {
      for (let i = 0; i < count; ++i) out[i] = buf[i] !== 0 ? 1 : 0;
    } else {
      buf.copy(out);
    }
    return out;
  }
  for (const {field} of Object.values(DTYPES)) {
    if (field !== info.field && (tensor[field] || []).length > 0) {
      refuse(node, `a ${dtypeName} tensor carries its values in ${field}`);
    }
  }
  const vals = tensor[info.field] || [];
  if (vals.length > count) refuse(node, `${vals.length} values in ${info.field} for ${count} elements`);
  // TensorFlow's rule for the typed fields: none means all zeros, fewer than the element count
  // means the last one repeats to fill the shape (the usual case is a single value for a whole
  // splat constant).
  const at = i => (vals.length === 0 ? 0 : vals[Math.min(i, vals.length - 1)]);
  for (let i = 0; i < count; ++i) {
    const v = at(i);
    if (dtypeName === 'DT_FLOAT') out.writeFloatLE(v, i * 4);
    else if (dtypeName === 'DT_INT32') out.writeInt32LE(v, i * 4);
    else if (dtypeName === 'DT_INT64') out.writeInt32LE(toInt32(node, v), i * 4);
    else out[i] = v ? 1 : 0;
  }
  return out;
}

// Two things that protobufjs's JSON form carries but TF.js would misread, far from the cause:
// an enum value that the proto does not name comes out as a number (TF.js: unknown dtype, null),
// and a non-finite float attr comes out as NaN/Infinity, which JSON cannot hold and TF.js's
// number parsing (parseInt) would not read back.
function checkAttrs(node, value, where) {
  if (Array.isArray(value)) { value.forEach((v, i) => checkAttrs(node, v, `${where}[${i}]`)); return; }
  if (typeof value === 'number' && !Number.isFinite(value)) {
    refuse(node, `${where} = ${value} cannot be written for TF.js`);
  }
  if (value === null || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    if ((k === 'type' || k === 'dtype') && (typeof v === 'number' || (Array.isArray(v) && v.some(x => typeof x === 'number')))) {
      refuse(node, `${where}.${k} = ${JSON.stringify(v)} is not a DataType that TensorFlow.js's proto names`);
    }
    checkAttrs(node, v, `${where}.${k}`);
  }
}

function convert(pbBytes) {
  const GraphDef = loadGraphDefType();
  let graph;
  try {
    graph = GraphDef.decode(pbBytes);
  } catch (e) {
    throw new Refusal(`not a GraphDef: ${e.message}`);
  }
  const lib = graph.library;
  if (lib && ((lib.function || []).length > 0 || (lib.gradient || []).length > 0)) {
    const names = (lib.function || []).map(f => f.signature && f.signature.name).filter(Boolean);
    refuse(null, `the graph has a function library (${names.join(', ') || 'gradients only'}); this converter handles plain graphs only`);
  }
  if (graph.node.length === 0) refuse(null, 'the graph has no nodes');

  const json = GraphDef.toObject(graph, {longs: String, enums: String, bytes: String, arrays: false});
  const names = new Set();
  for (const node of json.node) {
    if (!node.name) refuse(node, 'a node without a name');
    if (names.has(node.name)) refuse(node, 'the name is used by more than one node');
    names.add(node.name);
  }

  const weights = [];
  const chunks = [];
  for (let k = 0; k < json.node.length; ++k) {
    const node = json.node[k];
    for (const input of node.input || []) {
      const source = input.replace(/^\^/, '').split(':')[0];
      if (!names.has(source)) refuse(node, `input "${input}" names no node of the graph`);
    }
    // A Const's value is checked as its weight bytes below, not as JSON.
    if (node.op !== 'Const') {
      checkAttrs(node, node.attr || {}, 'attr');
      continue;
    }
    const attr = node.attr || {};
    const tensorJson = attr.value && attr.value.tensor;
    if (!tensorJson) refuse(node, 'no "value" tensor attr');
    const tensor = graph.node[k].attr.value.tensor;
    const dtypeName = tensorJson.dtype || 'DT_INVALID';
    if (!DTYPES[dtypeName]) {
      const what = typeof dtypeName === 'number' ? `${dtypeName}, which TensorFlow.js's proto does not name,` : dtypeName;
      refuse(node, `dtype ${what} is not supported (DT_FLOAT, DT_INT32, DT_INT64 and DT_BOOL are)`);
    }
    if (attr.dtype && attr.dtype.type !== dtypeName) {
      refuse(node, `the dtype attr (${attr.dtype.type}) differs from the value's dtype (${dtypeName})`);
    }
    const shape = shapeOf(node, tensor.tensorShape);
    const count = shape.reduce((a, b) => a * b, 1);
    chunks.push(constBytes(node, tensor, dtypeName, count));
    weights.push({name: node.name, shape, dtype: DTYPES[dtypeName].tfjs});
    const stripped = {dtype: dtypeName};
    stripped.tensorShape = tensorJson.tensorShape || {};
    attr.value = {tensor: stripped};
    checkAttrs(node, attr, 'attr');
  }

  // TF.js's loader reads versions.producer unconditionally; an absent VersionDef and an empty one
  // mean the same in proto3 (producer 0), and TensorFlow writes frozen graphs without one.
  const topology = {node: json.node, versions: json.versions || {}};
  const model = {
    format: 'graph-model',
    generatedBy: json.versions && json.versions.producer != null
                     ? `TensorFlow GraphDef producer ${json.versions.producer}` : 'TensorFlow GraphDef',
    convertedBy: 'caflow scripts/tfjs_export_check/pb_to_tfjs.js',
    modelTopology: topology,
    weightsManifest: [{paths: [SHARD], weights}],
  };
  return {model, shard: Buffer.concat(chunks)};
}

function main() {
  const [inPath, outDir] = process.argv.slice(2);
  if (!inPath || !outDir) {
    console.error('usage: pb_to_tfjs.js <in.pb> <out dir>');
    process.exit(2);
  }
  let result;
  try {
    result = convert(fs.readFileSync(inPath));
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    console.error(`pb_to_tfjs: ${inPath}: ${e.message}`);
    process.exit(1);
  }
  fs.mkdirSync(outDir, {recursive: true});
  fs.writeFileSync(path.join(outDir, 'model.json'), JSON.stringify(result.model) + '\n');
  fs.writeFileSync(path.join(outDir, SHARD), result.shard);
  const nodes = result.model.modelTopology.node;
  const weights = result.model.weightsManifest[0].weights;
  const ops = new Set(nodes.map(n => n.op));
  console.log(`${inPath}: ${nodes.length} nodes, ${ops.size} op types, ${weights.length} constants ` +
              `(${result.shard.length} bytes) -> ${path.join(outDir, 'model.json')}`);
}

if (require.main === module) main();
module.exports = {convert, Refusal};
