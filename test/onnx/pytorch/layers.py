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
import slices  # noqa: E402  (torch_case, the case format)


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

    with open(os.path.join(out, "cases.txt"), "a") as f:
        f.write("\n".join(slices.CASES) + "\n")
    print(f"layers.py: {len(slices.CASES)} cases in {out}")


if __name__ == "__main__":
    main()
