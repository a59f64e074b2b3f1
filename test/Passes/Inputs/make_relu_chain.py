#!/usr/bin/env python3
"""Prints a graph-IR function applying N relus in a chain (N = argv[1])."""
import sys

n = int(sys.argv[1])
print("func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {")
prev = "%x"
for i in range(n):
    print("  %%r%d = graph.relu %s : tensor<4xf32>" % (i, prev))
    prev = "%%r%d" % i
print("  return %s : tensor<4xf32>" % prev)
print("}")
