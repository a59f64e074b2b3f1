#!/usr/bin/python3
"""Writes the Slice test cases of test/onnx/pytorch/check.sh (issue 13).

    /usr/bin/python3 slices.py OUT_DIR

PyTorch exports every open-ended slice (x[2:], x.shape[2:], x.size(-1)) as an ONNX Slice
whose `ends` is INT64_MAX; flip as one whose `ends` is -INT64_MAX. These cases are exported
by Debian's python3-torch (1.13) here, never by tfcc's importer, so that a wrong import
shows up as a difference with ONNX Runtime. The Slice forms PyTorch never writes (negative
steps with INT64_MIN bounds, huge steps, out-of-range bounds, Shape -> Slice as an output)
are written by hand with the small protobuf encoder below (there is no onnx package).

For each case OUT_DIR/<case>/ gets model.onnx, input_<i>.npy (in graph input order) and
ref_<i>.npy (PyTorch's eager result, or numpy's for hand-written models: a check of ONNX
Runtime itself). OUT_DIR/cases.txt lists one case a line:

    <case> <expect> <note...>

expect is one of
  match          tfcc must match ONNX Runtime;
  refuse=REGEX   tfcc may refuse the model with an error matching REGEX (grep -E, no
                 spaces: `.` stands for one); if it compiles, it must match;
  spec           ONNX Runtime departs from the ONNX spec here: tfcc must match ref_<i>
                 (the spec's result), ONNX Runtime's difference is only reported;
  export-failed  the note says why; check.sh reports it as a failure.
"""
import argparse
import os
import struct
import sys
import warnings

import numpy as np
import torch

INT64_MAX = 2**63 - 1
INT64_MIN = -2**63

# The encoder is shared with the other tests that write ONNX models by hand.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from onnx_proto import (FLOAT, INT64, NP_TO_ONNX, attribute_ints,  # noqa: E402
                        model_proto, node_proto, tensor_proto, value_info)


# --- A minimal decoder: which Slices an exported model has --------------------------------
# Each case states the Slice it is meant to test (e.g. ends INT64_MAX on a Shape); the
# check below makes sure torch really exported that and did not fold it away.

