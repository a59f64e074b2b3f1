// Every diagnostic of the graph dialect's verifiers, shape inference and
// attribute parsers, one case per split.
// RUN: tfcc-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Element types and broadcasting
//===----------------------------------------------------------------------===//

func.func @add_element_types(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'graph.add' op operand element types differ: 'f32' vs 'i32'; insert a graph.cast to convert one of them}}
  %0 = graph.add %a, %b : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @select_element_types(%c: tensor<2xi1>, %a: tensor<2xf32>, %b: tensor<2xi64>) {
  // expected-error @+1 {{'graph.select' op operand element types differ: 'f32' vs 'i64'; insert a graph.cast}}
  %0 = graph.select %c, %a, %b : (tensor<2xi1>, tensor<2xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @add_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'graph.add' op operand shapes are not broadcastable: 'tensor<2x3xf32>', 'tensor<4xf32>'}}
  %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @select_not_broadcastable(%c: tensor<5xi1>, %a: tensor<2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'graph.select' op operand shapes are not broadcastable: 'tensor<5xi1>', 'tensor<2xf32>', 'tensor<2xf32>'}}
  %0 = graph.select %c, %a, %b : (tensor<5xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @result_dims(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'graph.add' op result type 'tensor<3x3xf32>' does not match the inferred type 'tensor<2x3xf32>'}}
  %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @result_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'graph.add' op result type 'tensor<6xf32>' does not match the inferred type 'tensor<2x3xf32>'}}
  %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<6xf32>
  return
}

// -----

// Unary ops keep their operand's type (only the generic form can differ).
func.func @unary_result_type(%a: tensor<?x3xf32>) {
  // expected-error @+2 {{'graph.relu' op inferred type(s) 'tensor<?x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'graph.relu' op failed to infer returned types}}
  %0 = "graph.relu"(%a) : (tensor<?x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @result_static_for_dynamic_inferred(%a: tensor<?x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'graph.add' op result type 'tensor<2x3xf32>' does not match the inferred type 'tensor<?x3xf32>'}}
  %0 = graph.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @result_element_type(%a: tensor<2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'graph.add' op result element type 'i32' differs from the inferred 'f32'}}
  %0 = graph.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi32>
  return
}

// -----

func.func @cast_shape(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.cast' op result type 'tensor<3x2xi32>' does not match the inferred type 'tensor<2x3xi32>'}}
  %0 = graph.cast %a : (tensor<2x3xf32>) -> tensor<3x2xi32>
  return
}

// -----

func.func @compare_predicate(%a: tensor<2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'graph.compare' op attribute 'predicate' must be one of eq, ne, lt, le, gt, ge, got "gte"}}
  %0 = graph.compare %a, %b {predicate = "gte"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return
}

// -----

func.func @compare_element_types(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'graph.compare' op operand element types differ: 'f32' vs 'i32'; insert a graph.cast}}
  %0 = graph.compare %a, %b {predicate = "eq"} : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xi1>
  return
}

// -----

func.func @compare_result_not_i1(%a: tensor<2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'graph.compare' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = graph.compare %a, %b {predicate = "eq"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @compare_no_predicate(%a: tensor<2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'graph.compare' op requires attribute 'predicate'}}
  %0 = graph.compare %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return
}

// -----

func.func @select_condition_not_i1(%c: tensor<2xi32>, %a: tensor<2xf32>) {
  // expected-error @+1 {{'graph.select' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<2xi32>'}}
  %0 = graph.select %c, %a, %a : (tensor<2xi32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// ODS constraints: float-only unary ops reject integers.
func.func @exp_on_int(%a: tensor<2xi32>) {
  // expected-error @+1 {{'graph.exp' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2xi32>'}}
  %0 = graph.exp %a : tensor<2xi32>
  return
}

// -----

func.func @unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'graph.neg' op operand #0 must be ranked tensor of}}
  %0 = "graph.neg"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @unsupported_element_type(%a: tensor<2xi16>) {
  // expected-error @+1 {{'graph.neg' op operand #0 must be ranked tensor of}}
  %0 = graph.neg %a : tensor<2xi16>
  return
}

//===----------------------------------------------------------------------===//
// Attributes of unary ops
//===----------------------------------------------------------------------===//

// -----

func.func @math_unknown_function(%x: tensor<2xf32>) {
  // expected-error @+1 {{'graph.math' op unknown function "sec" (see MathFunctions.def)}}
  %0 = graph.math "sec" %x : tensor<2xf32>
  return
}

// -----

func.func @math_integer(%x: tensor<2xi32>) {
  // expected-error @+1 {{'graph.math' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2xi32>'}}
  %0 = graph.math "sign" %x : tensor<2xi32>
  return
}

// -----

func.func @gelu_approximate(%x: tensor<2xf32>) {
  // expected-error @+1 {{'graph.gelu' op attribute 'approximate' must be "none" or "tanh", got "erf"}}
  %0 = graph.gelu %x {approximate = "erf"} : tensor<2xf32>
  return
}

// -----

func.func @clip_min_greater_than_max(%x: tensor<2xf32>) {
  // expected-error @+1 {{'graph.clip' op attribute 'min' = 2.000000e+00 is greater than 'max' = 1.000000e+00}}
  %0 = graph.clip %x {min = 2.0 : f32, max = 1.0 : f32} : tensor<2xf32>
  return
}

// -----

func.func @clip_missing_max(%x: tensor<2xf32>) {
  // expected-error @+1 {{'graph.clip' op requires attribute 'max'}}
  %0 = graph.clip %x {min = 2.0 : f32} : tensor<2xf32>
  return
}

// -----

func.func @dropout_rate_one(%x: tensor<2xf32>) {
  // expected-error @+1 {{'graph.dropout' op attribute 'rate' = 1.000000e+00 must be in [0, 1)}}
  %0 = graph.dropout %x {rate = 1.0 : f32} : tensor<2xf32>
  return
}

// -----

func.func @dropout_rate_negative(%x: tensor<2xf32>) {
  // expected-error @+1 {{'graph.dropout' op attribute 'rate' = -5.000000e-01 must be in [0, 1)}}
  %0 = graph.dropout %x {rate = -0.5 : f32} : tensor<2xf32>
  return
}

// -----

func.func @dropout_missing_rate(%x: tensor<2xf32>) {
  // expected-error @+1 {{'graph.dropout' op requires attribute 'rate'}}
  %0 = graph.dropout %x : tensor<2xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x5xf32>) {
  // expected-error @+1 {{'graph.softmax' op attribute 'axis' = 2 is out of range for 'tensor<2x5xf32>'}}
  %0 = graph.softmax %x {axis = 2} : tensor<2x5xf32>
  return
}

// -----

func.func @log_softmax_axis(%x: tensor<2x5xf32>) {
  // expected-error @+1 {{'graph.log_softmax' op attribute 'axis' = -3 is out of range for 'tensor<2x5xf32>'}}
  %0 = graph.log_softmax %x {axis = -3} : tensor<2x5xf32>
  return
}

// -----

// Float attributes carry their type: a bare 0.1 is an f64.
func.func @bare_f64_epsilon(%x: tensor<2x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'graph.layer_norm' op attribute 'epsilon' failed to satisfy constraint: 32-bit float attribute}}
  %0 = graph.layer_norm %x, %g, %g {epsilon = 0.1} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @bare_f64_alpha(%x: tensor<2xf32>) {
  // expected-error @+1 {{'graph.leaky_relu' op attribute 'alpha' failed to satisfy constraint: 32-bit float attribute}}
  %0 = graph.leaky_relu %x {alpha = 0.1} : tensor<2xf32>
  return
}

// -----

func.func @integer_list_as_dense_array(%x: tensor<1x4x4x1xf32>) {
  // expected-error @+1 {{'graph.max_pool2d' op attribute 'window' failed to satisfy constraint: 64-bit integer array attribute}}
  %0 = graph.max_pool2d %x {window = array<i64: 2, 2>} : (tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

//===----------------------------------------------------------------------===//
// matmul, dense
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_rank(%a: tensor<3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'graph.matmul' op operands must have rank >= 2, got 'tensor<3xf32>' and 'tensor<3x4xf32>'}}
  %0 = graph.matmul %a, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_contracting(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'graph.matmul' op contracting dimensions differ: 3 vs 4 ('tensor<2x3xf32>' and 'tensor<4x5xf32>')}}
  %0 = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// transpose_b makes the contracting dimension of b its last one.
func.func @matmul_contracting_transposed(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'graph.matmul' op contracting dimensions differ: 3 vs 4}}
  %0 = graph.matmul %a, %b {transpose_b = true} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<5x3x4xf32>) {
  // expected-error @+1 {{'graph.matmul' op batch dimensions are not broadcastable: 'tensor<2x2x3xf32>' and 'tensor<5x3x4xf32>'}}
  %0 = graph.matmul %a, %b : (tensor<2x2x3xf32>, tensor<5x3x4xf32>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) {
  // expected-error @+1 {{'graph.matmul' op operand element types differ: 'f32' vs 'f16'}}
  %0 = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @dense_features(%x: tensor<?x3xf32>, %k: tensor<4x2xf32>) {
  // expected-error @+1 {{'graph.dense' op input 'tensor<?x3xf32>' has 3 features but kernel 'tensor<4x2xf32>' expects 4}}
  %0 = graph.dense %x, %k : (tensor<?x3xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
  return
}

// -----

func.func @dense_kernel_rank(%x: tensor<?x3xf32>, %k: tensor<3x2x1xf32>) {
  // expected-error @+1 {{'graph.dense' op kernel must have rank 2, got 'tensor<3x2x1xf32>'}}
  %0 = graph.dense %x, %k : (tensor<?x3xf32>, tensor<3x2x1xf32>) -> tensor<?x2xf32>
  return
}

// -----

func.func @dense_input_rank(%x: tensor<f32>, %k: tensor<3x2xf32>) {
  // expected-error @+1 {{'graph.dense' op input must have rank >= 1, got 'tensor<f32>'}}
  %0 = graph.dense %x, %k : (tensor<f32>, tensor<3x2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @dense_bias_rank(%x: tensor<?x3xf32>, %k: tensor<3x2xf32>, %b: tensor<1x2xf32>) {
  // expected-error @+1 {{'graph.dense' op bias must have rank 1, got 'tensor<1x2xf32>'}}
  %0 = graph.dense %x, %k, %b : (tensor<?x3xf32>, tensor<3x2xf32>, tensor<1x2xf32>) -> tensor<?x2xf32>
  return
}

// -----

func.func @dense_bias_units(%x: tensor<?x3xf32>, %k: tensor<3x2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'graph.dense' op bias 'tensor<3xf32>' does not match 2 units}}
  %0 = graph.dense %x, %k, %b : (tensor<?x3xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<?x2xf32>
  return
}

// -----

func.func @dense_element_types(%x: tensor<?x3xf32>, %k: tensor<3x2xbf16>) {
  // expected-error @+1 {{'graph.dense' op operand element types differ: 'f32' vs 'bf16'; insert a graph.cast}}
  %0 = graph.dense %x, %k : (tensor<?x3xf32>, tensor<3x2xbf16>) -> tensor<?x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// conv2d, depthwise_conv2d
//===----------------------------------------------------------------------===//

// -----

func.func @conv2d_input_rank(%x: tensor<7x7x4xf32>, %k: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'graph.conv2d' op input must have rank 4, got 'tensor<7x7x4xf32>'}}
  %0 = graph.conv2d %x, %k : (tensor<7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<5x5x8xf32>
  return
}

// -----

func.func @conv2d_kernel_rank(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4xf32>) {
  // expected-error @+1 {{'graph.conv2d' op kernel must have rank 4, got 'tensor<3x3x4xf32>'}}
  %0 = graph.conv2d %x, %k : (tensor<1x7x7x4xf32>, tensor<3x3x4xf32>) -> tensor<1x5x5x4xf32>
  return
}

// -----

func.func @conv2d_kernel_dynamic(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x?xf32>) {
  // expected-error @+1 {{'graph.conv2d' op kernel must have a static shape, got 'tensor<3x3x4x?xf32>'}}
  %0 = graph.conv2d %x, %k : (tensor<1x7x7x4xf32>, tensor<3x3x4x?xf32>) -> tensor<1x5x5x?xf32>
  return
}

// -----

func.func @conv2d_channels(%x: tensor<1x7x7x3xf32>, %k: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'graph.conv2d' op input has 3 channels but kernel 'tensor<3x3x4x8xf32>' with groups = 1 expects 4}}
  %0 = graph.conv2d %x, %k : (tensor<1x7x7x3xf32>, tensor<3x3x4x8xf32>) -> tensor<1x5x5x8xf32>
  return
}

// -----

func.func @conv2d_grouped_channels(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'graph.conv2d' op input has 4 channels but kernel 'tensor<3x3x4x8xf32>' with groups = 2 expects 8}}
  %0 = graph.conv2d %x, %k {groups = 2} : (tensor<1x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x5x5x8xf32>
  return
}

// -----

func.func @conv2d_groups_divisibility(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x2x6xf32>) {
  // expected-error @+1 {{'graph.conv2d' op kernel output channels 6 are not divisible by 'groups' = 4}}
  %0 = graph.conv2d %x, %k {groups = 4} : (tensor<1x7x7x4xf32>, tensor<3x3x2x6xf32>) -> tensor<1x5x5x6xf32>
  return
}

// -----

func.func @conv2d_groups_positive(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'graph.conv2d' op attribute 'groups' must be positive, got 0}}
  %0 = graph.conv2d %x, %k {groups = 0} : (tensor<1x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x5x5x8xf32>
  return
}

