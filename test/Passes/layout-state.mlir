// RUN: tfcc-opt %s --tfcc-layout-state -split-input-file -verify-diagnostics | FileCheck %s

// Declaration order, each variable at a 64-byte boundary: 3x2 f32 (24 bytes)
// at 0, 2 f32 at 64, the i64 step counter at 128; 136 bytes rounded to 192.
// CHECK: module @m attributes {tfcc.state_bytes = 192 : i64, tfcc.stateful}
// CHECK: graph.variable @w {{.*}}tfcc.state_offset = 0 : i64
// CHECK: graph.variable @b {{.*}}tfcc.state_offset = 64 : i64
// CHECK: graph.variable @"train/step" {{.*}}tfcc.state_offset = 128 : i64
module @m {
  graph.variable @w : tensor<3x2xf32> = dense<0.5>
  graph.variable @b : tensor<2xf32> = dense<0.0>
  graph.variable @"train/step" : tensor<i64> = dense<0>
}

// -----

// A model without variables has an empty state, still marked stateful.
// CHECK: module @empty attributes {tfcc.state_bytes = 0 : i64, tfcc.stateful}
module @empty {
}

// -----

module @bool_variable {
  // expected-error @+1 {{variable of type 'tensor<2xi1>' cannot live in the state memory of a training model}}
  graph.variable @mask : tensor<2xi1> = dense<true>
}
