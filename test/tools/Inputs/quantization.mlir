// graph.quantize / graph.dequantize and 8-bit casts, checked against NumPy's
// evaluation of ONNX's QuantizeLinear / DequantizeLinear formulas
// (quantization_oracle.py).
module @quantization {
  func.func @predict(%x: tensor<?x3x4xf32>, %q: tensor<?x3x4xi8>, %u: tensor<?x4xui8>, %b: tensor<?x4xi32>)
      -> (tensor<?x3x4xi8>, tensor<?x3x4xui8>, tensor<?x3x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>,
          tensor<?x3x4xui8>, tensor<?x3x4xi8>, tensor<?x4xf32>, tensor<?x4xi32>, tensor<?x3x2xi32>) {
    // per axis 1, i8
    %s = graph.constant dense<[0.5, 0.25, 0.0078125]> : tensor<3xf32>
    %z = graph.constant dense<[0, -3, 100]> : tensor<3xi8>
    %qa = graph.quantize %x, %s, %z {axis = 1} : (tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<?x3x4xi8>
    // per tensor, ui8
    %ts = graph.constant dense<0.1> : tensor<f32>
    %tz = graph.constant dense<128> : tensor<ui8>
    %qt = graph.quantize %x, %ts, %tz : (tensor<?x3x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x3x4xui8>
    %da = graph.dequantize %q, %s, %z {axis = -2} : (tensor<?x3x4xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<?x3x4xf32>
    // per axis -1 (the last), ui8
    %us = graph.constant dense<[0.5, 2.0, 0.001, 3.0]> : tensor<4xf32>
    %uz = graph.constant dense<[0, 255, 128, 7]> : tensor<4xui8>
    %du = graph.dequantize %u, %us, %uz {axis = -1} : (tensor<?x4xui8>, tensor<4xf32>, tensor<4xui8>) -> tensor<?x4xf32>
    // an int32 bias, zero point 0
    %bz = graph.constant dense<0> : tensor<i32>
    %bs = graph.constant dense<0.000123> : tensor<f32>
    %db = graph.dequantize %b, %bs, %bz : (tensor<?x4xi32>, tensor<f32>, tensor<i32>) -> tensor<?x4xf32>
    // saturating casts (NaN gives 0) and unsigned conversions
    %cu = graph.cast %x : (tensor<?x3x4xf32>) -> tensor<?x3x4xui8>
    %ci = graph.cast %x : (tensor<?x3x4xf32>) -> tensor<?x3x4xi8>
    %uf = graph.cast %u : (tensor<?x4xui8>) -> tensor<?x4xf32>
    %ui = graph.cast %u : (tensor<?x4xui8>) -> tensor<?x4xi32>
    // an integer matrix product (ONNX MatMulInteger)
    %qi = graph.cast %q : (tensor<?x3x4xi8>) -> tensor<?x3x4xi32>
    %mw = graph.constant dense<[[1, -2], [300, 7], [-128, 127], [65535, 0]]> : tensor<4x2xi32>
    %mm = graph.matmul %qi, %mw : (tensor<?x3x4xi32>, tensor<4x2xi32>) -> tensor<?x3x2xi32>
    return %qa, %qt, %da, %du, %db, %cu, %ci, %uf, %ui, %mm
        : tensor<?x3x4xi8>, tensor<?x3x4xui8>, tensor<?x3x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>,
          tensor<?x3x4xui8>, tensor<?x3x4xi8>, tensor<?x4xf32>, tensor<?x4xi32>, tensor<?x3x2xi32>
  }
}
