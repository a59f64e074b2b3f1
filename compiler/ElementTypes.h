//===- ElementTypes.h - MLIR element types at the C interface ---*- C++ -*-===//

#ifndef TFCC_COMPILER_ELEMENTTYPES_H
#define TFCC_COMPILER_ELEMENTTYPES_H

#include "compiler/ModelSignature.h"

#include "mlir/IR/Types.h"

#include <optional>

namespace tfcc {

/// The C-interface dtype of a tensor element type; nullopt when the C
/// interface has none. Shared by the header/table emitter and the runner.
inline std::optional<DType> dtypeOfElementType(mlir::Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isSignlessInteger(32))
    return DType::I32;
  if (type.isSignlessInteger(64))
    return DType::I64;
  if (type.isSignlessInteger(8))
    return DType::I8;
  if (type.isUnsignedInteger(8))
    return DType::U8;
  if (type.isSignlessInteger(1))
    return DType::BOOL;
  return std::nullopt;
}

} // namespace tfcc

#endif // TFCC_COMPILER_ELEMENTTYPES_H
