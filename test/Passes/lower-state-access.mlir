// RUN: tfcc-opt %s --tfcc-lower-state-access -split-input-file -verify-diagnostics | FileCheck %s

// Each public function gets the state memory as a last argument; a read is a
// view of it (copied, since the function also assigns), an assign a store
// into the view.
// CHECK-LABEL: func.func @train
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>, %[[STATE:.*]]: memref<128xi8>) -> tensor<2xf32>
// CHECK: %[[OFF:.*]] = arith.constant 64 : index
// CHECK: %[[VIEW:.*]] = memref.view %[[STATE]][%[[OFF]]][] : memref<128xi8> to memref<2xf32>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[VIEW]] restrict : memref<2xf32>
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[T]]) : tensor<2xf32>
// CHECK: %[[NEW:.*]] = graph.add %[[COPY]], %[[X]]
// CHECK: %[[VIEW2:.*]] = memref.view %[[STATE]]
// CHECK: bufferization.materialize_in_destination %[[NEW]] in restrict writable %[[VIEW2]]
// CHECK-NOT: graph.read
// CHECK-NOT: graph.assign
// A function that only reads takes the view without a copy.
// CHECK-LABEL: func.func @read_only
// CHECK-SAME: %{{.*}}: memref<128xi8>
// CHECK: bufferization.to_tensor
// CHECK-NOT: alloc_tensor
module @m attributes {tfcc.state_bytes = 128 : i64, tfcc.stateful} {
  graph.variable @a : tensor<4xf32> = dense<0.0> {tfcc.state_offset = 0 : i64}
  graph.variable @b : tensor<2xf32> = dense<0.0> {tfcc.state_offset = 64 : i64}
  func.func @train(%x: tensor<2xf32>) -> tensor<2xf32> {
    %b = graph.read @b : tensor<2xf32>
    %n = graph.add %b, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    graph.assign @b, %n : tensor<2xf32>
    return %n : tensor<2xf32>
  }
  func.func @read_only() -> tensor<4xf32> {
    %a = graph.read @a : tensor<4xf32>
    return %a : tensor<4xf32>
  }
}

// -----

// Without a state layout (an inference model) nothing changes.
// CHECK-LABEL: func.func @inference
// CHECK-SAME: (%{{.*}}: tensor<2xf32>) -> tensor<2xf32>
// CHECK: graph.read @c
module @inference {
  graph.variable @c : tensor<2xf32> = dense<1.0>
  func.func @inference(%x: tensor<2xf32>) -> tensor<2xf32> {
    %c = graph.read @c : tensor<2xf32>
    %y = graph.add %c, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %y : tensor<2xf32>
  }
}

// -----

module @unplaced attributes {tfcc.state_bytes = 64 : i64, tfcc.stateful} {
  // expected-error @+1 {{variable 'c' has no place in the state memory (tfcc.state_offset, set by tfcc-layout-state)}}
  graph.variable @c : tensor<2xf32> = dense<1.0>
  func.func @f() -> tensor<2xf32> {
    %c = graph.read @c : tensor<2xf32>
    return %c : tensor<2xf32>
  }
}

// -----

module @private_access attributes {tfcc.state_bytes = 64 : i64, tfcc.stateful} {
  graph.variable @c : tensor<2xf32> = dense<1.0> {tfcc.state_offset = 0 : i64}
  func.func private @helper() -> tensor<2xf32> {
    // expected-error @+1 {{a variable access in private function 'helper' survived inlining}}
    %c = graph.read @c : tensor<2xf32>
    return %c : tensor<2xf32>
  }
}
