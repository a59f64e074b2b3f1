// Round trip of the training IR: #graph.sgd / #graph.adam (keys in any order,
// omitted keys take Keras' defaults, every key printed) and graph.train_step.
// RUN: tfcc-opt %s | tfcc-opt | FileCheck %s
// RUN: tfcc-opt %s --mlir-print-op-generic | tfcc-opt | FileCheck %s
// The spec's training models parse, verify and round-trip.
// RUN: tfcc-opt %spec/models/mlp_train.mlir | tfcc-opt | FileCheck %s --check-prefix=SPEC-MLP
// RUN: tfcc-opt %spec/models/mnist_cnn_train.mlir | tfcc-opt | FileCheck %s --check-prefix=SPEC-CNN

// CHECK-LABEL: module @train
module @train {
  func.func @loss(%x: tensor<?x4xf32>) -> tensor<f32> {
    %0 = graph.reduce_mean %x {axes = [0, 1]} : (tensor<?x4xf32>) -> tensor<f32>
    return %0 : tensor<f32>
  }

  // CHECK: graph.train_step @adam_spec {loss = @loss, optimizer = #graph.adam<learning_rate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon = 1.0e-07>, clip_norm = 1.000000e+00 : f32}
  graph.train_step @adam_spec {loss = @loss,
      optimizer = #graph.adam<learning_rate = 1.0e-03, beta1 = 0.9, beta2 = 0.999, epsilon = 1.0e-07>,
      clip_norm = 1.0 : f32}

  // Keys in another order; the omitted ones take the defaults.
  // CHECK: graph.train_step @adam_partial {loss = @loss, optimizer = #graph.adam<learning_rate = 0.02, beta1 = 0.9, beta2 = 0.99, epsilon = 1.0e-07>}
  graph.train_step @adam_partial {optimizer = #graph.adam<beta2 = 0.99, learning_rate = 2.0e-02>, loss = @loss}

  // CHECK: graph.train_step @adam_defaults {loss = @loss, optimizer = #graph.adam<learning_rate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon = 1.0e-07>}
  graph.train_step @adam_defaults {loss = @loss, optimizer = #graph.adam<>}

  // CHECK: graph.train_step @sgd_spec {loss = @loss, optimizer = #graph.sgd<learning_rate = 0.01, momentum = 0.0, nesterov = false>}
  graph.train_step @sgd_spec {loss = @loss,
      optimizer = #graph.sgd<learning_rate = 1.0e-02, momentum = 0.0, nesterov = false>}

  // CHECK: graph.train_step @sgd_nesterov {loss = @loss, optimizer = #graph.sgd<learning_rate = 0.01, momentum = 0.9, nesterov = true>, clip_norm = 5.000000e-01 : f32}
  graph.train_step @sgd_nesterov {loss = @loss,
      optimizer = #graph.sgd<nesterov = true, momentum = 0.9>, clip_norm = 0.5 : f32}

  // CHECK: graph.train_step @sgd_defaults {loss = @loss, optimizer = #graph.sgd<learning_rate = 0.01, momentum = 0.0, nesterov = false>}
  graph.train_step @sgd_defaults {loss = @loss, optimizer = #graph.sgd<>}

  // Exact decimals survive: the printer writes the shortest round-tripping form.
  // CHECK: graph.train_step @sgd_small {loss = @loss, optimizer = #graph.sgd<learning_rate = 1.0e-05, momentum = 0.125, nesterov = false>}
  graph.train_step @sgd_small {loss = @loss, optimizer = #graph.sgd<momentum = 0.125, learning_rate = 1.0e-05>}
}

// SPEC-MLP-LABEL: module @mlp
// SPEC-MLP: func.func @loss(%{{.*}}: tensor<?x784xf32>, %{{.*}}: tensor<?xi32>) -> tensor<f32>
// SPEC-MLP: graph.train_step @train_step {loss = @loss, optimizer = #graph.adam<learning_rate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon = 1.0e-07>, clip_norm = 1.000000e+00 : f32}

// SPEC-CNN-LABEL: module @mnist_cnn
// SPEC-CNN: graph.dropout
// SPEC-CNN: func.func @loss(%{{.*}}: tensor<?x28x28x1xf32>, %{{.*}}: tensor<?xi32>) -> tensor<f32>
// SPEC-CNN: graph.train_step @train_step {loss = @loss, optimizer = #graph.adam<learning_rate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon = 1.0e-07>, clip_norm = 1.000000e+00 : f32}
