#!/usr/bin/env node
// ONNX Runtime side of the real-model check (test/onnx/real/check.sh).
//
//   node ort_run.js MODEL.onnx OUT_DIR IN0.npy [IN1.npy ...]
//       Runs MODEL with onnxruntime-node (CPU, 1 thread) and writes OUT_DIR/output_N.npy
//       in the graph's output order. Inputs are given in the graph's input order.
//   node ort_run.js --compare A.npy B.npy [--rtol R]
//       Prints the max relative error max|a-b| / max|b| (max|a-b| when b is all zeros) and
//       exits 1 when it is above R (default 1e-4), 2 when shapes or sizes differ.
//   node ort_run.js --random-inputs MODEL.onnx DIR [--seed S] [--range LO,HI] [--text]
//                   [--dim NAME=VALUE ...] [--shape INPUT=D0xD1x... ...]
//       Writes DIR/input_N.npy for every graph input, from its metadata: float inputs
//       uniform in [LO,HI) (default [0,1)), or with --text lines of glyph-like strokes at
//       LO on a page at HI over the last two dims; integer inputs 0, bool false. Dynamic dims are taken from --dim (symbolic name) or --shape (whole shape of
//       one input), else 1.
//   node ort_run.js --info MODEL.onnx
//       Prints the inputs and outputs (name, type, shape).
//
// onnxruntime-node is looked up from $ORT_NODE_MODULES (a node_modules directory), then the
// usual node paths, then build/onnx-real/node_modules (where fetch.sh puts it).
'use strict';

const fs = require('fs');
const path = require('path');

function fail(msg, code = 2) {
  process.stderr.write(`ort_run.js: ${msg}\n`);
  process.exit(code);
}

// ---------------------------------------------------------------------------------------------
// .npy reading and writing (little endian, C order).

const DTYPES = {
  float32: {descr: '<f4', array: Float32Array},
  float64: {descr: '<f8', array: Float64Array},
  int64: {descr: '<i8', array: BigInt64Array},
  int32: {descr: '<i4', array: Int32Array},
  int8: {descr: '|i1', array: Int8Array},
  uint8: {descr: '|u1', array: Uint8Array},
  bool: {descr: '|b1', array: Uint8Array},
};
const DESCR_TO_TYPE = {
  '<f4': 'float32', '<f8': 'float64', '<i8': 'int64', '<i4': 'int32',
  '|i1': 'int8', '<i1': 'int8', '|u1': 'uint8', '<u1': 'uint8', '|b1': 'bool', '<b1': 'bool',
};

function readNpy(file) {
  let buf;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    fail(`cannot read ${file}: ${e.message}`);
  }
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY')
    fail(`${file}: not a .npy file`);
  const major = buf[6];
  let headerLen, headerStart;
  if (major === 1) {
    headerLen = buf.readUInt16LE(8);
    headerStart = 10;
  } else if (major === 2 || major === 3) {
    headerLen = buf.readUInt32LE(8);
    headerStart = 12;
  } else {
    fail(`${file}: unsupported .npy version ${major}`);
  }
  const header = buf.toString('latin1', headerStart, headerStart + headerLen);
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shapeM = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shapeM) fail(`${file}: malformed .npy header: ${header}`);
  if (fortran[1] === 'True') fail(`${file}: Fortran-order .npy is not supported`);
  const type = DESCR_TO_TYPE[descr[1]];
  if (!type) fail(`${file}: unsupported dtype ${descr[1]} (f4, f8, i8, i4, i1, u1, b1)`);
  const dims = shapeM[1].split(',').map((s) => s.trim()).filter((s) => s.length)
                   .map((s) => parseInt(s, 10));
  const count = dims.reduce((a, b) => a * b, 1);
  const Arr = DTYPES[type].array;
  const offset = headerStart + headerLen;
  const bytes = count * Arr.BYTES_PER_ELEMENT;
  if (buf.length - offset < bytes)
    fail(`${file}: truncated (${buf.length - offset} data bytes, ${bytes} expected)`);
  // Copy into an aligned buffer (the data offset need not be a multiple of 8).
  const data = new Arr(count);
  new Uint8Array(data.buffer).set(buf.subarray(offset, offset + bytes));
  return {type, dims, data};
}

