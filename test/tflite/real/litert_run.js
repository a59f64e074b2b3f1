#!/usr/bin/env node
// The independent runtime for tfcc's TFLite checks: LiteRT.js (@litertjs/core, Google's
// WebAssembly build of TFLite with its XNNPACK CPU backend) run in Node.js, one thread.
//
//   node litert_run.js MODEL.tflite OUTDIR IN0.npy [IN1.npy ...]
//       runs the model; writes OUTDIR/output_<i>.npy (float32, the model's output order)
//   node litert_run.js --random-inputs MODEL.tflite DIR [--seed S] [--range LO,HI]
//                      [--silhouette]
//       writes DIR/input_<i>.npy: float32 inputs shaped as the model's, uniform in
//       [LO, HI) (default 0,1) from a fixed generator; --silhouette: RGB images of a
//       head-and-shoulders silhouette instead
//   node litert_run.js --compare A.npy B.npy [--rtol R] [--atol A]
//       prints max|a-b| / max|b| and exits 1 unless every |a-b| <= R * max|b| + A
//       (R default 1e-4, A default 0)
//
// LITERT_NODE_MODULES (default: ./node_modules) holds @litertjs/core. A runtime
// error (a tensor LiteRT cannot prepare, say) exits 1 with LiteRT's log: never outputs
// from a model that did not run.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const url = require('node:url');

// Where @litertjs/core is installed (test/tflite/real/fetch.sh).
const MODULES = process.env.LITERT_NODE_MODULES || path.join(process.cwd(), 'node_modules');

// --- .npy ---------------------------------------------------------------------------------
const NPY_TYPES = { '<f4': Float32Array, '<i4': Int32Array, '<i8': BigInt64Array,
                    '|i1': Int8Array, '|u1': Uint8Array, '|b1': Uint8Array, '<f8': Float64Array };

function readNpy(file) {
  const b = fs.readFileSync(file);
  if (b.length < 10 || b.readUInt32BE(0) !== 0x934e554d || b.toString('latin1', 4, 6) !== 'PY')
    throw new Error(`${file}: not a .npy file`);
  const major = b[6];
  const headerLength = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = b.toString('latin1', start, start + headerLength);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order`);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',')
      .map((s) => s.trim()).filter((s) => s).map(Number);
  const Type = NPY_TYPES[descr];
  if (!Type) throw new Error(`${file}: dtype ${descr} not read here`);
  const n = shape.reduce((a, x) => a * x, 1);
  const data = new Type(n);
  const offset = start + headerLength;
  new Uint8Array(data.buffer).set(b.subarray(offset, offset + n * Type.BYTES_PER_ELEMENT));
  return { data, shape };
}

function writeNpy(file, data, shape) {
  const dims = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${dims}, }`;
  header += ' '.repeat((64 - ((11 + header.length) % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.writeUInt32BE(0x934e554d, 0);
  pre.write('PY', 4, 'latin1');
  pre[6] = 1;
  pre.writeUInt16LE(header.length, 8);
  const f32 = Float32Array.from(data, Number);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'),
                                        Buffer.from(f32.buffer)]));
}

// --- LiteRT.js in Node --------------------------------------------------------------------
// The package's loader expects a browser worker (importScripts, self); Node gets both,
// importScripts evaluating the package's Emscripten script as CommonJS.
async function loadLiteRt(log) {
  globalThis.self = globalThis;
  globalThis.importScripts = (url) => {
    const file = url.startsWith('file:') ? new URL(url).pathname : url;
    const module = { exports: {} };
    vm.runInThisContext('(function (exports, require, module, __filename, __dirname) {' +
                        fs.readFileSync(file, 'utf8') + '\n})', { filename: file })(
        module.exports, require, module, file, path.dirname(file));
    globalThis.ModuleFactory = module.exports;
  };
  globalThis.Module = { print: (t) => log.push(t), printErr: (t) => log.push(t) };
  const core = path.dirname(require.resolve('@litertjs/core/package.json', { paths: [MODULES] }));
  const litert = await import(url.pathToFileURL(path.join(core, 'dist', 'index.js')).href);
  const wasmDir = path.join(core, 'wasm');
  const warn = console.warn;  // no WebGPU in Node: LiteRT.js warns once
  console.warn = (...a) => { if (!String(a[0]).includes('WebGPU')) warn(...a); };
  // The "compat" build: WebAssembly SIMD128 without relaxed SIMD, bitwise reproducible.
  await litert.loadLiteRt(path.join(wasmDir, 'litert_wasm_compat_internal.js'));
  console.warn = warn;
  return litert;
}

async function compile(modelPath, log) {
  const litert = await loadLiteRt(log);
  const model = await litert.loadAndCompile(new Uint8Array(fs.readFileSync(modelPath)),
                                            { accelerator: 'wasm', cpuOptions: { numThreads: 1 } });
  return { litert, model };
}

function checkLog(log) {
  const errors = log.filter((l) => /^ERROR/.test(l));
  if (errors.length) throw new Error(`LiteRT reported errors:\n${log.join('\n')}`);
}

