// RUN: tfcc-opt %s -split-input-file -tfcc-order-constant-globals | FileCheck %s

// Renamed and ordered by first use, whatever order bufferization left them
// in; the variable and the unused constant keep their names.
// CHECK-LABEL: module
// CHECK: memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_4xi8 : memref<4xi8> = dense<7>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[3.000000e+00, 4.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_xf32 : memref<f32> = dense<5.000000e+00>
// CHECK-NEXT: memref.global "private" @weights : memref<2xf32>
// CHECK: func.func @a
// CHECK-NEXT: memref.get_global @__constant_2xf32 : memref<2xf32>
// CHECK-NEXT: memref.get_global @__constant_4xi8 : memref<4xi8>
// CHECK: func.func @b
// CHECK-NEXT: memref.get_global @__constant_2xf32_0 : memref<2xf32>
// CHECK-NEXT: memref.get_global @__constant_2xf32 : memref<2xf32>
module {
  memref.global "private" constant @__constant_xf32 : memref<f32> = dense<5.0>
  memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[3.0, 4.0]>
  memref.global "private" @weights : memref<2xf32> = dense<0.0>
  memref.global "private" constant @__constant_4xi8 : memref<4xi8> = dense<7>
  memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[1.0, 2.0]>
  func.func @a() -> (memref<2xf32>, memref<4xi8>) {
    %0 = memref.get_global @__constant_2xf32_0 : memref<2xf32>
    %1 = memref.get_global @__constant_4xi8 : memref<4xi8>
    return %0, %1 : memref<2xf32>, memref<4xi8>
  }
  func.func @b() -> (memref<2xf32>, memref<2xf32>) {
    %0 = memref.get_global @__constant_2xf32 : memref<2xf32>
    %1 = memref.get_global @__constant_2xf32_0 : memref<2xf32>
    return %0, %1 : memref<2xf32>, memref<2xf32>
  }
}

// -----

// A symbol of the module that is not such a global keeps its name; the
// global that would have taken it takes the next.
// CHECK-LABEL: module
// CHECK: memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<1.000000e+00>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<2.000000e+00>
// CHECK: func.func private @__constant_2xf32_0()
// CHECK: func.func @c
// CHECK-NEXT: memref.get_global @__constant_2xf32 : memref<2xf32>
// CHECK-NEXT: memref.get_global @__constant_2xf32_1 : memref<2xf32>
module {
  memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<1.0>
  memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<2.0>
  func.func private @__constant_2xf32_0()
  func.func @c() -> (memref<2xf32>, memref<2xf32>) {
    %0 = memref.get_global @__constant_2xf32_1 : memref<2xf32>
    %1 = memref.get_global @__constant_2xf32 : memref<2xf32>
    return %0, %1 : memref<2xf32>, memref<2xf32>
  }
}
