#!/usr/bin/python3
"""Per-layer times of tfcc and ONNX Runtime side by side (bench/profile/README.md).

    compare.py TFCC_TRACE.json ORT_TRACE.json [ROWS]

TFCC_TRACE.json is `tfcc-run MODEL --bench N --profile=FILE`'s Chrome trace,
ORT_TRACE.json ort_profile's. Node names are matched by their ONNX scope: the
name without its last two components (`features/features.2/conv/conv.0/
conv.0.0/Conv` and ONNX Runtime's fused `/features/features.2/conv/conv.0/
conv.0.2/Clip_output_0_nchwc` both count for `features/features.2/conv/
conv.0`), so a layer and the ops either system fused into it add up. Prints
the mean time per call of each scope, largest tfcc - ONNX Runtime difference
first, then the last rows (where tfcc is ahead).
"""
import collections
import json
import re
import sys


def scope(name):
    parts = name.strip("/").split("/")
    return "/".join(parts[:-2]) if len(parts) > 2 else "/".join(parts)


def tfcc_times(path):
    events = json.load(open(path))["traceEvents"]
    total, calls = collections.defaultdict(float), collections.Counter()
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "op":
            total[e["name"]] += e["dur"]
            calls[e["name"]] += 1
    return {k: v / calls[k] for k, v in total.items()}


def ort_times(path):
    total, calls = collections.defaultdict(float), collections.Counter()
    for e in json.load(open(path)):
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            name = re.sub(r"_output_0(_nchwc)?$", "", e["name"][:-len("_kernel_time")])
            total[name] += e["dur"]
            calls[name] += 1
    return {k: v / calls[k] for k, v in total.items()}


def by_scope(times):
    scopes = collections.defaultdict(float)
    for name, us in times.items():
        scopes[scope(name)] += us
    return scopes


def main():
    tfcc, ort = tfcc_times(sys.argv[1]), ort_times(sys.argv[2])
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    a, b = by_scope(tfcc), by_scope(ort)
    table = sorted(((a.get(k, 0.0) - b.get(k, 0.0), k) for k in set(a) | set(b)),
                   reverse=True)
    print("per call: tfcc %.0f us, ONNX Runtime %.0f us (sum of the nodes)"
          % (sum(tfcc.values()), sum(ort.values())))
    print("%9s %9s %9s  scope" % ("tfcc-ORT", "tfcc us", "ORT us"))
    for diff, k in table[:rows] + ([] if len(table) <= rows else table[-min(5, len(table) - rows):]):
        print("%9.1f %9.1f %9.1f  %s" % (diff, a.get(k, 0.0), b.get(k, 0.0), k))


if __name__ == "__main__":
    main()
