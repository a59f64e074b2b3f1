// graph.mod: Python's sign (the divisor's) and C's fmod (the dividend's) on
// i32, i64 and ui8, and fmod on f32, with mixed-sign constant divisors
// (-1 included; never 0, where the interpreter fails). The dividends are
// tfcc-run's random inputs in [-1, 1] scaled by 20 and truncated.
module @mod {
  func.func @predict(%x: tensor<?x8xf32>)
      -> (tensor<?x8xi32>, tensor<?x8xi32>, tensor<?x8xi64>, tensor<?x8xf32>, tensor<?x8xui8>) {
    %scale = graph.constant dense<20.0> : tensor<f32>
    %big = graph.mul %x, %scale : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x8xf32>
    %i = graph.cast %big : (tensor<?x8xf32>) -> tensor<?x8xi32>
    %d = graph.constant dense<[3, -3, 7, -7, 1, -1, 5, -2]> : tensor<8xi32>
    %0 = graph.mod %i, %d : (tensor<?x8xi32>, tensor<8xi32>) -> tensor<?x8xi32>
    %1 = graph.mod %i, %d {fmod = true} : (tensor<?x8xi32>, tensor<8xi32>) -> tensor<?x8xi32>
    %l = graph.cast %i : (tensor<?x8xi32>) -> tensor<?x8xi64>
    %dl = graph.constant dense<-4> : tensor<i64>
    %2 = graph.mod %l, %dl : (tensor<?x8xi64>, tensor<i64>) -> tensor<?x8xi64>
    %df = graph.constant dense<[0.3, -0.3, 0.7, -0.7, 1.5, -1.5, 0.25, -0.125]> : tensor<8xf32>
    %3 = graph.mod %big, %df {fmod = true} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %abs = graph.abs %i : tensor<?x8xi32>
    %u = graph.cast %abs : (tensor<?x8xi32>) -> tensor<?x8xui8>
    %du = graph.constant dense<[3, 7, 1, 2, 5, 6, 9, 4]> : tensor<8xui8>
    %4 = graph.mod %u, %du : (tensor<?x8xui8>, tensor<8xui8>) -> tensor<?x8xui8>
    return %0, %1, %2, %3, %4 : tensor<?x8xi32>, tensor<?x8xi32>, tensor<?x8xi64>, tensor<?x8xf32>, tensor<?x8xui8>
  }
}
