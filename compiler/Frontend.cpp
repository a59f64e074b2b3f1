//===- Frontend.cpp - load a graph-IR model -------------------------------===//

#include "compiler/Frontend.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "compiler/BoundedFile.h"
#include "compiler/onnx/OnnxImporter.h"
#include "compiler/tflite/TfliteImporter.h"
#include "dialects/graph/IR/Limits.h"
#include "dialects/graph/IR/TensorSize.h"

#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace {

FileLineColLoc locationOf(llvm::SourceMgr &sourceMgr, MLIRContext &context,
                          llvm::SMLoc loc) {
  unsigned buffer = sourceMgr.FindBufferContainingLoc(loc);
  auto [line, column] = sourceMgr.getLineAndColumn(loc, buffer);
  StringRef file = sourceMgr.getMemoryBuffer(buffer)->getBufferIdentifier();
  return FileLineColLoc::get(&context, file, line, column);
}

/// `loc("conv1")` parses as a name around an unknown location; give it the
/// op's position so diagnostics still point at the file, line and column.
void anchorNameLocations(const AsmParserState &state,
                         llvm::SourceMgr &sourceMgr, MLIRContext &context) {
  for (const AsmParserState::OperationDefinition &def : state.getOpDefs()) {
    auto name = dyn_cast<NameLoc>(def.op->getLoc());
    if (!name || !isa<UnknownLoc>(name.getChildLoc()))
      continue;
    def.op->setLoc(NameLoc::get(
        name.getName(), locationOf(sourceMgr, context, def.loc.Start)));
  }
}

StringRef sourceName(llvm::SMRange range) {
  StringRef text(range.Start.getPointer(),
                 range.End.getPointer() - range.Start.getPointer());
  text.consume_front("%");
  return text.take_until([](char c) { return c == ':' || c == '#'; });
}

/// Records the SSA names of public functions' arguments and returned values,
/// where the model does not name them already (tfcc-import writes the ONNX
/// names as tfcc.name and the printer's %arg0, %1 as SSA names).
void recordArgumentNames(const AsmParserState &state, ModuleOp module) {
  Builder b(module.getContext());
  llvm::DenseMap<Block *, const AsmParserState::BlockDefinition *> blocks;
  for (const AsmParserState::BlockDefinition &def : state.getBlockDefs())
    blocks[def.block] = &def;
  llvm::DenseMap<Operation *, const AsmParserState::OperationDefinition *> ops;
  for (const AsmParserState::OperationDefinition &def : state.getOpDefs())
    ops[def.op] = &def;

  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    Block &entry = func.getBody().front();
    if (auto it = blocks.find(&entry); it != blocks.end())
      for (auto [i, arg] : llvm::enumerate(it->second->arguments))
        if (i < func.getNumArguments() && arg.loc.isValid() &&
            !func.getArgAttr(i, tfcc::kArgNameAttr))
          func.setArgAttr(i, tfcc::kArgNameAttr,
                          b.getStringAttr(sourceName(arg.loc)));
    auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator());
    if (!ret)
      continue;
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      auto result = dyn_cast<OpResult>(value);
      if (!result || func.getResultAttr(i, tfcc::kArgNameAttr))
        continue;
      auto it = ops.find(result.getOwner());
      if (it == ops.end())
        continue;
      // A result group covers results [startIndex, next group's start).
      const auto &groups = it->second->resultGroups;
      for (size_t g = 0; g < groups.size(); ++g) {
        unsigned start = groups[g].startIndex;
        unsigned end = g + 1 < groups.size() ? groups[g + 1].startIndex
                                             : result.getOwner()->getNumResults();
        if (result.getResultNumber() < start || result.getResultNumber() >= end)
          continue;
        std::string name = sourceName(groups[g].definition.loc).str();
        if (end - start > 1)
          name += "_" + std::to_string(result.getResultNumber() - start);
        func.setResultAttr(i, tfcc::kArgNameAttr, b.getStringAttr(name));
      }
    }
  }
}

} // namespace

/// The innermost node name of a location, if any.
static std::optional<StringRef> nodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().strref();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto name = nodeName(inner))
        return name;
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return nodeName(callSite.getCallee());
  return std::nullopt;
}

