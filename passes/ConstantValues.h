//===- ConstantValues.h - compile-time values of weight tensors -*- C++ -*-===//
//
// Fusion folds batch norms into convolution weights and lowering packs
// weights for the micro-kernels, both at compile time; both need the float
// values of a tensor when they are known.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_PASSES_CONSTANTVALUES_H
#define TFCC_PASSES_CONSTANTVALUES_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir::tfcc {

/// The row-major float32 values of `value` when it is a compile-time
/// constant: a graph.constant, an arith.constant, or a graph.read of a
/// variable in a module without training entry points (whose variables never
/// change), possibly through graph.transpose ops (applied here) and
/// graph.reshape ops (row-major order unchanged), or such a
/// constant cast between f32, f16 and bf16 (each value rounded as the cast
/// rounds it, given as a float). Values of any other element type, or not
/// constant: nullopt.
std::optional<std::vector<float>> getConstantFloats(Value value);

/// The same for integer tensors (i8, ui8, i32, i64), each value sign- or
/// zero-extended as the element type says.
std::optional<std::vector<int64_t>> getConstantIntegers(Value value);

/// getConstantFloats, or for graph.dequantize of constant integers by
/// constant scales and zero points (an int32 bias of a quantized model), the
/// dequantized values computed here as the op computes them.
std::optional<std::vector<float>> getConstantOrDequantizedFloats(Value value);

/// The constant scales and zero points of a graph.dequantize, one per
/// channel.
struct ChannelQuantization {
  std::vector<float> scales;
  std::vector<int64_t> zeroPoints;
};

/// For `dequantized`, the result of graph.dequantize, seen transposed by
/// `perm` (empty: as it is) with its channels on the last axis: the scales
/// and zero points per channel, a per-tensor pair repeated for each; nullopt
/// when it is no dequantize, they are not constant, or they run along
/// another axis.
std::optional<ChannelQuantization>
getChannelQuantization(Value dequantized, ArrayRef<int64_t> perm = {});

} // namespace mlir::tfcc

#endif // TFCC_PASSES_CONSTANTVALUES_H
