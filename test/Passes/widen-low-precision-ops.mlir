// RUN: tfcc-opt --tfcc-widen-low-precision-ops --canonicalize %s | FileCheck %s

// A matmul on bf16 runs in f32: both operands widened (each once). Its
// result is rounded to bf16 once, after the relu and transpose (which commute
// with rounding), where exp needs it; exp's result is rounded for the return.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xbf16>, %[[W:.*]]: tensor<8x4xbf16>)
// CHECK-DAG: %[[X32:.*]] = graph.cast %[[X]] : (tensor<2x8xbf16>) -> tensor<2x8xf32>
// CHECK-DAG: %[[W32:.*]] = graph.cast %[[W]] : (tensor<8x4xbf16>) -> tensor<8x4xf32>
// CHECK: %[[Y:.*]] = graph.matmul %[[X32]], %[[W32]] : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[R:.*]] = graph.relu %[[Y]] : tensor<2x4xf32>
// CHECK: %[[T:.*]] = graph.transpose %[[R]] {{.*}} -> tensor<4x2xf32>
// CHECK: %[[TB:.*]] = graph.cast %[[T]] : (tensor<4x2xf32>) -> tensor<4x2xbf16>
// CHECK: %[[TR:.*]] = graph.cast %[[TB]] : (tensor<4x2xbf16>) -> tensor<4x2xf32>
// CHECK: %[[E:.*]] = graph.exp %[[TR]] : tensor<4x2xf32>
// CHECK: %[[EB:.*]] = graph.cast %[[E]] : (tensor<4x2xf32>) -> tensor<4x2xbf16>
// CHECK: %[[Z:.*]] = graph.matmul %[[X32]], %[[W32]]
// CHECK: %[[ZB:.*]] = graph.cast %[[Z]] : (tensor<2x4xf32>) -> tensor<2x4xbf16>
// CHECK: return %[[EB]], %[[ZB]]
func.func @matmul(%x: tensor<2x8xbf16>, %w: tensor<8x4xbf16>) -> (tensor<4x2xbf16>, tensor<2x4xbf16>) {
  %y = graph.matmul %x, %w : (tensor<2x8xbf16>, tensor<8x4xbf16>) -> tensor<2x4xbf16>
  %r = graph.relu %y : tensor<2x4xbf16>
  %t = graph.transpose %r {perm = [1, 0]} : (tensor<2x4xbf16>) -> tensor<4x2xbf16>
  %e = graph.exp %t : tensor<4x2xbf16>
  %z = graph.matmul %x, %w : (tensor<2x8xbf16>, tensor<8x4xbf16>) -> tensor<2x4xbf16>
  return %e, %z : tensor<4x2xbf16>, tensor<2x4xbf16>
}

// A constant operand becomes an f32 constant of its values rounded to f16
// (1/3 -> 0.333251953), so weights stay constants the kernels pre-pack.
// CHECK-LABEL: func.func @constant_weights
// CHECK-NOT: dense<{{\[}}[0.333333343
// CHECK: %[[K:.*]] = graph.constant dense<{{\[}}[0.333251953, 2.000000e+00]]> : tensor<1x2xf32>
// CHECK: graph.matmul %{{.*}}, %[[K]] : (tensor<3x1xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
func.func @constant_weights(%x: tensor<3x1xf16>) -> tensor<3x2xf16> {
  %k32 = graph.constant dense<[[0.333333343, 2.0]]> : tensor<1x2xf32>
  %k = graph.cast %k32 : (tensor<1x2xf32>) -> tensor<1x2xf16>
  %y = graph.matmul %x, %k : (tensor<3x1xf16>, tensor<1x2xf16>) -> tensor<3x2xf16>
  return %y : tensor<3x2xf16>
}

