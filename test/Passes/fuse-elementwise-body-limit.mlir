// A chain of 1000 elementwise linalg.generics fuses into several loop nests, not
// one: each fusion copies both bodies, so an unbounded body made long chains
// compile in quadratic time (4000 ops: 6 s; bounded: 0.7 s).
// RUN: python3 %S/Inputs/make_relu_chain.py --linalg 1000 > %t.mlir
// RUN: tfcc-opt %t.mlir -tfcc-fuse-elementwise | FileCheck %s
// CHECK-COUNT-3: linalg.generic
