#!/usr/bin/env node
// Checks the converter and the runner themselves on TensorFlow-written frozen graphs (not
// caflow-written ones), whose outputs are known from outside caflow:
//
//   node selftest.js [work dir]
//
// regression.pb: pred(X = [5]) = 2.1193342, as tensorflow-onnx's tests/test_api.py states.
// lstm.pb, gru.pb: output(X = 1, 2, ..., 784 as [1, 784], keep_prob = 1), the values that
// tests/data/tf/reference_eval.py computes in double precision (also in
// tests/graph/tf/frozen_graphs_test.cpp). keep_prob 1 makes the graphs' dropout (RandomUniform,
// Floor) an identity, so the outputs are deterministic.
//
// It goes through the two command-line tools exactly as a user would, so a pass means that
// `pb_to_tfjs.js` + `run_tfjs.js` read a real TensorFlow .pb the way TensorFlow does.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const {spawnSync} = require('child_process');
const {readNpy, npyBytes, fileName} = require('./run_tfjs.js');

const DATA = path.resolve(__dirname, '..', '..', 'tests', 'data', 'tf');

const ramp = n => Array.from({length: n}, (_, i) => i + 1);

const CASES = [
  {graph: 'regression', inputs: {X: {shape: [1], values: [5]}}, output: 'pred',
   shape: [1], want: [2.1193342], epsilon: 1e-6},
  {graph: 'lstm', inputs: {X: {shape: [1, 784], values: ramp(784)}, keep_prob: {shape: [], values: [1]}},
   output: 'output', shape: [1, 10], epsilon: 1e-4,
   want: [2.88863678, -0.260024952, -2.25812636, 6.42912197, -0.640279351, -3.36436639,
          -7.45169332, 8.49096522, -6.87912453, 4.23245842]},
  {graph: 'gru', inputs: {X: {shape: [1, 784], values: ramp(784)}, keep_prob: {shape: [], values: [1]}},
   output: 'output', shape: [1, 10], epsilon: 1e-4,
   want: [-6.67389564, 0.432149689, 2.3498205, -1.03359077, -0.58419669, -0.598916913,
          -2.02064506, 16.0195857, 4.84059749, 0.930824681]},
];

// The same closeness as the C++ test's doctest::Approx(want).epsilon(e).scale(1).
const close = (got, want, e) => Math.abs(got - want) < e * (1 + Math.max(Math.abs(got), Math.abs(want)));

function main() {
  const work = process.argv[2] || fs.mkdtempSync(path.join(os.tmpdir(), 'tfjs-export-check-'));
  let passed = 0, failed = 0;
  for (const c of CASES) {
    const dir = path.join(work, c.graph);
    fs.mkdirSync(dir, {recursive: true});
    // A child's stderr is shown only when it fails: on success it holds nothing but TF.js's
    // banner suggesting tfjs-node.
    const node = (script, args) => {
      const r = spawnSync(process.execPath, [path.join(__dirname, script), ...args], {encoding: 'utf8'});
      if (r.status !== 0) {
        process.stderr.write(r.stderr || '');
        throw new Error(`${script} ${args.join(' ')} exited with ${r.status}`);
      }
      return r.stdout;
    };
    process.stdout.write(node('pb_to_tfjs.js', [path.join(DATA, `${c.graph}.pb`), dir]));
    const feeds = [];
    for (const [name, t] of Object.entries(c.inputs)) {
      const file = path.join(dir, `in_${name}.npy`);
      fs.writeFileSync(file, npyBytes('float32', t.shape, t.values));
      feeds.push('--input', `${name}=${file}`);
    }
    process.stdout.write(node('run_tfjs.js', [path.join(dir, 'model.json'), ...feeds, '--output', c.output,
                                               '--out-dir', dir]));
    const got = readNpy(path.join(dir, fileName(c.output)));
    const problems = [];
    if (JSON.stringify(got.shape) !== JSON.stringify(c.shape)) problems.push(`shape [${got.shape}], want [${c.shape}]`);
    c.want.forEach((w, i) => {
      if (!close(got.data[i], w, c.epsilon)) problems.push(`[${i}] = ${got.data[i]}, want ${w}`);
    });
    const worst = Math.max(...c.want.map((w, i) => Math.abs(got.data[i] - w) / Math.max(1, Math.abs(w))));
    if (problems.length === 0) {
      ++passed;
      console.log(`PASS ${c.graph}: ${c.want.length} values within ${c.epsilon} (largest relative difference ${worst.toExponential(2)})`);
    } else {
      ++failed;
      console.log(`FAIL ${c.graph}: ${problems.join('; ')}`);
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main();
