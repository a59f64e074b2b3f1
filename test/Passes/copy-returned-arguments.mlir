// RUN: tfcc-opt %s -tfcc-copy-returned-arguments | FileCheck %s
// RUN: tfcc-opt %s -tfcc-copy-returned-arguments -buffer-results-to-out-params | FileCheck %s --check-prefix=OUT

// A returned argument and a buffer returned twice become copies; the first
// return of a buffer stays.
// CHECK-LABEL: func.func @returns_argument_and_twice
// CHECK-SAME: (%[[X:.*]]: memref<4xf32>)
// CHECK: %[[Y:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[C0:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.copy %[[X]], %[[C0]]
// CHECK: %[[C1:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.copy %[[Y]], %[[C1]]
// CHECK: return %[[C0]], %[[Y]], %[[C1]]
// Then the out-params pass (which crashed on this function) takes it.
// OUT-LABEL: func.func @returns_argument_and_twice
// OUT-SAME: (%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
func.func @returns_argument_and_twice(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>, memref<4xf32>) {
  %y = memref.alloc() : memref<4xf32>
  memref.copy %x, %y : memref<4xf32> to memref<4xf32>
  return %x, %y, %y : memref<4xf32>, memref<4xf32>, memref<4xf32>
}

// Dynamic sizes come from memref.dim of the returned value.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[D:.*]] = memref.dim %arg0, %c0
// CHECK: memref.alloc(%[[D]]) : memref<?x8xf32>
func.func @dynamic(%x: memref<?x8xf32>) -> memref<?x8xf32> {
  return %x : memref<?x8xf32>
}

// Nothing to copy: unchanged.
// CHECK-LABEL: func.func @distinct
// CHECK: %[[Y:.*]] = memref.alloc()
// CHECK-NEXT: memref.copy %arg0, %[[Y]]
// CHECK-NEXT: return %[[Y]] :
func.func @distinct(%x: memref<4xf32>) -> memref<4xf32> {
  %y = memref.alloc() : memref<4xf32>
  memref.copy %x, %y : memref<4xf32> to memref<4xf32>
  return %y : memref<4xf32>
}
