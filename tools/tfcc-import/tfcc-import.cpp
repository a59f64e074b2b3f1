//===- tfcc-import.cpp - ONNX or TFLite model to graph IR -----------------===//
//
//   tfcc-import MODEL.onnx|MODEL.tflite [-o MODEL.mlir] [--name NAME]
//
// Prints the graph IR of an ONNX or TFLite model (weights as dense_resource
// blobs in the file's dialect_resources section). Errors print as
// `MODEL.onnx: error: ...` and the tool exits with 1.
//
//===----------------------------------------------------------------------===//

#include "compiler/Registration.h"
#include "compiler/onnx/OnnxImporter.h"
#include "compiler/tflite/TfliteImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

namespace cl = llvm::cl;

static cl::OptionCategory category("tfcc-import options");

static cl::opt<std::string> inputPath(cl::Positional,
                                      cl::desc("MODEL.onnx or MODEL.tflite"),
                                      cl::Required, cl::cat(category));
static cl::opt<std::string> outputPath("o",
                                       cl::desc("Output file (default: stdout)"),
                                       cl::value_desc("MODEL.mlir"),
                                       cl::init("-"), cl::cat(category));
static cl::opt<std::string>
    moduleName("name",
               cl::desc("Module name, the model's C symbol prefix (default: "
                        "the file name without extension)"),
               cl::value_desc("NAME"), cl::cat(category));

/// The innermost node name of a location, if any.
static std::optional<llvm::StringRef> nodeName(mlir::Location loc) {
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc))
    return name.getName().strref();
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location inner : fused.getLocations())
      if (auto name = nodeName(inner))
        return name;
  return std::nullopt;
}

/// `FILE: error: [node 'NAME': ]MESSAGE`; model files have no line numbers.
static void printDiagnostic(mlir::Diagnostic &diag) {
  llvm::raw_ostream &os = llvm::errs();
  std::string where = inputPath;
  if (auto file = diag.getLocation()->findInstanceOf<mlir::FileLineColLoc>()) {
    where = file.getFilename().str();
    if (file.getLine() != 0)
      where += ":" + std::to_string(file.getLine()) + ":" +
               std::to_string(file.getColumn());
  }
  os << where << ": ";
  switch (diag.getSeverity()) {
  case mlir::DiagnosticSeverity::Error:
    llvm::WithColor::error(os, "", /*DisableColors=*/true);
    break;
  case mlir::DiagnosticSeverity::Warning:
    llvm::WithColor::warning(os, "", true);
    break;
  default:
    llvm::WithColor::note(os, "", true);
    break;
  }
  std::string message = diag.str();
  if (auto name = nodeName(diag.getLocation()))
    if (message.find("'" + name->str() + "'") == std::string::npos)
      message = "node '" + name->str() + "': " + message;
  os << message << "\n";
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  std::string overview = "tfcc-import: ONNX model (opsets " +
                         std::to_string(tfcc::kMinOnnxOpset) + " to " +
                         std::to_string(tfcc::kMaxOnnxOpset) +
                         ") or TFLite model to graph IR\n\n"
                         "  tfcc-import MODEL.onnx -o MODEL.mlir\n"
                         "  tfcc-import MODEL.tflite -o MODEL.mlir\n";
  cl::ParseCommandLineOptions(argc, argv, overview);

  mlir::DialectRegistry registry;
  tfcc::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler handler(&context, [](mlir::Diagnostic &diag) {
    printDiagnostic(diag);
    for (mlir::Diagnostic &note : diag.getNotes())
      printDiagnostic(note);
    return mlir::success();
  });

  mlir::OwningOpRef<mlir::ModuleOp> module =
      tfcc::isTflitePath(inputPath)
          ? tfcc::importTfliteModel(inputPath, context, moduleName)
          : tfcc::importOnnxModel(inputPath, context, moduleName);
  if (!module)
    return 1;

  std::string errorMessage;
  auto output = mlir::openOutputFile(outputPath, &errorMessage);
  if (!output) {
    llvm::errs() << outputPath << ": error: " << errorMessage << "\n";
    return 1;
  }
  // Node names stay as `loc("name")`; the .onnx file has no positions worth
  // printing (tfcc anchors names to the .mlir file's lines when it reads it).
  mlir::Location unknown = mlir::UnknownLoc::get(&context);
  module->walk([&](mlir::Operation *op) {
    if (auto name = llvm::dyn_cast<mlir::NameLoc>(op->getLoc()))
      op->setLoc(mlir::NameLoc::get(name.getName()));
    else
      op->setLoc(unknown);
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          arg.setLoc(unknown);
  });
  module->print(output->os(), mlir::OpPrintingFlags().enableDebugInfo(
                                  /*enable=*/true, /*prettyForm=*/false));
  output->os() << "\n";
  output->keep();
  return 0;
}
