#!/usr/bin/env node
// Runs a TF.js graph model (as written by pb_to_tfjs.js) on TF.js's own CPU backend:
//
//   node run_tfjs.js <model.json> --input NAME=file.npy ... --output NAME ... --out-dir D
//
// Each input is fed from a .npy file (NumPy format 1.0 or 2.0, C order, '<f4', '<i4' or '|b1');
// each output is written to D/<output name, with every run of characters other than letters and
// digits made '_'>.npy in NumPy format 1.0 with its real shape, and summarised on one line.
// An output may name a tensor ("node:1"); a bare node name means its first output.
//
// The model is loaded through an in-memory IO handler rather than a file:// URL, so that only
// tfjs-core, tfjs-backend-cpu and tfjs-converter are involved (no tfjs-node native binding).
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');
const tfconv = require('@tensorflow/tfjs-converter');

const NPY_MAGIC = '\x93NUMPY';
const NPY_DTYPES = {
  '<f4': {tfjs: 'float32', bytes: 4, Array: Float32Array},
  '<i4': {tfjs: 'int32', bytes: 4, Array: Int32Array},
  '|b1': {tfjs: 'bool', bytes: 1, Array: Uint8Array},
};

function fail(message) {
  console.error(`run_tfjs: ${message}`);
  process.exit(1);
}

function parseArgs(argv) {
  const args = {model: null, inputs: [], outputs: [], outDir: null};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--input') {
      const v = value();
      const eq = v.indexOf('=');
      if (eq <= 0) fail(`--input ${v}: expected NAME=file.npy`);
      args.inputs.push({name: v.slice(0, eq), file: v.slice(eq + 1)});
    } else if (a === '--output') {
      args.outputs.push(value());
    } else if (a === '--out-dir') {
      args.outDir = value();
    } else if (a.startsWith('--')) {
      fail(`unknown option ${a}`);
    } else if (args.model === null) {
      args.model = a;
    } else {
      fail(`unexpected argument ${a}`);
    }
  }
  if (!args.model || args.outputs.length === 0 || !args.outDir) {
    console.error('usage: run_tfjs.js <model.json> --input NAME=file.npy ... --output NAME ... --out-dir D');
    process.exit(2);
  }
  return args;
}

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== NPY_MAGIC) fail(`${file}: not a .npy file`);
  const major = buf[6];
  if (major !== 1 && major !== 2) fail(`${file}: .npy format ${major}.${buf[7]} is not read here`);
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shapeText) fail(`${file}: cannot read the header ${JSON.stringify(header)}`);
  const dt = NPY_DTYPES[descr[1]];
  if (!dt) fail(`${file}: dtype '${descr[1]}' is not read here (only ${Object.keys(NPY_DTYPES).join(', ')})`);
  if (fortran[1] === 'True') fail(`${file}: Fortran order is not read here`);
  const shape = shapeText[1].split(',').map(s => s.trim()).filter(s => s.length > 0).map(Number);
  if (shape.some(d => !Number.isSafeInteger(d) || d < 0)) fail(`${file}: bad shape (${shapeText[1]})`);
  const count = shape.reduce((a, b) => a * b, 1);
  const dataStart = start + headerLen;
  if (buf.length - dataStart !== count * dt.bytes) {
    fail(`${file}: ${buf.length - dataStart} data bytes, shape [${shape}] of ${descr[1]} needs ${count * dt.bytes}`);
  }
  // Copy into a fresh buffer: the typed array needs its own aligned ArrayBuffer.
  const data = new dt.Array(count);
  Buffer.from(data.buffer).set(buf.subarray(dataStart));
  return {dtype: dt.tfjs, shape, data};
}

function npyBytes(dtype, shape, values) {
  const descr = {float32: '<f4', int32: '<i4', bool: '|b1'}[dtype];
  if (!descr) throw new Error(`output dtype ${dtype} cannot be written as .npy here`);
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  // NumPy format 1.0: the header dict is padded with spaces and ended by '\n' so that the data
  // starts at a multiple of 64 bytes, as numpy itself writes it.
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write(NPY_MAGIC, 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const Array_ = dtype === 'float32' ? Float32Array : dtype === 'int32' ? Int32Array : Uint8Array;
  const typed = Array_.from(values, v => (dtype === 'bool' ? (v ? 1 : 0) : v));
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), Buffer.from(typed.buffer)]);
}

function loadArtifacts(modelPath) {
  const dir = path.dirname(modelPath);
  const model = JSON.parse(fs.readFileSync(modelPath, 'utf8'));
  const weightSpecs = [];
  const buffers = [];
  for (const group of model.weightsManifest || []) {
    for (const p of group.paths) buffers.push(fs.readFileSync(path.join(dir, p)));
    weightSpecs.push(...group.weights);
  }
  const all = Buffer.concat(buffers);
  return {
    format: model.format,
    generatedBy: model.generatedBy,
    convertedBy: model.convertedBy,
    modelTopology: model.modelTopology,
    signature: model.signature,
    userDefinedMetadata: model.userDefinedMetadata,
    weightSpecs,
    weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
  };
}

function fileName(outputName) { return outputName.replace(/[^A-Za-z0-9]+/g, '_') + '.npy'; }

function fmt(v) { return typeof v === 'number' ? Number(v.toPrecision(9)).toString() : String(v); }

async function main() {
  const args = parseArgs(process.argv.slice(2));
  await tf.setBackend('cpu');
  const model = await tfconv.loadGraphModel(tf.io.fromMemory(loadArtifacts(args.model)));

  const feeds = {};
  for (const input of args.inputs) {
    const a = readNpy(input.file);
    feeds[input.name] = tf.tensor(a.data, a.shape, a.dtype);
  }
  // execute() runs graphs without control flow or dynamic ops; executeAsync() is needed only for
  // those, and TF.js says so in its error, so any other error is reported as it is.
  let results;
  let mode = 'execute';
  try {
    results = model.execute(feeds, args.outputs);
  } catch (e) {
    if (!/executeAsync/.test(String(e && e.message))) throw e;
    mode = 'executeAsync';
    results = await model.executeAsync(feeds, args.outputs);
  }
  if (!Array.isArray(results)) results = [results];

  fs.mkdirSync(args.outDir, {recursive: true});
  for (let k = 0; k < results.length; ++k) {
    const t = results[k];
    const values = Array.from(await t.data());
    const file = path.join(args.outDir, fileName(args.outputs[k]));
    fs.writeFileSync(file, npyBytes(t.dtype, t.shape, values));
    const nums = values.map(Number);
    const sum = nums.reduce((a, b) => a + b, 0);
    const head = values.slice(0, 6).map(fmt).join(', ') + (values.length > 6 ? ', ...' : '');
    console.log(`${args.outputs[k]}: ${t.dtype} [${t.shape}] sum ${fmt(sum)} first [${head}] -> ${file} (${mode})`);
  }
}

if (require.main === module) {
  main().catch(e => { console.error(`run_tfjs: ${e.stack || e}`); process.exit(1); });
}
module.exports = {readNpy, npyBytes, fileName};
