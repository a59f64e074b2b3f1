// A GEMM operand (%t) read by two kernel calls with an elementwise op in
// between: the second call read the mul's values written over %t's buffer
// (passes/GraphToLinalg/KernelCalls.cpp, toReadOnlyMemref). Minimized from
// the backward pass of global_avg_pool2d -> matmul -> matmul.
module @kernel_operand_overwritten {
  func.func @tanh_operand(%x: tensor<3x4xf32>, %w: tensor<4x6xf32>, %d: tensor<3x4xf32>, %s: tensor<f32>, %g: tensor<3x6xf32>) -> (tensor<4x6xf32>, tensor<6x4xf32>) {
    %t = graph.tanh %x : tensor<3x4xf32>
    %h = graph.matmul %t, %w : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
    %m = graph.mul %d, %s : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %a = graph.matmul %h, %m {transpose_a = true} : (tensor<3x6xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
    %b = graph.matmul %t, %g {transpose_a = true} : (tensor<3x4xf32>, tensor<3x6xf32>) -> tensor<4x6xf32>
    return %b, %a : tensor<4x6xf32>, tensor<6x4xf32>
  }
  func.func @pooled_operand(%x: tensor<?x5x5x4xf32>, %w: tensor<4x6xf32>, %d: tensor<?x4xf32>, %s: tensor<f32>, %g: tensor<?x6xf32>) -> (tensor<4x6xf32>, tensor<6x4xf32>) {
    %t = graph.global_avg_pool2d %x : (tensor<?x5x5x4xf32>) -> tensor<?x4xf32>
    %h = graph.matmul %t, %w : (tensor<?x4xf32>, tensor<4x6xf32>) -> tensor<?x6xf32>
    %m = graph.mul %d, %s : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
    %a = graph.matmul %h, %m {transpose_a = true} : (tensor<?x6xf32>, tensor<?x4xf32>) -> tensor<6x4xf32>
    %b = graph.matmul %t, %g {transpose_a = true} : (tensor<?x4xf32>, tensor<?x6xf32>) -> tensor<4x6xf32>
    return %b, %a : tensor<4x6xf32>, tensor<6x4xf32>
  }
}
