//===- LowPrecisionValues.h - f32 tensors holding 16-bit values -*- C++ -*-===//
//
// After tfcc-widen-low-precision-ops the values of a mixed-precision model
// travel between ops as f32 tensors holding bf16 / f16 values. Which tensors
// do is what lets a rounding be dropped (tfcc-widen-low-precision-ops) and a
// product run on 16-bit arithmetic (tfcc-mark-bf16-operands).
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_PASSES_LOWPRECISIONVALUES_H
#define TFCC_PASSES_LOWPRECISIONVALUES_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::tfcc {

/// The unit attribute tfcc-mark-bf16-operands puts on a graph.fused_dense or
/// graph.matmul whose f32 operands hold bf16 values; its kernel call then
/// carries TFCC_ACT_BF16_OPERANDS.
inline constexpr llvm::StringLiteral kBf16OperandsAttrName =
    "tfcc.bf16_operands";

/// Ops whose results hold their operands' values (or select among them):
/// on values exact in a 16-bit type, their results are exact in it too.
bool keepsValuesExact(Operation *op);

/// What isExactIn has answered, by (value, 16-bit type).
using ExactnessCache = llvm::DenseMap<std::pair<Value, Type>, bool>;

/// Whether every value of the f32 tensor `value` is exact in `low` (bf16 or
/// f16): widened from `low` by a graph.cast, rounded to it in a fused op's
/// epilogue (`round_to`), a constant whose values all are, or moved or
/// selected from such values. `known` remembers the answers across calls.
bool isExactIn(Value value, Type low, ExactnessCache &known);

} // namespace mlir::tfcc

#endif // TFCC_PASSES_LOWPRECISIONVALUES_H
