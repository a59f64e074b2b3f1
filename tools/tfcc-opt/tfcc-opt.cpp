//===- tfcc-opt.cpp - pass driver for tfcc's dialect and passes -----------===//
//
// mlir-opt with the graph dialect and every tfcc pass, for pass development
// with lit and FileCheck. Registration lives in compiler/Registration.cpp, the
// one translation unit that includes the InitAll* headers.
//
//===----------------------------------------------------------------------===//

#include "compiler/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  tfcc::registerCompilerPasses();
  mlir::DialectRegistry registry;
  tfcc::registerCompilerDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tfcc pass driver\n", registry));
}
