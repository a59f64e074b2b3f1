//===- difftest.cpp - compiled code against the interpreter, every entry --===//
//
// tfcc-difftest MODULE.mlir [--opt-levels 0,2] [--batch B] [--seed S]
//                           [--rtol R] [--atol A]
//
// Compiles the module once per optimization level (tfcc::compile, a shared
// library in a temporary folder), then runs every public entry on random
// inputs (makeRandomInputs: dynamic dims = B) compiled and in the reference
// interpreter, and compares every output (compareArrays: relative error
// <= R, or every element within A, for outputs near zero such as the mean of
// random values). One line per entry and level:
//   ENTRY O2 ok
//   ENTRY O2 MISMATCH output 0: relative error 0.3 ...
//   ENTRY O2 ERROR <why>         (either side failed)
// and "COMPILE-ERROR O2" when the module does not compile. Exit status: 0
// when everything agrees, 2 otherwise, 1 for bad usage. The random-graph
// generator (random_graphs.py) drives it over many generated modules.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compiler.h"
#include "compiler/Frontend.h"
#include "compiler/Registration.h"
#include "compiler/Runner.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace tfcc;

namespace {

int usage(const std::string &why) {
  llvm::errs() << "tfcc-difftest: " << why
               << "\nusage: tfcc-difftest MODULE.mlir [--opt-levels 0,2] "
                  "[--batch B] [--seed S] [--rtol R] [--atol A]\n";
  return 1;
}

bool parseInt(const std::string &s, int64_t &out) {
  char *end = nullptr;
  out = std::strtoll(s.c_str(), &end, 10);
  return !s.empty() && end && *end == '\0';
}

} // namespace

int main(int argc, char **argv) {
  std::string path;
  std::vector<int> levels = {0, 2};
  int64_t batch = 2, seed = 1;
  double rtol = 1e-4, atol = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--opt-levels") {
      levels.clear();
      std::string list = value();
      for (size_t at = 0; at <= list.size();) {
        size_t comma = list.find(',', at);
        int64_t level;
        if (!parseInt(list.substr(at, comma - at), level) || level < 0 ||
            level > 3)
          return usage("--opt-levels takes levels 0 to 3, e.g. 0,2");
        levels.push_back(int(level));
        if (comma == std::string::npos)
          break;
        at = comma + 1;
      }
    } else if (arg == "--batch") {
      if (!parseInt(value(), batch) || batch < 1)
        return usage("--batch takes a positive integer");
    } else if (arg == "--seed") {
      if (!parseInt(value(), seed))
        return usage("--seed takes an integer");
    } else if (arg == "--rtol") {
      std::string v = value();
      char *end = nullptr;
      rtol = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(rtol >= 0))
        return usage("--rtol takes a non-negative number");
    } else if (arg == "--atol") {
      std::string v = value();
      char *end = nullptr;
      atol = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(atol >= 0))
        return usage("--atol takes a non-negative number");
    } else if (!arg.empty() && arg[0] == '-') {
      return usage("unknown option " + arg);
    } else if (path.empty()) {
      path = arg;
    } else {
      return usage("one module at a time");
    }
  }
  if (path.empty())
    return usage("no module given");

  mlir::DialectRegistry registry;
  registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  ModelDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      loadModelFile(path, sourceMgr, context);
  if (!module)
    return usage("cannot load " + path);
  std::vector<mlir::func::FuncOp> entries;
  for (auto f : module->getOps<mlir::func::FuncOp>())
    if (!f.isExternal() && f.isPublic())
      entries.push_back(f);

  // The interpreter's outputs, once per entry.
  std::vector<std::vector<NpyArray>> inputs(entries.size()),
      reference(entries.size());
  std::vector<std::string> referenceError(entries.size());
  for (size_t e = 0; e < entries.size(); ++e) {
    inputs[e] = makeRandomInputs(entries[e], batch, uint64_t(seed) + e);
    if (!interpret(*module, entries[e].getSymName().str(), inputs[e],
                   reference[e], referenceError[e]) &&
        referenceError[e].empty())
      referenceError[e] = "the interpreter failed";
  }

  bool allAgree = true;
  for (int level : levels) {
    llvm::SmallString<128> dir;
    if (llvm::sys::fs::createUniqueDirectory("tfcc-difftest", dir))
      return usage("cannot create a temporary folder");
    llvm::SmallString<128> so(dir);
    llvm::sys::path::append(so, "model.so");
    CompileOptions options;
    options.inputPath = path;
    options.outputPath = so.str().str();
    options.optLevel = level;
    std::string error;
    std::unique_ptr<CompiledModel> compiled;
    CompileStatus status = compile(options);
    llvm::errs() << status.diagnostics;
    if (status.ok)
      compiled = CompiledModel::open(options.outputPath, error);
    if (!compiled) {
      llvm::outs() << "COMPILE-ERROR O" << level << " " << error << "\n";
      allAgree = false;
      llvm::sys::fs::remove_directories(dir);
      continue;
    }
    for (size_t e = 0; e < entries.size(); ++e) {
      std::string name = entries[e].getSymName().str();
      llvm::outs() << name << " O" << level << " ";
      int index = compiled->findEntry(name);
      std::vector<NpyArray> outputs;
      if (index < 0) {
        llvm::outs() << "ERROR the compiled model has no entry " << name << "\n";
        allAgree = false;
        continue;
      }
      bool ran = compiled->run(index, batch, inputs[e], outputs, error);
      if (!ran || !referenceError[e].empty()) {
        llvm::outs() << "ERROR "
                     << (ran ? "interpreter: " + referenceError[e]
                             : "compiled: " + error)
                     << "\n";
        allAgree = false;
        continue;
      }
      std::string mismatch;
      for (size_t o = 0; o < outputs.size() && mismatch.empty(); ++o) {
        Agreement a = compareArrays(outputs[o], reference[e][o]);
        bool closeToZero = !a.exact && !a.nan && !a.shapeMismatch &&
                           a.maxAbsError <= atol;
        if (!a.passes(rtol) && !closeToZero) {
          llvm::raw_string_ostream os(mismatch);
          os << "MISMATCH output " << o << ": relative error "
             << llvm::format("%.3g", a.relError) << ", max abs error "
             << llvm::format("%.3g", a.maxAbsError)
             << (a.nan ? " NaN" : "") << (a.shapeMismatch ? " shape" : "");
        }
      }
      if (outputs.size() != reference[e].size())
        mismatch = "MISMATCH output count";
      llvm::outs() << (mismatch.empty() ? std::string("ok") : mismatch) << "\n";
      allAgree &= mismatch.empty();
    }
    compiled.reset();
    llvm::sys::fs::remove_directories(dir);
  }
  return allAgree ? 0 : 2;
}
