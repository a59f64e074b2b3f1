// The compiler-internal training ops made by tfcc-autodiff parse, verify
// and round-trip; their verifiers reject malformed uses.
// RUN: tfcc-opt %s -split-input-file -verify-diagnostics | tfcc-opt -split-input-file | FileCheck %s

module @ops {
  graph.variable @w : tensor<2x3xf32> = dense<0.0>

  // CHECK-LABEL: func.func @assign
  // CHECK: graph.assign @w, %{{.*}} : tensor<2x3xf32>
  func.func @assign(%v: tensor<2x3xf32>) {
    graph.assign @w, %v : tensor<2x3xf32>
    return
  }

  // CHECK-LABEL: func.func @shapes
  // CHECK: graph.dropout_mask %{{.*}}, %{{.*}} {rate = 2.500000e-01 : f32, seed = 7 : i64} : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  // CHECK: graph.broadcast_like %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.element_count %{{.*}} {axes = [0, 1]} : (tensor<?x4xf32>) -> tensor<f32>
  func.func @shapes(%x: tensor<?x4xf32>, %step: tensor<i64>, %r: tensor<1x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<f32>) {
    %m = graph.dropout_mask %x, %step {rate = 0.25 : f32, seed = 7} : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
    %b = graph.broadcast_like %r, %x : (tensor<1x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    %n = graph.element_count %x {axes = [0, 1]} : (tensor<?x4xf32>) -> tensor<f32>
    return %m, %b, %n : tensor<?x4xf32>, tensor<?x4xf32>, tensor<f32>
  }

  // CHECK-LABEL: func.func @conv
  // CHECK: graph.conv2d_backprop_input %{{.*}}, %{{.*}} {groups = 2 : i64, input_size = [8, 8], padding = "same", strides = [2, 2]} : (tensor<?x4x4x6xf32>, tensor<3x3x2x6xf32>) -> tensor<?x8x8x4xf32>
  // CHECK: graph.conv2d_backprop_filter %{{.*}}, %{{.*}} {groups = 2 : i64, kernel_size = [3, 3], padding = "same", strides = [2, 2]} : (tensor<?x8x8x4xf32>, tensor<?x4x4x6xf32>) -> tensor<3x3x2x6xf32>
  func.func @conv(%dy: tensor<?x4x4x6xf32>, %k: tensor<3x3x2x6xf32>, %x: tensor<?x8x8x4xf32>) -> (tensor<?x8x8x4xf32>, tensor<3x3x2x6xf32>) {
    %dx = graph.conv2d_backprop_input %dy, %k {input_size = [8, 8], strides = [2, 2], padding = "same", groups = 2}
        : (tensor<?x4x4x6xf32>, tensor<3x3x2x6xf32>) -> tensor<?x8x8x4xf32>
    %dk = graph.conv2d_backprop_filter %x, %dy {kernel_size = [3, 3], strides = [2, 2], padding = "same", groups = 2}
        : (tensor<?x8x8x4xf32>, tensor<?x4x4x6xf32>) -> tensor<3x3x2x6xf32>
    return %dx, %dk : tensor<?x8x8x4xf32>, tensor<3x3x2x6xf32>
  }

  // CHECK-LABEL: func.func @pool
  // CHECK: graph.max_pool2d_grad %{{.*}}, %{{.*}} {strides = [2, 2], window = [2, 2]} : (tensor<1x5x5x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x5x5x3xf32>
  // CHECK: graph.avg_pool2d_grad %{{.*}} {input_size = [5, 5], padding = "same", strides = [2, 2], window = [2, 2]} : (tensor<1x3x3x3xf32>) -> tensor<1x5x5x3xf32>
  // CHECK: graph.resize_grad %{{.*}} {input_size = [2, 3], mode = "bilinear"} : (tensor<1x4x6x3xf32>) -> tensor<1x2x3x3xf32>
  // CHECK: graph.gather_grad %{{.*}}, %{{.*}} {axis = 0 : i64, size = 10 : i64} : (tensor<?x5x8xf32>, tensor<?x5xi32>) -> tensor<10x8xf32>
  func.func @pool(%x: tensor<1x5x5x3xf32>, %dy: tensor<1x2x2x3xf32>, %dy2: tensor<1x3x3x3xf32>,
                  %dy3: tensor<1x4x6x3xf32>, %dy4: tensor<?x5x8xf32>, %ids: tensor<?x5xi32>)
      -> (tensor<1x5x5x3xf32>, tensor<1x5x5x3xf32>, tensor<1x2x3x3xf32>, tensor<10x8xf32>) {
    %a = graph.max_pool2d_grad %x, %dy {window = [2, 2], strides = [2, 2]} : (tensor<1x5x5x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x5x5x3xf32>
    %b = graph.avg_pool2d_grad %dy2 {input_size = [5, 5], window = [2, 2], strides = [2, 2], padding = "same"} : (tensor<1x3x3x3xf32>) -> tensor<1x5x5x3xf32>
    %c = graph.resize_grad %dy3 {input_size = [2, 3], mode = "bilinear"} : (tensor<1x4x6x3xf32>) -> tensor<1x2x3x3xf32>
    %d = graph.gather_grad %dy4, %ids {axis = 0, size = 10} : (tensor<?x5x8xf32>, tensor<?x5xi32>) -> tensor<10x8xf32>
    return %a, %b, %c, %d : tensor<1x5x5x3xf32>, tensor<1x5x5x3xf32>, tensor<1x2x3x3xf32>, tensor<10x8xf32>
  }
}

// -----

module @bad_assign {
  graph.variable @w : tensor<2x3xf32> = dense<0.0>
  func.func @f(%v: tensor<3x2xf32>) {
    // expected-error @+1 {{'graph.assign' op value type 'tensor<3x2xf32>' differs from the type 'tensor<2x3xf32>' of variable @w}}
    graph.assign @w, %v : tensor<3x2xf32>
    return
  }
}

// -----

func.func @bad_mask(%x: tensor<4xf32>, %s: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.dropout_mask' op attribute 'rate' = 1.000000e+00 must be in [0, 1)}}
  %m = graph.dropout_mask %x, %s {rate = 1.0 : f32} : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

func.func @bad_broadcast(%v: tensor<3xf32>, %like: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'graph.broadcast_like' op value 'tensor<3xf32>' does not broadcast to 'tensor<2x4xf32>'}}
  %b = graph.broadcast_like %v, %like : (tensor<3xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %b : tensor<2x4xf32>
}

// -----

func.func @bad_count(%x: tensor<2x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'graph.element_count' op axis 2 is out of range for 'tensor<2x4xf32>'}}
  %n = graph.element_count %x {axes = [2]} : (tensor<2x4xf32>) -> tensor<f32>
  return %n : tensor<f32>
}

