#!/usr/bin/python3
"""Writes the layer cases of test/onnx/pytorch/check.sh (issue 19): PyTorch layers that
tfcc imports through ops other than Slice, exported by Debian's python3-torch and checked
against ONNX Runtime (and ONNX Runtime against PyTorch's eager result) as slices.py's
cases are.

    /usr/bin/python3 layers.py OUT_DIR

Appends its cases to OUT_DIR/cases.txt (run slices.py first: it writes that file anew).
"""
import argparse
import os
import sys
import warnings

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import slices  # noqa: E402  (torch_case, the case format)
from onnx_proto import (FLOAT, INT32, attribute_int, attribute_string,  # noqa: E402
                        model_proto, node_proto, tensor_proto, value_info)


class Flat(torch.nn.Module):
    """`inner` with its nested outputs ((y, (h, c)) of an LSTM) as one flat tuple; the
    layer is a submodule, so the export keeps its weights as parameters."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        flat = []

        def walk(v):
            if isinstance(v, (tuple, list)):
                for e in v:
                    walk(e)
            else:
                flat.append(v)
        walk(self.inner(x))
        return tuple(flat)


class TopKHead(torch.nn.Module):
    """A detection head's selection: per image, the 10 best of 50 anchors by
    sigmoid score, their indices, and their boxes picked with torch.gather."""

    def __init__(self):
        super().__init__()
        self.score = torch.nn.Linear(8, 1)
        self.box = torch.nn.Linear(8, 4)

    def forward(self, x):  # x [N, 50, 8]
        scores = torch.sigmoid(self.score(x)).squeeze(-1)  # [N, 50]
        best, index = torch.topk(scores, 10, dim=1)
        boxes = torch.gather(self.box(x), 1, index.unsqueeze(-1).expand(-1, -1, 4))
        return best, index, boxes


class NmsHead(torch.nn.Module):
    """A detector's last stage: the 20 best of 50 anchors by sigmoid score, their
    boxes (x1, y1, x2, y2), then torchvision's NMS (IoU 0.3) and the kept boxes and
    scores: NonMaxSuppression, whose row count is data-dependent."""

    def __init__(self):
        super().__init__()
        self.score = torch.nn.Linear(8, 1)
        self.box = torch.nn.Linear(8, 4)

    def forward(self, x):  # x [1, 50, 8]
        import torchvision
        scores = torch.sigmoid(self.score(x)).squeeze(-1)[0]  # [50]
        best, index = torch.topk(scores, 20)
        raw = self.box(x)[0][index]  # [20, 4]
        corner = raw[:, :2] * 0.5
        boxes = torch.cat([corner, corner + raw[:, 2:].abs() + 0.2], 1)
        keep = torchvision.ops.nms(boxes, best, 0.3)
        return boxes[keep], best[keep], keep


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def recurrent_ref(cell, x, w, r, bias, lens, h0, c0, reverse, linear_before_reset=0):
    """One direction of ONNX's LSTM / GRU ([T, B, I] input, default activations) in
    float64 NumPy, sequence_lens included: returns Y [T, B, H], Y_h, Y_c."""
    steps, batch, _ = x.shape
    hidden = r.shape[1]
    g = 4 if cell == "LSTM" else 3
    wb, rb = bias[:g * hidden], bias[g * hidden:]
    h, c = h0.astype(np.float64), c0.astype(np.float64)
    y = np.zeros((steps, batch, hidden))
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    for t in order:
        xw = x[t] @ w.T + wb
        hr = h @ r.T + rb
        if cell == "LSTM":
            i, o, f, cc = (xw[:, k * hidden:(k + 1) * hidden] + hr[:, k * hidden:(k + 1) * hidden]
                           for k in range(4))
            c_new = sigmoid(f) * c + sigmoid(i) * np.tanh(cc)
            h_new = sigmoid(o) * np.tanh(c_new)
        else:
            z = sigmoid(xw[:, :hidden] + hr[:, :hidden])
            rr = sigmoid(xw[:, hidden:2 * hidden] + hr[:, hidden:2 * hidden])
            rh = r[2 * hidden:]
            if linear_before_reset:
                cand = np.tanh(xw[:, 2 * hidden:] + rr * (h @ rh.T + rb[2 * hidden:]))
            else:
                cand = np.tanh(xw[:, 2 * hidden:] + (rr * h) @ rh.T + rb[2 * hidden:])
            h_new = (1 - z) * cand + z * h
            c_new = c
        active = (t < lens)[:, None]
        y[t] = np.where(active, h_new, 0)
        h = np.where(active, h_new, h)
        c = np.where(active, c_new, c)
    return y, h, c


def hand_recurrent_case(out, name, cell, rng, linear_before_reset=0):
    """A bidirectional ONNX `cell` with sequence_lens [4, 1, 3] over T = 4 (and
    initial states), which PyTorch's exporter never writes; the reference is NumPy."""
    steps, batch, inputs, hidden = 4, 3, 5, 6
    g = 4 if cell == "LSTM" else 3
    x = rng.standard_normal((steps, batch, inputs)).astype(np.float32)
    lens = np.array([4, 1, 3], dtype=np.int32)
    w = (rng.standard_normal((2, g * hidden, inputs)) * 0.5).astype(np.float32)
    r = (rng.standard_normal((2, g * hidden, hidden)) * 0.5).astype(np.float32)
    bias = (rng.standard_normal((2, 2 * g * hidden)) * 0.5).astype(np.float32)
    h0 = rng.standard_normal((2, batch, hidden)).astype(np.float32)
    c0 = rng.standard_normal((2, batch, hidden)).astype(np.float32)
    ys, hs, cs = [], [], []
    for d in range(2):
        y, h, c = recurrent_ref(cell, x, w[d], r[d], bias[d], lens, h0[d], c0[d],
                                reverse=d == 1, linear_before_reset=linear_before_reset)
        ys.append(y)
        hs.append(h)
        cs.append(c)
    refs = [np.stack(ys, 1).astype(np.float32), np.stack(hs).astype(np.float32)]
    names = ["x", "w", "r", "b", "lens", "h0"]
    graph_inputs = [x, w, r, bias, lens, h0]
    outs = ["y", "y_h"]
    if cell == "LSTM":
        names.append("c0")
        graph_inputs.append(c0)
        outs.append("y_c")
        refs.append(np.stack(cs).astype(np.float32))
    attrs = [attribute_string("direction", "bidirectional"),
             attribute_int("hidden_size", hidden)]
    if cell == "GRU":
        attrs.append(attribute_int("linear_before_reset", linear_before_reset))
    node = node_proto(cell, names, outs, f"{cell.lower()}0", attrs)
    # The weights are initializers (as exporters write them); x, lens and the
    # states are graph inputs.
    inits = [tensor_proto(n, a) for n, a in zip(names, graph_inputs) if n in ("w", "r", "b")]
    feeds = [(n, a) for n, a in zip(names, graph_inputs) if n not in ("w", "r", "b")]
    model = model_proto(
        [node],
        [value_info(n, INT32 if a.dtype == np.int32 else FLOAT, list(a.shape))
         for n, a in feeds],
        [value_info(o, FLOAT) for o in outs], inits, 14)
    slices.write_case(out, name, model, [a for _, a in feeds], refs, "match",
                      f"bidirectional {cell} with sequence_lens [4,1,3]")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(19)

    def rand(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    batch = {"x": {0: "N"}}

    # -- ConvTranspose: stride 2 with output_padding and groups (a decoder's upsampling),
    # dilation with asymmetric strides and no bias, 1-D, and a dynamic batch.
    torch_case = slices.torch_case
    torch_case(out, "convtranspose2d-s2-groups",
               torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1,
                                        groups=2).eval(),
               [rand(2, 4, 5, 7)], [11, 13], note="ConvTranspose2d(4,6,3,s2,p1,op1,g2)")
    torch_case(out, "convtranspose2d-dilated",
               torch.nn.ConvTranspose2d(3, 5, (3, 2), stride=(2, 1), padding=(0, 1),
                                        dilation=2, bias=False).eval(),
               [rand(1, 3, 6, 4)], [13], note="ConvTranspose2d(3,5,(3,2),s(2,1),d2)")
    torch_case(out, "convtranspose1d",
               torch.nn.ConvTranspose1d(3, 4, 5, stride=3, padding=2,
                                        output_padding=1).eval(),
               [rand(2, 3, 9)], [13], note="ConvTranspose1d(3,4,5,s3,p2,op1)")
    torch_case(out, "convtranspose2d-batch",
               torch.nn.ConvTranspose2d(8, 4, 2, stride=2).eval(),
               [rand(2, 8, 6, 6)], [13], run=[rand(5, 8, 6, 6)], dynamic=batch,
               note="ConvTranspose2d(8,4,2,s2) over a dynamic batch, run at 5")

    # -- Recurrent layers: a 2-layer bidirectional LSTM (batch first) and a GRU, with
    # their final states; an RNN; ONNX ones with sequence_lens written by hand.
    torch_case(out, "lstm-2layer-bidirectional",
               Flat(torch.nn.LSTM(8, 16, num_layers=2, bidirectional=True,
                                  batch_first=True).eval()),
               [rand(3, 7, 8)], [13], note="nn.LSTM(8,16,2 layers,bidirectional,batch_first)")
    torch_case(out, "gru", Flat(torch.nn.GRU(6, 10).eval()),
               [rand(5, 2, 6)], [13], note="nn.GRU(6,10) and its final state")
    torch_case(out, "rnn-relu",
               Flat(torch.nn.RNN(4, 5, nonlinearity="relu", bidirectional=True).eval()),
               [rand(6, 2, 4)], [13], note="nn.RNN(4,5,relu,bidirectional)")
    # -- TopK: a detection head's selection (TopK, then GatherElements of the boxes),
    # and the k smallest along the first axis.
    torch_case(out, "topk-head", TopKHead().eval(), [rand(2, 50, 8)], [11, 13],
               note="topk(sigmoid scores, 10) and torch.gather of the boxes")
    # -- TopK + NMS: NonMaxSuppression's rows padded to 20 with a count output
    # (`padded`: tfcc's outputs are cut to that count before the comparison).
    torch_case(out, "nms-head", NmsHead().eval(), [rand(1, 50, 8)], [11, 13],
               expect="padded",
               note="topk(sigmoid scores, 20), torchvision.ops.nms(iou 0.3), kept boxes")
    torch_case(out, "topk-smallest-dim0",
               slices.Fn(lambda v: torch.topk(v, 3, dim=0, largest=False)),
               [rand(9, 4, 5)], [13], note="topk(x, 3, dim=0, largest=False)")
    # -- Einsum (transposes, reductions and matmuls): attention scores, a bilinear form
    # with a label summed out of one operand, three operands, an outer product.
    torch_case(out, "einsum-attention",
               slices.Fn(lambda q, k: torch.einsum("bhqd,bhkd->bhqk", q, k)),
               [rand(2, 3, 5, 4), rand(2, 3, 6, 4)], [12, 13],
               note="einsum('bhqd,bhkd->bhqk')")
    torch_case(out, "einsum-summed-label",
               slices.Fn(lambda a, b: torch.einsum("ijk,kl->li", a, b)),
               [rand(3, 4, 5), rand(5, 2)], [13], note="einsum('ijk,kl->li'), j summed")
    torch_case(out, "einsum-three-operands",
               slices.Fn(lambda a, b, c: torch.einsum("ij,jk,kl->il", a, b, c)),
               [rand(2, 3), rand(3, 4), rand(4, 5)], [13], note="einsum('ij,jk,kl->il')")
    torch_case(out, "einsum-outer",
               slices.Fn(lambda a, b: torch.einsum("i,j->ji", a, b)),
               [rand(4), rand(3)], [13], note="einsum('i,j->ji')")
    # -- Scatters with constant indices: torch.scatter (ScatterElements), scatter_add
    # with repeated indices (reduction add, opset 16), and a slice assignment (ScatterND).
    index = torch.tensor([[2, 0], [1, 3], [0, 0]])
    torch_case(out, "scatter-elements",
               slices.Fn(lambda x, y: torch.scatter(x, 1, index, y)),
               [rand(3, 4), rand(3, 2)], [13], note="torch.scatter(x, 1, const index, y)")
    torch_case(out, "scatter-add",
               slices.Fn(lambda x, y: torch.scatter_add(x, 1, index, y)),
               [rand(3, 4), rand(3, 2)], [16],
               note="torch.scatter_add with a repeated index")

    def assign_columns(x, y):
        x = x.clone()
        x[:, 1:3] = y
        return x
    torch_case(out, "slice-assignment", slices.Fn(assign_columns),
               [rand(4, 5), rand(4, 2)], [13], note="x[:, 1:3] = y (ScatterND)")
    # -- CumSum along an inner axis (a product with a triangular mask), batch dynamic.
    torch_case(out, "cumsum-dim1", slices.Fn(lambda v: torch.cumsum(v, dim=1)),
               [rand(2, 40, 3)], [13], run=[rand(4, 40, 3)], dynamic=batch,
               note="torch.cumsum(x, dim=1) over a dynamic batch, run at 4")

    # -- Pooling with ceil_mode (an extra output row and column that reads past the end).
    torch_case(out, "maxpool-ceil", torch.nn.MaxPool2d(3, 2, ceil_mode=True),
               [rand(1, 3, 10, 8)], [13], note="MaxPool2d(3,2,ceil_mode)")
    torch_case(out, "avgpool-ceil-pad",
               torch.nn.AvgPool2d(3, 2, padding=1, ceil_mode=True, count_include_pad=False),
               [rand(1, 3, 10, 9)], [13], note="AvgPool2d(3,2,p1,ceil_mode,exclude pad)")
    torch_case(out, "avgpool-ceil-countpad",
               torch.nn.AvgPool2d(3, 2, padding=1, ceil_mode=True, count_include_pad=True),
               [rand(1, 3, 10, 9)], [13], note="AvgPool2d(3,2,p1,ceil_mode,count pad)")
    hand_recurrent_case(out, "h-lstm-seqlens", "LSTM", rng)
    hand_recurrent_case(out, "h-gru-seqlens-lbr", "GRU", rng, linear_before_reset=1)

    with open(os.path.join(out, "cases.txt"), "a") as f:
        f.write("\n".join(slices.CASES) + "\n")
    print(f"layers.py: {len(slices.CASES)} cases in {out}")


if __name__ == "__main__":
    main()
