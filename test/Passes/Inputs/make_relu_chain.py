#!/usr/bin/env python3
"""Prints a function applying N relus in a chain (N = argv[1]): graph.relu ops, or with
--linalg one linalg.generic each (as tfcc-convert-graph-to-linalg lowers a lone relu)."""
import sys

linalg = "--linalg" in sys.argv[1:]
n = int([a for a in sys.argv[1:] if a != "--linalg"][0])
T = "tensor<4xf32>"
print("#id = affine_map<(d0) -> (d0)>")
print(f"func.func @chain(%x: {T}) -> {T} {{")
prev = "%x"
for i in range(n):
    if linalg:
        print(f"  %e{i} = tensor.empty() : {T}")
        print(f"  %r{i} = linalg.generic {{indexing_maps = [#id, #id], "
              f"iterator_types = [\"parallel\"]}} ins({prev} : {T}) outs(%e{i} : {T}) {{")
        print("  ^bb0(%in: f32, %out: f32):")
        print("    %zero = arith.constant 0.0 : f32")
        print("    %m = arith.maximumf %in, %zero : f32")
        print("    linalg.yield %m : f32")
        print(f"  }} -> {T}")
    else:
        print(f"  %r{i} = graph.relu {prev} : {T}")
    prev = f"%r{i}"
print(f"  return {prev} : {T}")
print("}")
