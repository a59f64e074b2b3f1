// RUN: tfcc-opt --tfcc-retype-interface=dtype=bf16 %s | FileCheck %s
// RUN: tfcc-opt --tfcc-retype-interface=dtype=f16 %s | FileCheck %s --check-prefix=F16
// RUN: not tfcc-opt --tfcc-retype-interface=dtype=f8 %s 2>&1 | FileCheck %s --check-prefix=BAD

// An entry's f32 tensors become bf16 with casts at both ends; an i32
// argument stays, and so does a private function.
// CHECK-LABEL: func.func @predict
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xbf16>, %[[N:.*]]: tensor<?xi32>) -> (tensor<?x8xbf16>, tensor<?xi32>)
// CHECK: %[[W:.*]] = graph.cast %[[X]] : (tensor<?x8xbf16>) -> tensor<?x8xf32>
// CHECK: %[[R:.*]] = graph.relu %[[W]] : tensor<?x8xf32>
// CHECK: %[[B:.*]] = graph.cast %[[R]] : (tensor<?x8xf32>) -> tensor<?x8xbf16>
// CHECK: return %[[B]], %[[N]]
// F16-LABEL: func.func @predict
// F16-SAME: tensor<?x8xf16>
func.func @predict(%x: tensor<?x8xf32>, %n: tensor<?xi32>) -> (tensor<?x8xf32>, tensor<?xi32>) {
  %y = graph.relu %x : tensor<?x8xf32>
  return %y, %n : tensor<?x8xf32>, tensor<?xi32>
}

// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// A train step's loss function: its arguments retyped, the loss kept f32.
// CHECK-LABEL: func.func @loss
// CHECK-SAME: (%{{.*}}: tensor<?x8xbf16>, %{{.*}}: tensor<?x8xbf16>) -> tensor<f32>
// CHECK-NOT: graph.cast {{.*}} -> tensor<bf16>
// CHECK: return %{{.*}} : tensor<f32>
graph.variable @w : tensor<8x8xf32> = dense<0.5>
func.func @loss(%x: tensor<?x8xf32>, %t: tensor<?x8xf32>) -> tensor<f32> {
  %w = graph.read @w : tensor<8x8xf32>
  %y = graph.matmul %x, %w : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
  %l = graph.mean_squared_error %y, %t : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
graph.train_step @train {loss = @loss, optimizer = #graph.sgd<learning_rate = 0.1>}

// BAD: tfcc-retype-interface: unknown dtype 'f8' (bf16, f16 or f32)
