// tfcc-autodiff{split=true}: the train step's two halves follow it and share
// its state. compute_gradients returns the loss, the gradients of the
// trainable variables in module order as one flat vector and the batch
// statistics (mean, then variance) as another; apply_gradients slices them
// back, updates the moving statistics and the variables, and returns the step
// counter. Numerical agreement with the whole step: test/tools/split-train-step.test.
// RUN: tfcc-opt %s -split-input-file -tfcc-autodiff='split=true' | FileCheck %s
// RUN: tfcc-opt %s -split-input-file -tfcc-autodiff | FileCheck %s --check-prefix=WHOLE

// WHOLE-NOT: compute_gradients
// WHOLE-NOT: apply_gradients

// CHECK-LABEL: module @bn
// CHECK: func.func @train_step(%arg0: tensor<?x4xf32>, %arg1: tensor<?xi32>) -> tensor<f32>
// CHECK: graph.assign @"train_step/step"
// CHECK: func.func @compute_gradients(%arg0: tensor<?x4xf32>, %arg1: tensor<?xi32>)
// CHECK-SAME: -> (tensor<f32> {tfcc.name = "loss"}, tensor<12xf32> {tfcc.name = "gradients"}, tensor<4xf32> {tfcc.name = "batch_statistics"})
// CHECK-NOT: graph.assign
// CHECK: %[[MOMENTS:.*]] = graph.moments
// CHECK: %[[WGRAD:.*]] = graph.matmul %arg0, %{{.*}} {transpose_a = true}
// CHECK: %[[FLATW:.*]] = graph.reshape %[[WGRAD]] : (tensor<4x2xf32>) -> tensor<8xf32>
// CHECK: %[[GRADS:.*]] = graph.concat %[[FLATW]], %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<8xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<12xf32>
// CHECK: %[[STATS:.*]] = graph.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
// CHECK: return %{{.*}}, %[[GRADS]], %[[STATS]]
// CHECK: func.func @apply_gradients(%arg0: tensor<12xf32> {tfcc.name = "gradients"}, %arg1: tensor<4xf32> {tfcc.name = "batch_statistics"}) -> (tensor<i64> {tfcc.name = "step"})
// CHECK: %[[STEP:.*]] = graph.read @"train_step/step"
// CHECK: graph.slice %arg0 {limits = [8], starts = [0], strides = [1]}
// CHECK: graph.slice %arg0 {limits = [12], starts = [10], strides = [1]}
// CHECK: graph.slice %arg1 {limits = [2], starts = [0], strides = [1]}
// CHECK: graph.slice %arg1 {limits = [4], starts = [2], strides = [1]}
// CHECK-NOT: graph.matmul
// CHECK: graph.assign @mean
// CHECK: graph.assign @var
// CHECK: graph.assign @"w/adam_m"
// CHECK: graph.assign @w
// CHECK: graph.assign @"train_step/step", %[[NEXT:.*]] : tensor<i64>
// CHECK: return %[[NEXT]] : tensor<i64>
module @bn {
  graph.variable @w : tensor<4x2xf32> = dense<0.5>
  graph.variable @g : tensor<2xf32> = dense<1.0>
  graph.variable @b : tensor<2xf32> = dense<0.0>
  graph.variable @mean : tensor<2xf32> = dense<0.0> {trainable = false}
  graph.variable @var : tensor<2xf32> = dense<1.0> {trainable = false}
  func.func @loss(%x: tensor<?x4xf32>, %y: tensor<?xi32>) -> tensor<f32> {
    %w = graph.read @w : tensor<4x2xf32>
    %h = graph.matmul %x, %w : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    %g = graph.read @g : tensor<2xf32>
    %b = graph.read @b : tensor<2xf32>
    %m = graph.read @mean : tensor<2xf32>
    %v = graph.read @var : tensor<2xf32>
    %n = graph.batch_norm %h, %g, %b, %m, %v {epsilon = 1.0e-03 : f32, momentum = 0.9 : f32} : (tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
    %l = graph.sparse_softmax_cross_entropy %n, %y : (tensor<?x2xf32>, tensor<?xi32>) -> tensor<f32>
    return %l : tensor<f32>
  }
  graph.train_step @train_step {loss = @loss, optimizer = #graph.adam<learning_rate = 1.0e-02>}
}

// -----

// Another step name prefixes the halves; without batch norm there is no
// statistics vector; f64 gradients make an f64 vector.
// CHECK-LABEL: module @f64
// CHECK: func.func @fit_compute_gradients(%arg0: tensor<3x4xf64>) -> (tensor<f32> {tfcc.name = "loss"}, tensor<8xf64> {tfcc.name = "gradients"})
// CHECK: func.func @fit_apply_gradients(%arg0: tensor<8xf64> {tfcc.name = "gradients"}) -> (tensor<i64> {tfcc.name = "step"})
module @f64 {
  graph.variable @k : tensor<4x2xf64> = dense<0.5>
  func.func @loss(%x: tensor<3x4xf64>) -> tensor<f32> {
    %k = graph.read @k : tensor<4x2xf64>
    %y = graph.matmul %x, %k : (tensor<3x4xf64>, tensor<4x2xf64>) -> tensor<3x2xf64>
    %m = graph.reduce_mean %y {axes = [0, 1]} : (tensor<3x2xf64>) -> tensor<f64>
    %l = graph.cast %m : (tensor<f64>) -> tensor<f32>
    return %l : tensor<f32>
  }
  graph.train_step @fit {loss = @loss, optimizer = #graph.sgd<>}
}
