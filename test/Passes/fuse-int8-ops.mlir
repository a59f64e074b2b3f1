// RUN: tfcc-opt %s -tfcc-fuse-int8-ops -split-input-file | FileCheck %s

// A convolution of dequantized ui8 data and dequantized int8 weights (per
// output channel, zero points 0) takes the integers; its scales are
// s_x * s_w: 0.5 * [0.25, 2.0, -0.125, 1.0] (a negative one, as a folded
// batch norm leaves). Bias, activation and geometry stay. The quantize
// that follows is absorbed: ui8 result, out_scale and out_zero_point.
// CHECK-LABEL: func.func @conv
// CHECK-NOT: graph.dequantize
// CHECK: %[[S:.*]] = graph.constant dense<[1.250000e-01, 1.000000e+00, -6.250000e-02, 5.000000e-01]> : tensor<4xf32>
// CHECK: %[[Y:.*]] = graph.fused_conv2d_int8 %arg0, %{{.*}}, %[[S]] bias %arg1 {activation = "relu", dilations = [1, 1], out_scale = 2.500000e-01 : f32, out_zero_point = 7 : i64, pads = [1, 1, 1, 1], strides = [1, 1], x_zero_point = 3 : i64} : (tensor<?x8x8x3xui8>, tensor<3x3x3x4xi8>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x8x8x4xui8>
// CHECK-NOT: graph.quantize
// CHECK: return %[[Y]]
func.func @conv(%q: tensor<?x8x8x3xui8>, %b: tensor<4xf32>) -> tensor<?x8x8x4xui8> {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %zx = graph.constant dense<3> : tensor<ui8>
  %x = graph.dequantize %q, %sx, %zx : (tensor<?x8x8x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x8x8x3xf32>
  %wq = graph.constant dense<1> : tensor<3x3x3x4xi8>
  %sw = graph.constant dense<[0.25, 2.0, -0.125, 1.0]> : tensor<4xf32>
  %zw = graph.constant dense<0> : tensor<4xi8>
  %w = graph.dequantize %wq, %sw, %zw {axis = 3} : (tensor<3x3x3x4xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<3x3x3x4xf32>
  %y = graph.fused_conv2d %x, %w bias %b {activation = "relu", dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<?x8x8x4xf32>
  %so = graph.constant dense<0.25> : tensor<f32>
  %zo = graph.constant dense<7> : tensor<ui8>
  %r = graph.quantize %y, %so, %zo : (tensor<?x8x8x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x8x8x4xui8>
  return %r : tensor<?x8x8x4xui8>
}

// -----

// A dense layer with one weight scale (per tensor) and a residual; its
// float result is read twice, so a quantize of it is not absorbed.
// CHECK-LABEL: func.func @dense
// CHECK: %[[S:.*]] = graph.constant dense<5.000000e-01> : tensor<2xf32>
// CHECK: %[[Y:.*]] = graph.fused_dense_int8 %arg0, %{{.*}}, %[[S]] residual %arg1 {x_zero_point = 128 : i64} : (tensor<?x3xui8>, tensor<3x2xi8>, tensor<2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
// CHECK: graph.quantize %[[Y]]
func.func @dense(%q: tensor<?x3xui8>, %r: tensor<?x2xf32>) -> (tensor<?x2xf32>, tensor<?x2xui8>) {
  %sx = graph.constant dense<0.25> : tensor<f32>
  %zx = graph.constant dense<128> : tensor<ui8>
  %x = graph.dequantize %q, %sx, %zx : (tensor<?x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x3xf32>
  %wq = graph.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
  %sw = graph.constant dense<2.0> : tensor<f32>
  %zw = graph.constant dense<0> : tensor<i8>
  %w = graph.dequantize %wq, %sw, %zw : (tensor<3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<3x2xf32>
  %y = graph.fused_dense %x, %w residual %r : (tensor<?x3xf32>, tensor<3x2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
  %so = graph.constant dense<0.25> : tensor<f32>
  %zo = graph.constant dense<0> : tensor<ui8>
  %o = graph.quantize %y, %so, %zo : (tensor<?x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x2xui8>
  return %y, %o : tensor<?x2xf32>, tensor<?x2xui8>
}

// -----

// What stays float: weights with a nonzero zero point, weights that are
// not constant, an i8 input, weights scaled along another axis than the
// output channels.
// CHECK-LABEL: func.func @stays_float
// CHECK-NOT: _int8
// CHECK: return
func.func @stays_float(%q: tensor<?x3xui8>, %qs: tensor<?x3xi8>, %wv: tensor<3x2xi8>) -> (tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %sx = graph.constant dense<0.25> : tensor<f32>
  %zx = graph.constant dense<1> : tensor<ui8>
  %zxs = graph.constant dense<1> : tensor<i8>
  %x = graph.dequantize %q, %sx, %zx : (tensor<?x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x3xf32>
  %xs = graph.dequantize %qs, %sx, %zxs : (tensor<?x3xi8>, tensor<f32>, tensor<i8>) -> tensor<?x3xf32>
  %wq = graph.constant dense<1> : tensor<3x2xi8>
  %sw = graph.constant dense<2.0> : tensor<f32>
  %zw0 = graph.constant dense<0> : tensor<i8>
  %zw1 = graph.constant dense<1> : tensor<i8>
  %w1 = graph.dequantize %wq, %sw, %zw1 : (tensor<3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<3x2xf32>
  %y1 = graph.fused_dense %x, %w1 : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
  %w2 = graph.dequantize %wv, %sw, %zw0 : (tensor<3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<3x2xf32>
  %y2 = graph.fused_dense %x, %w2 : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
  %w0 = graph.dequantize %wq, %sw, %zw0 : (tensor<3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<3x2xf32>
  %y3 = graph.fused_dense %xs, %w0 : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
  %sk = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %zk = graph.constant dense<0> : tensor<3xi8>
  %w4 = graph.dequantize %wq, %sk, %zk {axis = 0} : (tensor<3x2xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x2xf32>
  %y4 = graph.fused_dense %x, %w4 : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
  return %y1, %y2, %y3, %y4 : tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}

// -----

// An ONNX QDQ convolution: the NCHW input and OIHW weights reach the NHWC
// convolution through transposes; the integers are transposed instead (the
// weights' scale axis 0, O, becomes axis 3 of the HWIO kernel).
// CHECK-LABEL: func.func @transposed_operands
// CHECK: %[[X:.*]] = graph.transpose %arg0 {perm = [0, 2, 3, 1]} : (tensor<?x3x8x8xui8>) -> tensor<?x8x8x3xui8>
// CHECK: %[[W:.*]] = graph.transpose %{{.*}} {perm = [2, 3, 1, 0]} : (tensor<4x3x3x3xi8>) -> tensor<3x3x3x4xi8>
// CHECK: graph.fused_conv2d_int8 %[[X]], %[[W]], %{{.*}} {{.*}}x_zero_point = 5 : i64{{.*}} : (tensor<?x8x8x3xui8>, tensor<3x3x3x4xi8>, tensor<4xf32>) -> tensor<?x8x8x4xf32>
func.func @transposed_operands(%q: tensor<?x3x8x8xui8>) -> tensor<?x8x8x4xf32> {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %zx = graph.constant dense<5> : tensor<ui8>
  %x = graph.dequantize %q, %sx, %zx : (tensor<?x3x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x3x8x8xf32>
  %xt = graph.transpose %x {perm = [0, 2, 3, 1]} : (tensor<?x3x8x8xf32>) -> tensor<?x8x8x3xf32>
  %wq = graph.constant dense<1> : tensor<4x3x3x3xi8>
  %sw = graph.constant dense<[0.25, 2.0, 0.125, 1.0]> : tensor<4xf32>
  %zw = graph.constant dense<0> : tensor<4xi8>
  %w = graph.dequantize %wq, %sw, %zw {axis = 0} : (tensor<4x3x3x3xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x3x3x3xf32>
  %wt = graph.transpose %w {perm = [2, 3, 1, 0]} : (tensor<4x3x3x3xf32>) -> tensor<3x3x3x4xf32>
  %y = graph.fused_conv2d %xt, %wt {dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<?x8x8x4xf32>
  return %y : tensor<?x8x8x4xf32>
}

// -----

// An ONNX QDQ depthwise convolution: the OIHW weights [c, 1, 3, 3] (scales
// along axis 0) reach the NHWC convolution transposed to [3, 3, 1, c] and
// reshaped to [3, 3, c, 1]; the integers take the same transpose and
// reshape. Scales s_x * s_w: 0.5 * [0.25, 2.0, 4.0]; the quantize after it
// is absorbed.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[S:.*]] = graph.constant dense<[1.250000e-01, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK: %[[WT:.*]] = graph.transpose %{{.*}} {perm = [2, 3, 1, 0]} : (tensor<3x1x3x3xi8>) -> tensor<3x3x1x3xi8>
// CHECK: %[[W:.*]] = graph.reshape %[[WT]] : (tensor<3x3x1x3xi8>) -> tensor<3x3x3x1xi8>
// CHECK: %[[Y:.*]] = graph.fused_conv2d_int8 %arg0, %[[W]], %[[S]] bias %arg1 {activation = "clip", beta = 6.000000e+00 : f32, depthwise = true, dilations = [1, 1], out_scale = 2.500000e-01 : f32, out_zero_point = 7 : i64, pads = [1, 1, 1, 1], strides = [2, 2], x_zero_point = 3 : i64} : (tensor<?x8x8x3xui8>, tensor<3x3x3x1xi8>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x4x4x3xui8>
// CHECK-NOT: graph.quantize
// CHECK: return %[[Y]]
func.func @depthwise(%q: tensor<?x8x8x3xui8>, %b: tensor<3xf32>) -> tensor<?x4x4x3xui8> {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %zx = graph.constant dense<3> : tensor<ui8>
  %x = graph.dequantize %q, %sx, %zx : (tensor<?x8x8x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x8x8x3xf32>
  %wq = graph.constant dense<1> : tensor<3x1x3x3xi8>
  %sw = graph.constant dense<[0.25, 2.0, 4.0]> : tensor<3xf32>
  %zw = graph.constant dense<0> : tensor<3xi8>
  %w = graph.dequantize %wq, %sw, %zw {axis = 0} : (tensor<3x1x3x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x1x3x3xf32>
  %wt = graph.transpose %w {perm = [2, 3, 1, 0]} : (tensor<3x1x3x3xf32>) -> tensor<3x3x1x3xf32>
  %wr = graph.reshape %wt : (tensor<3x3x1x3xf32>) -> tensor<3x3x3x1xf32>
  %y = graph.fused_conv2d %x, %wr bias %b {activation = "clip", beta = 6.0 : f32, depthwise = true, dilations = [1, 1], pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<?x8x8x3xf32>, tensor<3x3x3x1xf32>, tensor<3xf32>) -> tensor<?x4x4x3xf32>
  %so = graph.constant dense<0.25> : tensor<f32>
  %zo = graph.constant dense<7> : tensor<ui8>
  %r = graph.quantize %y, %so, %zo : (tensor<?x4x4x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x4x4x3xui8>
  return %r : tensor<?x4x4x3xui8>
}

// -----

// A depthwise kernel [3, 3, c, 1] dequantized per tensor: one scale for
// every channel.
// CHECK-LABEL: func.func @depthwise_per_tensor
// CHECK: %[[S:.*]] = graph.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK: graph.fused_conv2d_int8 %arg0, %{{.*}}, %[[S]] {depthwise = true, {{.*}}} : (tensor<?x8x8x3xui8>, tensor<3x3x3x1xi8>, tensor<3xf32>) -> tensor<?x8x8x3xf32>
func.func @depthwise_per_tensor(%q: tensor<?x8x8x3xui8>) -> tensor<?x8x8x3xf32> {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %zx = graph.constant dense<0> : tensor<ui8>
  %x = graph.dequantize %q, %sx, %zx : (tensor<?x8x8x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x8x8x3xf32>
  %wq = graph.constant dense<1> : tensor<3x3x3x1xi8>
  %sw = graph.constant dense<2.0> : tensor<f32>
  %zw = graph.constant dense<0> : tensor<i8>
  %w = graph.dequantize %wq, %sw, %zw : (tensor<3x3x3x1xi8>, tensor<f32>, tensor<i8>) -> tensor<3x3x3x1xf32>
  %y = graph.fused_conv2d %x, %w {depthwise = true, dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<?x8x8x3xf32>, tensor<3x3x3x1xf32>) -> tensor<?x8x8x3xf32>
  return %y : tensor<?x8x8x3xf32>
}

// -----

// Depthwise convolutions the uint8 kernel does not take stay float: two
// output channels per input channel, a residual, a 23x23 window (529 taps,
// over kMaxInt8DepthwiseTaps), scales along the channel axis of a
// [3, 3, c, 1] kernel (the matching reads them on the last axis).
// CHECK-LABEL: func.func @depthwise_stays_float
// CHECK-NOT: _int8
// CHECK: return
func.func @depthwise_stays_float(%q: tensor<?x8x8x3xui8>, %r: tensor<?x8x8x3xf32>, %q23: tensor<?x23x23x1xui8>) -> (tensor<?x8x8x6xf32>, tensor<?x8x8x3xf32>, tensor<?x1x1x1xf32>, tensor<?x8x8x3xf32>) {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %zx = graph.constant dense<0> : tensor<ui8>
  %sw = graph.constant dense<2.0> : tensor<f32>
  %zw = graph.constant dense<0> : tensor<i8>
  %x = graph.dequantize %q, %sx, %zx : (tensor<?x8x8x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x8x8x3xf32>
  %wq2 = graph.constant dense<1> : tensor<3x3x3x2xi8>
  %w2 = graph.dequantize %wq2, %sw, %zw : (tensor<3x3x3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<3x3x3x2xf32>
  %y1 = graph.fused_conv2d %x, %w2 {depthwise = true, dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<?x8x8x3xf32>, tensor<3x3x3x2xf32>) -> tensor<?x8x8x6xf32>
  %wq = graph.constant dense<1> : tensor<3x3x3x1xi8>
  %w = graph.dequantize %wq, %sw, %zw : (tensor<3x3x3x1xi8>, tensor<f32>, tensor<i8>) -> tensor<3x3x3x1xf32>
  %y2 = graph.fused_conv2d %x, %w residual %r {depthwise = true, dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<?x8x8x3xf32>, tensor<3x3x3x1xf32>, tensor<?x8x8x3xf32>) -> tensor<?x8x8x3xf32>
  %x23 = graph.dequantize %q23, %sx, %zx : (tensor<?x23x23x1xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x23x23x1xf32>
  %wq23 = graph.constant dense<1> : tensor<23x23x1x1xi8>
  %w23 = graph.dequantize %wq23, %sw, %zw : (tensor<23x23x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<23x23x1x1xf32>
  %y3 = graph.fused_conv2d %x23, %w23 {depthwise = true, dilations = [1, 1], pads = [0, 0, 0, 0], strides = [1, 1]} : (tensor<?x23x23x1xf32>, tensor<23x23x1x1xf32>) -> tensor<?x1x1x1xf32>
  %sc = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %zc = graph.constant dense<0> : tensor<3xi8>
  %wc = graph.dequantize %wq, %sc, %zc {axis = 2} : (tensor<3x3x3x1xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x3x3x1xf32>
  %y4 = graph.fused_conv2d %x, %wc {depthwise = true, dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<?x8x8x3xf32>, tensor<3x3x3x1xf32>) -> tensor<?x8x8x3xf32>
  return %y1, %y2, %y3, %y4 : tensor<?x8x8x6xf32>, tensor<?x8x8x3xf32>, tensor<?x1x1x1xf32>, tensor<?x8x8x3xf32>
}

// -----

// A convolution whose image sizes are dynamic stays float: the int8 kernels
// take static ones.
// CHECK-LABEL: func.func @dynamic_image_stays_float
// CHECK-NOT: _int8
// CHECK: return
func.func @dynamic_image_stays_float(%q: tensor<?x?x8x3xui8>) -> tensor<?x?x8x4xf32> {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %zx = graph.constant dense<3> : tensor<ui8>
  %x = graph.dequantize %q, %sx, %zx : (tensor<?x?x8x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x?x8x3xf32>
  %wq = graph.constant dense<1> : tensor<3x3x3x4xi8>
  %sw = graph.constant dense<0.25> : tensor<f32>
  %zw = graph.constant dense<0> : tensor<i8>
  %w = graph.dequantize %wq, %sw, %zw : (tensor<3x3x3x4xi8>, tensor<f32>, tensor<i8>) -> tensor<3x3x3x4xf32>
  %y = graph.fused_conv2d %x, %w {dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<?x?x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<?x?x8x4xf32>
  return %y : tensor<?x?x8x4xf32>
}

// -----

// Max pooling of dequantized uint8 data pools the integers: an ONNX MaxPool's
// -inf pad becomes a pad of 0 (uint8's lowest value), the dequantize moves
// after the pool, and the quantize by the same scale and zero point that
// followed it goes (through the flattening reshape too).
// CHECK-LABEL: func.func @max_pool_integers
// CHECK-SAME: (%[[Q:.*]]: tensor<?x8x8x4xui8>)
// CHECK: %[[PAD:.*]] = graph.pad %[[Q]] {pads = [0, 0, 1, 1, 1, 1, 0, 0]} : (tensor<?x8x8x4xui8>) -> tensor<?x10x10x4xui8>
// CHECK: %[[P1:.*]] = graph.max_pool2d %[[PAD]] {strides = [2, 2], window = [3, 3]} : (tensor<?x10x10x4xui8>) -> tensor<?x4x4x4xui8>
// CHECK: %[[P2:.*]] = graph.max_pool2d %[[P1]] {window = [2, 2]} : (tensor<?x4x4x4xui8>) -> tensor<?x2x2x4xui8>
// CHECK: %[[R:.*]] = graph.reshape %[[P2]] : (tensor<?x2x2x4xui8>) -> tensor<?x16xui8>
// CHECK-NOT: graph.quantize
// CHECK: return %[[R]]
func.func @max_pool_integers(%q: tensor<?x8x8x4xui8>) -> tensor<?x16xui8> {
  %s = graph.constant dense<0.5> : tensor<f32>
  %z = graph.constant dense<3> : tensor<ui8>
  %x = graph.dequantize %q, %s, %z : (tensor<?x8x8x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x8x8x4xf32>
  %p = graph.pad %x {pads = [0, 0, 1, 1, 1, 1, 0, 0], value = 0xFF800000 : f32} : (tensor<?x8x8x4xf32>) -> tensor<?x10x10x4xf32>
  %m = graph.max_pool2d %p {window = [3, 3], strides = [2, 2]} : (tensor<?x10x10x4xf32>) -> tensor<?x4x4x4xf32>
  %q1 = graph.quantize %m, %s, %z : (tensor<?x4x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x4x4x4xui8>
  %x1 = graph.dequantize %q1, %s, %z : (tensor<?x4x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x4x4x4xf32>
  %m2 = graph.max_pool2d %x1 {window = [2, 2]} : (tensor<?x4x4x4xf32>) -> tensor<?x2x2x4xf32>
  %f = graph.reshape %m2 : (tensor<?x2x2x4xf32>) -> tensor<?x16xf32>
  %r = graph.quantize %f, %s, %z : (tensor<?x16xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x16xui8>
  return %r : tensor<?x16xui8>
}

// -----

// int8 data pads with -128; a float user of the pool reads the dequantized
// integers' maximum; a quantize with another scale stays.
// CHECK-LABEL: func.func @max_pool_signed
// CHECK: %[[PAD:.*]] = graph.pad %arg0 {pads = [0, 0, 0, 1, 0, 1, 0, 0], value = -1.280000e+02 : f32} : (tensor<1x5x5x2xi8>) -> tensor<1x6x6x2xi8>
// CHECK: %[[P:.*]] = graph.max_pool2d %[[PAD]] {window = [2, 2]} : (tensor<1x6x6x2xi8>) -> tensor<1x3x3x2xi8>
// CHECK: %[[D:.*]] = graph.dequantize %[[P]], %{{.*}}, %{{.*}} : (tensor<1x3x3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x3x2xf32>
// CHECK: %[[R:.*]] = graph.quantize %[[D]], %{{.*}}, %{{.*}} : (tensor<1x3x3x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x3x3x2xi8>
// CHECK: return %[[D]], %[[R]]
func.func @max_pool_signed(%q: tensor<1x5x5x2xi8>) -> (tensor<1x3x3x2xf32>, tensor<1x3x3x2xi8>) {
  %s = graph.constant dense<0.5> : tensor<f32>
  %s2 = graph.constant dense<0.25> : tensor<f32>
  %z = graph.constant dense<-3> : tensor<i8>
  %x = graph.dequantize %q, %s, %z : (tensor<1x5x5x2xi8>, tensor<f32>, tensor<i8>) -> tensor<1x5x5x2xf32>
  %p = graph.pad %x {pads = [0, 0, 0, 1, 0, 1, 0, 0], value = 0xFF800000 : f32} : (tensor<1x5x5x2xf32>) -> tensor<1x6x6x2xf32>
  %m = graph.max_pool2d %p {window = [2, 2]} : (tensor<1x6x6x2xf32>) -> tensor<1x3x3x2xf32>
  %r = graph.quantize %m, %s2, %z : (tensor<1x3x3x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x3x3x2xi8>
  return %m, %r : tensor<1x3x3x2xf32>, tensor<1x3x3x2xi8>
}

// -----

// What stays float: a pad as large as the window (a window of padding alone
// would give the lowest integer, not -inf), a pad by a finite value, a
// per-channel dequantize, a negative scale (it reverses the order), and a
// pool whose channel count is dynamic (the kernel needs it).
// CHECK-LABEL: func.func @max_pool_stays_float
// CHECK-NOT: graph.max_pool2d {{.*}}ui8
// CHECK-NOT: graph.max_pool2d {{.*}}xi8
// CHECK: return
func.func @max_pool_stays_float(%q: tensor<1x4x4x2xui8>, %qc: tensor<1x4x4x?xui8>) -> (tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x?xf32>) {
  %s = graph.constant dense<0.5> : tensor<f32>
  %z = graph.constant dense<3> : tensor<ui8>
  %x = graph.dequantize %q, %s, %z : (tensor<1x4x4x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x2xf32>
  %p1 = graph.pad %x {pads = [0, 0, 2, 0, 0, 0, 0, 0], value = 0xFF800000 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x6x4x2xf32>
  %m1 = graph.max_pool2d %p1 {window = [2, 2], strides = [2, 1]} : (tensor<1x6x4x2xf32>) -> tensor<1x3x3x2xf32>
  %p2 = graph.pad %x {pads = [0, 0, 1, 1, 0, 0, 0, 0], value = 1.0 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x6x4x2xf32>
  %m2 = graph.max_pool2d %p2 {window = [2, 2], strides = [2, 1]} : (tensor<1x6x4x2xf32>) -> tensor<1x3x3x2xf32>
  %sc = graph.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %zc = graph.constant dense<0> : tensor<2xui8>
  %xc = graph.dequantize %q, %sc, %zc {axis = 3} : (tensor<1x4x4x2xui8>, tensor<2xf32>, tensor<2xui8>) -> tensor<1x4x4x2xf32>
  %m3 = graph.max_pool2d %xc {window = [2, 2]} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  %sn = graph.constant dense<-0.5> : tensor<f32>
  %xn = graph.dequantize %q, %sn, %z : (tensor<1x4x4x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x2xf32>
  %m4 = graph.max_pool2d %xn {window = [2, 2]} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  %xd = graph.dequantize %qc, %s, %z : (tensor<1x4x4x?xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x?xf32>
  %m5 = graph.max_pool2d %xd {window = [2, 2]} : (tensor<1x4x4x?xf32>) -> tensor<1x2x2x?xf32>
  return %m1, %m2, %m3, %m4, %m5 : tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x?xf32>
}

// -----

// What tfcc --quantize=int8 leaves between two convolutions: the next
// convolution's input quantized after a float max pooling (and a flatten).
// The quantize moves before the pooling (quantizing keeps the order, so it
// commutes with the maximum), where the int8 convolution absorbs it: the
// convolution writes uint8, and then absorbs the pooling too (its "same"
// windows tile 8 x 8 exactly); the flatten takes the integers.
// CHECK-LABEL: func.func @quantize_before_max_pool
// CHECK: %[[C:.*]] = graph.fused_conv2d_int8 {{.*}}max_pool = [2, 2], out_scale = 2.500000e-01 : f32, out_zero_point = 7 : i64{{.*}} -> tensor<?x4x4x4xui8>
// CHECK-NOT: graph.max_pool2d
// CHECK: %[[R:.*]] = graph.reshape %[[C]] : (tensor<?x4x4x4xui8>) -> tensor<?x64xui8>
// CHECK-NOT: graph.quantize
// CHECK: return %[[R]]
func.func @quantize_before_max_pool(%q: tensor<?x8x8x3xui8>) -> tensor<?x64xui8> {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %zx = graph.constant dense<3> : tensor<ui8>
  %x = graph.dequantize %q, %sx, %zx : (tensor<?x8x8x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x8x8x3xf32>
  %wq = graph.constant dense<1> : tensor<3x3x3x4xi8>
  %sw = graph.constant dense<[0.25, 2.0, 0.125, 1.0]> : tensor<4xf32>
  %zw = graph.constant dense<0> : tensor<4xi8>
  %w = graph.dequantize %wq, %sw, %zw {axis = 3} : (tensor<3x3x3x4xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<3x3x3x4xf32>
  %y = graph.fused_conv2d %x, %w {activation = "relu", dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<?x8x8x4xf32>
  %m = graph.max_pool2d %y {window = [2, 2], padding = "same"} : (tensor<?x8x8x4xf32>) -> tensor<?x4x4x4xf32>
  %f = graph.reshape %m : (tensor<?x4x4x4xf32>) -> tensor<?x64xf32>
  %so = graph.constant dense<0.25> : tensor<f32>
  %zo = graph.constant dense<7> : tensor<ui8>
  %r = graph.quantize %f, %so, %zo : (tensor<?x64xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x64xui8>
  return %r : tensor<?x64xui8>
}

// -----

// The quantize stays after the pooling when the pooled values have another
// reader, when it is per channel, and when the channel count is dynamic.
// CHECK-LABEL: func.func @quantize_stays_after_max_pool
// CHECK-NOT: graph.max_pool2d {{.*}}ui8
// CHECK: return
func.func @quantize_stays_after_max_pool(%x: tensor<1x4x4x2xf32>, %xd: tensor<1x4x4x?xf32>) -> (tensor<1x2x2x2xui8>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xui8>, tensor<1x2x2x?xui8>) {
  %s = graph.constant dense<0.5> : tensor<f32>
  %z = graph.constant dense<3> : tensor<ui8>
  %m1 = graph.max_pool2d %x {window = [2, 2]} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  %q1 = graph.quantize %m1, %s, %z : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xui8>
  %sc = graph.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %zc = graph.constant dense<0> : tensor<2xui8>
  %m2 = graph.max_pool2d %x {window = [2, 2], strides = [2, 2]} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  %q2 = graph.quantize %m2, %sc, %zc {axis = 3} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xui8>) -> tensor<1x2x2x2xui8>
  %m3 = graph.max_pool2d %xd {window = [2, 2]} : (tensor<1x4x4x?xf32>) -> tensor<1x2x2x?xf32>
  %q3 = graph.quantize %m3, %s, %z : (tensor<1x2x2x?xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x?xui8>
  return %q1, %m1, %q2, %q3 : tensor<1x2x2x2xui8>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xui8>, tensor<1x2x2x?xui8>
}

// -----

// A max pooling with windows as strides of an int8 convolution's result
// that nothing else reads is absorbed (`max_pool`): the convolution pools
// its sums before the epilogue. The seed CNN's first layer (ui8 result,
// relu, a window of 2 x 2 over 26 x 26), an f32 result with a leaky relu of
// positive alpha under a "same" pooling that tiles 8 x 8 exactly (no
// padding), a 1 x 2 window.
// CHECK-LABEL: func.func @conv_pool
// CHECK: %[[A:.*]] = graph.fused_conv2d_int8 %arg0, %{{.*}}, %{{.*}} bias %{{.*}} {activation = "relu", dilations = [1, 1], max_pool = [2, 2], out_scale = 5.000000e-02 : f32, pads = [0, 0, 0, 0], strides = [1, 1], x_zero_point = 127 : i64} : (tensor<?x28x28x1xui8>, tensor<3x3x1x32xi8>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x13x13x32xui8>
// CHECK: %[[B:.*]] = graph.fused_conv2d_int8 %arg1, %{{.*}}, %{{.*}} {activation = "leaky_relu", alpha = 1.000000e-01 : f32, dilations = [1, 1], max_pool = [2, 2], pads = [1, 1, 1, 1], strides = [1, 1], x_zero_point = 3 : i64} : (tensor<2x8x8x4xui8>, tensor<3x3x4x16xi8>, tensor<16xf32>) -> tensor<2x4x4x16xf32>
// CHECK: %[[C:.*]] = graph.fused_conv2d_int8 %arg1, %{{.*}}, %{{.*}} {dilations = [1, 1], max_pool = [1, 2], pads = [1, 1, 1, 1], strides = [1, 1], x_zero_point = 3 : i64} : (tensor<2x8x8x4xui8>, tensor<3x3x4x16xi8>, tensor<16xf32>) -> tensor<2x8x4x16xf32>
// CHECK-NOT: graph.max_pool2d
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @conv_pool(%q: tensor<?x28x28x1xui8>, %q2: tensor<2x8x8x4xui8>) -> (tensor<?x13x13x32xui8>, tensor<2x4x4x16xf32>, tensor<2x8x4x16xf32>) {
  %w = graph.constant dense<1> : tensor<3x3x1x32xi8>
  %s = graph.constant dense<0.01> : tensor<32xf32>
  %b = graph.constant dense<0.5> : tensor<32xf32>
  %c = graph.fused_conv2d_int8 %q, %w, %s bias %b {x_zero_point = 127, strides = [1, 1], dilations = [1, 1], pads = [0, 0, 0, 0], activation = "relu", out_scale = 0.05 : f32, out_zero_point = 0} : (tensor<?x28x28x1xui8>, tensor<3x3x1x32xi8>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x26x26x32xui8>
  %p = graph.max_pool2d %c {window = [2, 2]} : (tensor<?x26x26x32xui8>) -> tensor<?x13x13x32xui8>
  %w2 = graph.constant dense<2> : tensor<3x3x4x16xi8>
  %s2 = graph.constant dense<0.25> : tensor<16xf32>
  %c2 = graph.fused_conv2d_int8 %q2, %w2, %s2 {x_zero_point = 3, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1], activation = "leaky_relu", alpha = 0.1 : f32} : (tensor<2x8x8x4xui8>, tensor<3x3x4x16xi8>, tensor<16xf32>) -> tensor<2x8x8x16xf32>
  %p2 = graph.max_pool2d %c2 {window = [2, 2], strides = [2, 2], padding = "same"} : (tensor<2x8x8x16xf32>) -> tensor<2x4x4x16xf32>
  %c3 = graph.fused_conv2d_int8 %q2, %w2, %s2 {x_zero_point = 3, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1]} : (tensor<2x8x8x4xui8>, tensor<3x3x4x16xi8>, tensor<16xf32>) -> tensor<2x8x8x16xf32>
  %p3 = graph.max_pool2d %c3 {window = [1, 2]} : (tensor<2x8x8x16xf32>) -> tensor<2x8x4x16xf32>
  return %p, %p2, %p3 : tensor<?x13x13x32xui8>, tensor<2x4x4x16xf32>, tensor<2x8x4x16xf32>
}

// -----

// What keeps its pooling: a negative scale (a folded batch norm's: the
// epilogue then reverses the order), a leaky relu of negative alpha (not
// monotone), scales that are not constants, a residual, overlapping
// windows, a 3 x 3 window (not whole windows in a tile of 8), a "same"
// pooling that pads (7 rows), a second user of the convolution, a 1 x 1
// convolution (a plain GEMM of x, not the convolution kernel), a depthwise
// one.
// CHECK-LABEL: func.func @conv_pool_stays
// CHECK-NOT: max_pool = [
// CHECK-COUNT-10: graph.max_pool2d
// CHECK-NOT: max_pool = [
func.func @conv_pool_stays(%q: tensor<1x8x8x4xui8>, %q7: tensor<1x7x7x4xui8>, %sa: tensor<16xf32>, %r: tensor<1x8x8x16xf32>) -> (tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>, tensor<1x3x3x16xf32>, tensor<1x2x2x16xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>, tensor<1x8x8x16xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x4xf32>) {
  %w = graph.constant dense<2> : tensor<3x3x4x16xi8>
  %s = graph.constant dense<0.25> : tensor<16xf32>
  %sn = graph.constant dense<[0.25, -0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25]> : tensor<16xf32>
  %c0 = graph.fused_conv2d_int8 %q, %w, %sn {x_zero_point = 3, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1]} : (tensor<1x8x8x4xui8>, tensor<3x3x4x16xi8>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  %p0 = graph.max_pool2d %c0 {window = [2, 2]} : (tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32>
  %c1 = graph.fused_conv2d_int8 %q, %w, %s {x_zero_point = 3, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1], activation = "leaky_relu", alpha = -0.5 : f32} : (tensor<1x8x8x4xui8>, tensor<3x3x4x16xi8>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  %p1 = graph.max_pool2d %c1 {window = [2, 2]} : (tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32>
  %c2 = graph.fused_conv2d_int8 %q, %w, %sa {x_zero_point = 3, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1]} : (tensor<1x8x8x4xui8>, tensor<3x3x4x16xi8>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  %p2 = graph.max_pool2d %c2 {window = [2, 2]} : (tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32>
  %c3 = graph.fused_conv2d_int8 %q, %w, %s residual %r {x_zero_point = 3, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1]} : (tensor<1x8x8x4xui8>, tensor<3x3x4x16xi8>, tensor<16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %p3 = graph.max_pool2d %c3 {window = [2, 2]} : (tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32>
  %c4 = graph.fused_conv2d_int8 %q, %w, %s {x_zero_point = 3, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1]} : (tensor<1x8x8x4xui8>, tensor<3x3x4x16xi8>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  %p4 = graph.max_pool2d %c4 {window = [3, 3], strides = [2, 2]} : (tensor<1x8x8x16xf32>) -> tensor<1x3x3x16xf32>
  %c5 = graph.fused_conv2d_int8 %q, %w, %s {x_zero_point = 3, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1]} : (tensor<1x8x8x4xui8>, tensor<3x3x4x16xi8>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  %p5 = graph.max_pool2d %c5 {window = [3, 3]} : (tensor<1x8x8x16xf32>) -> tensor<1x2x2x16xf32>
  %c6 = graph.fused_conv2d_int8 %q7, %w, %s {x_zero_point = 3, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1]} : (tensor<1x7x7x4xui8>, tensor<3x3x4x16xi8>, tensor<16xf32>) -> tensor<1x7x7x16xf32>
  %p6 = graph.max_pool2d %c6 {window = [2, 2], padding = "same"} : (tensor<1x7x7x16xf32>) -> tensor<1x4x4x16xf32>
  %c7 = graph.fused_conv2d_int8 %q, %w, %s {x_zero_point = 3, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1]} : (tensor<1x8x8x4xui8>, tensor<3x3x4x16xi8>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  %p7 = graph.max_pool2d %c7 {window = [2, 2]} : (tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32>
  %w8 = graph.constant dense<2> : tensor<1x1x4x16xi8>
  %c8 = graph.fused_conv2d_int8 %q, %w8, %s {x_zero_point = 3, strides = [1, 1], dilations = [1, 1], pads = [0, 0, 0, 0]} : (tensor<1x8x8x4xui8>, tensor<1x1x4x16xi8>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  %p8 = graph.max_pool2d %c8 {window = [2, 2]} : (tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32>
  %wd = graph.constant dense<2> : tensor<3x3x4x1xi8>
  %sd = graph.constant dense<0.25> : tensor<4xf32>
  %c9 = graph.fused_conv2d_int8 %q, %wd, %sd {x_zero_point = 3, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1], depthwise = true} : (tensor<1x8x8x4xui8>, tensor<3x3x4x1xi8>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  %p9 = graph.max_pool2d %c9 {window = [2, 2]} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  return %p0, %p1, %p2, %p3, %p4, %p5, %p6, %p7, %c7, %p8, %p9 : tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>, tensor<1x3x3x16xf32>, tensor<1x2x2x16xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>, tensor<1x8x8x16xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x4xf32>
}