// -----

func.func @conv2d_strides_length(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'graph.conv2d' op attribute 'strides' must have 2 elements, got 3}}
  %0 = graph.conv2d %x, %k {strides = [1, 1, 1]} : (tensor<1x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x5x5x8xf32>
  return
}

// -----

func.func @conv2d_strides_positive(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'graph.conv2d' op attribute 'strides' must be positive, got [1, 0]}}
  %0 = graph.conv2d %x, %k {strides = [1, 0]} : (tensor<1x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x5x5x8xf32>
  return
}

// -----

func.func @conv2d_dilations_length(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'graph.conv2d' op attribute 'dilations' must have 2 elements, got 1}}
  %0 = graph.conv2d %x, %k {dilations = [2]} : (tensor<1x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x5x5x8xf32>
  return
}

// -----

func.func @conv2d_dilations_positive(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'graph.conv2d' op attribute 'dilations' must be positive, got [-1, 1]}}
  %0 = graph.conv2d %x, %k {dilations = [-1, 1]} : (tensor<1x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x5x5x8xf32>
  return
}

// -----

func.func @conv2d_padding(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'graph.conv2d' op attribute 'padding' must be "valid" or "same", got "SAME"}}
  %0 = graph.conv2d %x, %k {padding = "SAME"} : (tensor<1x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x7x7x8xf32>
  return
}

// -----

func.func @conv2d_window_too_large(%x: tensor<1x2x7x4xf32>, %k: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'graph.conv2d' op window of size 3 (dilation 1) does not fit the input height of size 2 with "valid" padding}}
  %0 = graph.conv2d %x, %k : (tensor<1x2x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x1x5x8xf32>
  return
}

// -----

func.func @conv2d_dilated_window_too_large(%x: tensor<1x7x4x4xf32>, %k: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'graph.conv2d' op window of size 3 (dilation 2) does not fit the input width of size 4 with "valid" padding}}
  %0 = graph.conv2d %x, %k {dilations = [1, 2]} : (tensor<1x7x4x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x5x1x8xf32>
  return
}

// -----

func.func @conv2d_bias_channels(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'graph.conv2d' op bias 'tensor<4xf32>' does not match 8 output channels}}
  %0 = graph.conv2d %x, %k, %b : (tensor<1x7x7x4xf32>, tensor<3x3x4x8xf32>, tensor<4xf32>) -> tensor<1x5x5x8xf32>
  return
}

// -----

func.func @conv2d_bias_rank(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x8xf32>, %b: tensor<1x8xf32>) {
  // expected-error @+1 {{'graph.conv2d' op bias must have rank 1, got 'tensor<1x8xf32>'}}
  %0 = graph.conv2d %x, %k, %b : (tensor<1x7x7x4xf32>, tensor<3x3x4x8xf32>, tensor<1x8xf32>) -> tensor<1x5x5x8xf32>
  return
}

// -----

func.func @conv2d_result(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'graph.conv2d' op result type 'tensor<1x7x7x8xf32>' does not match the inferred type 'tensor<1x5x5x8xf32>'}}
  %0 = graph.conv2d %x, %k : (tensor<1x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x7x7x8xf32>
  return
}

// -----

func.func @conv2d_element_types(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x8xf16>) {
  // expected-error @+1 {{'graph.conv2d' op operand element types differ: 'f32' vs 'f16'; insert a graph.cast}}
  %0 = graph.conv2d %x, %k : (tensor<1x7x7x4xf32>, tensor<3x3x4x8xf16>) -> tensor<1x5x5x8xf32>
  return
}

// -----

func.func @depthwise_channels(%x: tensor<1x6x6x3xf32>, %k: tensor<3x3x4x2xf32>) {
  // expected-error @+1 {{'graph.depthwise_conv2d' op input has 3 channels but the depthwise kernel 'tensor<3x3x4x2xf32>' expects 4}}
  %0 = graph.depthwise_conv2d %x, %k : (tensor<1x6x6x3xf32>, tensor<3x3x4x2xf32>) -> tensor<1x4x4x8xf32>
  return
}

