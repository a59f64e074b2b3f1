//===- Registration.h - dialects and passes tfcc uses -----------*- C++ -*-===//

#ifndef TFCC_COMPILER_REGISTRATION_H
#define TFCC_COMPILER_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tfcc {

/// Every dialect, interface and translation the pipeline touches.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Upstream passes and tfcc's own, and tfcc's pipelines by name
/// (registerPipelines), for textual pipelines and tfcc-opt.
void registerCompilerPasses();

} // namespace tfcc

#endif // TFCC_COMPILER_REGISTRATION_H
