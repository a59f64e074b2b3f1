//===- Calibration.h - activation ranges for int8 quantization --*- C++ -*-===//
//
// tfcc --quantize=int8 --calibration X.npy: a build of the model that also
// returns the input of every quantizable op runs on the calibration data,
// and each op gets the range its input took (`tfcc.input_range`), which
// tfcc-quantize-int8 then turns into quantization parameters.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_CALIBRATION_H
#define TFCC_COMPILER_CALIBRATION_H

#include "compiler/Compiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace tfcc {

/// Runs the calibration of `module` (after the normalizing passes, no
/// train step) on `o.calibrationPaths` and writes each quantizable op's input
/// range (by `o.calibrationMethod`) as `tfcc.input_range`. Prints
/// `tfcc: error: ...` to `errors` and returns false on a bad calibration
/// file or when there is nothing to quantize.
bool calibrateInt8(mlir::ModuleOp module, const CompileOptions &o,
                   llvm::raw_ostream &errors);

} // namespace tfcc

#endif // TFCC_COMPILER_CALIBRATION_H