// -----

func.func @depthwise_bias(%x: tensor<1x6x6x3xf32>, %k: tensor<3x3x3x2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'graph.depthwise_conv2d' op bias 'tensor<3xf32>' does not match 6 output channels}}
  %0 = graph.depthwise_conv2d %x, %k, %b : (tensor<1x6x6x3xf32>, tensor<3x3x3x2xf32>, tensor<3xf32>) -> tensor<1x4x4x6xf32>
  return
}

// -----

func.func @depthwise_padding(%x: tensor<1x6x6x3xf32>, %k: tensor<3x3x3x2xf32>) {
  // expected-error @+1 {{'graph.depthwise_conv2d' op attribute 'padding' must be "valid" or "same", got "full"}}
  %0 = graph.depthwise_conv2d %x, %k {padding = "full"} : (tensor<1x6x6x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x8x8x6xf32>
  return
}

// -----

func.func @depthwise_result(%x: tensor<1x6x6x3xf32>, %k: tensor<3x3x3x2xf32>) {
  // expected-error @+1 {{'graph.depthwise_conv2d' op result type 'tensor<1x4x4x3xf32>' does not match the inferred type 'tensor<1x4x4x6xf32>'}}
  %0 = graph.depthwise_conv2d %x, %k : (tensor<1x6x6x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x4x4x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Pools
//===----------------------------------------------------------------------===//

// -----

func.func @pool_input_rank(%x: tensor<4x4x1xf32>) {
  // expected-error @+1 {{'graph.max_pool2d' op input must have rank 4, got 'tensor<4x4x1xf32>'}}
  %0 = graph.max_pool2d %x {window = [2, 2]} : (tensor<4x4x1xf32>) -> tensor<2x2x1xf32>
  return
}

// -----

func.func @pool_window_length(%x: tensor<1x4x4x1xf32>) {
  // expected-error @+1 {{'graph.avg_pool2d' op attribute 'window' must have 2 elements, got 1}}
  %0 = graph.avg_pool2d %x {window = [2]} : (tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @pool_window_positive(%x: tensor<1x4x4x1xf32>) {
  // expected-error @+1 {{'graph.max_pool2d' op attribute 'window' must be positive, got [0, 2]}}
  %0 = graph.max_pool2d %x {window = [0, 2], strides = [1, 1]} : (tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @pool_strides(%x: tensor<1x4x4x1xf32>) {
  // expected-error @+1 {{'graph.max_pool2d' op attribute 'strides' must be positive, got [2, 0]}}
  %0 = graph.max_pool2d %x {window = [2, 2], strides = [2, 0]} : (tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @pool_strides_length(%x: tensor<1x4x4x1xf32>) {
  // expected-error @+1 {{'graph.avg_pool2d' op attribute 'strides' must have 2 elements, got 4}}
  %0 = graph.avg_pool2d %x {window = [2, 2], strides = [1, 2, 2, 1]} : (tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @pool_padding(%x: tensor<1x4x4x1xf32>) {
  // expected-error @+1 {{'graph.avg_pool2d' op attribute 'padding' must be "valid" or "same", got "causal"}}
  %0 = graph.avg_pool2d %x {window = [2, 2], padding = "causal"} : (tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @pool_window_too_large(%x: tensor<?x4x1x1xf32>) {
  // expected-error @+1 {{'graph.max_pool2d' op window of size 2 (dilation 1) does not fit the input width of size 1 with "valid" padding}}
  %0 = graph.max_pool2d %x {window = [2, 2]} : (tensor<?x4x1x1xf32>) -> tensor<?x2x1x1xf32>
  return
}

// -----

func.func @pool_missing_window(%x: tensor<1x4x4x1xf32>) {
  // expected-error @+1 {{'graph.max_pool2d' op requires attribute 'window'}}
  %0 = graph.max_pool2d %x : (tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @pool_result(%x: tensor<1x4x4x1xf32>) {
  // expected-error @+1 {{'graph.max_pool2d' op result type 'tensor<1x4x4x1xf32>' does not match the inferred type 'tensor<1x2x2x1xf32>'}}
  %0 = graph.max_pool2d %x {window = [2, 2]} : (tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  return
}

// -----

func.func @global_pool_rank(%x: tensor<4x4x3xf32>) {
  // expected-error @+1 {{'graph.global_avg_pool2d' op input must have rank 4, got 'tensor<4x4x3xf32>'}}
  %0 = graph.global_avg_pool2d %x : (tensor<4x4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @global_pool_result(%x: tensor<2x4x4x3xf32>) {
  // expected-error @+1 {{'graph.global_max_pool2d' op result type 'tensor<2x4xf32>' does not match the inferred type 'tensor<2x3xf32>'}}
  %0 = graph.global_max_pool2d %x : (tensor<2x4x4x3xf32>) -> tensor<2x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

// -----

func.func @batch_norm_params(%x: tensor<2x4x4x3xf32>, %p: tensor<3xf32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'graph.batch_norm' op variance must be a vector of 3 elements (the last axis of 'tensor<2x4x4x3xf32>'), got 'tensor<4xf32>'}}
  %0 = graph.batch_norm %x, %p, %p, %p, %v : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<2x4x4x3xf32>
  return
}

// -----

func.func @batch_norm_param_rank(%x: tensor<2x3xf32>, %p: tensor<3xf32>, %g: tensor<1x3xf32>) {
  // expected-error @+1 {{'graph.batch_norm' op gamma must be a vector of 3 elements (the last axis of 'tensor<2x3xf32>'), got 'tensor<1x3xf32>'}}
  %0 = graph.batch_norm %x, %g, %p, %p, %p : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @batch_norm_input_rank(%x: tensor<f32>, %p: tensor<1xf32>) {
  // expected-error @+1 {{'graph.batch_norm' op input must have rank >= 1, got 'tensor<f32>'}}
  %0 = graph.batch_norm %x, %p, %p, %p, %p : (tensor<f32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<f32>
  return
}

// -----

func.func @batch_norm_bare_epsilon(%x: tensor<2x3xf32>, %p: tensor<3xf32>) {
  // expected-error @+1 {{'graph.batch_norm' op attribute 'epsilon' failed to satisfy constraint: 32-bit float attribute}}
  %0 = graph.batch_norm %x, %p, %p, %p, %p {epsilon = 0.1} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x5x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'graph.layer_norm' op attribute 'axis' = 3 is out of range for 'tensor<2x5x8xf32>'}}
  %0 = graph.layer_norm %x, %g, %g {axis = 3} : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @layer_norm_gamma(%x: tensor<2x5x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'graph.layer_norm' op gamma 'tensor<8xf32>' must have the shape of the normalized axes [5, 8] of 'tensor<2x5x8xf32>'}}
  %0 = graph.layer_norm %x, %g, %g {axis = 1} : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @layer_norm_beta(%x: tensor<2x5x8xf32>, %g: tensor<8xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'graph.layer_norm' op beta 'tensor<5xf32>' must have the shape of the normalized axes [8] of 'tensor<2x5x8xf32>'}}
  %0 = graph.layer_norm %x, %g, %b : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<5xf32>) -> tensor<2x5x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_element_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.reshape' op cannot reshape 'tensor<2x3xf32>' (6 elements) to 'tensor<4xf32>' (4 elements)}}
  %0 = graph.reshape %x : (tensor<2x3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reshape_element_count_dynamic_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.reshape' op cannot reshape 'tensor<2x3xf32>' (6 elements) to 'tensor<?x4xf32>'}}
  %0 = graph.reshape %x : (tensor<2x3xf32>) -> tensor<?x4xf32>
  return
}

// -----

// expected-error @+1 {{attribute 'trainable' must be true or false, got 1 : i64}}
graph.variable @v : tensor<2xf32> = dense<0.0> {trainable = 1}

// -----

// expected-error @+1 {{duplicate #graph.init key 'seed'}}
graph.variable @v : tensor<2xf32> = #graph.init<"glorot_uniform", seed = 1, seed = 2>

// -----

func.func @reshape_too_many_dynamic(%x: tensor<?x6xf32>) {
  // expected-error @+1 {{'graph.reshape' op result type 'tensor<?x?xf32>' may have more than one dynamic dimension only when 'tensor<?x6xf32>' has as many and the static dimensions before, between and after them agree in product (each then carries the input's, in order)}}
  %0 = graph.reshape %x : (tensor<?x6xf32>) -> tensor<?x?xf32>
  return
}

// -----

// Two dynamic dims each way, but 6 between them in the input and 3 in the
// result: the dynamic dims cannot carry over in order.
func.func @reshape_dynamic_regrouped(%x: tensor<?x6x?xf32>) {
  // expected-error @+1 {{'graph.reshape' op result type 'tensor<?x3x?x2xf32>' may have more than one dynamic dimension only when}}
  %0 = graph.reshape %x : (tensor<?x6x?xf32>) -> tensor<?x3x?x2xf32>
  return
}

// -----

func.func @reshape_dynamic_to_static(%x: tensor<?x6xf32>) {
  // expected-error @+1 {{'graph.reshape' op reshape of the dynamic 'tensor<?x6xf32>' needs one dynamic dimension in the result, got 'tensor<2x6xf32>'}}
  %0 = graph.reshape %x : (tensor<?x6xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.reshape' op cannot change the element type from 'f32' to 'i32'; use graph.cast}}
  %0 = graph.reshape %x : (tensor<2x3xf32>) -> tensor<6xi32>
  return
}

// -----

func.func @transpose_perm_length(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'graph.transpose' op attribute 'perm' = [1, 0] is not a permutation of the 3 dimensions of 'tensor<2x3x4xf32>'}}
  %0 = graph.transpose %x {perm = [1, 0]} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

func.func @transpose_perm_repeated(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'graph.transpose' op attribute 'perm' = [0, 0, 1] is not a permutation of the 3 dimensions of 'tensor<2x3x4xf32>'}}
  %0 = graph.transpose %x {perm = [0, 0, 1]} : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @transpose_perm_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.transpose' op attribute 'perm' = [-1, 0] is not a permutation of the 2 dimensions of 'tensor<2x3xf32>'}}
  %0 = graph.transpose %x {perm = [-1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.transpose' op result type 'tensor<2x3xf32>' does not match the inferred type 'tensor<3x2xf32>'}}
  %0 = graph.transpose %x {perm = [1, 0]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.concat' op attribute 'axis' = 2 is out of range for 'tensor<2x3xf32>'}}
  %0 = graph.concat %a, %a {axis = 2} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_ranks(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // expected-error @+1 {{'graph.concat' op operands have different ranks: 'tensor<2x3xf32>' vs 'tensor<2x3x1xf32>'}}
  %0 = graph.concat %a, %b {axis = 0} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{'graph.concat' op operands 'tensor<2x3xf32>' and 'tensor<2x4xf32>' differ in dimension 1 outside the concatenation axis}}
  %0 = graph.concat %a, %b {axis = 0} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_element_types(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) {
  // expected-error @+1 {{'graph.concat' op operand element types differ: 'f32' vs 'i32'; insert a graph.cast}}
  %0 = graph.concat %a, %b {axis = 0} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_no_operands() {
  // expected-error @+1 {{'graph.concat' op needs at least one operand}}
  %0 = graph.concat {axis = 0} : () -> tensor<2x3xf32>
  return
}

// -----

func.func @concat_result(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.concat' op result type 'tensor<2x6xf32>' does not match the inferred type 'tensor<4x3xf32>'}}
  %0 = graph.concat %a, %a {axis = 0} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @slice_starts_length(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'graph.slice' op attribute 'starts' has 1 elements but the input 'tensor<4x6xf32>' has rank 2}}
  %0 = graph.slice %x {starts = [0], limits = [1, 1]} : (tensor<4x6xf32>) -> tensor<1x1xf32>
  return
}

// -----

func.func @slice_limits_length(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'graph.slice' op attribute 'limits' has 3 elements but the input 'tensor<4x6xf32>' has rank 2}}
  %0 = graph.slice %x {starts = [0, 0], limits = [1, 1, 1]} : (tensor<4x6xf32>) -> tensor<1x1xf32>
  return
}

// -----

func.func @slice_strides_length(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'graph.slice' op attribute 'strides' has 1 elements but the input 'tensor<4x6xf32>' has rank 2}}
  %0 = graph.slice %x {starts = [0, 0], limits = [1, 1], strides = [1]} : (tensor<4x6xf32>) -> tensor<1x1xf32>
  return
}

// -----

func.func @slice_strides_positive(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'graph.slice' op attribute 'strides' must be positive, got [1, 0]}}
  %0 = graph.slice %x {starts = [0, 0], limits = [1, 1], strides = [1, 0]} : (tensor<4x6xf32>) -> tensor<1x1xf32>
  return
}

// -----

func.func @slice_limit_out_of_range(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'graph.slice' op slice [0, 7) is out of range for dimension 1 of 'tensor<4x6xf32>'}}
  %0 = graph.slice %x {starts = [0, 0], limits = [4, 7]} : (tensor<4x6xf32>) -> tensor<4x7xf32>
  return
}

// -----

func.func @slice_limit_before_start(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'graph.slice' op slice [3, 2) is out of range for dimension 0 of 'tensor<4x6xf32>'}}
  %0 = graph.slice %x {starts = [3, 0], limits = [2, -1]} : (tensor<4x6xf32>) -> tensor<1x6xf32>
  return
}

// -----

func.func @slice_negative_start(%x: tensor<?x6xf32>) {
  // expected-error @+1 {{'graph.slice' op slice [-1, -1) is out of range for dimension 0 of 'tensor<?x6xf32>'}}
  %0 = graph.slice %x {starts = [-1, 0], limits = [-1, -1]} : (tensor<?x6xf32>) -> tensor<?x6xf32>
  return
}

// -----

func.func @slice_result(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'graph.slice' op result type 'tensor<2x6xf32>' does not match the inferred type 'tensor<2x3xf32>'}}
  %0 = graph.slice %x {starts = [1, 0], limits = [3, -1], strides = [1, 2]} : (tensor<4x6xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @pad_length(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.pad' op attribute 'pads' needs 4 elements (low and high per dimension), got 2}}
  %0 = graph.pad %x {pads = [1, 1]} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.pad' op attribute 'pads' must be non-negative, got [0, 0, -1, 0]}}
  %0 = graph.pad %x {pads = [0, 0, -1, 0]} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @pad_overflow(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.pad' op attribute 'pads' = [0, 0, 9223372036854775806, 1] overflows the size of dimension 1 of 'tensor<2x3xf32>'}}
  %0 = graph.pad %x {pads = [0, 0, 9223372036854775806, 1]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// A stride near INT64_MAX takes one element (ceil without overflow).
func.func @slice_huge_stride(%x: tensor<?x6xf32>) {
  // expected-error @+1 {{'graph.slice' op result type 'tensor<?x6xf32>' does not match the inferred type 'tensor<?x1xf32>'}}
  %0 = graph.slice %x {starts = [0, 1], limits = [-1, 6], strides = [1, 9223372036854775807]} : (tensor<?x6xf32>) -> tensor<?x6xf32>
  return
}

// -----

func.func @pad_bare_value(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.pad' op attribute 'value' failed to satisfy constraint: 32-bit float attribute}}
  %0 = graph.pad %x {pads = [0, 0, 0, 0], value = 1.0} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @resize_mode(%x: tensor<1x2x2x1xf32>) {
  // expected-error @+1 {{'graph.resize' op attribute 'mode' must be "nearest" or "bilinear", got "bicubic"}}
  %0 = graph.resize %x {size = [4, 4], mode = "bicubic"} : (tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32>
  return
}

// -----

func.func @resize_size_length(%x: tensor<1x2x2x1xf32>) {
  // expected-error @+1 {{'graph.resize' op attribute 'size' must have 2 elements, got 3}}
  %0 = graph.resize %x {size = [4, 4, 1]} : (tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32>
  return
}

// -----

func.func @resize_size_positive(%x: tensor<1x2x2x1xf32>) {
  // expected-error @+1 {{'graph.resize' op attribute 'size' must be positive, got [4, 0]}}
  %0 = graph.resize %x {size = [4, 0]} : (tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32>
  return
}

// -----

func.func @resize_rank(%x: tensor<2x2x1xf32>) {
  // expected-error @+1 {{'graph.resize' op input must have rank 4, got 'tensor<2x2x1xf32>'}}
  %0 = graph.resize %x {size = [4, 4]} : (tensor<2x2x1xf32>) -> tensor<4x4x1xf32>
  return
}

// -----

func.func @resize_result(%x: tensor<1x2x2x1xf32>) {
  // expected-error @+1 {{'graph.resize' op result type 'tensor<1x4x4x1xf32>' does not match the inferred type 'tensor<1x4x3x1xf32>'}}
  %0 = graph.resize %x {size = [4, 3]} : (tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32>
  return
}

// -----

func.func @gather_axis(%t: tensor<10x4xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'graph.gather' op attribute 'axis' = 2 is out of range for 'tensor<10x4xf32>'}}
  %0 = graph.gather %t, %i {axis = 2} : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<10x4x3xf32>
  return
}

// -----

func.func @gather_float_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{'graph.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = graph.gather %t, %i : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_result(%t: tensor<10x4xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'graph.gather' op result type 'tensor<10x4xf32>' does not match the inferred type 'tensor<3x4xf32>'}}
  %0 = graph.gather %t, %i : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @mod_float_without_fmod(%a: tensor<2xf32>) {
  // expected-error @+1 {{'graph.mod' op of 'f32' needs fmod = true (the sign of the dividend)}}
  %0 = graph.mod %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @mod_bool(%a: tensor<2xi1>) {
  // expected-error @+1 {{'graph.mod' op of i1 operands}}
  %0 = graph.mod %a, %a : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @top_k_indices_k(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'graph.top_k_indices' op attribute 'k' = 5 is outside [0, 4] for 'tensor<2x4xf32>'}}
  %0 = graph.top_k_indices %x {k = 5} : (tensor<2x4xf32>) -> tensor<2x5xi64>
  return
}

// -----

func.func @top_k_indices_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'graph.top_k_indices' op input 'tensor<f32>' must have rank >= 1}}
  %0 = graph.top_k_indices %x {k = 1} : (tensor<f32>) -> tensor<1xi64>
  return
}

// -----

func.func @gather_elements_rank(%d: tensor<3x4xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'graph.gather_elements' op indices 'tensor<3xi32>' must have the rank of data 'tensor<3x4xf32>'}}
  %0 = graph.gather_elements %d, %i : (tensor<3x4xf32>, tensor<3xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_elements_axis(%d: tensor<3x4xf32>, %i: tensor<3x4xi32>) {
  // expected-error @+1 {{'graph.gather_elements' op attribute 'axis' = -3 is out of range for 'tensor<3x4xf32>'}}
  %0 = graph.gather_elements %d, %i {axis = -3} : (tensor<3x4xf32>, tensor<3x4xi32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_elements_larger(%d: tensor<3x4xf32>, %i: tensor<3x5xi32>) {
  // expected-error @+1 {{'graph.gather_elements' op dimension 1 of indices 'tensor<3x5xi32>' exceeds that of data 'tensor<3x4xf32>'}}
  %0 = graph.gather_elements %d, %i {axis = 0} : (tensor<3x4xf32>, tensor<3x5xi32>) -> tensor<3x5xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_axes_repeated(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'graph.reduce_sum' op attribute 'axes' = [1, -2] has an out-of-range or repeated axis for 'tensor<2x3x4xf32>'}}
  %0 = graph.reduce_sum %x {axes = [1, -2]} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @reduce_axes_out_of_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'graph.reduce_mean' op attribute 'axes' = [3] has an out-of-range or repeated axis for 'tensor<2x3x4xf32>'}}
  %0 = graph.reduce_mean %x {axes = [3]} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_missing_axes(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'graph.reduce_max' op requires attribute 'axes'}}
  %0 = graph.reduce_max %x : (tensor<2x3x4xf32>) -> tensor<f32>
  return
}

// -----

func.func @reduce_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'graph.reduce_min' op result type 'tensor<2x4xf32>' does not match the inferred type 'tensor<2x1x4xf32>'}}
  %0 = graph.reduce_min %x {axes = [1], keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @argmax_axis(%x: tensor<2x5xf32>) {
  // expected-error @+1 {{'graph.argmax' op attribute 'axis' = 2 is out of range for 'tensor<2x5xf32>'}}
  %0 = graph.argmax %x {axis = 2} : (tensor<2x5xf32>) -> tensor<2xi32>
  return
}

// -----

func.func @argmax_result_i64(%x: tensor<2x5xf32>) {
  // expected-error @+1 {{'graph.argmax' op result #0 must be ranked tensor of 32-bit signless integer values, but got 'tensor<2xi64>'}}
  %0 = graph.argmax %x : (tensor<2x5xf32>) -> tensor<2xi64>
  return
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// -----

func.func @sparse_logits_rank(%l: tensor<4x5x1xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'graph.sparse_softmax_cross_entropy' op logits must have rank 2, got 'tensor<4x5x1xf32>'}}
  %0 = graph.sparse_softmax_cross_entropy %l, %y : (tensor<4x5x1xf32>, tensor<4xi32>) -> tensor<f32>
  return
}

// -----

func.func @sparse_labels(%l: tensor<4x5xf32>, %y: tensor<3xi32>) {
  // expected-error @+1 {{'graph.sparse_softmax_cross_entropy' op labels 'tensor<3xi32>' must be a vector with one label per row of 'tensor<4x5xf32>'}}
  %0 = graph.sparse_softmax_cross_entropy %l, %y : (tensor<4x5xf32>, tensor<3xi32>) -> tensor<f32>
  return
}

// -----

func.func @sparse_labels_rank(%l: tensor<4x5xf32>, %y: tensor<4x1xi32>) {
  // expected-error @+1 {{'graph.sparse_softmax_cross_entropy' op labels 'tensor<4x1xi32>' must be a vector with one label per row of 'tensor<4x5xf32>'}}
  %0 = graph.sparse_softmax_cross_entropy %l, %y : (tensor<4x5xf32>, tensor<4x1xi32>) -> tensor<f32>
  return
}

// -----

func.func @softmax_cross_entropy_targets(%l: tensor<4x5xf32>, %p: tensor<4x6xf32>) {
  // expected-error @+1 {{'graph.softmax_cross_entropy' op targets 'tensor<4x6xf32>' must have the shape of 'tensor<4x5xf32>'}}
  %0 = graph.softmax_cross_entropy %l, %p : (tensor<4x5xf32>, tensor<4x6xf32>) -> tensor<f32>
  return
}

// -----

func.func @softmax_cross_entropy_logits_rank(%l: tensor<5xf32>, %p: tensor<5xf32>) {
  // expected-error @+1 {{'graph.softmax_cross_entropy' op logits must have rank 2, got 'tensor<5xf32>'}}
  %0 = graph.softmax_cross_entropy %l, %p : (tensor<5xf32>, tensor<5xf32>) -> tensor<f32>
  return
}

// -----

func.func @softmax_cross_entropy_element_types(%l: tensor<4x5xf32>, %p: tensor<4x5xf16>) {
  // expected-error @+1 {{'graph.softmax_cross_entropy' op operand element types differ: 'f32' vs 'f16'; insert a graph.cast}}
  %0 = graph.softmax_cross_entropy %l, %p : (tensor<4x5xf32>, tensor<4x5xf16>) -> tensor<f32>
  return
}

// -----

func.func @mean_squared_error_shapes(%a: tensor<4x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{'graph.mean_squared_error' op prediction 'tensor<4x3xf32>' and target 'tensor<4x2xf32>' must have the same shape}}
  %0 = graph.mean_squared_error %a, %b : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<f32>
  return
}

// -----

func.func @mean_squared_error_element_types(%a: tensor<4x3xf32>, %b: tensor<4x3xf16>) {
  // expected-error @+1 {{'graph.mean_squared_error' op operand element types differ: 'f32' vs 'f16'; insert a graph.cast}}
  %0 = graph.mean_squared_error %a, %b : (tensor<4x3xf32>, tensor<4x3xf16>) -> tensor<f32>
  return
}

// -----

func.func @loss_result_not_scalar(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{'graph.mean_squared_error' op result #0 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %0 = graph.mean_squared_error %a, %a : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<1xf32>
  return
}

//===----------------------------------------------------------------------===//
// Variables and reads
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'graph.variable' op variable @v must have a static type, got 'tensor<?x4xf32>'}}
graph.variable @v : tensor<?x4xf32> = #graph.init<"zeros">

// -----

// expected-error @+1 {{'graph.variable' op initial value of type 'tensor<3xf32>' does not match the variable type 'tensor<2xf32>'}}
"graph.variable"() <{sym_name = "v", type = tensor<2xf32>, init = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>}> : () -> ()

// -----

// expected-error @+1 {{'graph.variable' op dense_resource blob 'absent' of variable @v is missing from dialect_resources}}
graph.variable @v : tensor<2xf32> = dense_resource<absent>

// -----

// Two f32 need 8 bytes after the alignment word; the blob holds one.
// expected-error @+1 {{'graph.variable' op dense_resource blob 'short' holds 4 bytes but 'tensor<2xf32>' needs 8}}
graph.variable @v : tensor<2xf32> = dense_resource<short>
{-#
  dialect_resources: {
    builtin: {
      short: "0x040000000000803F"
    }
  }
#-}

// -----

// expected-error @+1 {{'graph.variable' op initial value must be dense<...>, dense_resource<...> or #graph.init<...>, got "zeros"}}
graph.variable @v : tensor<2xf32> = "zeros"

// -----

// expected-error @+1 {{'graph.variable' op initial value must be dense<...>, dense_resource<...> or #graph.init<...>, got [1, 2]}}
graph.variable @v : tensor<2xf32> = [1, 2]

// -----

// expected-error @+1 {{'graph.variable' op initializer "glorot_uniform" needs a floating-point variable, got 'tensor<4x4xi32>'}}
graph.variable @v : tensor<4x4xi32> = #graph.init<"glorot_uniform", seed = 1>

// -----

// expected-error @+1 {{'graph.variable' op initializer "uniform" needs a floating-point variable, got 'tensor<4xi64>'}}
graph.variable @v : tensor<4xi64> = #graph.init<"uniform", scale = 1.0>

// -----

// expected-error @+1 {{unknown initializer kind "xavier"; expected zeros, ones, glorot_uniform, glorot_normal, he_uniform, he_normal or uniform}}
graph.variable @v : tensor<2xf32> = #graph.init<"xavier", seed = 1>

// -----

// expected-error @+1 {{initializer "uniform" requires 'scale'}}
graph.variable @v : tensor<2xf32> = #graph.init<"uniform", seed = 1>

// -----

// expected-error @+1 {{'scale' is only valid for the "uniform" initializer, not "he_normal"}}
graph.variable @v : tensor<2xf32> = #graph.init<"he_normal", scale = 1.0>

// -----

// expected-error @+1 {{unknown #graph.init key 'mean' (expected 'seed' or 'scale')}}
graph.variable @v : tensor<2xf32> = #graph.init<"uniform", scale = 1.0, mean = 0.0>

// -----

// expected-error @+1 {{'scale' must be positive, got -5.000000e-01}}
graph.variable @v : tensor<2xf32> = #graph.init<"uniform", seed = 2, scale = -0.5>

// -----

// expected-error @+1 {{'scale' must be positive, got 0.000000e+00}}
graph.variable @v : tensor<2xf32> = #graph.init<"uniform", scale = 0.0>

// -----

// expected-error @+1 {{'seed' must be non-negative, got -1}}
graph.variable @v : tensor<2xf32> = #graph.init<"glorot_uniform", seed = -1>

// -----

// Inside #graph.init floats are written with a decimal point.
// expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
// expected-note @+1 {{add a trailing dot to make the literal a float}}
graph.variable @v : tensor<2xf32> = #graph.init<"uniform", scale = 1>

// -----

// expected-error @+1 {{Invalid attribute `trainable` in property conversion: 1 : i64}}
"graph.variable"() <{sym_name = "v", type = tensor<2xf32>, init = dense<0.0> : tensor<2xf32>, trainable = 1}> : () -> ()

// -----

func.func @read_missing() -> tensor<2xf32> {
  // expected-error @+1 {{'graph.read' op 'nowhere' does not name a graph.variable}}
  %0 = graph.read @nowhere : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func private @not_a_variable()

func.func @read_function() -> tensor<2xf32> {
  // expected-error @+1 {{'graph.read' op 'not_a_variable' does not name a graph.variable}}
  %0 = graph.read @not_a_variable : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

graph.variable @w : tensor<2x3xf32> = dense<0.0>

func.func @read_type() -> tensor<3x2xf32> {
  // expected-error @+1 {{'graph.read' op result type 'tensor<3x2xf32>' differs from the type 'tensor<2x3xf32>' of variable @w}}
  %0 = graph.read @w : tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

graph.variable @w : tensor<2xf32> = dense<0.0>

func.func @read_element_type() -> tensor<2xi32> {
  // expected-error @+1 {{'graph.read' op result type 'tensor<2xi32>' differs from the type 'tensor<2xf32>' of variable @w}}
  %0 = graph.read @w : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @constant_type() -> tensor<3xf32> {
  // expected-error @+1 {{'graph.constant' op failed to verify that all of {value, output} have same type}}
  %0 = "graph.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @pad_unknown_mode(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.pad' op attribute 'mode' must be "constant", "reflect" or "edge", got "wrap"}}
  %0 = graph.pad %x {pads = [0, 0, 1, 1], mode = "wrap"} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @pad_reflect_too_wide(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.pad' op reflect padding needs pads smaller than the dimension, got [2, 0, 0, 0] for 'tensor<2x3xf32>'}}
  %0 = graph.pad %x {pads = [2, 0, 0, 0], mode = "reflect"} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Training: #graph.sgd, #graph.adam, graph.train_step
//===----------------------------------------------------------------------===//

// -----

func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = graph.reduce_mean %x {axes = [0]} : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
// expected-error @+1 {{duplicate #graph.adam key 'beta1'}}
graph.train_step @t {loss = @loss, optimizer = #graph.adam<beta1 = 0.9, beta1 = 0.8>}

// -----

// expected-error @+1 {{unknown #graph.adam key 'momentum' (expected 'learning_rate', 'beta1', 'beta2' or 'epsilon')}}
graph.train_step @t {loss = @loss, optimizer = #graph.adam<momentum = 0.9>}

// -----

// expected-error @+1 {{duplicate #graph.sgd key 'momentum'}}
graph.train_step @t {loss = @loss, optimizer = #graph.sgd<momentum = 0.5, momentum = 0.5>}

// -----

// expected-error @+1 {{unknown #graph.sgd key 'beta1' (expected 'learning_rate', 'momentum' or 'nesterov')}}
graph.train_step @t {loss = @loss, optimizer = #graph.sgd<beta1 = 0.9>}

// -----

// expected-error @+1 {{'nesterov' must be true or false, got 'yes'}}
graph.train_step @t {loss = @loss, optimizer = #graph.sgd<nesterov = yes>}

// -----

// Floats are written with a decimal point.
// expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
// expected-note @+1 {{add a trailing dot to make the literal a float}}
graph.train_step @t {loss = @loss, optimizer = #graph.sgd<learning_rate = 1>}

// -----

// expected-error @+1 {{#graph.sgd 'learning_rate' must be positive, got 0.0}}
graph.train_step @t {loss = @loss, optimizer = #graph.sgd<learning_rate = 0.0>}

// -----

// expected-error @+1 {{#graph.sgd 'momentum' must be in [0, 1), got 1.0}}
graph.train_step @t {loss = @loss, optimizer = #graph.sgd<momentum = 1.0>}

// -----

// expected-error @+1 {{#graph.sgd 'momentum' must be in [0, 1), got -0.5}}
graph.train_step @t {loss = @loss, optimizer = #graph.sgd<momentum = -0.5>}

// -----

// expected-error @+1 {{#graph.adam 'learning_rate' must be positive, got -0.001}}
graph.train_step @t {loss = @loss, optimizer = #graph.adam<learning_rate = -1.0e-03>}

// -----

// expected-error @+1 {{#graph.adam 'beta1' must be in [0, 1), got 1.0}}
graph.train_step @t {loss = @loss, optimizer = #graph.adam<beta1 = 1.0>}

// -----

// expected-error @+1 {{#graph.adam 'beta2' must be in [0, 1), got 1.5}}
graph.train_step @t {loss = @loss, optimizer = #graph.adam<beta2 = 1.5>}

// -----

// expected-error @+1 {{#graph.adam 'epsilon' must be positive, got 0.0}}
graph.train_step @t {loss = @loss, optimizer = #graph.adam<epsilon = 0.0>}

// -----

func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = graph.reduce_mean %x {axes = [0]} : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
// expected-error @+1 {{'graph.train_step' op optimizer must be #graph.sgd<...> or #graph.adam<...>, got "adam"}}
graph.train_step @t {loss = @loss, optimizer = "adam"}

// -----

func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = graph.reduce_mean %x {axes = [0]} : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
// expected-error @+1 {{'graph.train_step' op 'clip_norm' must be positive, got 0.000000e+00 : f32}}
graph.train_step @t {loss = @loss, optimizer = #graph.sgd<>, clip_norm = 0.0 : f32}

// -----

func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = graph.reduce_mean %x {axes = [0]} : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
// expected-error @+1 {{'graph.train_step' op attribute 'clip_norm' failed to satisfy constraint: 32-bit float attribute}}
graph.train_step @t {loss = @loss, optimizer = #graph.sgd<>, clip_norm = 1.0}

// -----

// expected-error @+1 {{'graph.train_step' op requires attribute 'optimizer'}}
graph.train_step @t {loss = @loss}

// -----

// expected-error @+1 {{'graph.train_step' op loss @missing does not name a func.func}}
graph.train_step @t {loss = @missing, optimizer = #graph.adam<>}

// -----

graph.variable @w : tensor<2xf32> = dense<0.0>
// expected-error @+1 {{'graph.train_step' op loss @w does not name a func.func}}
graph.train_step @t {loss = @w, optimizer = #graph.adam<>}

// -----

func.func @logits(%x: tensor<?x10xf32>) -> tensor<?x10xf32> {
  return %x : tensor<?x10xf32>
}
// expected-error @+1 {{'graph.train_step' op loss function @logits must return exactly one tensor<f32>, got (tensor<?x10xf32>)}}
graph.train_step @t {loss = @logits, optimizer = #graph.adam<>}

// -----

func.func @two(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  return %x, %x : tensor<f32>, tensor<f32>
}
// expected-error @+1 {{'graph.train_step' op loss function @two must return exactly one tensor<f32>, got (tensor<f32>, tensor<f32>)}}
graph.train_step @t {loss = @two, optimizer = #graph.adam<>}

// -----

func.func @f64_loss(%x: tensor<f64>) -> tensor<f64> {
  return %x : tensor<f64>
}
// expected-error @+1 {{'graph.train_step' op loss function @f64_loss must return exactly one tensor<f32>, got (tensor<f64>)}}
graph.train_step @t {loss = @f64_loss, optimizer = #graph.adam<>}

// -----

func.func @nested() {
  // expected-error @+1 {{'graph.train_step' op expects parent op 'builtin.module'}}
  graph.train_step @t {loss = @nested, optimizer = #graph.adam<>}
  return
}

// -----

func.func @moments_wrong_channels(%x: tensor<?x4x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'graph.moments' op result must be tensor<2xC> of the input's element type with C its last dimension ('tensor<?x4x3xf32>'), got 'tensor<2x4xf32>'}}
  %m = graph.moments %x : (tensor<?x4x3xf32>) -> tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}

// -----

func.func @batch_norm_train_wrong_gamma(%x: tensor<?x3xf32>, %m: tensor<2x3xf32>, %g: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'graph.batch_norm_train' op gamma must be tensor<C> of the input's element type with C its last dimension ('tensor<?x3xf32>'), got 'tensor<4xf32>'}}
  %y = graph.batch_norm_train %x, %m, %g, %b {epsilon = 1.0e-03 : f32} : (tensor<?x3xf32>, tensor<2x3xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

func.func @batch_norm_grad_sums_wrong_dy(%x: tensor<?x3xf32>, %dy: tensor<?x4xf32>, %m: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.batch_norm_grad_sums' op dy}}
  %s = graph.batch_norm_grad_sums %x, %dy, %m : (tensor<?x3xf32>, tensor<?x4xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

func.func @pool_taps_wrong_shape(%x: tensor<1x4x4x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x3x2xi8>) {
  // expected-error @+1 {{'graph.max_pool2d_with_indices' op taps}}
  %y, %t = graph.max_pool2d_with_indices %x {strides = [2, 2], window = [2, 2]} : (tensor<1x4x4x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x3x2xi8>)
  return %y, %t : tensor<1x2x2x2xf32>, tensor<1x2x3x2xi8>
}

// -----

func.func @pool_grad_taps_one_window_dim(%t: tensor<1x2x2x2xi8>, %dy: tensor<1x2x2x2xf32>) -> tensor<1x4x4x2xf32> {
  // expected-error @+1 {{'graph.max_pool2d_grad_indices' op attribute 'window' must hold 2 integers >= 1}}
  %dx = graph.max_pool2d_grad_indices %t, %dy {input_size = [4, 4], strides = [2, 2], window = [2]} : (tensor<1x2x2x2xi8>, tensor<1x2x2x2xf32>) -> tensor<1x4x4x2xf32>
  return %dx : tensor<1x4x4x2xf32>
}

// -----

func.func @batch_norm_epsilon(%x: tensor<2x3xf32>, %p: tensor<3xf32>) {
  // expected-error @+1 {{'graph.batch_norm' op attribute 'epsilon' must be non-negative and finite, got -1}}
  %0 = graph.batch_norm %x, %p, %p, %p, %p {epsilon = -1.0 : f32} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @batch_norm_momentum(%x: tensor<2x3xf32>, %p: tensor<3xf32>) {
  // expected-error @+1 {{'graph.batch_norm' op attribute 'momentum' must be in [0, 1), got 1.5}}
  %0 = graph.batch_norm %x, %p, %p, %p, %p {momentum = 1.5 : f32} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_epsilon(%x: tensor<2x3xf32>, %p: tensor<3xf32>) {
  // expected-error @+1 {{'graph.layer_norm' op attribute 'epsilon' must be non-negative and finite, got -5.000000e-01}}
  %0 = graph.layer_norm %x, %p, %p {epsilon = -5.0e-01 : f32} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

// -----

func.func @quantize_zero_point_type(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<ui8>) {
  // expected-error @+1 {{'graph.quantize' op zero point element type 'ui8' differs from the quantized type 'i8'}}
  %0 = graph.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xi8>
  return
}

// -----

func.func @quantize_scale_zero_point_shapes(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<i8>) {
  // expected-error @+1 {{'graph.quantize' op scale 'tensor<3xf32>' and zero point 'tensor<i8>' differ in shape}}
  %0 = graph.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<3xf32>, tensor<i8>) -> tensor<2x3xi8>
  return
}

// -----

func.func @quantize_axis_mismatch(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xi8>) {
  // expected-error @+1 {{'graph.quantize' op per-axis scale 'tensor<3xf32>' does not match dimension 0 of 'tensor<2x3xf32>'}}
  %0 = graph.quantize %x, %s, %z {axis = 0} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
  return
}

// -----

func.func @quantize_axis_range(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xi8>) {
  // expected-error @+1 {{'graph.quantize' op axis 2 is out of range for 'tensor<2x3xf32>'}}
  %0 = graph.quantize %x, %s, %z {axis = 2} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
  return
}

// -----

func.func @quantize_scale_rank(%x: tensor<2x3xf32>, %s: tensor<1x3xf32>, %z: tensor<1x3xi8>) {
  // expected-error @+1 {{'graph.quantize' op scale must be a scalar (per tensor) or 1-D (per axis), got 'tensor<1x3xf32>'}}
  %0 = graph.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<1x3xi8>) -> tensor<2x3xi8>
  return
}

// -----

func.func @quantize_result_type(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<i8>) {
  // expected-error @+1 {{'graph.quantize' op result #0 must be ranked tensor of 8-bit signless integer or 8-bit unsigned integer values}}
  %0 = graph.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi32>
  return
}

// -----

func.func @dequantize_zero_point_type(%x: tensor<2x3xi8>, %s: tensor<f32>, %z: tensor<i32>) {
  // expected-error @+1 {{'graph.dequantize' op zero point element type 'i32' differs from the quantized type 'i8'}}
  %0 = graph.dequantize %x, %s, %z : (tensor<2x3xi8>, tensor<f32>, tensor<i32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @dequantize_shape(%x: tensor<2x3xi8>, %s: tensor<f32>, %z: tensor<i8>) {
  // expected-error @+1 {{'graph.dequantize' op result type 'tensor<3x2xf32>' does not match the inferred type 'tensor<2x3xf32>'}}
  %0 = graph.dequantize %x, %s, %z : (tensor<2x3xi8>, tensor<f32>, tensor<i8>) -> tensor<3x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// Compiler-internal int8 ops (tfcc-fuse-int8-ops)
//===----------------------------------------------------------------------===//

// -----

func.func @fused_dense_int8_scales(%x: tensor<?x8xui8>, %w: tensor<8x4xi8>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'graph.fused_dense_int8' op scales 'tensor<3xf32>' must be tensor<4xf32>}}
  %0 = graph.fused_dense_int8 %x, %w, %s {x_zero_point = 0} : (tensor<?x8xui8>, tensor<8x4xi8>, tensor<3xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @fused_dense_int8_zero_point(%x: tensor<?x8xui8>, %w: tensor<8x4xi8>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'graph.fused_dense_int8' op zero points must be in [0, 255]}}
  %0 = graph.fused_dense_int8 %x, %w, %s {x_zero_point = 256} : (tensor<?x8xui8>, tensor<8x4xi8>, tensor<4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @fused_dense_int8_out_scale_missing(%x: tensor<?x8xui8>, %w: tensor<8x4xi8>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'graph.fused_dense_int8' op out_scale must be given exactly when the result is ui8}}
  %0 = graph.fused_dense_int8 %x, %w, %s {x_zero_point = 0} : (tensor<?x8xui8>, tensor<8x4xi8>, tensor<4xf32>) -> tensor<?x4xui8>
  return
}

// -----

func.func @fused_dense_int8_out_scale_float(%x: tensor<?x8xui8>, %w: tensor<8x4xi8>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'graph.fused_dense_int8' op out_scale must be given exactly when the result is ui8}}
  %0 = graph.fused_dense_int8 %x, %w, %s {x_zero_point = 0, out_scale = 0.5 : f32} : (tensor<?x8xui8>, tensor<8x4xi8>, tensor<4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @fused_dense_int8_out_scale_zero(%x: tensor<?x8xui8>, %w: tensor<8x4xi8>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'graph.fused_dense_int8' op out_scale must be positive and finite}}
  %0 = graph.fused_dense_int8 %x, %w, %s {x_zero_point = 0, out_scale = 0.0 : f32} : (tensor<?x8xui8>, tensor<8x4xi8>, tensor<4xf32>) -> tensor<?x4xui8>
  return
}

// -----

// The residual is float, of the result's shape, whether or not the result is
// requantized.
func.func @fused_dense_int8_residual(%x: tensor<?x8xui8>, %w: tensor<8x4xi8>, %s: tensor<4xf32>, %r: tensor<?x3xf32>) {
  // expected-error @+1 {{'graph.fused_dense_int8' op residual 'tensor<?x3xf32>' must have the result type 'tensor<?x4xf32>'}}
  %0 = graph.fused_dense_int8 %x, %w, %s residual %r {x_zero_point = 0, out_scale = 0.5 : f32} : (tensor<?x8xui8>, tensor<8x4xi8>, tensor<4xf32>, tensor<?x3xf32>) -> tensor<?x4xui8>
  return
}

// -----

func.func @fused_dense_int8_shapes(%x: tensor<?x8xui8>, %w: tensor<7x4xi8>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'graph.fused_dense_int8' op kernel 'tensor<7x4xi8>' does not map 'tensor<?x8xui8>' to 'tensor<?x4xf32>'}}
  %0 = graph.fused_dense_int8 %x, %w, %s {x_zero_point = 0} : (tensor<?x8xui8>, tensor<7x4xi8>, tensor<4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @fused_conv2d_int8_geometry(%x: tensor<?x8x8x3xui8>, %w: tensor<3x3x3x4xi8>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'graph.fused_conv2d_int8' op spatial dim 0 of the result is 8, expected 6}}
  %0 = graph.fused_conv2d_int8 %x, %w, %s {x_zero_point = 0, strides = [1, 1], dilations = [1, 1], pads = [0, 0, 0, 0]} : (tensor<?x8x8x3xui8>, tensor<3x3x3x4xi8>, tensor<4xf32>) -> tensor<?x8x8x4xf32>
  return
}

// -----

func.func @fused_conv2d_int8_max_pool_window(%x: tensor<?x8x8x3xui8>, %w: tensor<3x3x3x4xi8>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'graph.fused_conv2d_int8' op max_pool must be [ph, pw], windows of more than one pixel whose ph divides 8 and whose pw divides 8 / ph}}
  %0 = graph.fused_conv2d_int8 %x, %w, %s {x_zero_point = 0, strides = [1, 1], dilations = [1, 1], pads = [0, 0, 0, 0], max_pool = [3, 3]} : (tensor<?x8x8x3xui8>, tensor<3x3x3x4xi8>, tensor<4xf32>) -> tensor<?x2x2x4xf32>
  return
}

// -----

func.func @fused_conv2d_int8_max_pool_residual(%x: tensor<?x8x8x3xui8>, %w: tensor<3x3x3x4xi8>, %s: tensor<4xf32>, %r: tensor<?x4x4x4xf32>) {
  // expected-error @+1 {{'graph.fused_conv2d_int8' op max_pool needs groups 1 and no residual}}
  %0 = graph.fused_conv2d_int8 %x, %w, %s residual %r {x_zero_point = 0, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1], max_pool = [2, 2]} : (tensor<?x8x8x3xui8>, tensor<3x3x3x4xi8>, tensor<4xf32>, tensor<?x4x4x4xf32>) -> tensor<?x4x4x4xf32>
  return
}

// -----

func.func @fused_conv2d_int8_max_pool_geometry(%x: tensor<?x9x9x3xui8>, %w: tensor<3x3x3x4xi8>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'graph.fused_conv2d_int8' op spatial dim 1 of the result is 4, expected 3}}
  %0 = graph.fused_conv2d_int8 %x, %w, %s {x_zero_point = 0, strides = [1, 1], dilations = [1, 1], pads = [0, 0, 0, 0], max_pool = [2, 2]} : (tensor<?x9x9x3xui8>, tensor<3x3x3x4xi8>, tensor<4xf32>) -> tensor<?x3x4x4xf32>
  return
}

// -----

func.func @fused_conv2d_int8_depthwise_multiplier(%x: tensor<?x8x8x3xui8>, %w: tensor<3x3x3x2xi8>, %s: tensor<6xf32>) {
  // expected-error @+1 {{'graph.fused_conv2d_int8' op a depthwise int8 kernel must have one output channel per input channel ([kh, kw, c, 1])}}
  %0 = graph.fused_conv2d_int8 %x, %w, %s {x_zero_point = 0, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1], depthwise = true} : (tensor<?x8x8x3xui8>, tensor<3x3x3x2xi8>, tensor<6xf32>) -> tensor<?x8x8x6xf32>
  return
}

// -----

func.func @fused_conv2d_int8_depthwise_residual(%x: tensor<?x8x8x3xui8>, %w: tensor<3x3x3x1xi8>, %s: tensor<3xf32>, %r: tensor<?x8x8x3xf32>) {
  // expected-error @+1 {{'graph.fused_conv2d_int8' op a depthwise int8 convolution takes no residual}}
  %0 = graph.fused_conv2d_int8 %x, %w, %s residual %r {x_zero_point = 0, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1], depthwise = true} : (tensor<?x8x8x3xui8>, tensor<3x3x3x1xi8>, tensor<3xf32>, tensor<?x8x8x3xf32>) -> tensor<?x8x8x3xf32>
  return
}

// -----

func.func @fused_conv2d_int8_depthwise_window(%x: tensor<?x23x23x1xui8>, %w: tensor<23x23x1x1xi8>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'graph.fused_conv2d_int8' op a depthwise int8 window has at most 512 taps, not 529}}
  %0 = graph.fused_conv2d_int8 %x, %w, %s {x_zero_point = 0, strides = [1, 1], dilations = [1, 1], pads = [0, 0, 0, 0], depthwise = true} : (tensor<?x23x23x1xui8>, tensor<23x23x1x1xi8>, tensor<1xf32>) -> tensor<?x1x1x1xf32>
  return
}

// -----

func.func @fused_conv2d_int8_activation(%x: tensor<?x8x8x3xui8>, %w: tensor<3x3x3x4xi8>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'graph.fused_conv2d_int8' op unknown activation "gelu"}}
  %0 = graph.fused_conv2d_int8 %x, %w, %s {x_zero_point = 0, strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1], activation = "gelu"} : (tensor<?x8x8x3xui8>, tensor<3x3x3x4xi8>, tensor<4xf32>) -> tensor<?x8x8x4xf32>
  return
}

// -----

func.func @nms_boxes_shape(%b: tensor<1x6x5xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{'graph.non_max_suppression' op expects static boxes [b, n, 4] and scores [b, c, n], got 'tensor<1x6x5xf32>' and 'tensor<1x1x6xf32>'}}
  %0 = graph.non_max_suppression %b, %s {max_output_boxes_per_class = 2} : (tensor<1x6x5xf32>, tensor<1x1x6xf32>) -> tensor<2x3xi64>
  return
}

// -----

func.func @nms_dynamic(%b: tensor<?x6x4xf32>, %s: tensor<?x1x6xf32>) {
  // expected-error @+1 {{'graph.non_max_suppression' op expects static boxes}}
  %0 = graph.non_max_suppression %b, %s {max_output_boxes_per_class = 2} : (tensor<?x6x4xf32>, tensor<?x1x6xf32>) -> tensor<2x3xi64>
  return
}

// -----

func.func @nms_negative_max(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{'graph.non_max_suppression' op attribute 'max_output_boxes_per_class' = -1 is negative}}
  %0 = graph.non_max_suppression %b, %s {max_output_boxes_per_class = -1} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> tensor<0x3xi64>
  return
}

// -----

func.func @nms_center_point_box(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{'graph.non_max_suppression' op attribute 'center_point_box' = 2 is neither 0 nor 1}}
  %0 = graph.non_max_suppression %b, %s {max_output_boxes_per_class = 2, center_point_box = 2} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> tensor<2x3xi64>
  return
}

// -----

func.func @nms_result_rows(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{'graph.non_max_suppression' op}}
  %0 = graph.non_max_suppression %b, %s {max_output_boxes_per_class = 2} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> tensor<6x3xi64>
  return
}

// -----

func.func @fused_round_to_type(%x: tensor<4x8xf32>, %k: tensor<8x16xf32>) {
  // expected-error @+1 {{'graph.fused_dense' op round_to must be bf16 or f16, not 'f64'}}
  %0 = graph.fused_dense %x, %k {round_to = f64} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @fused_round_to_result(%x: tensor<1x4x4x2xbf16>, %k: tensor<1x1x2x3xbf16>) {
  // expected-error @+1 {{'graph.fused_conv2d' op round_to needs an f32 result}}
  %0 = graph.fused_conv2d %x, %k {strides = [1, 1], dilations = [1, 1], pads = [0, 0, 0, 0], round_to = bf16} : (tensor<1x4x4x2xbf16>, tensor<1x1x2x3xbf16>) -> tensor<1x4x4x3xbf16>
  return
}