function writeNpy(file, type, dims, data) {
  const dt = DTYPES[type];
  if (!dt) fail(`cannot write ${file}: unsupported type ${type}`);
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${dt.descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = 10 + header.length + 1;  // magic + version + length, header, '\n'
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  let bytes;
  if (type === 'bool') {
    bytes = Buffer.from(Uint8Array.from(data, (v) => (v ? 1 : 0)));
  } else {
    const typed = data instanceof dt.array ? data : dt.array.from(data);
    bytes = Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);
  }
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), bytes]));
}

// ---------------------------------------------------------------------------------------------
// onnxruntime-node.

function loadOrt() {
  const candidates = [];
  if (process.env.ORT_NODE_MODULES)
    candidates.push(path.join(process.env.ORT_NODE_MODULES, 'onnxruntime-node'));
  candidates.push('onnxruntime-node');
  candidates.push(path.resolve('build/onnx-real/node_modules/onnxruntime-node'));
  candidates.push(path.resolve(__dirname, '../../../build/onnx-real/node_modules/onnxruntime-node'));
  for (const c of candidates) {
    try {
      return require(c);
    } catch (e) {
      if (e.code !== 'MODULE_NOT_FOUND') throw e;
    }
  }
  fail('onnxruntime-node not found: run test/onnx/real/fetch.sh DIR and set ' +
       'ORT_NODE_MODULES=DIR/node_modules');
}

async function openSession(model) {
  const ort = loadOrt();
  if (!fs.existsSync(model)) fail(`${model}: no such file`);
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    logSeverityLevel: 3,  // errors only (no 'Removing initializer' warnings)
  });
  return {ort, session};
}

function metadata(session, which) {
  const names = which === 'input' ? session.inputNames : session.outputNames;
  const meta = (which === 'input' ? session.inputMetadata : session.outputMetadata) || [];
  return names.map((name, i) => {
    const m = meta[i] && meta[i].name === name ? meta[i] : meta.find((x) => x.name === name);
    return m || {name, isTensor: true, type: undefined, shape: []};
  });
}

// ---------------------------------------------------------------------------------------------
// Modes.

async function runModel(model, outDir, inputs) {
  const {ort, session} = await openSession(model);
  const inMeta = metadata(session, 'input');
  if (inputs.length !== inMeta.length)
    fail(`${model} has ${inMeta.length} inputs (${session.inputNames.join(', ')}), ` +
         `${inputs.length} .npy files given`);
  const feeds = {};
  inMeta.forEach((m, i) => {
    const a = readNpy(inputs[i]);
    if (m.type && m.type !== a.type)
      fail(`input ${i} '${m.name}' is ${m.type}, ${inputs[i]} is ${a.type}`);
    const data = a.type === 'bool' ? Uint8Array.from(a.data) : a.data;
    feeds[m.name] = new ort.Tensor(a.type, data, a.dims);
  });
  const results = await session.run(feeds);
  fs.mkdirSync(outDir, {recursive: true});
  session.outputNames.forEach((name, i) => {
    const t = results[name];
    if (!t || t.data === undefined) fail(`output ${i} '${name}' is not a tensor`);
    if (!DTYPES[t.type]) fail(`output ${i} '${name}' has unsupported type ${t.type}`);
    const file = path.join(outDir, `output_${i}.npy`);
    writeNpy(file, t.type, Array.from(t.dims), t.data);
    console.log(`${file}: ${name} ${t.type} [${t.dims.join(',')}]`);
  });
  if (session.release) await session.release();
}

function toNumbers(a) {
  if (a.type === 'int64') return Float64Array.from(a.data, (v) => Number(v));
  return a.data;
}

