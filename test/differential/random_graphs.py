#!/usr/bin/env python3
"""Random-graph differential testing of tfcc (docs/reliability.md).

    random_graphs.py --difftest BIN/tfcc-difftest [--tfcc-run BIN/tfcc-run]
                     [--graphs N] [--seed S] [--per-module K] [--jobs J]
                     [--out DIR] [--train-every T]

Generates N well-typed graph-IR functions over the graph dialect's ops
(random shapes with a dynamic batch dimension or static ones, NumPy
broadcasting, random attributes within the verifier's rules), K to a module,
and runs every module through tfcc-difftest: compiled at -O0 and at -O2
against the reference interpreter. Every T-th graph is a training graph
instead (variables, a loss, graph.train_step with SGD or Adam), run with
`tfcc-run --train-steps 2 --compare` (losses, variables and the forward
entry compared). A mismatch, a compile error or a crash is minimized (the
smallest failing output cone, then operands cut into fresh arguments) and
written to DIR/failures/. Exits 1 when any graph failed.

The generator keeps values where the two sides are well defined and agree
to rounding: log/sqrt/rsqrt/pow/div see positive operands, exp a clipped
one, and ops whose result jumps on a rounding difference (floor, ceil,
float-to-int casts, compare, argmax) see function arguments only.
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

DYN = None  # a dynamic dimension (the batch)


def ttype(shape, dtype):
    dims = "x".join("?" if d is DYN else str(d) for d in shape)
    return "tensor<%s%s>" % (dims + "x" if dims else "", dtype)


def f32(v):
    return "%.6e : f32" % v


class Value:
    def __init__(self, name, shape, dtype, node=None):
        self.name, self.shape, self.dtype, self.node = name, tuple(shape), dtype, node

    @property
    def type(self):
        return ttype(self.shape, self.dtype)


class Node:
    """One op: `text(names)` prints it given the SSA names of its operands."""

    def __init__(self, op, operands, result, attrs="", unary_syntax=False):
        self.op, self.operands, self.result = op, operands, result
        self.attrs, self.unary_syntax = attrs, unary_syntax

    def text(self, name_of):
        if self.op == "constant":
            return "%s = graph.constant %s : %s" % (name_of(self.result), self.attrs,
                                                    self.result.type)
        ops = ", ".join(name_of(v) for v in self.operands)
        attrs = " {%s}" % self.attrs if self.attrs else ""
        if self.unary_syntax:
            return "%s = graph.%s %s%s : %s" % (
                name_of(self.result), self.op, ops, attrs, self.result.type)
        return "%s = graph.%s %s%s : (%s) -> %s" % (
            name_of(self.result), self.op, ops, attrs,
            ", ".join(v.type for v in self.operands), self.result.type)


class Reject(Exception):
    """The op being generated would be invalid: the step is rolled back."""


class Function:
    def __init__(self, name, rng, dynamic):
        self.name, self.rng, self.dynamic = name, rng, dynamic
        self.args, self.nodes, self.outputs = [], [], []
        self.counter = 0

    def fresh(self, shape, dtype="f32"):
        v = Value("%%a%d" % len(self.args), shape, dtype)
        self.args.append(v)
        return v

    def emit(self, op, operands, shape, dtype="f32", attrs="", unary=False):
        # Every dynamic dim is the batch: two in one value make batch^2
        # elements, which tfcc refuses (clearly) as growing faster than it.
        if sum(d is DYN for d in shape) > 1:
            raise Reject()
        self.counter += 1
        v = Value("%%v%d" % self.counter, shape, dtype)
        n = Node(op, list(operands), v, attrs, unary)
        v.node = n
        self.nodes.append(n)
        return v


# ----------------------------------------------------------------------------
# Shapes
# ----------------------------------------------------------------------------

def static(shape):
    return all(d is not DYN for d in shape)


def broadcast(a, b):
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x == y:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        else:
            return None
    return tuple(reversed(out))


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def factor_shapes(n, rng, max_rank=3):
    """A random shape with `n` elements."""
    dims = []
    while n > 1 and len(dims) < max_rank - 1:
        divisors = [d for d in range(2, n + 1) if n % d == 0]
        d = rng.choice(divisors)
        dims.append(d)
        n //= d
    dims.append(n)
    rng.shuffle(dims)
    return tuple(dims)


# ----------------------------------------------------------------------------
# The generator
# ----------------------------------------------------------------------------

class Generator:
    def __init__(self, rng, f):
        self.rng, self.f = rng, f

    def r(self, a, b):
        return self.rng.randint(a, b)

    def pick(self, pred=lambda v: True, dtype="f32"):
        pool = [v for v in self.f.args + [n.result for n in self.f.nodes]
                if v.dtype == dtype and pred(v)]
        return self.rng.choice(pool) if pool else None

    def arg_shape(self, rank, dynamic_ok=True):
        shape = [self.r(1, 5) for _ in range(rank)]
        if dynamic_ok and self.f.dynamic and rank > 0:
            shape[0] = DYN
        return tuple(shape)

    def new_input(self, rank=None, dtype="f32"):
        return self.f.fresh(self.arg_shape(self.r(1, 4) if rank is None else rank), dtype)

    # Values the next op may safely take.
    def positive(self, v):
        c = self.f.emit("clip", [v], v.shape, attrs="min = %s, max = %s" %
                        (f32(-3.0), f32(3.0)), unary=True)
        return self.f.emit("exp", [c], v.shape, unary=True)

    def partner(self, v):
        """Another operand broadcasting with v."""
        k = self.r(0, 3)
        if k == 0:
            return v
        if k == 1:
            same = self.pick(lambda w: w.shape == v.shape and w is not v)
            if same:
                return same
        if k == 2 and v.shape:
            suffix = v.shape[self.r(0, len(v.shape) - 1):]
            if static(suffix):
                return self.f.fresh(suffix)
        shape = tuple(1 if (d is not DYN and self.r(0, 3) == 0) else d for d in v.shape)
        return self.f.fresh(shape)

    def step(self):
        """Adds one random op; returns its result or None."""
        f, r = self.f, self.r
        choice = self.rng.choice(OPS)
        v = self.pick()
        if v is None:
            v = self.new_input()
        rank = len(v.shape)
        if choice == "binary":
            op = self.rng.choice(["add", "sub", "mul", "maximum", "minimum", "div", "pow"])
            w = self.partner(v)
            if op in ("div", "pow"):
                w = self.positive(w) if op == "div" else w
                if op == "pow":
                    v = self.positive(v)
            shape = broadcast(v.shape, w.shape)
            if shape is None:
                return None
            return f.emit(op, [v, w], shape)
        if choice == "unary":
            op = self.rng.choice(["neg", "abs", "square", "tanh", "sigmoid", "relu", "relu6",
                                  "erf", "hard_sigmoid", "hard_swish", "gelu", "leaky_relu",
                                  "clip", "dropout", "exp", "log", "sqrt", "rsqrt"])
            attrs = ""
            if op == "gelu":
                attrs = 'approximate = "%s"' % self.rng.choice(["none", "tanh"])
            elif op == "leaky_relu":
                attrs = "alpha = %s" % f32(self.rng.uniform(0.01, 0.5))
            elif op == "clip":
                lo = self.rng.uniform(-1.0, 0.5)
                attrs = "min = %s, max = %s" % (f32(lo), f32(lo + self.rng.uniform(0.1, 1.5)))
            elif op == "dropout":
                attrs = "rate = %s" % f32(self.rng.uniform(0.0, 0.9))
            elif op == "exp":
                v = f.emit("clip", [v], v.shape, attrs="min = %s, max = %s" %
                           (f32(-5.0), f32(5.0)), unary=True)
            elif op in ("log", "sqrt", "rsqrt"):
                v = self.positive(v) if r(0, 1) else f.fresh(v.shape)
            return f.emit(op, [v], v.shape, attrs=attrs, unary=True)
        if choice == "exact":
            # Ops whose result jumps on rounding: on function arguments only.
            x = f.fresh(self.arg_shape(r(1, 3)))
            op = self.rng.choice(["floor", "ceil", "cast", "compare", "argmax"])
            if op in ("floor", "ceil"):
                return f.emit(op, [x], x.shape, unary=True)
            if op == "cast":
                # Scaled by 4 (exact) so the truncation gives more than 0.
                four = f.emit("constant", [], (), attrs="dense<4.0>")
                i = f.emit("cast", [f.emit("mul", [x, four], x.shape)], x.shape, "i32")
                j = self.pick(lambda w: w.shape == x.shape and w is not i, "i32")
                if j is not None and r(0, 1):
                    i = f.emit(self.rng.choice(["add", "sub", "mul", "maximum", "minimum"]),
                               [i, j], x.shape, "i32")
                return f.emit("cast", [i], x.shape)
            if op == "compare":
                y = f.fresh(x.shape)
                c = f.emit("compare", [x, y], x.shape, "i1",
                           attrs='predicate = "%s"' % self.rng.choice(
                               ["eq", "ne", "lt", "le", "gt", "ge"]))
                a = self.partner(v)
                shape = broadcast(broadcast(c.shape, v.shape) or (), a.shape)
                if shape is None or broadcast(c.shape, v.shape) is None:
                    return f.emit("cast", [c], c.shape)
                return f.emit("select", [c, v, a], shape)
            axis = r(-len(x.shape), len(x.shape) - 1)
            shape = x.shape[:axis % len(x.shape)] + x.shape[axis % len(x.shape) + 1:]
            i = f.emit("argmax", [x], shape, "i32", attrs="axis = %d" % axis)
            return f.emit("cast", [i], shape)
        if choice == "matmul":
            if rank < 2:
                v = f.fresh(self.arg_shape(r(2, 3)))
            ta = r(0, 3) == 0 and v.shape[-2] is not DYN
            m, k = (v.shape[-1], v.shape[-2]) if ta else (v.shape[-2], v.shape[-1])
            if k is DYN:
                return None
            n = r(1, 5)
            tb = r(0, 2) == 0
            b = f.fresh((n, k) if tb else (k, n))
            attrs = ", ".join(a for a in ["transpose_a = true" if ta else "",
                                          "transpose_b = true" if tb else ""] if a)
            return f.emit("matmul", [v, b], v.shape[:-2] + (m, n), attrs=attrs)
        if choice == "dense":
            if not v.shape or v.shape[-1] is DYN:
                return None
            n = r(1, 6)
            ops = [v, f.fresh((v.shape[-1], n))]
            if r(0, 1):
                ops.append(f.fresh((n,)))
            return f.emit("dense", ops, v.shape[:-1] + (n,))
        if choice in ("conv2d", "depthwise_conv2d", "pool"):
            if rank != 4 or not static(v.shape[1:]):
                v = f.fresh((DYN if f.dynamic else r(1, 2), r(3, 8), r(3, 8), r(1, 4)))
            n, h, w, c = v.shape
            kh, kw = r(1, 3), r(1, 3)
            s = (r(1, 2), r(1, 2))
            d = (r(1, 2), r(1, 2)) if choice != "pool" else (1, 1)
            padding = self.rng.choice(["valid", "same"])

            def out(size, k, st, dil):
                if padding == "same":
                    return -(-size // st)
                eff = dil * (k - 1) + 1
                return (size - eff) // st + 1 if size >= eff else 0
            oh, ow = out(h, kh, s[0], d[0]), out(w, kw, s[1], d[1])
            if oh < 1 or ow < 1:
                return None
            common = 'strides = [%d, %d], padding = "%s"' % (s[0], s[1], padding)
            if choice == "pool":
                op = self.rng.choice(["max_pool2d", "avg_pool2d"])
                return f.emit(op, [v], (n, oh, ow, c),
                              attrs="window = [%d, %d], %s" % (kh, kw, common))
            common += ", dilations = [%d, %d]" % d
            if choice == "conv2d":
                groups = self.rng.choice([g for g in (1, 2, 3, 4) if c % g == 0])
                cout = groups * r(1, 3)
                ops = [v, f.fresh((kh, kw, c // groups, cout))]
                if r(0, 1):
                    ops.append(f.fresh((cout,)))
                attrs = common + (", groups = %d" % groups if groups > 1 else "")
                return f.emit("conv2d", ops, (n, oh, ow, cout), attrs=attrs)
            mult = r(1, 2)
            ops = [v, f.fresh((kh, kw, c, mult))]
            if r(0, 1):
                ops.append(f.fresh((c * mult,)))
            return f.emit("depthwise_conv2d", ops, (n, oh, ow, c * mult), attrs=common)
        if choice == "global_pool":
            if rank != 4:
                return None
            return f.emit(self.rng.choice(["global_avg_pool2d", "global_max_pool2d"]), [v],
                          (v.shape[0], v.shape[3]))
        if choice == "norm":
            if rank < 1 or v.shape[-1] is DYN:
                return None
            if r(0, 1):
                c = v.shape[-1]
                ops = [v, f.fresh((c,)), f.fresh((c,)), f.fresh((c,)),
                       self.positive(f.fresh((c,)))]
                return f.emit("batch_norm", ops, v.shape,
                              attrs="epsilon = %s" % f32(self.rng.choice([1e-3, 1e-5, 0.1])))
            first = r(max(1, rank - 2), rank - 1) if rank > 1 else 0
            norm = v.shape[first:]
            if not static(norm):
                return None
            return f.emit("layer_norm", [v, f.fresh(norm), f.fresh(norm)], v.shape,
                          attrs="axis = %d, epsilon = %s" % (first - rank if r(0, 1) else first,
                                                              f32(1e-3)))
        if choice == "softmax":
            if rank < 1:
                return None
            axis = r(-rank, rank - 1)
            return f.emit(self.rng.choice(["softmax", "log_softmax"]), [v], v.shape,
                          attrs="axis = %d" % axis, unary=True)
        if choice == "reduce":
            if rank < 1:
                return None
            axes = sorted(self.rng.sample(range(rank), r(1, rank)))
            keep = r(0, 1) == 1
            shape = tuple((1 if i in axes else d) for i, d in enumerate(v.shape)) if keep \
                else tuple(d for i, d in enumerate(v.shape) if i not in axes)
            written = [a - rank if r(0, 1) else a for a in axes]
            attrs = "axes = [%s]%s" % (", ".join(map(str, written)),
                                       ", keep_dims = true" if keep else "")
            return f.emit(self.rng.choice(["reduce_sum", "reduce_mean", "reduce_max",
                                           "reduce_min"]), [v], shape, attrs=attrs)
        if choice == "reshape":
            if rank < 1:
                return None
            rest = v.shape[1:] if v.shape[0] is DYN else v.shape
            if not static(rest):
                return None
            shape = factor_shapes(numel(rest), self.rng)
            if v.shape[0] is DYN:
                shape = (DYN,) + shape
            return f.emit("reshape", [v], shape)
        if choice == "transpose":
            if rank < 2:
                return None
            perm = list(range(rank))
            self.rng.shuffle(perm)
            return f.emit("transpose", [v], tuple(v.shape[p] for p in perm),
                          attrs="perm = [%s]" % ", ".join(map(str, perm)))
        if choice == "concat":
            if rank < 1:
                return None
            axis = r(0, rank - 1)
            if v.shape[axis] is DYN:
                return None
            parts = [v]
            for _ in range(r(1, 2)):
                if r(0, 1):
                    parts.append(v)
                else:
                    shape = list(v.shape)
                    shape[axis] = r(1, 4)
                    parts.append(f.fresh(shape))
            shape = list(v.shape)
            shape[axis] = sum(p.shape[axis] for p in parts)
            return f.emit("concat", parts, shape,
                          attrs="axis = %d" % (axis - rank if r(0, 1) else axis))
        if choice == "slice":
            if rank < 1:
                return None
            starts, limits, strides, shape = [], [], [], []
            for d in v.shape:
                if d is DYN:
                    starts.append(0); limits.append(-1); strides.append(1); shape.append(DYN)
                    continue
                s0 = r(0, d - 1)
                lim = r(s0 + 1, d)
                st = r(1, 2)
                starts.append(s0)
                limits.append(-1 if lim == d and r(0, 1) else lim)
                strides.append(st)
                shape.append(-(-(lim - s0) // st))
            return f.emit("slice", [v], shape, attrs="starts = [%s], limits = [%s], strides = [%s]"
                          % tuple(", ".join(map(str, x)) for x in (starts, limits, strides)))
        if choice == "pad":
            if rank < 1 or not static(v.shape):
                return None
            pads, shape = [], []
            for d in v.shape:
                lo, hi = r(0, 2), r(0, 2)
                pads += [lo, hi]
                shape.append(d + lo + hi)
            return f.emit("pad", [v], shape, attrs="pads = [%s], value = %s" % (
                ", ".join(map(str, pads)), f32(self.rng.uniform(-1, 1))))
        if choice == "resize":
            if rank != 4 or not static(v.shape[1:3]):
                return None
            size = (r(1, 8), r(1, 8))
            mode = self.rng.choice(["nearest", "bilinear"])
            attrs = 'size = [%d, %d], mode = "%s"' % (size[0], size[1], mode)
            if r(0, 2) == 0:
                attrs += ", half_pixel_centers = false"
            return f.emit("resize", [v], (v.shape[0], size[0], size[1], v.shape[3]), attrs=attrs)
        if choice == "gather":
            if rank < 1 or v.shape[0] is DYN:
                return None
            idx = f.fresh(self.arg_shape(r(1, 2)), "i32")
            return f.emit("gather", [v, idx], idx.shape + v.shape[1:], attrs="axis = 0")
        if choice == "loss":
            if rank != 2 or v.shape[1] is DYN:
                return None
            op = self.rng.choice(["sparse_softmax_cross_entropy", "softmax_cross_entropy",
                                  "mean_squared_error"])
            if op == "sparse_softmax_cross_entropy":
                other = f.fresh((v.shape[0],), "i32")
            elif op == "softmax_cross_entropy":
                other = f.emit("softmax", [f.fresh(v.shape)], v.shape, attrs="axis = -1",
                               unary=True)
            else:
                other = f.fresh(v.shape)
            return f.emit(op, [v, other], ())
        return None


OPS = (["binary"] * 6 + ["unary"] * 6 + ["exact"] * 2 + ["matmul"] * 2 + ["dense"] * 2 +
       ["conv2d"] * 2 + ["depthwise_conv2d", "pool", "pool", "global_pool", "norm", "norm",
                         "softmax", "reduce", "reduce", "reshape", "transpose", "concat",
                         "slice", "pad", "resize", "gather", "loss"])


def make_function(name, rng):
    f = Function(name, rng, dynamic=rng.random() < 0.4)
    g = Generator(rng, f)
    target = rng.randint(2, 10)
    tries = 0
    while len(f.nodes) < target and tries < 60:
        tries += 1
        args, nodes = len(f.args), len(f.nodes)
        try:
            g.step()
        except Reject:
            del f.args[args:]
            del f.nodes[nodes:]
    if not f.nodes:
        f.emit("relu", [g.new_input()], f.args[-1].shape, unary=True)
    # Outputs: the last value and maybe another one nobody uses.
    used = {id(v) for n in f.nodes for v in n.operands}
    f.outputs = [f.nodes[-1].result]
    unused = [n.result for n in f.nodes[:-1] if id(n.result) not in used]
    if unused and rng.random() < 0.5:
        f.outputs.append(rng.choice(unused))
    return f


# ----------------------------------------------------------------------------
# Printing, cones and cuts (for minimization)
# ----------------------------------------------------------------------------

def print_function(f, outputs=None, cuts=()):
    """Prints `f` returning `outputs` (default f.outputs); values in `cuts`
    become fresh arguments instead of their ops."""
    outputs = outputs or f.outputs
    cuts = set(id(v) for v in cuts)
    needed, order = set(), []

    def visit(v):
        if id(v) in needed:
            return
        needed.add(id(v))
        if v.node is not None and id(v) not in cuts:
            for o in v.node.operands:
                visit(o)
            order.append(v.node)
    for o in outputs:
        visit(o)
    args = [a for a in f.args if id(a) in needed]
    args += [n.result for n in f.nodes if id(n.result) in cuts and id(n.result) in needed]
    names = {}
    for i, a in enumerate(args):
        names[id(a)] = "%%a%d" % i
    for i, n in enumerate(sorted(order, key=f.nodes.index)):
        names[id(n.result)] = "%%v%d" % i
    name_of = lambda v: names[id(v)]
    lines = ["  func.func @%s(%s) -> (%s) {" % (
        f.name, ", ".join("%s: %s" % (name_of(a), a.type) for a in args),
        ", ".join(o.type for o in outputs))]
    for n in sorted(order, key=f.nodes.index):
        lines.append("    " + n.text(name_of))
    lines.append("    return %s : %s" % (", ".join(name_of(o) for o in outputs),
                                         ", ".join(o.type for o in outputs)))
    lines.append("  }")
    return "\n".join(lines), len(order)


def module_text(name, bodies):
    return "module @%s {\n%s\n}\n" % (name, "\n".join(bodies))


# ----------------------------------------------------------------------------
# Training graphs
# ----------------------------------------------------------------------------

def make_training_module(index, rng):
    """A small model with variables, a loss and a train step."""
    batch = DYN
    features = rng.randint(2, 6)
    classes = rng.randint(2, 5)
    lines, variables = [], []
    conv = rng.random() < 0.4

    def var(shape, init):
        name = "w%d" % len(variables)
        variables.append(name)
        lines.append("  graph.variable @%s : %s = %s" % (name, ttype(shape, "f32"), init))
        return name
    body, counter = [], [0]

    def val(text, shape):
        counter[0] += 1
        name = "%%t%d" % counter[0]
        body.append("    %s = %s" % (name, text.replace("RESULT", ttype(shape, "f32"))))
        return name, shape
    if conv:
        h = rng.randint(4, 7)
        c = rng.randint(1, 3)
        x_shape = (batch, h, h, c)
        x = ("%x", x_shape)
        k = var((3, 3, c, 4), '#graph.init<"glorot_uniform", seed = %d>' % rng.randint(0, 99))
        padding = rng.choice(["valid", "same"])
        oh = h if padding == "same" else h - 2
        kv = val("graph.read @%s : %s" % (k, ttype((3, 3, c, 4), "f32")), (3, 3, c, 4))
        y = val('graph.conv2d %s, %s {padding = "%s"} : (%s, %s) -> RESULT' % (
            x[0], kv[0], padding, ttype(x_shape, "f32"), ttype(kv[1], "f32")),
            (batch, oh, oh, 4))
        act = rng.choice(["relu", "tanh", "sigmoid", "gelu"])
        y = val("graph.%s %s : RESULT" % (act, y[0]), y[1])
        if rng.random() < 0.5:
            y = val('graph.max_pool2d %s {window = [2, 2], padding = "same"} : (%s) -> RESULT'
                    % (y[0], ttype(y[1], "f32")), (batch, -(-oh // 2), -(-oh // 2), 4))
        h = val("graph.global_avg_pool2d %s : (%s) -> RESULT" % (y[0], ttype(y[1], "f32")),
                (batch, 4))
        width = 4
    else:
        x_shape = (batch, features)
        h = ("%x", x_shape)
        width = features
    for layer in range(rng.randint(1, 2)):
        out = rng.randint(2, 6) if layer == 0 else classes
        k = var((width, out), '#graph.init<"%s", seed = %d>' % (
            rng.choice(["glorot_uniform", "he_uniform", "glorot_normal"]), rng.randint(0, 99)))
        b = var((out,), "dense<%s>" % rng.choice(["0.0", "0.1"]))
        kv = val("graph.read @%s : %s" % (k, ttype((width, out), "f32")), (width, out))
        bv = val("graph.read @%s : %s" % (b, ttype((out,), "f32")), (out,))
        h = val("graph.dense %s, %s, %s : (%s, %s, %s) -> RESULT" % (
            h[0], kv[0], bv[0], ttype(h[1], "f32"), ttype(kv[1], "f32"), ttype(bv[1], "f32")),
            (batch, out))
        if out >= 4 and rng.random() < 0.3:
            # (over fewer features the normalization is ill-conditioned: f32
            # and the interpreter's f64 drift apart by more than rounding)
            g = var((out,), "dense<1.0>")
            be = var((out,), "dense<0.0>")
            gv = val("graph.read @%s : %s" % (g, ttype((out,), "f32")), (out,))
            bev = val("graph.read @%s : %s" % (be, ttype((out,), "f32")), (out,))
            h = val("graph.layer_norm %s, %s, %s {epsilon = %s} : (%s, %s, %s) -> RESULT" % (
                h[0], gv[0], bev[0], f32(1e-3), ttype(h[1], "f32"), ttype((out,), "f32"),
                ttype((out,), "f32")), h[1])
        if layer == 0:
            h = val("graph.%s %s : RESULT" % (rng.choice(["relu", "tanh", "sigmoid",
                                                          "leaky_relu"]), h[0]), h[1])
        width = out
    if width != classes:
        k = var((width, classes), '#graph.init<"glorot_uniform", seed = 1>')
        kv = val("graph.read @%s : %s" % (k, ttype((width, classes), "f32")), (width, classes))
        h = val("graph.matmul %s, %s : (%s, %s) -> RESULT" % (
            h[0], kv[0], ttype(h[1], "f32"), ttype(kv[1], "f32")), (batch, classes))
    forward = list(body)
    loss_kind = rng.choice(["sparse", "mse", "soft"])
    y_type = ttype((batch,), "i32") if loss_kind == "sparse" else ttype((batch, classes), "f32")
    op = {"sparse": "sparse_softmax_cross_entropy", "mse": "mean_squared_error",
          "soft": "softmax_cross_entropy"}[loss_kind]
    optimizer = rng.choice([
        "#graph.sgd<learning_rate = 1.0e-01, momentum = %s>" % rng.choice(["0.0", "0.9"]),
        "#graph.sgd<learning_rate = 5.0e-02, momentum = 0.5, nesterov = true>",
        "#graph.adam<learning_rate = 1.0e-02>"])
    clip = ", clip_norm = 1.0 : f32" if rng.random() < 0.3 else ""
    text = ["module @train%d {" % index] + lines
    text.append("  func.func @predict(%%x: %s) -> %s {" % (ttype(x_shape, "f32"),
                                                          ttype((batch, classes), "f32")))
    text += forward
    text.append("    return %s : %s" % (h[0], ttype((batch, classes), "f32")))
    text.append("  }")
    text.append("  func.func @loss(%%x: %s, %%y: %s) -> tensor<f32> {" % (
        ttype(x_shape, "f32"), y_type))
    text += forward
    text.append("    %%l = graph.%s %s, %%y : (%s, %s) -> tensor<f32>" % (
        op, h[0], ttype((batch, classes), "f32"), y_type))
    text.append("    return %l : tensor<f32>")
    text.append("  }")
    text.append("  graph.train_step @train_step {loss = @loss, optimizer = %s%s}" % (
        optimizer, clip))
    text.append("}")
    return "\n".join(text) + "\n"


# ----------------------------------------------------------------------------
# Running
# ----------------------------------------------------------------------------

def run_difftest(difftest, text, workdir, tag, levels="0,2"):
    path = os.path.join(workdir, tag + ".mlir")
    with open(path, "w") as f:
        f.write(text)
    try:
        # atol: an output near zero (the mean of random values) has a large
        # relative error from rounding alone.
        p = subprocess.run([difftest, path, "--opt-levels", levels, "--batch", "3",
                            "--atol", "1e-6"],
                           capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    if p.returncode not in (0, 2):
        return None, "tfcc-difftest exited %d: %s" % (p.returncode, p.stderr[-2000:])
    results = {}
    for line in p.stdout.splitlines():
        parts = line.split(" ", 2)
        if line.startswith("COMPILE-ERROR"):
            return None, "compile error: " + line + " " + p.stderr[-2000:]
        if len(parts) == 3 and parts[1].startswith("O"):
            results.setdefault(parts[0], []).append((parts[1], parts[2]))
    return results, p.stderr


def bad_levels(entries):
    return [lvl for lvl, verdict in entries if verdict != "ok"]


def minimize(f, difftest, workdir, level):
    """The smallest failing cone of `f`, with operands cut into arguments."""
    def fails(outputs, cuts):
        body, _ = print_function(f, outputs, cuts)
        results, err = run_difftest(difftest, module_text("min", [body]), workdir,
                                    "min", level[1:])
        return results is None or any(bad_levels(v) for v in results.values())
    outputs = f.outputs
    for n in f.nodes:
        if fails([n.result], ()):
            outputs = [n.result]
            break
    cuts = []
    changed = True
    while changed:
        changed = False
        body, count = print_function(f, outputs, cuts)
        for n in f.nodes:
            v = n.result
            if v in outputs or v in cuts:
                continue
            if v not in [o for m in f.nodes for o in m.operands]:
                continue
            trial = cuts + [v]
            _, trial_count = print_function(f, outputs, trial)
            if trial_count < count and fails(outputs, trial):
                cuts = trial
                changed = True
                break
    return print_function(f, outputs, cuts)[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--difftest", required=True)
    ap.add_argument("--tfcc-run")
    ap.add_argument("--graphs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--per-module", type=int, default=25)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--train-every", type=int, default=20)
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.graphs < 1 or args.per_module < 1 or args.jobs < 1 or args.train_every < 0:
        ap.error("--graphs, --per-module and --jobs must be positive")
    if args.train_every and not args.tfcc_run:
        ap.error("training graphs (--train-every > 0) need --tfcc-run")
    out = args.out or tempfile.mkdtemp(prefix="tfcc-random-graphs-")
    os.makedirs(os.path.join(out, "failures"), exist_ok=True)

    # Plan: which graphs are training graphs, the rest in modules of K.
    rng = random.Random(args.seed)
    plan, module, train = [], [], []
    for i in range(args.graphs):
        if args.train_every and i % args.train_every == args.train_every - 1:
            train.append(i)
            continue
        module.append(i)
        if len(module) == args.per_module:
            plan.append(module)
            module = []
    if module:
        plan.append(module)
    seeds = {i: rng.getrandbits(32) for i in range(args.graphs)}

    def run_module(indices):
        work = tempfile.mkdtemp(dir=out, prefix="m%d-" % indices[0])
        fns = {"g%d" % i: make_function("g%d" % i, random.Random(seeds[i])) for i in indices}
        bodies = [print_function(f)[0] for f in fns.values()]
        results, err = run_difftest(args.difftest, module_text("graphs", bodies), work,
                                    "module")
        failures = []
        if results is None:
            # The module as a whole failed: test each graph alone to find which.
            for name, f in fns.items():
                r1, e1 = run_difftest(args.difftest, module_text("one", [print_function(f)[0]]),
                                      work, "one")
                if r1 is None or any(bad_levels(v) for v in r1.values()):
                    failures.append((name, f, "O2" if r1 is None else bad_levels(
                        list(r1.values())[0])[0], e1 if r1 is None else str(r1)))
        else:
            for name, verdicts in results.items():
                bad = bad_levels(verdicts)
                if bad:
                    failures.append((name, fns[name], bad[0], str(verdicts)))
        saved = []
        for name, f, level, why in failures:
            text = module_text("repro_%s_seed%d" % (name, seeds[int(name[1:])]),
                               [minimize(f, args.difftest, work, level)])
            path = os.path.join(out, "failures", "%s_seed%d.mlir" % (name, args.seed))
            with open(path, "w") as fh:
                fh.write("// %s at %s: %s\n" % (name, level, why.strip()[:500].replace("\n", " ")))
                fh.write(text)
            saved.append(path)
        return len(indices), saved

    def run_train(i):
        text = make_training_module(i, random.Random(seeds[i]))
        path = os.path.join(out, "train%d.mlir" % i)
        with open(path, "w") as fh:
            fh.write(text)
        try:
            p = subprocess.run([args.tfcc_run, path, "--train-steps", "2", "--compare",
                                "--batch", "3", "--rtol", "1e-3"],
                               capture_output=True, text=True, timeout=600)
            ok = p.returncode == 0
            why = (p.stdout + p.stderr)[-1500:]
        except subprocess.TimeoutExpired:
            ok, why = False, "timeout"
        if ok:
            os.remove(path)
            return 1, []
        dest = os.path.join(out, "failures", "train%d_seed%d.mlir" % (i, args.seed))
        with open(dest, "w") as fh:
            fh.write("// " + why.replace("\n", "\n// ") + "\n" + text)
        os.remove(path)
        return 1, [dest]

    done, failed = 0, []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        jobs = [pool.submit(run_module, m) for m in plan] + [pool.submit(run_train, i)
                                                             for i in train]
        for j in jobs:
            n, saved = j.result()
            done += n
            failed += saved
    print("random graphs: %d compiled (-O0 and -O2) and compared, %d training graphs, "
          "seed %d: %d failures" % (done, len(train), args.seed, len(failed)))
    for path in failed:
        print("  " + path)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
