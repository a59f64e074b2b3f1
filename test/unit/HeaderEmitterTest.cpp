//===- HeaderEmitterTest.cpp - Golden and C tests of the header emitter ---===//
//
// The golden file pins the whole generated text; the compile tests feed it to
// the C compiler (C99 pedantic and C++17) and check that the size macros equal
// the runtime's numbers. Set TFCC_UPDATE_GOLDEN=1 to rewrite the golden file
// after an intended change.
//
//===----------------------------------------------------------------------===//

#include "compiler/HeaderEmitter.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <stdlib.h>
#include <unistd.h>

#ifndef TFCC_SOURCE_DIR
#error "TFCC_SOURCE_DIR must name the source tree"
#endif
#ifndef TFCC_RUNTIME_LIBRARY
#error "TFCC_RUNTIME_LIBRARY must name the runtime archive (libtfcc_runtime.a)"
#endif

namespace tfcc {
namespace {

const std::string kSourceDir = TFCC_SOURCE_DIR;
const std::string kGoldenPath =
    kSourceDir + "/test/unit/golden/header_emitter_golden.h";
const std::string kTypesHeaderPath =
    kSourceDir + "/runtime/include/tfcc/tfcc_types.h";
const std::string kRuntimeLibrary = TFCC_RUNTIME_LIBRARY;

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// One dynamic-batch entry (1 input, 2 outputs) and one static entry; several
// names need sanitizing. The static entry is the larger one up to batch 4, so
// the model arena macro switches entries at batch 5.
ModelSignature sampleSignature() {
  ModelSignature sig;
  sig.modelName = "mnist_cnn";
  sig.prefix = "Mnist_CNN";
  sig.weightBytes = 225034;

  EntrySignature predict;
  predict.name = "predict";
  predict.inputs = {{"input/image:0", DType::F32, {kDynamicDim, 28, 28, 1}}};
  predict.outputs = {{"probs", DType::F32, {kDynamicDim, 10}},
                     {"class", DType::I32, {kDynamicDim}}};
  predict.arenaBytesFixed = 4096;
  predict.arenaBytesPerBatch = 3200;

  EntrySignature eval;
  eval.name = "eval.step";
  eval.inputs = {{"x", DType::F32, {4, 3}}, {"2nd", DType::BOOL, {4}}};
  eval.outputs = {{"loss */ x", DType::F32, {}}};
  eval.arenaBytesFixed = 19990;

  sig.entries = {predict, eval};
  return sig;
}

std::string firstDifference(const std::string &expected,
                            const std::string &actual) {
  std::istringstream e(expected), a(actual);
  std::string el, al;
  for (int line = 1;; ++line) {
    bool he = static_cast<bool>(std::getline(e, el));
    bool ha = static_cast<bool>(std::getline(a, al));
    if (!he && !ha)
      return "texts differ only in the final newline";
    if (!he || !ha || el != al)
      return "first difference at line " + std::to_string(line) +
             ":\n  expected: " + (he ? el : "<end of file>") +
             "\n  actual:   " + (ha ? al : "<end of file>");
  }
}

bool haveCommand(const char *name) {
  return std::system((std::string("command -v ") + name + " >/dev/null 2>&1")
                         .c_str()) == 0;
}

// A fresh directory under the test temp dir.
std::string makeTempDir() {
  std::string pattern = ::testing::TempDir() + "tfcc_header_XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  const char *dir = mkdtemp(buffer.data());
  return dir ? std::string(dir) : std::string();
}

int run(const std::string &command) {
  std::printf("running: %s\n", command.c_str());
  return std::system(command.c_str());
}

TEST(HeaderEmitterTest, MatchesGolden) {
  std::string actual =
      emitHeader(sampleSignature(), readFile(kTypesHeaderPath));
  if (std::getenv("TFCC_UPDATE_GOLDEN")) {
    writeFile(kGoldenPath, actual);
    GTEST_SKIP() << "rewrote " << kGoldenPath;
  }
  std::string expected = readFile(kGoldenPath);
  ASSERT_FALSE(expected.empty()) << "missing golden file " << kGoldenPath;
  if (actual != expected) {
    writeFile("header_emitter_actual.h", actual);
    ADD_FAILURE() << "generated header differs from " << kGoldenPath << "\n"
                  << firstDifference(expected, actual)
                  << "\nactual text written to "
                  << "header_emitter_actual.h in the working directory; diff "
                     "it with\n  diff "
                  << kGoldenPath << " header_emitter_actual.h\n(or rerun with "
                  << "TFCC_UPDATE_GOLDEN=1 after an intended change)";
  }
}

TEST(HeaderEmitterTest, IsDeterministic) {
  std::string types = readFile(kTypesHeaderPath);
  EXPECT_EQ(emitHeader(sampleSignature(), types),
            emitHeader(sampleSignature(), types));
}

TEST(HeaderEmitterTest, EmbeddedTypesTextMatchesRuntimeHeader) {
  EXPECT_EQ(std::string(tfccTypesHeaderText()), readFile(kTypesHeaderPath));
}

TEST(HeaderEmitterTest, SanitizesNames) {
  EXPECT_EQ(sanitizeCIdentifier("input/image:0"), "input_image_0");
  EXPECT_EQ(sanitizeCIdentifier("0"), "arg_0");
  EXPECT_EQ(sanitizeCIdentifier("_x"), "arg_x");
  EXPECT_EQ(sanitizeCIdentifier(""), "arg");
  EXPECT_EQ(sanitizeCIdentifier("a..b"), "a_b");

  ModelSignature sig;
  sig.modelName = "3d-net";
  EntrySignature a, b, c, d;
  a.name = "init";
  b.name = "Run";
  c.name = "run";
  d.name = "run";
  a.inputs = {{"ctx", DType::F32, {1}},
              {"batch", DType::F32, {1}},
              {"int", DType::I32, {1}}};
  a.outputs = {
      {"y", DType::F32, {1}}, {"y", DType::F32, {1}}, {"y_2", DType::F32, {1}}};
  sig.entries = {a, b, c, d};
  CNames names = computeCNames(sig);
  EXPECT_EQ(names.prefix, "model_3d_net");
  EXPECT_EQ(names.macroPrefix, "MODEL_3D_NET");
  ASSERT_EQ(names.entries.size(), 4u);
  EXPECT_EQ(names.entries[0].function, "model_3d_net_init_2");
  EXPECT_EQ(names.entries[1].function, "model_3d_net_Run");
  EXPECT_EQ(names.entries[2].function, "model_3d_net_run_2");
  EXPECT_EQ(names.entries[3].function, "model_3d_net_run_3");
  EXPECT_EQ(names.entries[2].macro, "MODEL_3D_NET_RUN_2");
  EXPECT_EQ(names.entries[0].inputs,
            (std::vector<std::string>{"ctx_", "batch_", "int_"}));
  EXPECT_EQ(names.entries[0].outputs,
            (std::vector<std::string>{"y", "y_2", "y_2_2"}));

  // Entries do not take the names of the model-level functions.
  ModelSignature clash;
  clash.modelName = "m";
  EntrySignature create, withThreads;
  create.name = "create";
  withThreads.name = "Create_With_Threads";
  clash.entries = {create, withThreads};
  CNames clashNames = computeCNames(clash);
  ASSERT_EQ(clashNames.entries.size(), 2u);
  EXPECT_EQ(clashNames.entries[0].function, "m_create_2");
  EXPECT_EQ(clashNames.entries[1].function, "m_Create_With_Threads_2");
}

// A model with a training step: the state macro (included in the model's
// arena macro), the variable functions, and entries that avoid their names.
TEST(HeaderEmitterTest, StatefulModel) {
  ModelSignature sig;
  sig.modelName = "t";
  sig.stateful = true;
  sig.stateBytes = 192;
  EntrySignature train, reset;
  train.name = "train_step";
  train.inputs = {{"x", DType::F32, {2, 3}}};
  train.outputs = {{"loss", DType::F32, {}}};
  train.arenaBytesFixed = 100;
  reset.name = "reset_state";
  sig.entries = {train, reset};
  CNames names = computeCNames(sig);
  ASSERT_EQ(names.entries.size(), 2u);
  EXPECT_EQ(names.entries[0].function, "t_train_step");
  EXPECT_EQ(names.entries[1].function, "t_reset_state_2");
  std::string header = emitHeader(sig, "");
  EXPECT_NE(header.find("#define T_STATE_BYTES 192ULL"), std::string::npos);
  EXPECT_NE(header.find("#define T_ARENA_BYTES(max_batch) (192ULL + "),
            std::string::npos);
  EXPECT_NE(header.find("tfcc_status_t t_get_variable(tfcc_context* ctx, "
                        "const char* name, void* out"),
            std::string::npos);
  EXPECT_NE(header.find("tfcc_status_t t_set_variable("), std::string::npos);
  EXPECT_NE(header.find("tfcc_status_t t_reset_state(tfcc_context* ctx);"),
            std::string::npos);
  EXPECT_NE(header.find("tfcc_status_t t_save_checkpoint(tfcc_context* ctx, "
                        "const char* path);"),
            std::string::npos);
  EXPECT_NE(header.find("tfcc_status_t t_load_checkpoint(tfcc_context* ctx, "
                        "const char* path);"),
            std::string::npos);
  {
    // An entry called like a checkpoint function is renamed too.
    ModelSignature named = sig;
    named.entries[1].name = "load_checkpoint";
    EXPECT_EQ(computeCNames(named).entries[1].function, "t_load_checkpoint_2");
  }
  EXPECT_NE(header.find("const float* x, float* loss)"), std::string::npos);

  // Without a train step: none of it.
  sig.stateful = false;
  std::string plain = emitHeader(sig, "");
  EXPECT_EQ(plain.find("STATE_BYTES"), std::string::npos);
  EXPECT_EQ(plain.find("_get_variable"), std::string::npos);
}

// The generated header compiles as pedantic C99 and as C++17, twice in one
// translation unit next to another model's header; its macros are integer
// constant expressions.
TEST(HeaderEmitterTest, CompilesAsC) {
  if (!haveCommand("cc"))
    GTEST_SKIP() << "no C compiler 'cc' on PATH";
  std::string dir = makeTempDir();
  ASSERT_FALSE(dir.empty());
  std::string types = readFile(kTypesHeaderPath);
  writeFile(dir + "/mnist_cnn.h", emitHeader(sampleSignature(), types));
  ModelSignature other = sampleSignature();
  other.modelName = "other";
  other.prefix = "";
  writeFile(dir + "/other.h", emitHeader(other, types));
  writeFile(dir + "/use.c", R"c(#include "mnist_cnn.h"
#include "mnist_cnn.h"
#include "other.h"

/* Sizes are integer constant expressions. */
static uint8_t arena[MNIST_CNN_ARENA_BYTES(8)];
typedef char weights_ok[MNIST_CNN_WEIGHT_BYTES == 225034ULL ? 1 : -1];
typedef char eval_ok[MNIST_CNN_EVAL_STEP_ARENA_BYTES(7) == 20032ULL ? 1 : -1];
typedef char predict_ok[MNIST_CNN_PREDICT_ARENA_BYTES(2) == 10496ULL ? 1 : -1];
typedef char model_small_ok[MNIST_CNN_ARENA_BYTES(4) == 20096ULL ? 1 : -1];
typedef char model_large_ok[MNIST_CNN_ARENA_BYTES(5) == 20160ULL ? 1 : -1];
typedef char other_ok[OTHER_ARENA_BYTES(8) == MNIST_CNN_ARENA_BYTES(8) ? 1 : -1];

/* Every declared function has the documented type. */
const tfcc_model_info* (*info_fn)(void) = mnist_cnn_info;
tfcc_status_t (*init_fn)(tfcc_context*, void*, uint64_t, int64_t) = mnist_cnn_init;
tfcc_status_t (*create_fn)(int64_t, tfcc_context**) = mnist_cnn_create;
void (*destroy_fn)(tfcc_context*) = mnist_cnn_destroy;
const char* (*status_fn)(tfcc_status_t) = mnist_cnn_status_string;
const char* (*isa_fn)(void) = mnist_cnn_kernels_isa;
tfcc_status_t (*predict_fn)(tfcc_context*, int64_t, const float*, float*, int32_t*) =
    mnist_cnn_predict;
tfcc_status_t (*eval_fn)(tfcc_context*, int64_t, const float*, const uint8_t*, float*) =
    mnist_cnn_eval_step;
tfcc_status_t (*other_fn)(tfcc_context*, int64_t, const float*, float*, int32_t*) =
    other_predict;

tfcc_context context;
tfcc_arg_info arg;
tfcc_entry_info entry;
tfcc_kernel_fn kernel;
uint8_t* arena_start(void) { return arena; }
int dims_dynamic(void) { return TFCC_DIM_DYNAMIC + TFCC_ABI_VERSION + TFCC_DTYPE_BOOL; }
)c");
  std::string flags = " -Wall -Wextra -Werror -pedantic -c ";
  EXPECT_EQ(run("cd " + dir + " && cc -std=c99" + flags + "use.c -o use_c.o"),
            0);
  if (haveCommand("c++")) {
    EXPECT_EQ(run("cd " + dir + " && c++ -std=c++17 -x c++" + flags +
                  "use.c -o use_cxx.o"),
              0);
  }
}

// The model arena macro equals tfcc_rt_model_arena_bytes and each entry macro
// equals tfcc_rt_entry_arena_bytes, for a model whose largest entry changes
// several times.
TEST(HeaderEmitterTest, ArenaMacrosMatchRuntime) {
  if (!haveCommand("cc"))
    GTEST_SKIP() << "no C compiler 'cc' on PATH";
  struct Sizes {
    uint64_t fixed, perBatch;
    bool dynamic;
  };
  const std::vector<Sizes> sizes = {{100000, 10, true}, {5000, 1000, true},
                                    {0, 4096, true},    {5000, 1000, true},
                                    {130000, 0, false}, {64, 64, true},
                                    {7, 999999, false}, {1, 3000, true}};
  ModelSignature sig;
  sig.modelName = "lines";
  std::string table;
  for (size_t i = 0; i < sizes.size(); ++i) {
    EntrySignature entry;
    entry.name = "e" + std::to_string(i);
    entry.outputs = {{"y", DType::F32, {sizes[i].dynamic ? kDynamicDim : 1}}};
    entry.arenaBytesFixed = sizes[i].fixed;
    entry.arenaBytesPerBatch = sizes[i].perBatch;
    sig.entries.push_back(entry);
    table += "  {\"e" + std::to_string(i) + "\", 0, 1, 0, &arg, " +
             (sizes[i].dynamic ? "1" : "0") + ", 0, " +
             std::to_string(sizes[i].fixed) + "u, " +
             std::to_string(sizes[i].perBatch) + "u, 0, 0},\n";
  }
  std::string dir = makeTempDir();
  ASSERT_FALSE(dir.empty());
  writeFile(dir + "/lines.h", emitHeader(sig, readFile(kTypesHeaderPath)));
  writeFile(dir + "/check.c",
            "#include \"lines.h\"\n#include \"tfcc/tfcc_runtime.h\"\n#include "
            "<stdio.h>\n"
            "static const tfcc_arg_info arg = {\"y\", 1, 1, 0};\n"
            "static const tfcc_entry_info entries[] = {\n" +
                table +
                "};\n"
                "static const tfcc_model_info model = {TFCC_ABI_VERSION, " +
                std::to_string(sizes.size()) +
                ", \"lines\", entries, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};\n"
                "int main(void) {\n"
                "  int64_t b; int bad = 0;\n"
                "  for (b = 1; b <= 2000; ++b) {\n"
                "    if (LINES_ARENA_BYTES(b) != "
                "tfcc_rt_model_arena_bytes(&model, b)) {\n"
                "      printf(\"model at %d: %llu vs %llu\\n\", (int)b, "
                "(unsigned long long)"
                "LINES_ARENA_BYTES(b), (unsigned long "
                "long)tfcc_rt_model_arena_bytes(&model, "
                "b)); bad = 1; }\n"
                "    if (LINES_E0_ARENA_BYTES(b) != "
                "tfcc_rt_entry_arena_bytes(&entries[0], b) ||\n"
                "        LINES_E4_ARENA_BYTES(b) != "
                "tfcc_rt_entry_arena_bytes(&entries[4], b) ||\n"
                "        LINES_E7_ARENA_BYTES(b) != "
                "tfcc_rt_entry_arena_bytes(&entries[7], b)) {\n"
                "      printf(\"entry at %d\\n\", (int)b); bad = 1; }\n"
                "  }\n"
                "  return bad;\n"
                "}\n");
  std::string command = "cd " + dir +
                        " && cc -std=c99 -Wall -Wextra -Werror -pedantic -I" +
                        kSourceDir + "/runtime/include check.c " +
                        kRuntimeLibrary + " -lpthread -lm -o check && ./check";
  EXPECT_EQ(run(command), 0);
  // The largest entry changes hands: the macro has several branches.
  std::string header = readFile(dir + "/lines.h");
  EXPECT_NE(header.find("(max_batch) >= "), std::string::npos);
}

// A C file that assigns each runtime function of `rows` to a pointer of the
// type the table gives it (the model's table first where the row says so):
// under -Werror it compiles only if the table and tfcc_runtime.h agree.
std::string runtimeSignatureCheck(const std::vector<ModelFunction> &rows) {
  std::string text = "#include \"tfcc/tfcc_runtime.h\"\n";
  for (const ModelFunction &row : rows) {
    if (!row.runtimeName)
      continue;
    std::string params = row.passesInfo ? "const tfcc_model_info*" : "";
    for (const auto &param : splitCParams(row.params))
      params += (params.empty() ? "" : ", ") + param.first;
    text += std::string(row.result) + " (*check_" + row.suffix + ")(" +
            (params.empty() ? "void" : params) + ") = " + row.runtimeName +
            ";\n";
  }
  return text;
}

// The forwarders AbiEmitter generates call the runtime with the table's
// types, which the C compiler never sees: this checks them against the
// runtime's prototypes, and that a wrong row is caught.
TEST(HeaderEmitterTest, ModelFunctionsMatchRuntime) {
  if (!haveCommand("cc"))
    GTEST_SKIP() << "no C compiler 'cc' on PATH";
  std::string dir = makeTempDir();
  ASSERT_FALSE(dir.empty());
  std::vector<ModelFunction> rows = modelFunctions();
  writeFile(dir + "/table.c", runtimeSignatureCheck(rows));
  std::string compile = "cd " + dir +
                        " && cc -std=c99 -Wall -Werror -pedantic "
                        "-Wno-unused-variable -I" +
                        kSourceDir + "/runtime/include -c ";
  EXPECT_EQ(run(compile + "table.c -o table.o"), 0);

  std::vector<ModelFunction> wrong = rows;
  bool mutated = false;
  for (ModelFunction &row : wrong)
    if (std::string(row.suffix) == "create") {
      row.params = "int32_t max_batch, tfcc_context** out_ctx";
      mutated = true;
    }
  ASSERT_TRUE(mutated);
  writeFile(dir + "/wrong.c", runtimeSignatureCheck(wrong));
  EXPECT_NE(run(compile + "wrong.c -o wrong.o 2>/dev/null"), 0);
}

TEST(HeaderEmitterTest, SplitsCParameters) {
  using Params = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(splitCParams("void"), Params{});
  EXPECT_EQ(splitCParams(""), Params{});
  EXPECT_EQ(splitCParams("const void* const* inputs, int64_t batch"),
            (Params{{"const void* const*", "inputs"}, {"int64_t", "batch"}}));
  EXPECT_EQ(splitCParams("tfcc_context **out"),
            (Params{{"tfcc_context **", "out"}}));
}

} // namespace
} // namespace tfcc