function compare(fileA, fileB, rtol) {
  const a = readNpy(fileA);
  const b = readNpy(fileB);
  const sa = `[${a.dims.join(',')}]`, sb = `[${b.dims.join(',')}]`;
  if (sa !== sb) {
    console.log(`shape mismatch: ${fileA} ${sa} vs ${fileB} ${sb}`);
    process.exit(2);
  }
  const x = toNumbers(a), y = toNumbers(b);
  let maxDiff = 0, maxRef = 0, worst = -1, nonFinite = 0;
  for (let i = 0; i < x.length; ++i) {
    const xi = x[i], yi = y[i];
    if (!Number.isFinite(xi) || !Number.isFinite(yi)) {
      // NaN == NaN and inf == inf of the same sign count as equal.
      if (Object.is(xi, yi) || (Number.isNaN(xi) && Number.isNaN(yi))) continue;
      ++nonFinite;
      worst = i;
      continue;
    }
    const d = Math.abs(xi - yi);
    if (d > maxDiff) {
      maxDiff = d;
      worst = i;
    }
    maxRef = Math.max(maxRef, Math.abs(yi));
  }
  const rel = nonFinite ? Infinity : maxRef > 0 ? maxDiff / maxRef : maxDiff;
  const where = worst >= 0 ? ` (worst at flat index ${worst}: ${x[worst]} vs ${y[worst]})` : '';
  console.log(`max relative error ${rel.toExponential(3)}: max|a-b| ${maxDiff.toExponential(3)}` +
              `, max|b| ${maxRef.toExponential(3)}, ${x.length} elements, ${a.type}/${b.type} ` +
              `${sa}${nonFinite ? `, ${nonFinite} non-finite mismatches` : ''}` +
              (rel > rtol ? where : ''));
  if (!(rel <= rtol)) {
    console.log(`FAIL: above rtol ${rtol}`);
    process.exit(1);
  }
}

// Mulberry32: small, seedable, identical on every platform.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function randomInputs(model, dir, opts) {
  const {session} = await openSession(model);
  const next = rng(opts.seed);
  fs.mkdirSync(dir, {recursive: true});
  metadata(session, 'input').forEach((m, i) => {
    if (!m.isTensor) fail(`input ${i} '${m.name}' is not a tensor`);
    let dims;
    if (opts.shapes[m.name]) {
      dims = opts.shapes[m.name];
      if (m.shape.length && m.shape.length !== dims.length)
        fail(`--shape ${m.name}: rank ${dims.length}, the model says ${m.shape.length}`);
      m.shape.forEach((d, k) => {
        if (typeof d === 'number' && d >= 0 && d !== dims[k])
          fail(`--shape ${m.name}: dim ${k} is ${dims[k]}, the model says ${d}`);
      });
    } else {
      dims = m.shape.map((d) => {
        if (typeof d === 'number' && d >= 0) return d;
        if (typeof d === 'string' && d in opts.dims) return opts.dims[d];
        return 1;
      });
    }
    const count = dims.reduce((a, b) => a * b, 1);
    const type = m.type || 'float32';
    let data;
    if (type === 'float32' || type === 'float64') {
      data = new DTYPES[type].array(count);
      const [lo, hi] = opts.range;
      if (opts.text && dims.length >= 2) {
        // Lines of "glyphs" (2 to 4 strokes, 2 px wide, in 10 x 16 cells) at LO on a HI
        // page, the same image in every plane: a text detector responds to it (it does
        // not to noise, whose probability map stays near 0 and compares nothing).
        const rows = dims[dims.length - 2], cols = dims[dims.length - 1];
        const page = new Float64Array(rows * cols).fill(hi);
        const stroke = (r0, r1, c0, c1) => {
          for (let r = r0; r < Math.min(r1, rows); ++r)
            for (let c = c0; c < Math.min(c1, cols); ++c) page[r * cols + c] = lo;
        };
        const below = (n) => Math.floor(next() * n);
        for (let y = 8; y + 20 < rows; y += 32)
          for (let x = 8; x + 20 < cols; x += 12)
            for (let s = 2 + below(3); s > 0; --s) {
              if (next() < 0.5) {
                const c = x + below(9);
                stroke(y, y + 16, c, c + 2);
              } else {
                const r = y + below(15);
                stroke(r, r + 2, x, x + 10);
              }
            }
        for (let k = 0; k < count; ++k) data[k] = page[k % (rows * cols)];
      } else {
        for (let k = 0; k < count; ++k) data[k] = lo + (hi - lo) * next();
      }
    } else if (DTYPES[type]) {
      data = new DTYPES[type].array(count);  // zeros
    } else {
      fail(`input ${i} '${m.name}': cannot generate type ${type}`);
    }
    const file = path.join(dir, `input_${i}.npy`);
    writeNpy(file, type, dims, data);
    console.log(`${file}: ${m.name} ${type} [${dims.join(',')}]`);
  });
}