async function run(modelPath, outDir, inputFiles) {
  const log = [];
  const { litert, model } = await compile(modelPath, log);
  const details = model.getInputDetails();
  if (inputFiles.length !== details.length)
    throw new Error(`${modelPath} has ${details.length} inputs, ${inputFiles.length} files given`);
  const inputs = inputFiles.map((f, i) => {
    const { data, shape } = readNpy(f);
    const want = Array.from(details[i].shape);
    if (shape.join(',') !== want.join(','))
      throw new Error(`${f}: shape [${shape}] where input ${i} '${details[i].name}' is [${want}]`);
    if (details[i].dtype !== 'float32') throw new Error(`input ${i} is ${details[i].dtype}`);
    return new litert.Tensor(Float32Array.from(data, Number), want);
  });
  const outputs = await model.run(inputs);
  checkLog(log);
  fs.mkdirSync(outDir, { recursive: true });
  outputs.forEach((t, i) => {
    writeNpy(path.join(outDir, `output_${i}.npy`), t.toTypedArray(),
             Array.from(t.type.layout.dimensions));
    t.delete();
  });
  inputs.forEach((t) => t.delete());
  model.delete();
  console.log(`${outputs.length} outputs in ${outDir}`);
}

// mulberry32: a fixed, seedable generator (inputs are reproducible across machines).
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A head-and-shoulders silhouette on a light background (NHWC, 3 channels, in [0,1]) plus
// uniform noise of +-0.02: on noise a person segmenter answers ~0 everywhere and the check
// would compare nothing.
function silhouette(shape, next) {
  const [n, h, w, c] = shape;
  const data = new Float32Array(n * h * w * c);
  const background = [0.85, 0.9, 0.95], skin = [0.87, 0.67, 0.55], shirt = [0.15, 0.2, 0.35];
  for (let b = 0; b < n; ++b)
    for (let y = 0; y < h; ++y)
      for (let x = 0; x < w; ++x) {
        const u = x / w, v = y / h;
        const head = ((u - 0.5) / 0.13) ** 2 + ((v - 0.35) / 0.17) ** 2 < 1;
        const torso = ((u - 0.5) / 0.35) ** 2 + ((v - 1.05) / 0.45) ** 2 < 1;
        const color = head ? skin : torso ? shirt : background;
        for (let k = 0; k < c; ++k)
          data[((b * h + y) * w + x) * c + k] = color[k % 3] + 0.04 * (next() - 0.5);
      }
  return data;
}

async function randomInputs(modelPath, dir, seed, lo, hi, person) {
  const log = [];
  const { model } = await compile(modelPath, log);
  checkLog(log);
  const next = generator(seed);
  fs.mkdirSync(dir, { recursive: true });
  model.getInputDetails().forEach((d, i) => {
    const shape = Array.from(d.shape);
    const n = shape.reduce((a, x) => a * x, 1);
    let data = new Float32Array(n);
    if (person && shape.length === 4 && shape[3] === 3) {
      data = silhouette(shape, next);
    } else {
      for (let k = 0; k < n; ++k) data[k] = lo + (hi - lo) * next();
    }
    writeNpy(path.join(dir, `input_${i}.npy`), data, shape);
  });
  model.delete();
}

function compare(fileA, fileB, rtol, atol) {
  const a = readNpy(fileA), b = readNpy(fileB);
  if (a.shape.join(',') !== b.shape.join(',')) {
    console.log(`shape mismatch: [${a.shape}] vs [${b.shape}]`);
    return 1;
  }
  let maxDiff = 0, maxRef = 0, worst = -1;
  for (let i = 0; i < a.data.length; ++i) {
    const x = Number(a.data[i]), y = Number(b.data[i]);
    if (Number.isNaN(x) && Number.isNaN(y)) continue;
    const d = x === y ? 0 : Math.abs(x - y);
    if (!(d <= maxDiff)) { maxDiff = d; worst = i; }
    maxRef = Math.max(maxRef, Math.abs(y));
  }
  const rel = maxRef > 0 ? maxDiff / maxRef : maxDiff;
  const ok = maxDiff <= rtol * maxRef + atol;
  console.log(`max relative error ${rel.toExponential(3)}: max|a-b| ${maxDiff.toExponential(3)}, ` +
              `max|b| ${maxRef.toExponential(3)}, ${a.data.length} elements` +
              (worst >= 0 ? ` (worst at ${worst}: ${a.data[worst]} vs ${b.data[worst]})` : ''));
  return ok ? 0 : 1;
}

async function main() {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    if (i < 0) return fallback;
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
  };
  if (args[0] === '--compare') {
    const rtol = Number(option('--rtol', '1e-4')), atol = Number(option('--atol', '0'));
    process.exit(compare(args[1], args[2], rtol, atol));
  }
  if (args[0] === '--random-inputs') {
    const seed = Number(option('--seed', '0'));
    const [lo, hi] = option('--range', '0,1').split(',').map(Number);
    const person = args.includes('--silhouette');
    await randomInputs(args[1], args[2], seed, lo, hi, person);
    return;
  }
  if (args.length < 2) {
    console.error('usage: litert_run.js MODEL.tflite OUTDIR IN.npy... | --random-inputs ... | --compare ...');
    process.exit(2);
  }
  await run(args[0], args[1], args.slice(2));
}

main().catch((e) => {
  console.error(`litert_run.js: error: ${e && e.message ? e.message : e}`);
  process.exit(1);
});
