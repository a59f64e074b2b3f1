// RUN: tfcc-opt %s -tfcc-quantize-int8 | FileCheck %s
// RUN: tfcc-opt %s -tfcc-quantize-int8=all-weights=true | FileCheck %s --check-prefix=ALL
// RUN: tfcc-opt %s -tfcc-quantize-int8=weight-bits=7 | FileCheck %s --check-prefix=BITS7
// RUN: not tfcc-opt %s -tfcc-quantize-int8=weight-bits=9 2>&1 | FileCheck %s --check-prefix=BITS9

// The weights per output channel (the last axis), by hand: column 0 has
// max |w| 2, so scale 2/127 and 0.5 -> 31.75 -> 32, 1.5 -> 95, -2 -> -127,
// 0.1 -> 6; column 1: 1/127, -127 0 95 25; column 2: 0.3/127, 106 -53 0 127.
// The input range [-1, 3]: scale 4/255, zero point round(1 / (4/255)) = 64.
// The float variable goes; the conv's range [0.5, 2] widens to [0, 2]
// (scale 2/255, zero point 0). One int8 copy of @w serves both its readers.
// CHECK-LABEL: module @ptq
// CHECK-DAG: graph.variable @w_int8 : tensor<4x3xi8> = dense<{{\[}}[32, -127, 106], [95, 0, -53], [-127, 95, 0], [6, 25, 127]]> {trainable = false}
// CHECK-NOT: graph.variable @w :
// CHECK-NOT: graph.variable @w_int8_
// CHECK-LABEL: func.func @predict
// CHECK: %[[S:.*]] = graph.constant dense<0.0156862754> : tensor<f32>
// CHECK: %[[Z:.*]] = graph.constant dense<64> : tensor<ui8>
// CHECK: %[[Q:.*]] = graph.quantize %arg0, %[[S]], %[[Z]] : (tensor<?x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x4xui8>
// CHECK: %[[X:.*]] = graph.dequantize %[[Q]], %[[S]], %[[Z]]
// CHECK: %[[WQ:.*]] = graph.read @w_int8 : tensor<4x3xi8>
// CHECK: %[[WS:.*]] = graph.constant dense<[0.0157480314, 0.00787401571, 0.00236220472]> : tensor<3xf32>
// CHECK: %[[WZ:.*]] = graph.constant dense<0> : tensor<3xi8>
// CHECK: %[[W:.*]] = graph.dequantize %[[WQ]], %[[WS]], %[[WZ]] : (tensor<4x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<4x3xf32>
// CHECK: graph.dense %[[X]], %[[W]] : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
// CHECK: graph.constant dense<0.00784313772> : tensor<f32>
// CHECK: graph.constant dense<0> : tensor<ui8>
// CHECK: graph.read @w_int8
// CHECK: graph.dense
// Without a range, a reader keeps the float weights unless all-weights.
// CHECK-LABEL: func.func @other
// CHECK: graph.read @w_bare : tensor<4x3xf32>
// CHECK-NOT: tfcc.input_range
// 7-bit weights (NumPy, float32: w / (max|w| / 63) rounded half to even):
// column 0 scale 2/63: 16 47 -63 3; column 1 1/63: -63 0 47 13; column 2
// 0.3/63: 52 (0.25 / (0.3/63) = 52.4999...) -26 0 63.
// BITS7: graph.variable @w_int8 : tensor<4x3xi8> = dense<{{\[}}[16, -63, 52], [47, 0, -26], [-63, 47, 0], [3, 13, 63]]>
// BITS7: graph.constant dense<[0.0317460336, 0.0158730168, 0.00476190494]> : tensor<3xf32>
// BITS9: error: tfcc-quantize-int8: weight-bits=9 is not 7 or 8
// ALL-LABEL: func.func @other
// ALL: graph.read @w_bare_int8 : tensor<4x3xi8>
// ALL-NOT: graph.quantize
// ALL: graph.dense %arg0, %{{.*}} : (tensor<?x4xf32>, tensor<4x3xf32>)
module @ptq {
  graph.variable @w : tensor<4x3xf32> = dense<[[0.5, -1.0, 0.25], [1.5, 0.0, -0.125], [-2.0, 0.75, 0.0], [0.1, 0.2, 0.3]]>
  graph.variable @w_bare : tensor<4x3xf32> = dense<0.5>
  func.func @predict(%x: tensor<?x4xf32>, %z: tensor<?x4xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
    %w = graph.read @w : tensor<4x3xf32>
    %y = graph.dense %x, %w {tfcc.input_range = array<f32: -1.0, 3.0>} : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %w2 = graph.read @w : tensor<4x3xf32>
    %y2 = graph.dense %z, %w2 {tfcc.input_range = array<f32: 0.5, 2.0>} : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    return %y, %y2 : tensor<?x3xf32>, tensor<?x3xf32>
  }
  func.func @other(%x: tensor<?x4xf32>, %b: tensor<3x2xf32>) -> (tensor<?x3xf32>, tensor<?x2xf32>) {
    %w = graph.read @w_bare : tensor<4x3xf32>
    %y = graph.dense %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    // Weights computed at run time: not quantized, the range dropped.
    %m = graph.matmul %y, %b {tfcc.input_range = array<f32: 0.0, 1.0>} : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
    return %y, %m : tensor<?x3xf32>, tensor<?x2xf32>
  }
}
