// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -split-input-file | FileCheck %s
// The compiler-internal training ops (Training.cpp); their numerics are
// checked against the interpreter in test/tools/training-ops.test.

// Dropout: splitmix64 of seed * golden + step, then of key + the row-major
// element index; kept when (hash >> 40) * 2^-24 >= rate.
// CHECK-LABEL: func.func @dropout
// CHECK: %[[STEP:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK: arith.addi %{{.*}}, %[[STEP]] : i64
// CHECK: arith.constant -7046029254386353131 : i64
// CHECK: arith.constant -4658895280553007687 : i64
// CHECK: arith.constant -7723592293110705685 : i64
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.shrui %{{.*}}, %{{.*}} : i64
// CHECK: arith.uitofp %{{.*}} : i64 to f64
// CHECK: arith.cmpf oge
// CHECK: arith.select
func.func @dropout(%x: tensor<?x4xf32>, %step: tensor<i64>) -> tensor<?x4xf32> {
  %m = graph.dropout_mask %x, %step {rate = 2.500000e-01 : f32, seed = 7 : i64} : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  return %m : tensor<?x4xf32>
}

// -----

// CHECK: #[[BCAST:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @broadcast_like
// CHECK: %[[DIM:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4xf32>
// CHECK: tensor.empty(%[[DIM]]) : tensor<?x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[BCAST]], #{{.*}}]
func.func @broadcast_like(%v: tensor<1x4xf32>, %like: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = graph.broadcast_like %v, %like : (tensor<1x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @element_count
// CHECK: tensor.dim
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: tensor.from_elements %{{.*}} : tensor<f32>
func.func @element_count(%x: tensor<?x4xf32>) -> tensor<f32> {
  %n = graph.element_count %x {axes = [0, 1]} : (tensor<?x4xf32>) -> tensor<f32>
  return %n : tensor<f32>
}

// -----

// The input gradient: dy strided into a zero tensor padded by
// (k - 1) * dilation - pad_before, convolved with the flipped kernel.
// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1, d2, d3) -> (-d0 + 2, -d1 + 2, d2, d3)>
// CHECK-DAG: #[[DY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d3, d7)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d4, d3, d7)>
// CHECK-DAG: #[[DX:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv_backprop_input
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 2, 2, 0] [%{{.*}}, 4, 4, 6] [1, 2, 2, 1] : tensor<?x4x4x6xf32> into tensor<?x10x10x6xf32>
// CHECK: linalg.generic {indexing_maps = [#[[FLIP]], #{{.*}}]
// CHECK: tensor.expand_shape {{.*}} into tensor<?x10x10x2x3xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<3x3x2x2x3xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<?x8x8x2x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[DY]], #[[K]], #[[DX]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.collapse_shape {{.*}} into tensor<?x8x8x4xf32>
func.func @conv_backprop_input(%dy: tensor<?x4x4x6xf32>, %k: tensor<3x3x2x6xf32>) -> tensor<?x8x8x4xf32> {
  %dx = graph.conv2d_backprop_input %dy, %k {groups = 2 : i64, input_size = [8, 8], padding = "same", strides = [2, 2]} : (tensor<?x4x4x6xf32>, tensor<3x3x2x6xf32>) -> tensor<?x8x8x4xf32>
  return %dx : tensor<?x8x8x4xf32>
}

// -----

// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6 * 2 + d0, d7 * 2 + d1, d3, d2)>
// CHECK-DAG: #[[DY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7, d3, d4)>
// CHECK-DAG: #[[DK:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv_backprop_filter
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 1, 1, 0]
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[DY]], #[[DK]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<3x3x2x2x3xf32>)
// CHECK: tensor.collapse_shape {{.*}} into tensor<3x3x2x6xf32>
func.func @conv_backprop_filter(%x: tensor<?x8x8x4xf32>, %dy: tensor<?x4x4x6xf32>) -> tensor<3x3x2x6xf32> {
  %dk = graph.conv2d_backprop_filter %x, %dy {groups = 2 : i64, kernel_size = [3, 3], padding = "same", strides = [2, 2]} : (tensor<?x8x8x4xf32>, tensor<?x4x4x6xf32>) -> tensor<3x3x2x6xf32>
  return %dk : tensor<3x3x2x6xf32>
}

// -----

// The linalg lowering of max_pool2d_grad (f64 here: float32 goes to the
// runtime kernel, convert-graph-to-linalg-kernels.mlir): the first maximum
// of each window as a tap index, then each input gathers the windows that
// chose it.
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d3)>
// CHECK-DAG: #[[TAPS:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool_grad
// CHECK: %[[NONE:.*]] = arith.constant -1 : i64
// CHECK: %[[TAP0:.*]] = linalg.fill ins(%[[NONE]] : i64) outs(%{{.*}} : tensor<1x2x2x3xi64>)
// CHECK: %[[ARG:.*]]:2 = linalg.generic {indexing_maps = [#[[WIN]], #[[TAPS]], #[[OUT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: outs(%{{.*}}, %[[TAP0]] : tensor<1x2x2x3xf64>, tensor<1x2x2x3xi64>)
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf ogt
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f64, i64
// CHECK: linalg.generic {indexing_maps = [#[[TAPS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK: arith.remsi
// CHECK: tensor.extract %{{.*}} : tensor<1x2x2x3xf64>
// CHECK: tensor.extract %[[ARG]]#1
// CHECK: arith.addf
// CHECK: arith.select
func.func @max_pool_grad(%x: tensor<1x5x5x3xf64>, %dy: tensor<1x2x2x3xf64>) -> tensor<1x5x5x3xf64> {
  %dx = graph.max_pool2d_grad %x, %dy {strides = [2, 2], window = [2, 2]} : (tensor<1x5x5x3xf64>, tensor<1x2x2x3xf64>) -> tensor<1x5x5x3xf64>
  return %dx : tensor<1x5x5x3xf64>
}

