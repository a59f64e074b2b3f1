//===- Registration.cpp - dialects and passes tfcc uses -------------------===//
//
// The only translation unit that includes the InitAll* headers (they are the
// most expensive thing to compile in the project).
//
//===----------------------------------------------------------------------===//

#include "compiler/Registration.h"
#include "compiler/Pipeline.h"

#include "dialects/graph/IR/GraphOps.h"
#include "passes/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void tfcc::registerCompilerDialects(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::graph::GraphDialect>();
}

void tfcc::registerModelDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::graph::GraphDialect, mlir::func::FuncDialect>();
}

void tfcc::addCompilerDialects(mlir::MLIRContext &context) {
  mlir::DialectRegistry registry;
  registerCompilerDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

void tfcc::registerCompilerPasses() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  mlir::registerAllPasses();
  mlir::tfcc::registerTfccPasses();
  registerPipelines();
}
