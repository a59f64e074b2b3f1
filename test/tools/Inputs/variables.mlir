// Every way to give a variable its value, a constant, a private function and
// trainable = false, compiled and compared with the interpreter.
module @variables {
  graph.variable @blob : tensor<2x3xf32> = dense_resource<weights>
  graph.variable @splat : tensor<3xf32> = dense<0.5> {trainable = false}
  graph.variable @zeros : tensor<3xf32> = #graph.init<"zeros">
  graph.variable @ones : tensor<3xf32> = #graph.init<"ones">
  graph.variable @gu : tensor<3x3xf32> = #graph.init<"glorot_uniform", seed = 1>
  graph.variable @gn : tensor<3x3xf32> = #graph.init<"glorot_normal", seed = 2>
  graph.variable @hu : tensor<3x3xf32> = #graph.init<"he_uniform", seed = 3>
  graph.variable @hn : tensor<3x3xf32> = #graph.init<"he_normal", seed = 4>
  graph.variable @un : tensor<3x3xf32> = #graph.init<"uniform", scale = 0.5, seed = 5>
  graph.variable @ids : tensor<3xi32> = dense<[2, 0, 1]>

  func.func private @mix(%x: tensor<?x3xf32>, %k: tensor<3x3xf32>) -> tensor<?x3xf32> {
    %y = graph.matmul %x, %k : (tensor<?x3xf32>, tensor<3x3xf32>) -> tensor<?x3xf32>
    return %y : tensor<?x3xf32>
  }

  func.func @predict(%x: tensor<?x2xf32>) -> (tensor<?x3xf32>, tensor<3xf32>) {
    %b = graph.read @blob : tensor<2x3xf32>
    %h = graph.matmul %x, %b : (tensor<?x2xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
    %k1 = graph.read @gu : tensor<3x3xf32>
    %k2 = graph.read @gn : tensor<3x3xf32>
    %k3 = graph.read @hu : tensor<3x3xf32>
    %k4 = graph.read @hn : tensor<3x3xf32>
    %k5 = graph.read @un : tensor<3x3xf32>
    %h1 = func.call @mix(%h, %k1) : (tensor<?x3xf32>, tensor<3x3xf32>) -> tensor<?x3xf32>
    %h2 = func.call @mix(%h1, %k2) : (tensor<?x3xf32>, tensor<3x3xf32>) -> tensor<?x3xf32>
    %h3 = func.call @mix(%h2, %k3) : (tensor<?x3xf32>, tensor<3x3xf32>) -> tensor<?x3xf32>
    %h4 = func.call @mix(%h3, %k4) : (tensor<?x3xf32>, tensor<3x3xf32>) -> tensor<?x3xf32>
    %h5 = func.call @mix(%h4, %k5) : (tensor<?x3xf32>, tensor<3x3xf32>) -> tensor<?x3xf32>
    %s = graph.read @splat : tensor<3xf32>
    %z = graph.read @zeros : tensor<3xf32>
    %o = graph.read @ones : tensor<3xf32>
    %c = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %t0 = graph.add %s, %z : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %t1 = graph.add %t0, %o : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %t2 = graph.mul %t1, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %ids = graph.read @ids : tensor<3xi32>
    %g = graph.gather %t2, %ids {axis = 0} : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
    %out = graph.add %h5, %g : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    return %out, %g : tensor<?x3xf32>, tensor<3xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000003F000080BF000000400000803E0000C03F000040BF"
    }
  }
#-}