// -----

func.func @bad_conv_input(%dy: tensor<1x3x3x6xf32>, %k: tensor<3x3x4x6xf32>) -> tensor<1x8x8x4xf32> {
  // expected-error @+1 {{'graph.conv2d_backprop_input' op output gradient 'tensor<1x3x3x6xf32>' does not match the forward output size 6 of spatial dim 0}}
  %dx = graph.conv2d_backprop_input %dy, %k {input_size = [8, 8]} : (tensor<1x3x3x6xf32>, tensor<3x3x4x6xf32>) -> tensor<1x8x8x4xf32>
  return %dx : tensor<1x8x8x4xf32>
}

// -----

func.func @bad_conv_filter(%x: tensor<1x8x8x4xf32>, %dy: tensor<1x6x6x6xf32>) -> tensor<3x3x4x5xf32> {
  // expected-error @+1 {{'graph.conv2d_backprop_filter' op result 'tensor<3x3x4x5xf32>' does not match the expected shape [3x3x4x6]}}
  %dk = graph.conv2d_backprop_filter %x, %dy {kernel_size = [3, 3]} : (tensor<1x8x8x4xf32>, tensor<1x6x6x6xf32>) -> tensor<3x3x4x5xf32>
  return %dk : tensor<3x3x4x5xf32>
}

// -----

func.func @bad_pool(%x: tensor<1x5x5x3xf32>, %dy: tensor<1x2x2x3xf32>) -> tensor<1x5x5x3xf32> {
  // expected-error @+1 {{'graph.max_pool2d_grad' op attribute 'window' must hold 2 integers >= 1}}
  %a = graph.max_pool2d_grad %x, %dy {window = [2], strides = [2, 2]} : (tensor<1x5x5x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x5x5x3xf32>
  return %a : tensor<1x5x5x3xf32>
}

// -----

func.func @bad_resize(%dy: tensor<1x4x6x3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{'graph.resize_grad' op attribute 'mode' must be "nearest" or "bilinear", got "cubic"}}
  %c = graph.resize_grad %dy {input_size = [2, 3], mode = "cubic"} : (tensor<1x4x6x3xf32>) -> tensor<1x2x3x3xf32>
  return %c : tensor<1x2x3x3xf32>
}

// -----

func.func @bad_gather(%dy: tensor<5x8xf32>, %ids: tensor<5xi32>) -> tensor<10x8xf32> {
  // expected-error @+1 {{'graph.gather_grad' op result 'tensor<10x8xf32>' must have 9 elements along axis 0}}
  %d = graph.gather_grad %dy, %ids {axis = 0, size = 9} : (tensor<5x8xf32>, tensor<5xi32>) -> tensor<10x8xf32>
  return %d : tensor<10x8xf32>
}
