// Tensor sizes past the largest tfcc accepts (16 GiB of the static dimensions,
// TensorSize.h): refused by every graph op's verifier, whatever the op.
// RUN: tfcc-opt %s -split-input-file -verify-diagnostics

// 2^62 + 1 rows of 4 floats: the byte size wraps to 16 in 64 bits.
func.func @wraps_to_16_bytes(%x: tensor<4611686018427387905x4xf32>) {
  // expected-error @+1 {{'graph.relu' op operand #0 type 'tensor<4611686018427387905x4xf32>' exceeds the largest tensor tfcc accepts (16 GiB; a dynamic dimension counts 1)}}
  %0 = graph.relu %x : tensor<4611686018427387905x4xf32>
  return
}

// -----

// The static part alone is 2^64 bytes (planned as 0 before).
func.func @dynamic_batch(%x: tensor<?x4611686018427387904xf32>) {
  // expected-error @+1 {{operand #0 type 'tensor<?x4611686018427387904xf32>' exceeds the largest tensor}}
  %0 = graph.relu %x : tensor<?x4611686018427387904xf32>
  return
}

// -----

// Just over the limit without overflow: 2^32 + 1 floats.
func.func @just_over(%x: tensor<4294967297xf32>) {
  // expected-error @+1 {{exceeds the largest tensor}}
  %0 = graph.sigmoid %x : tensor<4294967297xf32>
  return
}

// -----

// At the limit: 2^32 floats are 16 GiB exactly, accepted.
func.func @at_limit(%x: tensor<4294967296xf32>) -> tensor<4294967296xf32> {
  %0 = graph.sigmoid %x : tensor<4294967296xf32>
  return %0 : tensor<4294967296xf32>
}

// -----

// A result bigger than its operands (the broadcast of two small tensors).
func.func @result(%a: tensor<65536x1xf32>, %b: tensor<1x65537xf32>) {
  // expected-error @+1 {{result #0 type 'tensor<65536x65537xf32>' exceeds the largest tensor}}
  %0 = graph.add %a, %b : (tensor<65536x1xf32>, tensor<1x65537xf32>) -> tensor<65536x65537xf32>
  return
}

// -----

// 2^32 x 2^32 elements: the count wraps to 0 in 64 bits.
// expected-error @+1 {{'graph.variable' op variable @w of type 'tensor<4294967296x4294967296xf32>' exceeds the largest tensor}}
graph.variable @w : tensor<4294967296x4294967296xf32> = #graph.init<"zeros", seed = 0>
