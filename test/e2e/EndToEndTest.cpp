//===- EndToEndTest.cpp - compiled code against the reference interpreter -===//
//
// Compiles every function of the contract's models with tfcc, runs the .so on
// random inputs and compares each output with the reference interpreter:
// relative error (spec, "Numerical agreement") <= 1e-5 for floats, integers
// exact. Dynamic-batch entries run at batch 1, 3 and 64.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compiler.h"
#include "compiler/Frontend.h"
#include "compiler/Registration.h"
#include "compiler/Runner.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

using namespace tfcc;

namespace {

constexpr double kRtol = 1e-5;

std::string specModel(const std::string &name) {
  return std::string(TFCC_SPEC_MODELS_DIR) + "/" + name;
}

/// One compiled model and its parsed source, shared by the tests of a file.
struct ModelUnderTest {
  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::unique_ptr<CompiledModel> compiled;
  std::string error;

  explicit ModelUnderTest(const std::string &path)
      : context(makeRegistry()) {
    auto file = llvm::MemoryBuffer::getFile(path);
    if (!file) {
      error = "cannot read " + path;
      return;
    }
    sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
    ModelDiagnosticHandler handler(sourceMgr, &context);
    module = loadModel(sourceMgr, context);
    if (!module) {
      error = "cannot parse " + path;
      return;
    }
    llvm::SmallString<128> dir;
    llvm::sys::fs::createUniqueDirectory("tfcc-e2e", dir);
    CompileOptions options;
    options.inputPath = path;
    options.outputPath = (dir + "/model.so").str();
    options.runtimeLibrary = TFCC_RUNTIME_LIBRARY;
    CompileStatus status = compile(options);
    if (!status.ok) {
      error = "tfcc failed on " + path + ":\n" + status.diagnostics;
      return;
    }
    compiled = CompiledModel::open(options.outputPath, error);
  }

  static mlir::DialectRegistry makeRegistry() {
    mlir::DialectRegistry registry;
    registerCompilerDialects(registry);
    return registry;
  }

  std::vector<std::string> entries() {
    std::vector<std::string> names;
    for (auto f : module->getOps<mlir::func::FuncOp>())
      if (f.isPublic() && !f.isExternal())
        names.push_back(f.getSymName().str());
    return names;
  }

  bool isDynamic(const std::string &entry) {
    int index = compiled->findEntry(entry);
    return index >= 0 && compiled->info().entries[index].has_dynamic_batch;
  }

  /// Runs both sides on the same random inputs and checks every output.
  void check(const std::string &entry, int64_t batch) {
    SCOPED_TRACE(entry + " at batch " + std::to_string(batch));
    auto func = module->lookupSymbol<mlir::func::FuncOp>(entry);
    ASSERT_TRUE(func);
    std::vector<NpyArray> inputs = makeRandomInputs(func, batch, 42 + batch);
    std::vector<NpyArray> actual, expected;
    std::string runError;
    int index = compiled->findEntry(entry);
    ASSERT_GE(index, 0);
    ASSERT_TRUE(compiled->run(index, batch, inputs, actual, runError)) << runError;
    ASSERT_TRUE(interpret(*module, entry, inputs, expected, runError)) << runError;
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      Agreement a = compareArrays(actual[i], expected[i]);
      EXPECT_TRUE(a.passes(kRtol))
          << "output " << i << ": relative error " << a.relError
          << ", max abs error " << a.maxAbsError << (a.nan ? ", NaN" : "")
          << (a.shapeMismatch ? ", shape mismatch" : "");
    }
  }
};

ModelUnderTest &model(const std::string &name) {
  static std::map<std::string, std::unique_ptr<ModelUnderTest>> cache;
  auto &slot = cache[name];
  if (!slot)
    slot = std::make_unique<ModelUnderTest>(specModel(name));
  return *slot;
}

void checkEveryEntry(const std::string &file) {
  ModelUnderTest &m = model(file);
  ASSERT_TRUE(m.compiled) << m.error;
  std::vector<std::string> entries = m.entries();
  ASSERT_FALSE(entries.empty());
  for (const std::string &entry : entries) {
    if (m.isDynamic(entry)) {
      for (int64_t batch : {1, 3, 64})
        m.check(entry, batch);
    } else {
      m.check(entry, 1);
    }
  }
}

TEST(EndToEnd, EveryOpOfOpsMlir) { checkEveryEntry("ops.mlir"); }
TEST(EndToEnd, Mlp) { checkEveryEntry("mlp.mlir"); }
TEST(EndToEnd, MnistCnn) { checkEveryEntry("mnist_cnn.mlir"); }

TEST(EndToEnd, CoversEveryFunctionOfOpsMlir) {
  ModelUnderTest &m = model("ops.mlir");
  ASSERT_TRUE(m.compiled) << m.error;
  // One entry per op of the spec table (66 functions in contract v1).
  EXPECT_EQ(int(m.entries().size()), m.compiled->info().num_entries);
  EXPECT_GE(m.compiled->info().num_entries, 60);
}

TEST(EndToEnd, GatherOutOfRangeIsAnErrorStatus) {
  ModelUnderTest &m = model("ops.mlir");
  ASSERT_TRUE(m.compiled) << m.error;
  auto func = m.module->lookupSymbol<mlir::func::FuncOp>("gather");
  std::vector<NpyArray> inputs = makeRandomInputs(func, 1, 7);
  int32_t bad = 10; // table has 10 rows
  std::memcpy(inputs[1].data.data(), &bad, sizeof bad);
  std::vector<NpyArray> outputs;
  std::string error;
  EXPECT_FALSE(m.compiled->run(m.compiled->findEntry("gather"), 1, inputs,
                               outputs, error));
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  // The next call with valid indices succeeds again.
  inputs = makeRandomInputs(func, 1, 7);
  EXPECT_TRUE(m.compiled->run(m.compiled->findEntry("gather"), 1, inputs,
                              outputs, error))
      << error;
}

} // namespace
