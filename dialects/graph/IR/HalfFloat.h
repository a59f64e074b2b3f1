//===- HalfFloat.h - f16 / bf16 values and their bit patterns ---*- C++ -*-===//
//
// The one definition of tfcc's 16-bit float conversions on the host: a bit
// pattern's value and a value's rounding (to nearest even; overflow gives an
// infinity, NaN stays NaN), through LLVM's APFloat. The interpreter, constant
// folding, the ONNX importer and tfcc-run all call these, so they agree bit
// for bit (the compiled code's integer forms are tfcc-expand-f16-casts').
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_DIALECTS_GRAPH_IR_HALFFLOAT_H
#define TFCC_DIALECTS_GRAPH_IR_HALFFLOAT_H

#include "llvm/ADT/APFloat.h"

#include <cstdint>

namespace mlir::graph {

/// IEEE half (f16), or bfloat16 (bf16) when `bfloat`.
inline const llvm::fltSemantics &halfSemantics(bool bfloat) {
  return bfloat ? llvm::APFloat::BFloat() : llvm::APFloat::IEEEhalf();
}

/// The value of 16-bit pattern `bits` of `format` (exact in a double).
inline double halfValue(const llvm::fltSemantics &format, uint16_t bits) {
  return llvm::APFloat(format, llvm::APInt(16, bits)).convertToDouble();
}

/// `value` rounded to `format`: its 16-bit pattern.
inline uint16_t halfBits(const llvm::fltSemantics &format, double value) {
  llvm::APFloat rounded(value);
  bool losesInfo = false;
  rounded.convert(format, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return static_cast<uint16_t>(rounded.bitcastToAPInt().getZExtValue());
}

/// `value` rounded to `format`, as a double.
inline double roundToHalf(const llvm::fltSemantics &format, double value) {
  return halfValue(format, halfBits(format, value));
}

} // namespace mlir::graph

#endif // TFCC_DIALECTS_GRAPH_IR_HALFFLOAT_H
