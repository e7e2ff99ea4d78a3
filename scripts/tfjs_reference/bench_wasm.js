#!/usr/bin/env node
// Times one TensorFlow.js graph model on TF.js's WebAssembly backend (XNNPACK), the baseline that
// caflow's own timings are set against:
//
//   node bench_wasm.js <model.json | model.min.js> [--batch N] [--runs R] [--threads T]
//                      [--warmup W] [--backend wasm|cpu] [--stock-node-wasm]
//
// Every input gets make_goldens.js's pattern over its elements in row-major order,
//   x[i] = ((i * 7919) % 1000) / 1000 - 0.5
// with the first (batch) dimension N (relaxed where the model fixes it at another size: see
// relaxBatch) and every other unknown dimension 1, so batch 1 feeds exactly what
// the goldens were made from. The inputs are made once, before any timing; one timed run is
// model.execute (executeAsync for graphs that need it) plus dataSync() of every output.
// Prints one JSON line on stdout; anything else goes to stderr.
//
// Threads: tfjs-backend-wasm 4.22.0 never uses its threaded build under node on its own: the
// WASM_HAS_MULTITHREAD_SUPPORT flag answers false whenever IS_NODE, so it loads
// tfjs-backend-wasm-simd.wasm and XNNPACK gets one thread whatever setThreadsCount() asked for.
// Turning the flag on is not enough either: the pthread workers are then started from blob: URLs,
// which node's worker_threads refuses (ERR_WORKER_PATH). So unless --stock-node-wasm is given,
// nodeThreadsShim() below writes those two scripts to temporary files and hands node their paths,
// and the backend runs tfjs-backend-wasm-threaded-simd.wasm with setThreadsCount(T) threads, at
// most 8 (the backend's own limit). The JSON says which binary ran ("wasm_binary") and how many
// threads XNNPACK reports ("threads").
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');
const tfwasm = require('@tensorflow/tfjs-backend-wasm');
const tfconv = require('@tensorflow/tfjs-converter');
const {loadArtifacts} = require('./model_artifacts');

const USAGE = 'usage: bench_wasm.js <model.json|model.min.js> [--batch N] [--runs R] [--threads T] ' +
              '[--warmup W] [--backend wasm|cpu] [--stock-node-wasm]';

function fail(message) {
  process.stderr.write(`bench_wasm.js: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const opts = {batch: 1, runs: 20, threads: 1, warmup: 3, backend: 'wasm', stock: false};
  const integer = (name, value, min) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) fail(`${name} wants an integer >= ${min}, got '${value}'\n${USAGE}`);
    return n;
  };
  const positional = [];
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${a} wants a value\n${USAGE}`);
      return argv[++i];
    };
    if (a === '--batch') opts.batch = integer(a, value(), 1);
    else if (a === '--runs') opts.runs = integer(a, value(), 1);
    else if (a === '--threads') opts.threads = integer(a, value(), 1);
    // The first warm-up run also finds out whether the graph needs executeAsync.
    else if (a === '--warmup') opts.warmup = integer(a, value(), 1);
    else if (a === '--backend') opts.backend = value();
    else if (a === '--stock-node-wasm') opts.stock = true;
    else if (a === '-h' || a === '--help') { process.stdout.write(USAGE + '\n'); process.exit(0); }
    else if (a.startsWith('--')) fail(`unknown option ${a}\n${USAGE}`);
    else positional.push(a);
  }
  if (positional.length !== 1) fail(USAGE);
  if (opts.backend !== 'wasm' && opts.backend !== 'cpu') fail(`--backend is wasm or cpu, got '${opts.backend}'`);
  opts.model = positional[0];
  return opts;
}


function pattern(shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  const x = new Float32Array(n);
  for (let i = 0; i < n; ++i) x[i] = ((i * 7919) % 1000) / 1000 - 0.5;
  return x;
}

const unknown = d => d === -1 || d === null || d === undefined;

