//===- AbiEmitter.h - the C interface of a compiled model -------*- C++ -*-===//

#ifndef TFCC_COMPILER_ABIEMITTER_H
#define TFCC_COMPILER_ABIEMITTER_H

#include "compiler/ModelSignature.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace tfcc {

/// Adds the kernels, the reflective table and the exported functions declared
/// by the generated header. `implNames[i]` is the LLVM function lowered from
/// entry i (arguments: inputs, outputs, arena memref, batch).
llvm::Error emitCInterface(llvm::Module &module, const ModelSignature &sig,
                           llvm::ArrayRef<std::string> implNames);

} // namespace tfcc

#endif // TFCC_COMPILER_ABIEMITTER_H
