// RUN: tfcc-opt --tfcc-precision-policy %s | FileCheck %s
// RUN: tfcc-opt --tfcc-precision-policy=policy=mixed_f16 %s | FileCheck %s --check-prefix=F16
// RUN: not tfcc-opt --tfcc-precision-policy=policy=mixed_f8 %s 2>&1 | FileCheck %s --check-prefix=BAD

// mixed_bf16 (the default): the dense layer, its activation and the pooling
// compute in bf16, the variable and the input cast at use (once each); the
// softmax, layer norm and sum in f32; reshape follows its operand; the
// interface stays f32.
// CHECK-LABEL: func.func @predict
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>) -> (tensor<?x4xf32>, tensor<?xf32>, tensor<?x2x2xf32>)
// CHECK-DAG: %[[K:.*]] = graph.read @k : tensor<8x4xf32>
// CHECK-DAG: %[[KB:.*]] = graph.cast %[[K]] : (tensor<8x4xf32>) -> tensor<8x4xbf16>
// CHECK-DAG: %[[XB:.*]] = graph.cast %[[X]] : (tensor<?x8xf32>) -> tensor<?x8xbf16>
// CHECK: %[[D:.*]] = graph.dense %[[XB]], %[[KB]] : (tensor<?x8xbf16>, tensor<8x4xbf16>) -> tensor<?x4xbf16>
// CHECK: %[[G:.*]] = graph.gelu %[[D]] : tensor<?x4xbf16>
// CHECK: %[[GF:.*]] = graph.cast %[[G]] : (tensor<?x4xbf16>) -> tensor<?x4xf32>
// CHECK: %[[S:.*]] = graph.softmax %[[GF]] : tensor<?x4xf32>
// CHECK: %[[L:.*]] = graph.layer_norm %[[GF]], {{.*}} : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
// CHECK: %[[SUM:.*]] = graph.reduce_sum %[[L]] {{.*}} : (tensor<?x4xf32>) -> tensor<?xf32>
// CHECK: %[[R:.*]] = graph.reshape %[[G]] : (tensor<?x4xbf16>) -> tensor<?x2x2xbf16>
// CHECK: %[[RF:.*]] = graph.cast %[[R]] : (tensor<?x2x2xbf16>) -> tensor<?x2x2xf32>
// CHECK: return %[[S]], %[[SUM]], %[[RF]]
// F16-LABEL: func.func @predict
// F16: graph.dense {{.*}} -> tensor<?x4xf16>
// BAD: unknown policy 'mixed_f8' (mixed_bf16 or mixed_f16)
module {
  graph.variable @k : tensor<8x4xf32> = #graph.init<"glorot_uniform", seed = 1>
  func.func @predict(%x: tensor<?x8xf32>) -> (tensor<?x4xf32>, tensor<?xf32>, tensor<?x2x2xf32>) {
    %k = graph.read @k : tensor<8x4xf32>
    %d = graph.dense %x, %k : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
    %g = graph.gelu %d : tensor<?x4xf32>
    %s = graph.softmax %g : tensor<?x4xf32>
    %one = graph.constant dense<1.0> : tensor<4xf32>
    %l = graph.layer_norm %g, %one, %one {epsilon = 0.001 : f32} : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    %sum = graph.reduce_sum %l {axes = [1]} : (tensor<?x4xf32>) -> tensor<?xf32>
    %r = graph.reshape %g : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
    return %s, %sum, %r : tensor<?x4xf32>, tensor<?xf32>, tensor<?x2x2xf32>
  }
}
