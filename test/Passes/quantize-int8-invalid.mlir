// RUN: tfcc-opt %s -tfcc-quantize-int8 -verify-diagnostics

func.func @malformed_range(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = graph.constant dense<0.5> : tensor<4x3xf32>
  // expected-error @+1 {{'graph.dense' op has a malformed 'tfcc.input_range' (expected array<f32: lo, hi>)}}
  %y = graph.dense %x, %w {tfcc.input_range = array<f32: 1.0>} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
