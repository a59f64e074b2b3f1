//===- checkpoint_load.cpp - libFuzzer harness: checkpoint bytes ----------===//
//
// The same bytes through both checkpoint readers: the runtime's
// (tfcc_rt_load_checkpoint_buffer, runtime/src/checkpoint.c, hand-written
// C99) and the compiler's --weights reader (applyCheckpointWeightsFromBuffer,
// passes/CheckpointWeights.cpp, flatc's generated code). Neither may crash;
// a failed runtime load leaves the state unchanged; a file the runtime
// accepts, the compiler accepts too, with the same values.
//
// TFCC_FUZZ_WRITE_SEEDS=DIR ./checkpoint_load writes seed checkpoints of the
// harness's model into DIR and exits (fuzz/run.sh does it).
//
//===----------------------------------------------------------------------===//

#include "compiler/Registration.h"
#include "dialects/graph/IR/GraphOps.h"
#include "passes/CheckpointWeights.h"
#include "tfcc/tfcc_runtime.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const int64_t kWDims[] = {3};
const int64_t kMDims[] = {2, 2};
const tfcc_variable_info kVariables[] = {
    {"w", TFCC_DTYPE_F32, 1, kWDims, 0, 12, 1, 0},
    {"w/momentum", TFCC_DTYPE_F32, 1, kWDims, 64, 12, 0, 0},
    {"m", TFCC_DTYPE_F64, 2, kMDims, 128, 32, 1, 0},
    {"train_step/step", TFCC_DTYPE_I64, 0, nullptr, 192, 8, 0, 0},
};
alignas(64) const uint8_t kStateInit[256] = {};
const tfcc_model_info kModel = {TFCC_ABI_VERSION, 0, "ckpt_model", nullptr,
                                0, 256, 4, 0, kVariables, kStateInit};

// The compiler's side: the variables w and m of the same model.
const char kModule[] = R"mlir(
module @ckpt_model {
  graph.variable @w : tensor<3xf32> = dense<0.0>
  graph.variable @m : tensor<2x2xf64> = dense<0.0>
  func.func @predict(%x: tensor<3xf32>) -> tensor<3xf32> {
    %w = graph.read @w : tensor<3xf32>
    %y = graph.add %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    return %y : tensor<3xf32>
  }
}
)mlir";

struct Compiler {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  Compiler() {
    mlir::DialectRegistry registry;
    tfcc::registerCompilerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
    module = mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
    if (!module)
      std::abort();
  }
};

Compiler &compiler() {
  static Compiler c;
  return c;
}

void fail(const char *what, const char *message) {
  std::fprintf(stderr, "checkpoint_load: %s (%s)\n", what, message);
  std::abort();
}

// A context of kModel whose state is a pattern.
struct Context {
  std::vector<uint8_t> block;
  tfcc_context ctx;
  explicit Context(uint8_t seed) {
    block.resize(tfcc_rt_model_arena_bytes(&kModel, 1));
    if (tfcc_rt_context_init(&kModel, &ctx, block.data(), block.size(), 1) !=
        TFCC_OK)
      fail("context_init failed", ctx.message);
    for (uint64_t i = 0; i < ctx.state_bytes; ++i)
      static_cast<uint8_t *>(ctx.state)[i] = static_cast<uint8_t>(seed + 7 * i);
  }
};

void writeSeeds(const char *dir) {
  for (int seed = 0; seed < 3; ++seed) {
    Context c(static_cast<uint8_t>(seed * 50));
    std::string path = std::string(dir) + "/seed" + std::to_string(seed) +
                       ".tfck";
    if (tfcc_rt_save_checkpoint(&kModel, &c.ctx, path.c_str()) != TFCC_OK)
      fail("cannot write a seed", c.ctx.message);
  }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  if (const char *dir = std::getenv("TFCC_FUZZ_WRITE_SEEDS")) {
    writeSeeds(dir);
    std::exit(0);
  }
  compiler();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Context c(99);
  std::vector<uint8_t> before(static_cast<uint8_t *>(c.ctx.state),
                              static_cast<uint8_t *>(c.ctx.state) +
                                  c.ctx.state_bytes);
  tfcc_status_t status =
      tfcc_rt_load_checkpoint_buffer(&kModel, &c.ctx, data, size);
  const auto *state = static_cast<const uint8_t *>(c.ctx.state);
  if (status != TFCC_OK) {
    if (c.ctx.message[0] == '\0')
      fail("a failed load has no message", "");
    if (std::memcmp(state, before.data(), before.size()) != 0)
      fail("a failed load changed the state", c.ctx.message);
  }

  Compiler &comp = compiler();
  mlir::OwningOpRef<mlir::ModuleOp> module = comp.module->clone();
  std::string error;
  bool applied = tfcc::applyCheckpointWeightsFromBuffer(
      *module, llvm::ArrayRef<uint8_t>(data, size), "fuzz.tfck", "", error);
  if (!applied && error.empty())
    fail("--weights failed without a message", "");
  if (status == TFCC_OK) {
    if (!applied)
      fail("the runtime loads a checkpoint --weights refuses", error.c_str());
    // The same values for w (offset 0) and m (offset 128).
    for (auto variable : module->getOps<mlir::graph::VariableOp>()) {
      auto value = llvm::dyn_cast<mlir::DenseElementsAttr>(variable.getInit());
      if (!value)
        fail("--weights set a value that is not dense elements",
             variable.getSymName().str().c_str());
      bool isW = variable.getSymName() == "w";
      uint64_t offset = isW ? 0 : 128, count = isW ? 3 : 4, width = isW ? 4 : 8;
      llvm::ArrayRef<char> raw = value.getRawData();
      for (uint64_t i = 0; i < count; ++i) {
        const char *element = raw.data() + (value.isSplat() ? 0 : i * width);
        if (raw.size() < (value.isSplat() ? width : count * width) ||
            std::memcmp(element, state + offset + i * width, width) != 0)
          fail("the two readers disagree on a value",
               variable.getSymName().str().c_str());
      }
    }
  }
  return 0;
}
