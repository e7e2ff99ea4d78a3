// Reads a TensorFlow.js graph model into the artifacts tf.io.fromMemory takes: model.json plus
// its binary shards, or nsfwjs's JS-module form (model.min.js exporting the model.json object,
// each shard a module exporting its bytes as base64), loaded through require() so that caflow's
// own conversion of that form is checked against an independent reading. make_goldens.js and
// bench_wasm.js both read models through it, so what is checked is what is timed.
'use strict';
const fs = require('fs');
const path = require('path');

function loadArtifacts(modelPath) {
  const dir = path.dirname(modelPath);
  const isModule = modelPath.endsWith('.js');
  const model = isModule ? require(path.resolve(modelPath))
                         : JSON.parse(fs.readFileSync(modelPath, 'utf8'));
  const weightSpecs = [];
  const buffers = [];
  for (const group of model.weightsManifest) {
    for (const p of group.paths) {
      if (isModule) {
        buffers.push(Buffer.from(require(path.resolve(dir, p + '.min.js')), 'base64'));
      } else {
        buffers.push(fs.readFileSync(path.join(dir, p)));
      }
    }
    weightSpecs.push(...group.weights);
  }
  const all = Buffer.concat(buffers);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
  return {
    format: model.format,
    generatedBy: model.generatedBy,
    convertedBy: model.convertedBy,
    modelTopology: model.modelTopology,
    signature: model.signature,
    userDefinedMetadata: model.userDefinedMetadata,
    modelInitializer: model.modelInitializer,
    weightSpecs,
    weightData,
  };
}

module.exports = {loadArtifacts};
