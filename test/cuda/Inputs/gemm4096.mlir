// GEMM 4096 for test/cuda/device_check.sh: C = A B, float32.
module @gemm4096 {
  func.func @gemm(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
    %c = graph.matmul %a, %b : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
    return %c : tensor<4096x4096xf32>
  }
}