// A bf16 constant itself (and a bf16 variable's initial value, in a model
// without training) is an f32 constant of the same values.
// CHECK-LABEL: func.func @bf16_constant_weights
// CHECK-DAG: %[[K:.*]] = graph.constant dense<{{\[}}[3.281250e-01, -2.000000e+00]]> : tensor<1x2xf32>
// CHECK-DAG: %[[V:.*]] = graph.constant dense<1.500000e+00> : tensor<2xf32>
// CHECK: graph.matmul %{{.*}}, %[[K]] : (tensor<3x1xf32>, tensor<1x2xf32>)
// CHECK: graph.add %{{.*}}, %[[V]]
graph.variable @bias16 : tensor<2xbf16> = dense<1.5>
func.func @bf16_constant_weights(%x: tensor<3x1xbf16>) -> tensor<3x2xbf16> {
  %k = graph.constant dense<[[0.328125, -2.0]]> : tensor<1x2xbf16>
  %y = graph.matmul %x, %k : (tensor<3x1xbf16>, tensor<1x2xbf16>) -> tensor<3x2xbf16>
  %b = graph.read @bias16 : tensor<2xbf16>
  %z = graph.add %y, %b : (tensor<3x2xbf16>, tensor<2xbf16>) -> tensor<3x2xbf16>
  return %z : tensor<3x2xbf16>
}

// A max pool of rounded values needs no rounding of its own: its result
// feeds the next op as it is. (The average is rounded where it is computed:
// it is also returned.)
// CHECK-LABEL: func.func @exact_ops
// CHECK: %[[A:.*]] = graph.avg_pool2d
// CHECK-NEXT: %[[AB:.*]] = graph.cast %[[A]] : {{.*}} -> tensor<1x2x2x1xbf16>
// CHECK-NEXT: %[[AR:.*]] = graph.cast %[[AB]] : {{.*}} -> tensor<1x2x2x1xf32>
// CHECK-NEXT: %[[M:.*]] = graph.max_pool2d %[[AR]]
// CHECK-NEXT: %[[S:.*]] = graph.sqrt %[[M]]
func.func @exact_ops(%x: tensor<1x4x4x1xbf16>) -> (tensor<1x1x1x1xbf16>, tensor<1x2x2x1xbf16>) {
  %a = graph.avg_pool2d %x {window = [2, 2], strides = [2, 2]} : (tensor<1x4x4x1xbf16>) -> tensor<1x2x2x1xbf16>
  %m = graph.max_pool2d %a {window = [2, 2], strides = [2, 2]} : (tensor<1x2x2x1xbf16>) -> tensor<1x1x1x1xbf16>
  %s = graph.sqrt %m : tensor<1x1x1x1xbf16>
  return %s, %a : tensor<1x1x1x1xbf16>, tensor<1x2x2x1xbf16>
}

// f32 and f64 ops are left alone.
// CHECK-LABEL: func.func @wide
// CHECK-NEXT: graph.exp %{{.*}} : tensor<2xf32>
// CHECK-NEXT: graph.exp %{{.*}} : tensor<2xf64>
func.func @wide(%x: tensor<2xf32>, %d: tensor<2xf64>) -> (tensor<2xf32>, tensor<2xf64>) {
  %a = graph.exp %x : tensor<2xf32>
  %b = graph.exp %d : tensor<2xf64>
  return %a, %b : tensor<2xf32>, tensor<2xf64>
}

// An f16 value rounded to f16 (exact: the rounding is dropped) and to bf16
// (not exact: f16 keeps 11 significant bits, bf16 8): the second rounding
// stays. Whether a value is exact is known per 16-bit type.
// CHECK-LABEL: func.func @exact_per_type
// CHECK: %[[A:.*]] = graph.cast %arg0 : (tensor<4xf16>) -> tensor<4xf32>
// CHECK: %[[B:.*]] = graph.cast %[[A]] : (tensor<4xf32>) -> tensor<4xbf16>
// CHECK: %[[C:.*]] = graph.cast %[[B]] : (tensor<4xbf16>) -> tensor<4xf32>
// CHECK: return %[[A]], %[[C]]
func.func @exact_per_type(%h: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = graph.cast %h : (tensor<4xf16>) -> tensor<4xf32>
  %f = graph.cast %a : (tensor<4xf32>) -> tensor<4xf16>
  %g = graph.cast %f : (tensor<4xf16>) -> tensor<4xf32>
  %b = graph.cast %a : (tensor<4xf32>) -> tensor<4xbf16>
  %c = graph.cast %b : (tensor<4xbf16>) -> tensor<4xf32>
  return %g, %c : tensor<4xf32>, tensor<4xf32>
}
