//===- Registration.h - dialects and passes tfcc uses -----------*- C++ -*-===//

#ifndef TFCC_COMPILER_REGISTRATION_H
#define TFCC_COMPILER_REGISTRATION_H

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace tfcc {

/// Every dialect, interface and translation the pipeline touches.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// The dialects a model file may use: graph and func (and builtin, always
/// there). Tools parse a model in a context made with these alone, so that
/// its text reaches no other dialect's parser (the 40-odd upstream ones are
/// not tfcc's input, and MLIR 19's gpu.launch parser crashed on a forward
/// reference: fuzz/graph_ir_compile), then call addCompilerDialects.
void registerModelDialects(mlir::DialectRegistry &registry);

/// Adds registerCompilerDialects' dialects to `context` and loads them all:
/// after its model is parsed, before any pipeline runs.
void addCompilerDialects(mlir::MLIRContext &context);

/// Upstream passes and tfcc's own, and tfcc's pipelines by name
/// (registerPipelines), for textual pipelines and tfcc-opt.
void registerCompilerPasses();

} // namespace tfcc

#endif // TFCC_COMPILER_REGISTRATION_H