tfcc::ModelDiagnosticHandler::ModelDiagnosticHandler(llvm::SourceMgr &sourceMgr,
                                                     MLIRContext *context,
                                                     llvm::raw_ostream &os)
    : SourceMgrDiagnosticHandler(sourceMgr, context, os) {
  // The IR dump MLIR appends to op errors helps compiler developers, not users.
  context->printOpOnDiagnostic(false);
  setHandler([this, &os](Diagnostic &diag) {
    auto emit = [&](Diagnostic &d) {
      std::string message = d.str();
      if (auto name = nodeName(d.getLocation());
          name && message.find("'" + name->str() + "'") == std::string::npos)
        message = "node '" + name->str() + "': " + message;
      // Imported models (ONNX) have no line and column: print the file only.
      FileLineColLoc file;
      d.getLocation()->walk([&](Location l) {
        if (!file)
          file = dyn_cast<FileLineColLoc>(l);
        return file ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (file && file.getLine() == 0) {
        const char *severity = d.getSeverity() == DiagnosticSeverity::Error
                                   ? "error"
                               : d.getSeverity() == DiagnosticSeverity::Warning
                                   ? "warning"
                                   : "note";
        os << file.getFilename().strref() << ": " << severity << ": " << message
           << "\n";
        return;
      }
      emitDiagnostic(d.getLocation(), message, d.getSeverity());
    };
    emit(diag);
    for (Diagnostic &note : diag.getNotes())
      emit(note);
    return success();
  });
}

/// The dialect an "unregistered dialect" parse error names ("gpu" in
/// "Dialect `gpu' not found for custom op 'gpu.launch'", "llvm" in
/// "`!\"llvm\"<\"ptr\">` type created with unregistered dialect"), or "" if
/// the message is not one of those.
static std::string foreignDialect(llvm::StringRef message) {
  if (message.consume_front("Dialect `"))
    return message.contains("' not found for custom op")
               ? message.take_until([](char c) { return c == '\''; }).str()
               : "";
  if (!message.contains("unregistered dialect"))
    return "";
  size_t quote = message.find('"');
  if (quote == llvm::StringRef::npos || quote > 3)
    return "?";
  return message.drop_front(quote + 1)
      .take_until([](char c) { return c == '"'; })
      .str();
}

OwningOpRef<ModuleOp> tfcc::loadModel(llvm::SourceMgr &sourceMgr,
                                      MLIRContext &context) {
  Block block;
  AsmParserState state;
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  {
    // Text of a dialect the context does not hold (tools parse models with
    // registerModelDialects' alone) fails as MLIR's "unregistered dialect";
    // say instead what a model may use.
    ScopedDiagnosticHandler foreign(&context, [&](Diagnostic &d) {
      std::string dialect = foreignDialect(d.str());
      if (dialect.empty())
        return failure();
      emitError(d.getLocation())
          << (dialect == "?" ? std::string("this operation is not in a dialect")
                             : "'" + dialect + "' is not a dialect")
          << " of graph IR: tfcc models are written in the graph and func "
             "dialects, with builtin types and attributes";
      return success();
    });
    if (failed(parseAsmSourceFile(sourceMgr, &block, config, &state)))
      return nullptr;
  }
  anchorNameLocations(state, sourceMgr, context);

  auto fileLoc = FileLineColLoc::get(
      &context,
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferIdentifier(),
      1, 1);
  ModuleOp module;
  if (llvm::hasSingleElement(block) && isa<ModuleOp>(block.front())) {
    module = cast<ModuleOp>(block.front());
    module->remove();
  } else {
    module = ModuleOp::create(fileLoc);
    module.getBody()->getOperations().splice(module.getBody()->begin(),
                                             block.getOperations());
  }
  OwningOpRef<ModuleOp> owned(module);
  // One module: MLIR's bufferization of a module holding another one (a
  // call into it) dies of SIGSEGV (fuzz/graph_ir_compile).
  WalkResult nested = module.getBody()->walk([](ModuleOp inner) {
    inner.emitError() << "a module inside the model's module: a graph IR "
                         "model is one module of functions, variables and "
                         "train steps";
    return WalkResult::interrupt();
  });
  if (nested.wasInterrupted())
    return nullptr;
  // Verified first: the names are read from each function's return, which
  // an unverified one may lack or give more operands than results (a heap
  // overflow, fuzz/graph_ir_compile).
  if (failed(verify(module)) || failed(graph::verifyModelSizes(module)))
    return nullptr;
  recordArgumentNames(state, module);
  return owned;
}

bool tfcc::isOnnxPath(const std::string &path) {
  return llvm::StringRef(path).ends_with_insensitive(".onnx");
}

bool tfcc::isImportedModelPath(const std::string &path) {
  return isOnnxPath(path) || isTflitePath(path);
}

OwningOpRef<ModuleOp> tfcc::loadModelFile(
    const std::string &path, llvm::SourceMgr &sourceMgr, MLIRContext &context,
    const std::map<std::string, std::vector<int64_t>> &inputShapes,
    const std::map<std::string, std::string> &inputValues) {
  if (isOnnxPath(path)) {
    OwningOpRef<ModuleOp> module =
        importOnnxModel(path, context, "", inputShapes, inputValues);
    if (module && failed(graph::verifyModelSizes(*module)))
      return nullptr;
    return module;
  }
  if (!inputShapes.empty() || !inputValues.empty()) {
    // TFLite tensors have static shapes; TFLite has no optional inputs.
    emitError(FileLineColLoc::get(&context, path, 0, 0))
        << "input " << (inputShapes.empty() ? "values" : "shapes")
        << " apply to ONNX models only, not to '" << path << "'";
    return nullptr;
  }
  if (isTflitePath(path)) {
    OwningOpRef<ModuleOp> module = importTfliteModel(path, context);
    if (module && failed(graph::verifyModelSizes(*module)))
      return nullptr;
    return module;
  }
  std::vector<uint8_t> text;
  std::string error;
  if (!readBoundedFile(path, graph::kMaxModelTextBytes, "model", text,
                       error)) {
    emitError(FileLineColLoc::get(&context, path, 0, 0)) << error;
    return nullptr;
  }
  return loadModelText(
      llvm::StringRef(reinterpret_cast<const char *>(text.data()), text.size()),
      path, sourceMgr, context);
}

OwningOpRef<ModuleOp> tfcc::loadModelText(llvm::StringRef text,
                                          const std::string &name,
                                          llvm::SourceMgr &sourceMgr,
                                          MLIRContext &context) {
  if (text.size() > uint64_t(graph::kMaxModelTextBytes)) {
    emitError(FileLineColLoc::get(&context, name, 0, 0))
        << "model '" << name << "' is larger than "
        << graph::kMaxModelTextBytes << " bytes";
    return nullptr;
  }
  // The parser keeps its own copy (it needs a NUL-terminated buffer).
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name),
                               llvm::SMLoc());
  return loadModel(sourceMgr, context);
}