// -----

// positive_only: a window maximum not above zero keeps no tap (-1) before
// the gather.
// CHECK-LABEL: func.func @max_pool_grad_positive_only
// CHECK: %[[ARG:.*]]:2 = linalg.generic
// CHECK: %[[MASKED:.*]] = linalg.generic {{.*}} ins(%[[ARG]]#0, %[[ARG]]#1 : tensor<1x2x2x3xf64>, tensor<1x2x2x3xi64>)
// CHECK: arith.cmpf ogt, %{{.*}}, %cst
// CHECK: arith.select %{{.*}}, %{{.*}}, %c-1_i64 : i64
// CHECK: tensor.extract %[[MASKED]]
func.func @max_pool_grad_positive_only(%x: tensor<1x5x5x3xf64>, %dy: tensor<1x2x2x3xf64>) -> tensor<1x5x5x3xf64> {
  %dx = graph.max_pool2d_grad %x, %dy {positive_only, strides = [2, 2], window = [2, 2]} : (tensor<1x5x5x3xf64>, tensor<1x2x2x3xf64>) -> tensor<1x5x5x3xf64>
  return %dx : tensor<1x5x5x3xf64>
}

// -----

// CHECK-LABEL: func.func @avg_pool_grad
// CHECK: %[[COUNTS:.*]] = arith.constant dense<{{\[}}{{\[}}[4.000000e+00], [4.000000e+00], [2.000000e+00]], {{\[}}[4.000000e+00], [4.000000e+00], [2.000000e+00]], {{\[}}[2.000000e+00], [2.000000e+00], [1.000000e+00]]]> : tensor<3x3x1xf32>
// CHECK: %[[SCALED:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[COUNTS]] : tensor<1x3x3x3xf32>, tensor<3x3x1xf32>)
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: tensor.extract %[[SCALED]]
func.func @avg_pool_grad(%dy: tensor<1x3x3x3xf32>) -> tensor<1x5x5x3xf32> {
  %dx = graph.avg_pool2d_grad %dy {input_size = [5, 5], padding = "same", strides = [2, 2], window = [2, 2]} : (tensor<1x3x3x3xf32>) -> tensor<1x5x5x3xf32>
  return %dx : tensor<1x5x5x3xf32>
}

// -----

// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4)>
// CHECK-DAG: #[[COLS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d4)>
// CHECK-LABEL: func.func @resize_grad
// CHECK-DAG: %[[ROW_OUT:.*]] = arith.constant dense<{{\[}}[0, 1, 2], [1, 2, 3]]> : tensor<2x3xi64>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ROWS]], #[[ROWS]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[ROW_OUT]], %{{.*}} : tensor<2x3xi64>, tensor<2x3xf32>) outs(%{{.*}} : tensor<1x2x6x3xf32>)
// CHECK: tensor.extract %{{.*}} : tensor<1x4x6x3xf32>
// Taps per input column (-1: none): bilinear 6 -> 3 reaches up to 4 outputs.
// CHECK: %[[COL_OUT:.*]] = arith.constant dense<{{\[}}[0, 1, 2, -1], [1, 2, 3, 4], [3, 4, 5, -1]]> : tensor<3x4xi64>
// CHECK: linalg.generic {indexing_maps = [#[[COLS]], #[[COLS]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[COL_OUT]], %{{.*}} : tensor<3x4xi64>, tensor<3x4xf32>) outs(%{{.*}} : tensor<1x2x3x3xf32>)
// CHECK: tensor.extract %[[R]]
func.func @resize_grad(%dy: tensor<1x4x6x3xf32>) -> tensor<1x2x3x3xf32> {
  %dx = graph.resize_grad %dy {input_size = [2, 3], mode = "bilinear"} : (tensor<1x4x6x3xf32>) -> tensor<1x2x3x3xf32>
  return %dx : tensor<1x2x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @gather_grad
// CHECK: scf.if
// CHECK: func.call @tfcc_rt_report_error
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<10x8xf32>)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (tensor<10x8xf32>)
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args(%[[T:.*]] = %{{.*}}) -> (tensor<10x8xf32>)
// CHECK: tensor.extract %{{.*}} : tensor<?x5xi32>
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: %[[G:.*]] = tensor.extract %{{.*}} : tensor<?x5x8xf32>
// CHECK: %[[OLD:.*]] = tensor.extract %[[T]]
// CHECK: %[[SUM:.*]] = arith.addf %[[OLD]], %[[G]]
// CHECK: tensor.insert %[[SUM]] into %[[T]]
func.func @gather_grad(%dy: tensor<?x5x8xf32>, %i: tensor<?x5xi32>) -> tensor<10x8xf32> {
  %dt = graph.gather_grad %dy, %i {axis = 0 : i64, size = 10 : i64} : (tensor<?x5x8xf32>, tensor<?x5xi32>) -> tensor<10x8xf32>
  return %dt : tensor<10x8xf32>
}
