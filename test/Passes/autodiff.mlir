// tfcc-autodiff turns each graph.train_step into a function: forward in
// training mode, gradients, clipping, optimizer update, assignments.
// RUN: tfcc-opt %s -split-input-file -tfcc-autodiff | FileCheck %s
// The spec's training models differentiate and verify.
// RUN: tfcc-opt %spec/models/mlp_train.mlir -tfcc-autodiff | FileCheck %s --check-prefix=MLP
// RUN: tfcc-opt %spec/models/mnist_cnn_train.mlir -tfcc-autodiff | FileCheck %s --check-prefix=CNN

// SGD with Nesterov momentum, global-norm clipping and dropout. The frozen
// (trainable = false) variable gets no slot and no update.
// CHECK-LABEL: module @sgd
// CHECK-DAG: graph.variable @"train/step" : tensor<i64> = dense<0> {trainable = false}
// CHECK-DAG: graph.variable @"w/momentum" : tensor<4x3xf32> = dense<0.000000e+00> {trainable = false}
// CHECK-DAG: graph.variable @"b/momentum" : tensor<3xf32> = dense<0.000000e+00> {trainable = false}
// CHECK-NOT: frozen/momentum
// CHECK-NOT: graph.train_step
// CHECK-LABEL: func.func @train(
// CHECK-SAME: %[[X:.*]]: tensor<?x4xf32>, %[[T:.*]]: tensor<?x3xf32>) -> tensor<f32>
// CHECK: %[[STEP:.*]] = graph.read @"train/step" : tensor<i64>
// CHECK: %[[W:.*]] = graph.read @w
// Forward (the private @net inlined), dropout in training mode:
// CHECK: %[[H:.*]] = graph.dense %[[X]], %[[W]]
// CHECK: %[[R:.*]] = graph.relu %[[H]]
// CHECK: %[[MASK:.*]] = graph.dropout_mask %[[R]], %[[STEP]] {rate = 5.000000e-01 : f32, seed = 3 : i64}
// CHECK: %[[D:.*]] = graph.mul %[[R]], %[[MASK]]
// CHECK: %[[LOSS:.*]] = graph.mean_squared_error
// Backward: through the dropout mask, relu and dense (kernel: x^T dy).
// CHECK: graph.mul %{{.*}}, %[[MASK]]
// CHECK: graph.select
// CHECK: %[[GW:.*]] = graph.matmul %[[X]], %{{.*}} {transpose_a = true} : (tensor<?x4xf32>, tensor<?x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[GB:.*]] = graph.reduce_sum %{{.*}} {axes = [0]} : (tensor<?x3xf32>) -> tensor<3xf32>
// Step counter, then clip_by_global_norm: g * 2 / max(sqrt(sum g^2), 2).
// CHECK: %[[NEXT:.*]] = graph.add %[[STEP]], %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: %[[NORM:.*]] = graph.sqrt
// CHECK: %[[MAX:.*]] = graph.maximum %[[NORM]], %[[CLIP:.*]] :
// CHECK: %[[FACTOR:.*]] = graph.div %[[CLIP]], %[[MAX]]
// CHECK: %[[GWC:.*]] = graph.mul %[[GW]], %[[FACTOR]]
// Nesterov: m = 0.9 m - 0.1 g; w += 0.9 m - 0.1 g.
// CHECK: %[[LRG:.*]] = graph.mul %{{.*}}, %[[GWC]]
// CHECK: %[[M:.*]] = graph.read @"w/momentum"
// CHECK: %[[MM:.*]] = graph.mul %{{.*}}, %[[M]]
// CHECK: %[[MNEW:.*]] = graph.sub %[[MM]], %[[LRG]]
// CHECK: %[[NM:.*]] = graph.mul %{{.*}}, %[[MNEW]]
// CHECK: %[[NSTEP:.*]] = graph.sub %[[NM]], %[[LRG]]
// CHECK: %[[WNEW:.*]] = graph.add %[[W]], %[[NSTEP]]
// CHECK: graph.assign @"w/momentum", %[[MNEW]] : tensor<4x3xf32>
// CHECK: graph.assign @w, %[[WNEW]] : tensor<4x3xf32>
// CHECK: graph.assign @"b/momentum"
// CHECK: graph.assign @b
// CHECK-NOT: graph.assign @frozen
// CHECK: graph.assign @"train/step", %[[NEXT]] : tensor<i64>
// CHECK-NEXT: return %[[LOSS]] : tensor<f32>
module @sgd {
  graph.variable @w : tensor<4x3xf32> = dense<0.5>
  graph.variable @b : tensor<3xf32> = dense<0.0>
  graph.variable @frozen : tensor<3xf32> = dense<1.0> {trainable = false}

  func.func private @net(%x: tensor<?x4xf32>) -> tensor<?x3xf32> {
    %w = graph.read @w : tensor<4x3xf32>
    %b = graph.read @b : tensor<3xf32>
    %h = graph.dense %x, %w, %b : (tensor<?x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    %r = graph.relu %h : tensor<?x3xf32>
    %d = graph.dropout %r {rate = 0.5 : f32, seed = 3} : tensor<?x3xf32>
    %f = graph.read @frozen : tensor<3xf32>
    %y = graph.mul %d, %f : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    return %y : tensor<?x3xf32>
  }

  func.func @loss(%x: tensor<?x4xf32>, %t: tensor<?x3xf32>) -> tensor<f32> {
    %y = func.call @net(%x) : (tensor<?x4xf32>) -> tensor<?x3xf32>
    %l = graph.mean_squared_error %y, %t : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<f32>
    return %l : tensor<f32>
  }

  graph.train_step @train {loss = @loss,
      optimizer = #graph.sgd<learning_rate = 1.0e-01, momentum = 0.9, nesterov = true>,
      clip_norm = 2.0 : f32}
}

// -----

// Adam with batch_norm in training mode: batch statistics (graph.moments:
// row 0 the mean, row 1 the variance), batch_norm_train on them, moving
// statistics assigned with momentum 0.9, the gradients through
// batch_norm_grad_sums, bias-corrected step size.
// CHECK-LABEL: module @adam
// CHECK-DAG: graph.variable @"gamma/adam_m" : tensor<2xf32>
// CHECK-DAG: graph.variable @"gamma/adam_v" : tensor<2xf32>
// CHECK-NOT: mean/adam
// CHECK-LABEL: func.func @step(
// CHECK: %[[GAMMA:.*]] = graph.read @gamma
// CHECK: %[[MEAN:.*]] = graph.read @mean
// CHECK: %[[M:.*]] = graph.moments %[[X:.*]] : (tensor<?x2xf32>) -> tensor<2x2xf32>
// CHECK: %[[Y:.*]] = graph.batch_norm_train %[[X]], %[[M]], %[[GAMMA]], %{{.*}} {epsilon = 1.000000e-03 : f32}
// CHECK: %[[BMEAN0:.*]] = graph.slice %[[M]] {limits = [1, 2], starts = [0, 0], strides = [1, 1]}
// CHECK: %[[BMEAN:.*]] = graph.reshape %[[BMEAN0]] : (tensor<1x2xf32>) -> tensor<2xf32>
// CHECK: graph.slice %[[M]] {limits = [2, 2], starts = [1, 0], strides = [1, 1]}
// CHECK: graph.sparse_softmax_cross_entropy %[[Y]]
// x is an input, so only gamma and beta get gradients (rows 1 and 0 of
// the sums, gamma's scaled by rsqrt(variance + epsilon)):
// CHECK: %[[S:.*]] = graph.batch_norm_grad_sums %[[X]], %{{.*}}, %[[M]]
// CHECK: graph.slice %[[S]] {limits = [2, 2], starts = [1, 0], strides = [1, 1]}
// CHECK: graph.rsqrt
// CHECK: graph.slice %[[S]] {limits = [1, 2], starts = [0, 0], strides = [1, 1]}
// CHECK-NOT: graph.batch_norm_train_grad
// CHECK-NOT: graph.batch_norm %
// The update: moving statistics first.
// CHECK: %[[MOM:.*]] = graph.constant dense<0.899999976> : tensor<f32>
// CHECK: %[[OLD:.*]] = graph.mul %[[MEAN]], %[[MOM]]
// CHECK: %[[NEW:.*]] = graph.mul %[[BMEAN]], %{{.*}}
// CHECK: %[[MOVING:.*]] = graph.add %[[OLD]], %[[NEW]]
// lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t) with t = step + 1:
// CHECK: %[[T:.*]] = graph.cast %{{.*}} : (tensor<i64>) -> tensor<f32>
// CHECK: graph.pow %{{.*}}, %[[T]]
// CHECK: graph.sqrt
// CHECK: graph.pow %{{.*}}, %[[T]]
// CHECK: graph.assign @mean, %[[MOVING]] : tensor<2xf32>
// CHECK: graph.assign @variance
// CHECK: graph.assign @"gamma/adam_m"
// CHECK: graph.assign @"gamma/adam_v"
// CHECK: graph.assign @gamma
// CHECK: graph.assign @"beta/adam_m"
// CHECK: graph.assign @"beta/adam_v"
// CHECK: graph.assign @beta
// CHECK: graph.assign @"step/step"
module @adam {
  graph.variable @gamma : tensor<2xf32> = dense<1.0>
  graph.variable @beta : tensor<2xf32> = dense<0.0>
  graph.variable @mean : tensor<2xf32> = dense<0.0> {trainable = false}
  graph.variable @variance : tensor<2xf32> = dense<1.0> {trainable = false}

  func.func @loss(%x: tensor<?x2xf32>, %label: tensor<?xi32>) -> tensor<f32> {
    %g = graph.read @gamma : tensor<2xf32>
    %b = graph.read @beta : tensor<2xf32>
    %m = graph.read @mean : tensor<2xf32>
    %v = graph.read @variance : tensor<2xf32>
    %n = graph.batch_norm %x, %g, %b, %m, %v {epsilon = 1.0e-03 : f32, momentum = 0.9 : f32}
        : (tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
    %l = graph.sparse_softmax_cross_entropy %n, %label : (tensor<?x2xf32>, tensor<?xi32>) -> tensor<f32>
    return %l : tensor<f32>
  }

  graph.train_step @step {loss = @loss, optimizer = #graph.adam<>}
}

// MLP-LABEL: func.func @train_step(
// MLP-COUNT-4: graph.assign @"{{.*}}/adam_m"
// MLP: graph.assign @"train_step/step"
// CNN-LABEL: func.func @train_step(
// CNN: graph.dropout_mask
// CNN: graph.max_pool2d_grad
// CNN: graph.conv2d_backprop_filter
// The batch norm after conv1, whose output is active: the input gradient.
// CNN: %[[S:.*]] = graph.batch_norm_grad_sums %[[C1:.*]], %[[D:.*]], %[[M:.*]] : (tensor<?x26x26x32xf32>, tensor<?x26x26x32xf32>, tensor<2x32xf32>) -> tensor<2x32xf32>
// CNN: %[[DX:.*]] = graph.batch_norm_train_grad %[[C1]], %[[D]], %[[M]], %{{.*}}, %[[S]] {epsilon = 1.000000e-03 : f32}
// CNN: graph.conv2d_backprop_filter %{{.*}}, %[[DX]]
// CNN: graph.assign @bn1_mean
// CNN: graph.assign @bn1_variance
// CNN: graph.assign @"train_step/step"
