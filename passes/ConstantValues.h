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

#include <optional>
#include <vector>

namespace mlir::tfcc {

/// The row-major float32 values of `value` when it is a compile-time
/// constant: a graph.constant, an arith.constant, or a graph.read of a
/// variable in a module without training entry points (whose variables never
/// change). Values of any other element type, or not constant: nullopt.
std::optional<std::vector<float>> getConstantFloats(Value value);

} // namespace mlir::tfcc

#endif // TFCC_PASSES_CONSTANTVALUES_H
