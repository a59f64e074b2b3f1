// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -split-input-file -verify-diagnostics

// Convolutions need static spatial sizes (the SAME padding is computed at
// compile time): the op is reported with its types and what to change, not
// with the conversion driver's "failed to legalize".
func.func @conv2d_dynamic_spatial(%x: tensor<1x?x?x1xf32>, %k: tensor<3x3x1x2xf32>) -> tensor<1x?x?x2xf32> {
  // expected-error @+1 {{tfcc cannot compile graph.conv2d (tensor<1x?x?x1xf32>, tensor<3x3x1x2xf32>) -> tensor<1x?x?x2xf32>: its lowering needs static sizes for every dimension but the first (the batch); give the model's inputs static sizes (tfcc --input-shape NAME=1x3x48x192, '?' keeps the batch)}}
  %r = graph.conv2d %x, %k : (tensor<1x?x?x1xf32>, tensor<3x3x1x2xf32>) -> tensor<1x?x?x2xf32>
  return %r : tensor<1x?x?x2xf32>
}

// -----

// ui8 reaches only the lowerings that tell it from i8; a reduction would
// compute as signed.
func.func @ui8_reduction(%x: tensor<2x3xui8>) -> tensor<2xui8> {
  // expected-error @+1 {{'graph.reduce_max' op has ui8 operands or results, which tfcc compiles for casts, comparisons, elementwise arithmetic, data movement and (de)quantization only; cast to i32 or f32 first}}
  %r = graph.reduce_max %x {axes = [1]} : (tensor<2x3xui8>) -> tensor<2xui8>
  return %r : tensor<2xui8>
}
