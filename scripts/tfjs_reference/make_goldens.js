#!/usr/bin/env node
// Runs one TensorFlow.js graph model on TF.js's own CPU backend (the pinned versions in
// package.json) with caflow's deterministic input and writes what caflow's test compares:
//
//   node make_goldens.js <model.json | model.min.js> <out dir> [NAME=D0,D1,...]...
//
// Input pattern, for every input of the model (signature inputs, or Placeholders when the model
// has no signature), over its elements in row-major order:
//   x[i] = ((i * 7919) % 1000) / 1000 - 0.5          (computed in double, stored as float32)
//   x[i] = (i * 7919) % 1000                          (integer inputs; % 256 again for uint8)
// with the shape given as NAME=D0,D1,..., else the signature's (or the Placeholder's), every
// unknown dimension (-1) set to 1. caflow-run feeds the same pattern.
//
// Writes into <out dir>:
//   golden.json       the model, the versions, the inputs fed, and per output: name, dtype,
//                     shape, element count, sum (double), min, max, max_abs, the sample stride
//                     and the sample's .npy file
//   <output>.npy      NumPy format 1.0, '<f4', 1-D: elements 0, s, 2s, ... of the output in
//                     row-major order (s = 1, the whole output, when it has at most 4096
//                     elements; else s = ceil(n / 2048))
//
// The model is read the way TF.js reads it: model.json plus its binary shards, or nsfwjs's
// JS-module form (model.min.js exporting the model.json object, each shard a module exporting
// its bytes as base64), which is loaded through require() here so that caflow's own conversion
// of that form is checked against an independent reading.
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');
const tfconv = require('@tensorflow/tfjs-converter');
const {loadArtifacts} = require('./model_artifacts');

const FULL_LIMIT = 4096;
const SAMPLE_TARGET = 2048;

// Integer inputs, as caflow-run feeds them: (i * 7919) % 1000, wrapped to a byte for uint8
// (TF.js holds uint8 inputs as int32; the model's Placeholder says what TensorFlow declared).
function intPattern(shape, uint8) {
  const n = shape.reduce((a, b) => a * b, 1);
  const x = new Int32Array(n);
  for (let i = 0; i < n; ++i) x[i] = uint8 ? ((i * 7919) % 1000) % 256 : (i * 7919) % 1000;
  return x;
}

function placeholderType(artifacts, name) {
  const node = (artifacts.modelTopology.node || []).find(n => n.name === name.replace(/:0$/, ''));
  return node && node.attr && node.attr.dtype ? node.attr.dtype.type : undefined;
}

function pattern(shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  const x = new Float32Array(n);
  for (let i = 0; i < n; ++i) x[i] = ((i * 7919) % 1000) / 1000 - 0.5;
  return x;
}

function npy(values) {
  // NumPy format 1.0: magic, version, little-endian header length, a dict padded with spaces
  // and ended by '\n' so that the data starts at a multiple of 64 bytes.
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${values.length},), }`;
  const unpadded = 10 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => data.writeFloatLE(v, i * 4));
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), data]);
}

// scripts/fetch_models.sh's cache; the golden names its model relative to it.
function modelCache() {
  return process.env.CAFLOW_MODEL_CACHE ||
         path.join(require('os').homedir(), '.cache', 'caflow', 'models');
}

function fileName(outputName) { return outputName.replace(/[^A-Za-z0-9]+/g, '_') + '.npy'; }

async function main() {
  const [modelPath, outDir, ...shapeArgs] = process.argv.slice(2);
  // NAME=D0,D1,...: an input's shape where the model leaves dimensions unknown.
  const shapes = {};
  for (const a of shapeArgs) {
    const [name, dims] = a.split('=');
    shapes[name] = dims.split(',').map(Number);
  }
  if (!modelPath || !outDir) {
    console.error('usage: make_goldens.js <model.json|model.min.js> <out dir> [NAME=D0,D1,...]...');
    process.exit(2);
  }
  await tf.setBackend('cpu');
  const artifacts = loadArtifacts(modelPath);
  const model = await tfconv.loadGraphModel(tf.io.fromMemory(artifacts));

  const feeds = {};
  const inputs = [];
  for (const info of model.inputs) {
    const given = shapes[info.name.replace(/:0$/, '')];
    const shape = given || info.shape.map(d => (d === -1 || d === null ? 1 : d));
    const type = placeholderType(artifacts, info.name);
    if (info.dtype === 'float32') {
      feeds[info.name] = tf.tensor(pattern(shape), shape, 'float32');
    } else if (info.dtype === 'int32') {
      feeds[info.name] = tf.tensor(intPattern(shape, type === 'DT_UINT8'), shape, 'int32');
    } else {
      throw new Error(`input ${info.name}: dtype ${info.dtype}, only float32 and integers are fed`);
    }
    inputs.push({name: info.name, dtype: type === 'DT_UINT8' ? 'uint8' : info.dtype, shape});
  }
  const outputNames = model.outputs.map(o => o.name);
  // execute() runs a graph without control flow or dynamic shapes; executeAsync() the rest.
  let results;
  try {
    results = model.execute(feeds, outputNames);
  } catch (e) {
    results = await model.executeAsync(feeds, outputNames);
  }
  if (!Array.isArray(results)) results = [results];

  fs.mkdirSync(outDir, {recursive: true});
  const outputs = [];
  for (let k = 0; k < results.length; ++k) {
    const t = results[k];
    const v = Array.from(await t.data(), Number);
    let sum = 0, min = Infinity, max = -Infinity;
    for (const x of v) { sum += x; if (x < min) min = x; if (x > max) max = x; }
    const stride = v.length <= FULL_LIMIT ? 1 : Math.ceil(v.length / SAMPLE_TARGET);
    const sample = v.filter((_, i) => i % stride === 0);
    const file = fileName(outputNames[k]);
    fs.writeFileSync(path.join(outDir, file), npy(sample));
    outputs.push({name: outputNames[k], dtype: t.dtype, shape: t.shape, count: v.length, sum, min,
                  max, max_abs: Math.max(Math.abs(min), Math.abs(max)), stride, file});
  }
  const pkg = name => require(`${name}/package.json`).version;
  const golden = {
    model: path.relative(modelCache(), path.resolve(modelPath)),
    made_by: 'scripts/tfjs_reference/make_goldens.js',
    tfjs: {core: pkg('@tensorflow/tfjs-core'), backend_cpu: pkg('@tensorflow/tfjs-backend-cpu'),
           converter: pkg('@tensorflow/tfjs-converter'), backend: tf.getBackend()},
    input_pattern: 'x[i] = ((i * 7919) % 1000) / 1000 - 0.5 (integers: (i * 7919) % 1000, ' +
                   'uint8: that % 256), row-major, unknown dims = 1 unless given',
    inputs,
    outputs,
  };
  fs.writeFileSync(path.join(outDir, 'golden.json'), JSON.stringify(golden, null, 1) + '\n');
  console.log(`${modelPath}: ${outputs.map(o => `${o.name} [${o.shape}] sum ${o.sum.toPrecision(7)}`).join('; ')}`);
}

main().catch(e => { console.error(e.stack || String(e)); process.exit(1); });
