#!/usr/bin/python3
"""Writes the long and wide ONNX models of test/onnx/long-graphs.test: graphs whose size
(nodes, operands, graph inputs) once made tfcc take minutes. Each model's output is a
simple function of its input, written beside it as NumPy's result:

    long_graphs.py OUT_DIR                    # writes the models
    long_graphs.py --check OUTPUT.npy REF.npy  # compares (relative error 1e-5)

OUT_DIR/<model>.onnx, <model>_in.npy (the input of a one-input model) and <model>_ref.npy
(NumPy's result, in float64 rounded to float32).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_proto import FLOAT, model_proto, node_proto, tensor_proto, value_info  # noqa: E402

SHAPE = [2, 8]


def chain(n):
    """n unary nodes in a row, cycling through ops no canonicalization folds in pairs:
    y = relu(x * 0.5 + 0.25) repeated; the fixed point of t -> relu(t/2 + 1/4) is 1/2."""
    nodes, prev = [], "x"
    inits = [tensor_proto("half", np.array(0.5, np.float32)),
             tensor_proto("quarter", np.array(0.25, np.float32))]
    ops = [("Mul", "half"), ("Add", "quarter"), ("Relu", None)]
    x = np.linspace(-3, 3, np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)
    ref = x.astype(np.float64)
    for i in range(n):
        op, const = ops[i % 3]
        out = f"t{i}" if i + 1 < n else "y"
        nodes.append(node_proto(op, [prev] + ([const] if const else []), [out], f"n{i}"))
        ref = ref * 0.5 if op == "Mul" else ref + 0.25 if op == "Add" else np.maximum(ref, 0)
        prev = out
    model = model_proto(nodes, [value_info("x", FLOAT, SHAPE)], [value_info("y", FLOAT)],
                        inits, 13)
    return model, x, ref


def sum_of_copies(n):
    """One Sum node whose n operands are all the one graph input."""
    nodes = [node_proto("Sum", ["x"] * n, ["y"], "sum")]
    # Multiples of 1/8: every partial sum is exact in float32, in any order.
    x = ((np.arange(np.prod(SHAPE)) - 8) / 8).astype(np.float32).reshape(SHAPE)
    model = model_proto(nodes, [value_info("x", FLOAT, SHAPE)], [value_info("y", FLOAT)],
                        [], 13)
    return model, x, x.astype(np.float64) * n


def sum_of_inputs(n):
    """One Sum node over n graph inputs (the function takes n arguments)."""
    names = [f"x{i}" for i in range(n)]
    nodes = [node_proto("Sum", names, ["y"], "sum")]
    x = np.linspace(-1, 1, np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)
    model = model_proto(nodes, [value_info(a, FLOAT, SHAPE) for a in names],
                        [value_info("y", FLOAT)], [], 13)
    return model, x, x.astype(np.float64) * n


MODELS = {
    "chain_100000": lambda: chain(100000),
    "sum_copies_20000": lambda: sum_of_copies(20000),
    "sum_inputs_255": lambda: sum_of_inputs(255),    # + 1 output: the most an entry takes
    "sum_inputs_4000": lambda: sum_of_inputs(4000),
}


def check(output_path, ref_path):
    out, ref = np.load(output_path), np.load(ref_path)
    if out.shape != ref.shape:
        sys.exit(f"{output_path}: shape {out.shape}, expected {ref.shape}")
    err = np.max(np.abs(out.astype(np.float64) - ref) / np.maximum(np.abs(ref), 1e-6))
    print(f"{os.path.basename(output_path)}: max relative error {err:.3g}")
    if not err <= 1e-5:
        sys.exit(f"{output_path}: relative error {err:.3g} > 1e-5")


def main():
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "--check":
        check(args[1], args[2])
        return
    if len(args) != 1 or args[0].startswith("-"):
        sys.exit(__doc__)
    out = args[0]
    os.makedirs(out, exist_ok=True)
    for name, make in MODELS.items():
        model, x, ref = make()
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(model)
        np.save(os.path.join(out, name + "_in.npy"), x)
        np.save(os.path.join(out, name + "_ref.npy"), ref.astype(np.float32))


if __name__ == "__main__":
    main()
