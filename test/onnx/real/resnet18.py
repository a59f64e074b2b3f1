#!/usr/bin/python3
"""Exports torchvision's ResNet-18 (random weights, seed 0) to ONNX, NCHW input [1,3,224,224].

  /usr/bin/python3 test/onnx/real/resnet18.py OUT.onnx [--opset N]

Needs Debian's python3-torch and python3-torchvision (Debian ships no pretrained weights, and
none are needed: the check compares tfcc with ONNX Runtime on the same random weights).
"""
import argparse
import os
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", help="path of the .onnx file to write")
    p.add_argument("--opset", type=int, default=13, help="ONNX opset (7..17, default 13)")
    p.add_argument("--seed", type=int, default=0, help="torch.manual_seed (default 0)")
    args = p.parse_args()
    if not 7 <= args.opset <= 17:
        sys.exit("resnet18.py: --opset must be in 7..17")

    try:
        import torch
        import torchvision
    except ImportError as e:
        sys.exit("resnet18.py: %s; install Debian's python3-torch python3-torchvision and run "
                 "this with /usr/bin/python3" % e)

    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    model = torchvision.models.resnet18()  # random weights: weights=None is the default
    model.eval()
    x = torch.randn(1, 3, 224, 224)
    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(
            model, x, args.out,
            opset_version=args.opset,
            input_names=["input"],
            output_names=["logits"],
            do_constant_folding=True,  # folds BatchNormalization into Conv in eval mode
            export_params=True,
        )
    print("resnet18.py: wrote %s (torch %s, torchvision %s, opset %d)"
          % (args.out, torch.__version__, torchvision.__version__, args.opset))


if __name__ == "__main__":
    main()