def _read_varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def _fields(b):
    i, out = 0, []
    while i < len(b):
        key, i = _read_varint(b, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            v, i = _read_varint(b, i)
        elif wire == 1:
            v, i = b[i:i + 8], i + 8
        elif wire == 5:
            v, i = b[i:i + 4], i + 4
        elif wire == 2:
            n, i = _read_varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            raise ValueError(f"wire type {wire}")
        out.append((field, wire, v))
    return out


def _s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def _ints(wire, v):  # a repeated int64, packed or not
    if wire == 0:
        return [_s64(v)]
    out, i = [], 0
    while i < len(v):
        x, i = _read_varint(v, i)
        out.append(_s64(x))
    return out


def _tensor_ints(b):
    dt, raw, vals, name = None, None, [], ""
    for f, w, v in _fields(b):
        if f == 2:
            dt = v
        elif f == 7:
            vals += _ints(w, v)
        elif f == 9:
            raw = v
        elif f == 8:
            name = v.decode()
    if dt == INT64 and raw is not None:
        vals = list(struct.unpack(f"<{len(raw) // 8}q", raw))
    return name, (vals if dt == INT64 else None)


def model_summary(data):
    """(graph input names, [slice dicts]) of an ONNX file's bytes."""
    consts, producer, nodes, inputs, inits = {}, {}, [], [], set()
    for f, _, v in _fields(data):
        if f != 7:
            continue
        for f2, _, v2 in _fields(v):
            if f2 == 5:
                name, vals = _tensor_ints(v2)
                inits.add(name)
                consts[name] = vals
            elif f2 == 11:
                inputs.append(next(v3.decode() for f3, _, v3 in _fields(v2) if f3 == 1))
            elif f2 == 1:
                node = {"in": [], "out": [], "op": "", "attrs": {}}
                for f3, w3, v3 in _fields(v2):
                    if f3 == 1:
                        node["in"].append(v3.decode())
                    elif f3 == 2:
                        node["out"].append(v3.decode())
                    elif f3 == 4:
                        node["op"] = v3.decode()
                    elif f3 == 5:
                        aname, ints, t = "", [], None
                        for f4, w4, v4 in _fields(v3):
                            if f4 == 1:
                                aname = v4.decode()
                            elif f4 in (3, 8):
                                ints += _ints(w4, v4)
                            elif f4 == 5:
                                t = _tensor_ints(v4)[1]
                        node["attrs"][aname] = t if t is not None else ints
                nodes.append(node)
    for n in nodes:
        for o in n["out"]:
            producer[o] = n["op"]
        if n["op"] == "Constant" and "value" in n["attrs"]:
            consts[n["out"][0]] = n["attrs"]["value"]
    slices = []
    for n in nodes:
        if n["op"] != "Slice":
            continue
        s = {"src": producer.get(n["in"][0], "input")}
        if "starts" in n["attrs"]:  # opset < 10
            for k in ("starts", "ends", "axes"):
                s[k] = n["attrs"].get(k)
        else:
            for k, i in (("starts", 1), ("ends", 2), ("axes", 3), ("steps", 4)):
                s[k] = consts.get(n["in"][i]) if i < len(n["in"]) and n["in"][i] else None
        s.setdefault("steps", None)
        slices.append(s)
    return [i for i in inputs if i not in inits], slices


def has_slice(**want):
    """A predicate on model_summary's slices: some Slice has each wanted value in the list
    named (e.g. ends=INT64_MAX), and src (the op producing its data) when given."""
    def pred(slices):
        for s in slices:
            if all((s.get(k) == v) if k == "src" else (s.get(k) is not None and v in s[k])
                   for k, v in want.items()):
                return True
        return False
    pred.text = ", ".join(f"{k}={v}" for k, v in want.items())
    return pred


# --- Cases ----------------------------------------------------------------------------------

CASES = []  # lines of cases.txt


def write_case(out, case, model_bytes, inputs, refs, expect, note):
    d = os.path.join(out, case)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(model_bytes)
    for i, a in enumerate(inputs):
        np.save(os.path.join(d, f"input_{i}.npy"), a)
    for i, a in enumerate(refs):
        np.save(os.path.join(d, f"ref_{i}.npy"), np.ascontiguousarray(a))
    CASES.append(f"{case} {expect} {note}")


def failed_case(case, err):
    msg = " ".join(str(err).split())[:300]
    CASES.append(f"{case} export-failed {msg}")
    print(f"{os.path.basename(sys.argv[0])}: {case}: export failed: {msg}",
          file=sys.stderr)


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def torch_case(out, name, module, example, opsets, want=None, run=None, dynamic=None,
               script=False, expect="match", note=""):
    """Exports `module` at each opset (traced on `example`, or scripted), with inputs
    x, y, ... (dims in `dynamic` symbolic); runs it on `run` (default: example)."""
    run = example if run is None else run
    names = ["x", "y", "z"][:len(example)]
    try:
        with torch.no_grad():
            refs = module(*[torch.from_numpy(a) for a in run])
        refs = [r.numpy() for r in (refs if isinstance(refs, tuple) else (refs,))]
    except Exception as e:
        for opset in opsets:
            failed_case(f"{name}-op{opset}", f"PyTorch eager: {e}")
        return
    for opset in opsets:
        case = f"{name}-op{opset}"
        path = os.path.join(out, case, "model.onnx")
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            m = torch.jit.script(module) if script else module
            torch.onnx.export(m, tuple(torch.from_numpy(a) for a in example), path,
                              opset_version=opset, input_names=names,
                              output_names=[f"out{i}" for i in range(len(refs))],
                              dynamic_axes=dynamic)
            with open(path, "rb") as f:
                data = f.read()
            graph_inputs, slices = model_summary(data)
            if graph_inputs != names:
                raise RuntimeError(f"exported inputs {graph_inputs}, expected {names}")
            if want is not None and not want(slices):
                raise RuntimeError(f"the export has no Slice with {want.text}: {slices}")
        except Exception as e:  # the case is reported, never dropped
            failed_case(case, e)
            continue
        write_case(out, case, data, run, refs, expect, note)


def onnx_slice_ref(x, starts, ends, axes, steps):
    """Slice as the ONNX spec defines it (numpy's slicing clamps negative-step starts
    differently: x[INT64_MIN::-1] is empty, ONNX's is x[0:1])."""
    idx = [np.arange(n) for n in x.shape]
    for s, e, a, st in zip(starts, ends, axes, steps):
        dim = x.shape[a]
        s = s + dim if s < 0 else s
        e = e + dim if e < 0 else e
        if st > 0:
            s, e = min(max(s, 0), dim), min(max(e, 0), dim)
            count = max(0, -(-(e - s) // st))
        else:
            s, e = min(max(s, 0), dim - 1), min(max(e, -1), dim - 1)
            count = max(0, -(-(s - e) // -st))
        # Python ints: INT64_MIN/MAX steps do not overflow here.
        idx[a] = np.array([s + i * st for i in range(count)], dtype=np.int64)
    return x[np.ix_(*idx)]


def hand_slice_case(out, name, x, slices_spec, opset=13, form="inputs", const_data=None,
                    expect="match", note=""):
    """A model x -> Slice(...) -> out0 for each (starts, ends, axes, steps) in slices_spec.
    form: inputs (opset >= 10: starts/ends/axes/steps as initializers), noaxes (only
    starts/ends), attrs (opset < 10). const_data: slice an initializer instead and add x."""
    case = f"{name}-op{opset}"
    nodes, inits, outputs, refs = [], [], [], []
    data_name = "x"
    if const_data is not None:
        inits.append(tensor_proto("c", const_data))
        data_name = "c"
    for k, (starts, ends, axes, steps) in enumerate(slices_spec):
        out_name = f"out{k}"
        sliced = out_name if const_data is None else f"s{k}"
        if form == "attrs":
            attrs = [attribute_ints("starts", starts), attribute_ints("ends", ends),
                     attribute_ints("axes", axes)]
            nodes.append(node_proto("Slice", [data_name], [sliced], f"slice{k}", attrs))
        else:
            ins = [data_name]
            parts = [("starts", starts), ("ends", ends)]
            if form == "inputs":
                parts += [("axes", axes), ("steps", steps)]
            for pname, vals in parts:
                inits.append(tensor_proto(f"{pname}{k}", np.array(vals, dtype=np.int64)))
                ins.append(f"{pname}{k}")
            nodes.append(node_proto("Slice", ins, [sliced], f"slice{k}"))
        ref = onnx_slice_ref(const_data if const_data is not None else x,
                             starts, ends, axes, steps)
        if const_data is not None:
            nodes.append(node_proto("Add", ["x", sliced], [out_name], f"add{k}"))
            ref = x + ref
        outputs.append(value_info(out_name, NP_TO_ONNX[x.dtype]))
        refs.append(ref)
    model = model_proto(nodes, [value_info("x", NP_TO_ONNX[x.dtype], list(x.shape))],
                        outputs, inits, opset)
    write_case(out, case, model, [x], refs, expect, note)


def hand_shape_case(out, name, x, slices_spec, opset=13):
    """x -> Shape -> Slice(...) -> out<k> (int64 outputs, folded at import by tfcc)."""
    case = f"{name}-op{opset}"
    nodes = [node_proto("Shape", ["x"], ["shape"], "shape")]
    inits, outputs, refs = [], [], []
    shape = np.array(x.shape, dtype=np.int64)
    for k, (starts, ends, axes, steps) in enumerate(slices_spec):
        ins = ["shape"]
        for pname, vals in (("starts", starts), ("ends", ends), ("axes", axes),
                            ("steps", steps)):
            inits.append(tensor_proto(f"{pname}{k}", np.array(vals, dtype=np.int64)))
            ins.append(f"{pname}{k}")
        nodes.append(node_proto("Slice", ins, [f"out{k}"], f"slice{k}"))
        outputs.append(value_info(f"out{k}", INT64))
        refs.append(onnx_slice_ref(shape, starts, ends, axes, steps))
    model = model_proto(nodes, [value_info("x", FLOAT, list(x.shape))], outputs, inits, opset)
    write_case(out, case, model, [x], refs, "match", "Shape -> Slice as outputs")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")  # torch's TracerWarnings on x.size() in slices
    rng = np.random.default_rng(13)

    def rand(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    end_max = has_slice(ends=INT64_MAX)

    # -- Slices of data, traced, static shapes. Opset 9 has starts/ends as attributes
    # (and no steps: torch refuses x[::2] there), 10+ as inputs.
    torch_case(out, "tail", Fn(lambda x: x[2:]), [rand(5, 3)], [9, 10, 11, 13],
               has_slice(starts=2, ends=INT64_MAX), note="x[2:]")
    torch_case(out, "cols", Fn(lambda x: x[:, 1:]), [rand(3, 5)], [9, 11, 13],
               has_slice(starts=1, ends=INT64_MAX, axes=1), note="x[:, 1:]")
    torch_case(out, "last2", Fn(lambda x: x[-2:]), [rand(5, 3)], [9, 11, 13],
               has_slice(starts=-2, ends=INT64_MAX), note="x[-2:]")
    torch_case(out, "droplast", Fn(lambda x: x[:-1]), [rand(5, 3)], [9, 11, 13],
               has_slice(ends=-1), note="x[:-1]")
    torch_case(out, "step2", Fn(lambda x: x[::2]), [rand(7, 3)], [10, 11, 13],
               has_slice(ends=INT64_MAX, steps=2), note="x[::2]")
    torch_case(out, "step3", Fn(lambda x: x[1::3]), [rand(8, 4)], [11, 13],
               has_slice(starts=1, ends=INT64_MAX, steps=3), note="x[1::3]")
    torch_case(out, "multi", Fn(lambda x: x[1:, :-1, ::2] * 2.0), [rand(4, 5, 6)], [11, 13],
               end_max, note="x[1:, :-1, ::2] * 2")
    # torch.flip exports Slice(starts=-1, ends=-INT64_MAX, steps=-1) per dim.
    torch_case(out, "flip0", Fn(lambda x: torch.flip(x, [0])), [rand(6, 4)], [10, 11, 13],
               has_slice(starts=-1, ends=-INT64_MAX, steps=-1), note="torch.flip(x, [0])")
    torch_case(out, "flip01", Fn(lambda x: torch.flip(x, [0, 1])), [rand(6, 4)], [11, 13],
               has_slice(ends=-INT64_MAX, steps=-1), note="torch.flip(x, [0, 1])")
    # x.size(-1) on a static shape: torch folds the size, the slice keeps INT64_MAX.
    torch_case(out, "sizes",
               Fn(lambda x: x[:, : x.size(-1) // 2] + x[..., x.size(-1) - 2:].sum()),
               [rand(6, 4)], [9, 11, 13], end_max,
               note="x[:, :x.size(-1)//2] + x[..., x.size(-1)-2:].sum()")
    ints = rng.integers(-1000, 1000, (5, 4)).astype(np.int64)
    torch_case(out, "tail-i64", Fn(lambda x: x[2:, 1:]), [ints], [11, 13], end_max,
               note="int64 x[2:, 1:]")

    # -- Shape -> Slice[2:INT64_MAX] -> Reshape / Concat (Silero VAD). Only a scripted
    # module keeps x.shape[2:] as one Slice (tracing unrolls it into Gathers), and only
    # with a dynamic dim in x (a static Shape is folded by torch). Exported with batch 2,
    # run with batch 3.
    x4_2, x4_3 = rand(2, 2, 3, 4), rand(3, 2, 3, 4)
    y12 = rand(12)
    shape_end_max = has_slice(src="Shape", starts=2, ends=INT64_MAX)

    class ShapeReshape(torch.nn.Module):
        def forward(self, x, y):
            return torch.reshape(y, x.shape[2:])

    class ShapeConcat(torch.nn.Module):
        def forward(self, x, y):
            return y.reshape([-1] + list(x.shape[2:]))

    class ShapeView(torch.nn.Module):
        def forward(self, x, y):
            return y.view(x.shape[2:]) + x[0, 0]

    dyn_x = {"x": {0: "N"}}
    torch_case(out, "shape-reshape", ShapeReshape(), [x4_2, y12], [9, 11, 13],
               shape_end_max, run=[x4_3, y12], dynamic=dyn_x, script=True,
               note="torch.reshape(y, x.shape[2:]), x [N,2,3,4]")
    torch_case(out, "shape-concat", ShapeConcat(), [x4_2, rand(24)], [11, 13],
               shape_end_max, run=[x4_3, rand(24)], dynamic=dyn_x, script=True,
               note="y.reshape([-1] + x.shape[2:]) (Shape -> Slice -> Concat)")
    torch_case(out, "shape-view", ShapeView(), [x4_2, y12], [11, 13],
               shape_end_max, run=[x4_3, y12], dynamic=dyn_x, script=True,
               note="y.view(x.shape[2:]) + x[0, 0]")

    # -- Dynamic batch (traced with 2, run with 3).
    x3_2, x3_3 = rand(2, 6, 4), rand(3, 6, 4)
    torch_case(out, "flatten-dyn", Fn(lambda x: x.reshape(x.shape[0], -1)), [x3_2],
               [11, 13], None, run=[x3_3], dynamic=dyn_x,
               note="x.reshape(x.shape[0], -1), x [N,6,4] (Shape -> Gather -> Concat)")
    # x.size(-1) on a dynamic-shaped x: Shape -> Slice[-1:INT64_MAX] -> Squeeze -> Div
    # feeding the ends/starts of the data slices.
    torch_case(out, "sizes-dyn",
               Fn(lambda x: x[:, :, : x.size(-1) // 2] + x[..., x.size(-1) - 2:].sum()),
               [x3_2], [11, 13], has_slice(src="Shape", starts=-1, ends=INT64_MAX),
               run=[x3_3], dynamic=dyn_x,
               note="x[:, :, :x.size(-1)//2] + x[..., x.size(-1)-2:].sum(), x [N,6,4]")
    torch_case(out, "dyn-static", Fn(lambda x: x[:, 1:, ::2]), [x3_2], [11, 13], end_max,
               run=[x3_3], dynamic=dyn_x, note="x[:, 1:, ::2], x [N,6,4]")
    torch_case(out, "dyn-batch-sum", Fn(lambda x: x[1:, 2:].sum(0)), [x3_2], [11, 13],
               has_slice(starts=1, ends=INT64_MAX, axes=0), run=[x3_3], dynamic=dyn_x,
               note="x[1:, 2:].sum(0): the dynamic batch and a static dim, x [N,6,4]")
    # An output of batch - 1 rows: tfcc's C interface gives every dynamic output dim the
    # batch size or a named dimension's (docs/c-api.md), so it refuses this one at compile time.
    torch_case(out, "dyn-batch", Fn(lambda x: x[1:]), [x3_2], [11, 13],
               has_slice(starts=1, ends=INT64_MAX, axes=0), run=[x3_3], dynamic=dyn_x,
               expect="refuse=needs.every.dynamic.dimension.of.an.output.to.equal.the.batch",
               note="x[1:] as an output, on the dynamic batch, x [N,6,4]")
    # A negative bound on a dynamic dim: docs/onnx.md allows tfcc to refuse it.
    torch_case(out, "dyn-batch-droplast", Fn(lambda x: x[:-1]), [x3_2], [13],
               has_slice(ends=-1, axes=0), run=[x3_3], dynamic=dyn_x,
               expect="refuse=unsupported", note="x[:-1] on the dynamic batch, x [N,6,4]")

    # -- Hand-written Slices (forms PyTorch does not export). x is [6, 4].
    x = rand(6, 4)
    M, m = INT64_MAX, INT64_MIN
    hand_slice_case(out, "h-rev-max-min", x, [([M], [m], [0], [-1])],
                    note="[INT64_MAX:INT64_MIN:-1] (all, reversed)")
    hand_slice_case(out, "h-rev-min-min", x, [([m], [m], [0], [-1])],
                    note="[INT64_MIN:INT64_MIN:-1] (start clamps to 0: x[0:1])")
    hand_slice_case(out, "h-rev-to-begin", x, [([-1], [m], [0], [-1])],
                    note="[-1:INT64_MIN:-1] (reverse to the beginning)")
    hand_slice_case(out, "h-rev-step2", x, [([3], [m], [1], [-2])],
                    note="axis 1 [3:INT64_MIN:-2]")
    # The spec clamps ends INT64_MAX to dim - 1 for a negative step: empty. ONNX Runtime
    # reads INT32_MAX/INT64_MAX ends as numpy's None (to the beginning: all 6 rows, see
    # onnxruntime/core/providers/cpu/tensor/slice_helper.h). tfcc follows the spec.
    hand_slice_case(out, "h-rev-end-max", x, [([-1], [M], [0], [-1])], expect="spec",
                    note="[-1:INT64_MAX:-1] (empty by the spec)")
    hand_slice_case(out, "h-rev-start-max", x, [([M], [1], [0], [-1])],
                    note="[INT64_MAX:1:-1]")
    hand_slice_case(out, "h-beyond", x, [([-100, 1], [100, 1000], [0, 1], [1, 1])],
                    note="[-100:100, 1:1000]")
    hand_slice_case(out, "h-beyond-empty", x, [([100], [200], [0], [1])],
                    note="[100:200] (empty)")
    # Exporters for TensorFlow write INT32_MAX for an open end.
    hand_slice_case(out, "h-end-int32max", x, [([1], [2**31 - 1], [0], [1])],
                    note="[1:INT32_MAX]")
    hand_slice_case(out, "h-step-max", x, [([1], [M], [0], [M])],
                    note="[1:INT64_MAX:INT64_MAX]")
    hand_slice_case(out, "h-step-min", x, [([-1], [m], [0], [m])],
                    note="[-1:INT64_MIN:INT64_MIN]")
    hand_slice_case(out, "h-two-axes", x, [([-1, 1], [m, M], [-1, 0], [-1, 2])],
                    note="axes [-1, 0]: x[1::2, ::-1]")
    hand_slice_case(out, "h-no-axes", x, [([1, 0], [M, -1], [0, 1], [1, 1])], form="noaxes",
                    note="starts/ends only: x[1:, :-1]")
    hand_slice_case(out, "h-rev-to-begin", x, [([-1], [m], [0], [-1])], opset=10,
                    note="[-1:INT64_MIN:-1], opset 10")
    hand_slice_case(out, "h-rev-max-min", x, [([M], [m], [1], [-1])], opset=11,
                    note="axis 1 [INT64_MAX:INT64_MIN:-1], opset 11")
    hand_slice_case(out, "h-attrs", x, [([1, m], [M, 3], [0, 1], [1, 1])], opset=9,
                    form="attrs", note="attributes [1:INT64_MAX, INT64_MIN:3]")
    hand_slice_case(out, "h-i64", rng.integers(-99, 99, (6, 4)).astype(np.int64),
                    [([M], [m], [1], [-2]), ([2], [M], [0], [1])],
                    note="int64 data, [:, ::-2] and [2:]")
    # Slices of a constant are folded at import (a separate code path from the data one).
    hand_slice_case(out, "h-const", rand(1, 3), [([M], [m], [0], [-1]), ([2], [M], [0], [1])],
                    const_data=rand(4, 3),
                    note="x + c[INT64_MAX:INT64_MIN:-1], x + c[2:INT64_MAX] (c a 4x3 initializer)")
    hand_shape_case(out, "h-shape", rand(2, 3, 4, 5),
                    [([2], [M], [0], [1]), ([-1], [M], [0], [1]), ([M], [m], [0], [-1])])

    # For check.sh's self-test of `ort_run.js --compare`: it must fail on a shape mismatch,
    # also when the values would agree ([3,5] vs [0,5]: no elements; [15] vs [3,5]).
    st = os.path.join(out, "compare-selftest")
    os.makedirs(st, exist_ok=True)
    a = rand(3, 5)
    np.save(os.path.join(st, "a.npy"), a)
    np.save(os.path.join(st, "empty.npy"), a[:0])
    np.save(os.path.join(st, "flat.npy"), a.reshape(15))

    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(CASES) + "\n")
    print(f"slices.py: {len(CASES)} cases in {out}")


if __name__ == "__main__":
    main()
