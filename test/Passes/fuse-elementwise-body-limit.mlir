// A chain of 5000 elementwise linalg.generics fuses into three loop nests of at
// most 2048 ops, not one: each fusion copies both bodies, so an unbounded body
// made long chains compile in quadratic time.
// RUN: python3 %S/Inputs/make_relu_chain.py --linalg 5000 > %t.mlir
// RUN: tfcc-opt %t.mlir -tfcc-fuse-elementwise | FileCheck %s
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: linalg.generic
