// One buffer returned more than once (an argument, a constant, a value, or
// two results CSE makes one): buffer-results-to-out-params crashed tfcc
// (compiler/Pipeline.cpp, copyReturnedArguments). Found by random-graph testing.
module @same_buffer_returned_twice {
  func.func @arg_twice(%a: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
    return %a, %a : tensor<?x3xf32>, tensor<?x3xf32>
  }
  func.func @const_twice(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
    %c = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %r = graph.relu %a : tensor<2xf32>
    return %c, %c, %r : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
  func.func @value_thrice(%a: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
    %r = graph.tanh %a : tensor<?x3xf32>
    return %r, %r, %r : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>
  }
  func.func @cse_twice(%a: tensor<?xf32>) -> (tensor<f32>, tensor<f32>) {
    %v0 = graph.reduce_min %a {axes = [0]} : (tensor<?xf32>) -> tensor<f32>
    %v1 = graph.reduce_min %a {axes = [0]} : (tensor<?xf32>) -> tensor<f32>
    return %v1, %v0 : tensor<f32>, tensor<f32>
  }
}
