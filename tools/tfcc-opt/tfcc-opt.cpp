//===- tfcc-opt.cpp - pass driver for tfcc's dialect and passes -----------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tfcc::registerTfccPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  registry.insert<mlir::graph::GraphDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tfcc pass driver\n", registry));
}
