//===- graph_ir_compile.cpp - libFuzzer harness: graph IR -> LLVM IR ------===//
//
// The whole of tfcc on graph-IR text (tfcc::compile with --emit=llvm, opt
// level 0): parse, verify, the normalize, training, graph, arena and LLVM
// pipelines, the C interface. Any input must end in diagnostics or LLVM IR:
// no crash, no assertion, no sanitizer report, no leak. Run it with
// -close_fd_mask=2 (fuzz/run.sh does) to keep the diagnostics quiet.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compiler.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string output =
      "/tmp/tfcc-fuzz-" + std::to_string(getpid()) + ".ll";
  tfcc::CompileOptions options;
  options.inputPath = "fuzz.mlir";
  options.inputText = std::string(reinterpret_cast<const char *>(data), size);
  options.outputPath = output;
  options.emit = tfcc::EmitKind::LlvmIr;
  options.optLevel = 0;
  // A rejected input is fine; a crash, a hang or a sanitizer report is not.
  (void)tfcc::compile(options);
  return 0;
}