function inputShape(info, batch) {
  if (!info.shape || info.shape.length === 0) {
    if (batch !== 1) fail(`input ${info.name} is a scalar (or has no known rank); it has no batch dimension for --batch ${batch}`);
    return info.shape ? [] : [1];
  }
  return info.shape.map((d, k) => {
    if (k === 0) {
      if (unknown(d)) return batch;
      if (d !== batch) fail(`input ${info.name} has a fixed batch dimension ${d} (shape [${info.shape}]) after relaxBatch`);
      return d;
    }
    return unknown(d) ? 1 : d;
  });
}

// Lets tfjs-backend-wasm start its pthread workers under node; see the top of the file for why.
// It relies on how 4.22.0's node bundle builds those workers, and says so when that changes.
// Returns a function that undoes it all once the backend has started: the module finishes
// starting only after its eight prepared workers have loaded both files, and the backend never
// asks for more than eight threads, so nothing reads them later.
function nodeThreadsShim() {
  const MAIN_PREFIX = 'var WasmBackendModuleThreadedSimd = ';
  // The worker's own code turns a Blob of the main script into an object URL and imports that;
  // a node worker imports by reading a file, so it is pointed at the file written here instead.
  const WORKER_IMPORT = 'if(typeof e.data.urlOrBlob=="string"){importScripts(e.data.urlOrBlob)}' +
                        'else{var objectUrl=URL.createObjectURL(e.data.urlOrBlob);' +
                        'importScripts(objectUrl);URL.revokeObjectURL(objectUrl)}';
  // The main script is a function's source cut out of the rollup bundle, and it still names the
  // bundle's module-level bindings; the worker evaluates it at global scope, so they are made
  // globals there.
  const BUNDLE_BINDINGS = {
    'require$$0': 'require("fs")',
    'require$$1': 'require("path")',
    'require$$3': 'require("perf_hooks")',
    'require$$4': 'require("os")',
    'commonjsGlobal': 'globalThis',
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'caflow-tfjs-wasm-'));
  const removeDir = () => fs.rmSync(dir, {recursive: true, force: true});
  // For the exits that skip the undo (a failed start-up ends the process from inside the module).
  process.on('exit', removeDir);

  // Node's Blob can only be read asynchronously, and the worker URL is wanted synchronously, so
  // the text of each Blob is kept as it is made.
  const NativeBlob = globalThis.Blob;
  const nativeCreateObjectURL = URL.createObjectURL;
  const texts = new WeakMap();
  let mainScript = null;
  let workerFile = null;
  globalThis.Blob = class extends NativeBlob {
    constructor(parts, options) {
      super(parts, options);
      if (Array.isArray(parts) && parts.every(p => typeof p === 'string')) {
        const text = parts.join('');
        texts.set(this, text);
        if (text.startsWith(MAIN_PREFIX)) mainScript = text;
      }
    }
  };
  URL.createObjectURL = function(blob) {
    const text = texts.get(blob);
    if (text === undefined || !text.includes('WasmBackendModuleThreadedSimd(Module)')) return nativeCreateObjectURL.call(this, blob);
    if (workerFile) return workerFile;
    if (!text.includes(WORKER_IMPORT)) throw new Error('the threaded wasm module\'s worker no longer imports its main script the way this shim expects; not the tfjs-backend-wasm 4.22.0 this was written for (--stock-node-wasm runs without the shim)');
    if (mainScript === null) throw new Error('the threaded wasm module asked for its worker before making its main script; not the tfjs-backend-wasm 4.22.0 this was written for');
    const mainFile = path.join(dir, 'tfjs-backend-wasm-threaded-simd.main.js');
    fs.writeFileSync(mainFile, mainScript);
    const named = new Set(mainScript.match(/\brequire\$\$\d+\b/g) || []);
    const missing = [...named].filter(n => !(n in BUNDLE_BINDINGS));
    if (missing.length) throw new Error(`the threaded wasm module names bundle bindings ${missing} that this shim does not provide`);
    const prelude = Object.entries(BUNDLE_BINDINGS).map(([k, v]) => `globalThis[${JSON.stringify(k)}] = ${v};`).join('\n');
    workerFile = path.join(dir, 'tfjs-backend-wasm-threaded-simd.worker.cjs');
    fs.writeFileSync(workerFile, prelude + '\n' + text.replace(WORKER_IMPORT, `importScripts(${JSON.stringify(mainFile)});`));
    return workerFile;
  };
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', true);
  return () => {
    globalThis.Blob = NativeBlob;
    URL.createObjectURL = nativeCreateObjectURL;
    removeDir();
  };
}