async function info(model) {
  const {session} = await openSession(model);
  for (const which of ['input', 'output'])
    metadata(session, which).forEach((m, i) => {
      console.log(`${which} ${i}: ${m.name} ${m.type} [${m.shape.join(',')}]`);
    });
}

// ---------------------------------------------------------------------------------------------

function usage() {
  fail('usage:\n' +
       '  node ort_run.js MODEL.onnx OUT_DIR IN0.npy [IN1.npy ...]\n' +
       '  node ort_run.js --compare A.npy B.npy [--rtol R]\n' +
       '  node ort_run.js --random-inputs MODEL.onnx DIR [--seed S] [--range LO,HI] [--text] ' +
       '[--dim NAME=V ...] [--shape INPUT=D0xD1x... ...]\n' +
       '  node ort_run.js --info MODEL.onnx');
}

async function main(argv) {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') usage();
  if (argv[0] === '--compare') {
    let rtol = 1e-4;
    const files = [];
    for (let i = 1; i < argv.length; ++i) {
      if (argv[i] === '--rtol') rtol = parseFloat(argv[++i]);
      else if (argv[i].startsWith('--rtol=')) rtol = parseFloat(argv[i].slice(7));
      else files.push(argv[i]);
    }
    if (files.length !== 2 || !Number.isFinite(rtol)) usage();
    return compare(files[0], files[1], rtol);
  }
  if (argv[0] === '--random-inputs') {
    const opts = {seed: 0, range: [0, 1], text: false, dims: {}, shapes: {}};
    const pos = [];
    for (let i = 1; i < argv.length; ++i) {
      const a = argv[i];
      const val = () => {  // --opt=VALUE or --opt VALUE
        if (a.includes('=')) return a.slice(a.indexOf('=') + 1);
        if (i + 1 >= argv.length) usage();
        return argv[++i];
      };
      if (a === '--seed' || a.startsWith('--seed=')) opts.seed = parseInt(val(), 10);
      else if (a === '--text') opts.text = true;
      else if (a === '--range' || a.startsWith('--range=')) {
        opts.range = val().split(',').map(parseFloat);
        if (opts.range.length !== 2 || !opts.range.every(Number.isFinite)) usage();
      } else if (a === '--dim') {
        const m = /^(.+)=(\d+)$/.exec(argv[++i] || '');
        if (!m) usage();
        opts.dims[m[1]] = parseInt(m[2], 10);
      } else if (a === '--shape') {
        const m = /^(.+)=(\d+(?:x\d+)*)$/.exec(argv[++i] || '');
        if (!m) usage();
        opts.shapes[m[1]] = m[2].split('x').map((s) => parseInt(s, 10));
      } else pos.push(a);
    }
    if (pos.length !== 2 || !Number.isFinite(opts.seed)) usage();
    return randomInputs(pos[0], pos[1], opts);
  }
  if (argv[0] === '--info') {
    if (argv.length !== 2) usage();
    return info(argv[1]);
  }
  if (argv.length < 2) usage();
  return runModel(argv[0], argv[1], argv.slice(2));
}

main(process.argv.slice(2)).catch((e) => fail(e && e.stack ? e.stack : String(e)));
