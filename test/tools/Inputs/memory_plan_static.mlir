// A static chain of dense layers: each hidden activation is dead once the next
// layer has read it, so the memory plan reuses its arena space.
module @chain {
  graph.variable @k1 : tensor<64x256xf32> = #graph.init<"glorot_uniform", seed = 1>
  graph.variable @k2 : tensor<256x256xf32> = #graph.init<"glorot_uniform", seed = 2>
  graph.variable @k3 : tensor<256x256xf32> = #graph.init<"glorot_uniform", seed = 3>
  graph.variable @k4 : tensor<256x10xf32> = #graph.init<"glorot_uniform", seed = 4>
  graph.variable @b : tensor<256xf32> = dense<0.1>
  graph.variable @b4 : tensor<10xf32> = dense<0.0>

  func.func @predict(%x: tensor<4x64xf32>) -> tensor<4x10xf32> {
    %k1 = graph.read @k1 : tensor<64x256xf32>
    %k2 = graph.read @k2 : tensor<256x256xf32>
    %k3 = graph.read @k3 : tensor<256x256xf32>
    %k4 = graph.read @k4 : tensor<256x10xf32>
    %b = graph.read @b : tensor<256xf32>
    %b4 = graph.read @b4 : tensor<10xf32>
    %h1 = graph.dense %x, %k1, %b : (tensor<4x64xf32>, tensor<64x256xf32>, tensor<256xf32>) -> tensor<4x256xf32> loc("layer1")
    %a1 = graph.relu %h1 : tensor<4x256xf32> loc("layer1/relu")
    %h2 = graph.dense %a1, %k2, %b : (tensor<4x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<4x256xf32> loc("layer2")
    %a2 = graph.relu %h2 : tensor<4x256xf32> loc("layer2/relu")
    %h3 = graph.dense %a2, %k3, %b : (tensor<4x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<4x256xf32> loc("layer3")
    %a3 = graph.relu %h3 : tensor<4x256xf32> loc("layer3/relu")
    %h4 = graph.dense %a3, %k4, %b4 : (tensor<4x256xf32>, tensor<256x10xf32>, tensor<10xf32>) -> tensor<4x10xf32> loc("out")
    return %h4 : tensor<4x10xf32>
  }
}