// Which of the three binaries the backend will load; the same choice as its getPathToWasmBinary.
async function wasmBinaryName() {
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  const threads = await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT');
  if (simd && threads) return 'tfjs-backend-wasm-threaded-simd.wasm';
  return simd ? 'tfjs-backend-wasm-simd.wasm' : 'tfjs-backend-wasm.wasm';
}

async function setUpBackend(opts) {
  if (opts.backend === 'cpu') {
    if (opts.threads !== 1) process.stderr.write('bench_wasm.js: the cpu backend is plain single-threaded JavaScript; --threads is ignored\n');
    if (!(await tf.setBackend('cpu'))) fail('could not start the cpu backend');
    return {threads: 1, wasmBinary: null, liftCap: false};
  }
  // The package's own directory rather than its default (the directory of the running script) so
  // that the binaries are found however node resolved the package.
  tfwasm.setWasmPaths(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm')) + path.sep);
  tfwasm.setThreadsCount(opts.threads);
  const undoShim = opts.stock ? () => {} : nodeThreadsShim();
  const wasmBinary = await wasmBinaryName();
  // The backend caps XNNPACK's pool at half the logical CPUs, taking every core to have two
  // hardware threads; where that is not so (or when more threads are asked for on purpose) the
  // count asked for would be cut silently, so the module is shown enough CPUs while it starts.
  const nativeCpus = os.cpus;
  const logical = nativeCpus.call(os).length;
  const liftCap = !opts.stock && Math.floor(logical / 2) < opts.threads;
  if (liftCap) {
    if (opts.threads > logical) process.stderr.write(`bench_wasm.js: ${opts.threads} threads on ${logical} logical CPUs\n`);
    os.cpus = () => Array.from({length: 2 * opts.threads}, (_, k) => nativeCpus.call(os)[k % logical]);
  }
  let ok;
  try {
    ok = await tf.setBackend('wasm');
  } finally {
    os.cpus = nativeCpus;
    undoShim();
  }
  // setBackend reports a failed start by logging and answering false, not by throwing.
  if (!ok || tf.getBackend() !== 'wasm') fail(`could not start the wasm backend (${wasmBinary}); see the messages above`);
  const threads = tfwasm.getThreadsCount();
  if (threads !== opts.threads) {
    process.stderr.write(`bench_wasm.js: asked for ${opts.threads} threads, XNNPACK runs ${threads}` +
                         (opts.stock ? ' (--stock-node-wasm: the single-threaded binary)' : '') + '\n');
  }
  return {threads, wasmBinary, liftCap};
}

// Converted models are often all called model.json, so those are named by their folder.
function modelName(modelPath) {
  const stem = path.basename(modelPath).replace(/\.(min\.js|json|js)$/, '');
  return stem === 'model' ? path.basename(path.dirname(path.resolve(modelPath))) : stem;
}

function quantile(sorted, q) {
  // Linear interpolation between closest ranks, as numpy.percentile does by default.
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos), hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

// A model whose inputs fix the batch dimension at another size runs with it relaxed, as
// caflow-run --batch and bench_import_inference do: the Placeholder's and the signature's first
// dimension become unknown (-1). Graphs that hard-code the batch elsewhere then fail in TF.js's
// kernels, naming the op.
function relaxBatch(artifacts, batch) {
  const relax = (shape, what) => {
    const dims = shape && shape.dim;
    if (!dims || dims.length === 0) return;
    const d = Number(dims[0].size);
    if (d === -1 || d === batch) return;
    process.stderr.write(`bench_wasm.js: ${what} fixes its batch dimension at ${d}; relaxed for --batch ${batch}\n`);
    dims[0].size = '-1';
  };
  for (const node of artifacts.modelTopology.node || []) {
    if (node.op === 'Placeholder' && node.attr && node.attr.shape) relax(node.attr.shape.shape, `input ${node.name}`);
  }
  const inputs = artifacts.signature && artifacts.signature.inputs;
  for (const key of Object.keys(inputs || {})) relax(inputs[key].tensorShape, `signature input ${key}`);
  return artifacts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(opts.model)) fail(`no such model file: ${opts.model}`);
  const {threads, wasmBinary, liftCap} = await setUpBackend(opts);

  const model = await tfconv.loadGraphModel(tf.io.fromMemory(relaxBatch(loadArtifacts(opts.model), opts.batch)));
  const feeds = {};
  for (const info of model.inputs) {
    if (info.dtype !== 'float32') fail(`input ${info.name}: dtype ${info.dtype}, only float32 is fed`);
    const shape = inputShape(info, opts.batch);
    feeds[info.name] = tf.tensor(pattern(shape), shape, 'float32');
  }
  const outputNames = model.outputs.map(o => o.name);

  let useAsync = false;
  const runOnce = async () => {
    let results = useAsync ? await model.executeAsync(feeds, outputNames)
                           : model.execute(feeds, outputNames);
    if (!Array.isArray(results)) results = [results];
    const first = results[0].dataSync();
    for (let k = 1; k < results.length; ++k) results[k].dataSync();
    for (const t of results) t.dispose();
    return first;
  };

  // execute() refuses graphs with control flow or dynamic shapes; those need executeAsync().
  try {
    await runOnce();
  } catch (e) {
    useAsync = true;
    await runOnce();
  }
  for (let k = 1; k < opts.warmup; ++k) await runOnce();

  const times = [];
  let first = null;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let k = 0; k < opts.runs; ++k) {
    const t0 = performance.now();
    first = await runOnce();
    times.push(performance.now() - t0);
  }
  const wallMs = performance.now() - wall0;
  const cpu = process.cpuUsage(cpu0);

  let outputSum = 0;
  for (let i = 0; i < first.length; ++i) outputSum += first[i];
  const sorted = [...times].sort((a, b) => a - b);
  const meanMs = times.reduce((a, b) => a + b, 0) / times.length;
  const round = x => Number(x.toFixed(4));
  const result = {
    model: modelName(opts.model),
    backend: opts.backend,
    threads,
    batch: opts.batch,
    runs: opts.runs,
    p50_ms: round(quantile(sorted, 0.5)),
    p90_ms: round(quantile(sorted, 0.9)),
    mean_ms: round(meanMs),
    samples_per_s: round(opts.batch * 1000 / meanMs),
    output_sum: outputSum,
    // Beyond the fields above: what was asked for and what ran. cpu_per_wall is the process's
    // CPU time (all threads) over the wall time of the timed runs, so it rises above 1 only when
    // more than one thread is busy.
    threads_requested: opts.threads,
    warmup: opts.warmup,
    execute: useAsync ? 'executeAsync' : 'execute',
    wasm_binary: wasmBinary,
    threads_cap_lifted: liftCap,
    cpu_per_wall: round((cpu.user + cpu.system) / 1000 / wallMs),
    tfjs: require('@tensorflow/tfjs-core/package.json').version,
  };
  fs.writeSync(1, JSON.stringify(result) + '\n');
}

main().then(
    // The wasm backend's pthread workers keep node alive, so the exit is explicit.
    () => process.exit(0),
    e => fail(e && (e.stack || e.message) || String(e)));
