//===- CheckpointTest.cpp - Checkpoints of the state memory ---------------===//
//
// tfcc_rt_save_checkpoint / tfcc_rt_load_checkpoint(_buffer)
// (runtime/src/checkpoint.c) on hand-written model tables: a round trip, every
// error (another model, wrong shape/dtype/size, unknown/missing/duplicate
// variable, truncation at every length, corrupt bytes, I/O errors), that a
// failed load leaves the state unchanged, and that a save killed part way
// leaves the previous checkpoint whole. The files are checked against flatc
// in test/tools/checkpoint.test.
//
//===----------------------------------------------------------------------===//

#include "tfcc/tfcc_runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

const int64_t kWDims[] = {3};
const int64_t kW4Dims[] = {4};
const int64_t kMDims[] = {2, 2};
const tfcc_variable_info kVariables[] = {
    {"w", TFCC_DTYPE_F32, 1, kWDims, 0, 12, 1, 0},
    {"w/momentum", TFCC_DTYPE_F32, 1, kWDims, 64, 12, 0, 0},
    {"m", TFCC_DTYPE_F64, 2, kMDims, 128, 32, 1, 0},
    {"train_step/step", TFCC_DTYPE_I64, 0, nullptr, 192, 8, 0, 0},
};
struct alignas(64) StateImage {
  float w[16] = {1, 2, 3};
  float slot[16] = {0.5f, 0.25f, 0.125f};
  double m[8] = {-1, 2, -3, 4};
  int64_t step = 7;
  char pad[56] = {};
};
const StateImage kStateInit;
const tfcc_model_info kModel = {TFCC_ABI_VERSION, 0,      "ckpt_model", nullptr,
                                0,                256,    4,            0,
                                kVariables,       &kStateInit};
// The same variables under another model name.
const tfcc_model_info kOtherModel = {
    TFCC_ABI_VERSION, 0, "other_model", nullptr, 0, 256, 4, 0, kVariables,
    &kStateInit};
// "w" with 4 elements instead of 3.
const tfcc_variable_info kReshaped[] = {
    {"w", TFCC_DTYPE_F32, 1, kW4Dims, 0, 16, 1, 0},
    kVariables[1], kVariables[2], kVariables[3]};
const tfcc_model_info kReshapedModel = {
    TFCC_ABI_VERSION, 0, "ckpt_model", nullptr, 0, 256, 4, 0, kReshaped,
    &kStateInit};
// "m" as f32 [2, 4] (same bytes, other dtype and shape).
const int64_t kM24Dims[] = {2, 4};
const tfcc_variable_info kRetyped[] = {
    kVariables[0], kVariables[1],
    {"m", TFCC_DTYPE_F32, 2, kM24Dims, 128, 32, 1, 0}, kVariables[3]};
const tfcc_model_info kRetypedModel = {
    TFCC_ABI_VERSION, 0, "ckpt_model", nullptr, 0, 256, 4, 0, kRetyped,
    &kStateInit};
// One variable fewer / one more.
const tfcc_model_info kFewerModel = {
    TFCC_ABI_VERSION, 0, "ckpt_model", nullptr, 0, 256, 3, 0, kVariables,
    &kStateInit};

struct Context {
  std::vector<uint8_t> block;
  tfcc_context ctx;
  explicit Context(const tfcc_model_info *m) {
    block.resize(tfcc_rt_model_arena_bytes(m, 1));
    EXPECT_EQ(tfcc_rt_context_init(m, &ctx, block.data(), block.size(), 1),
              TFCC_OK)
        << ctx.message;
  }
  std::vector<uint8_t> state() const {
    auto *s = static_cast<const uint8_t *>(ctx.state);
    return std::vector<uint8_t>(s, s + ctx.state_bytes);
  }
  void scribble(uint8_t seed) {
    auto *s = static_cast<uint8_t *>(ctx.state);
    for (uint64_t i = 0; i < ctx.state_bytes; ++i)
      s[i] = static_cast<uint8_t>(seed + 31 * i);
  }
};

std::string tempDir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/tfcc-ckpt-XXXXXX";
    const char *d = mkdtemp(tmpl);
    return std::string(d ? d : "/tmp");
  }();
  return dir;
}

// Removes the temporary directory after the tests.
struct RemoveTempDir : ::testing::Environment {
  void TearDown() override {
    std::error_code ignored;
    if (tempDir() != "/tmp")
      std::filesystem::remove_all(tempDir(), ignored);
  }
};
::testing::Environment *const kRemoveTempDir =
    ::testing::AddGlobalTestEnvironment(new RemoveTempDir);

std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// The bytes of kModel's variables in `state` (without the gaps between them).
std::vector<uint8_t> variableBytes(const std::vector<uint8_t> &state) {
  std::vector<uint8_t> out;
  for (const tfcc_variable_info &v : kVariables)
    out.insert(out.end(), state.begin() + v.offset,
               state.begin() + v.offset + v.bytes);
  return out;
}

// Saves a scribbled state of kModel; returns the file's bytes.
std::vector<uint8_t> savedCheckpoint(std::vector<uint8_t> *state = nullptr) {
  Context c(&kModel);
  c.scribble(5);
  std::string path = tempDir() + "/saved.tfck";
  EXPECT_EQ(tfcc_rt_save_checkpoint(&kModel, &c.ctx, path.c_str()), TFCC_OK)
      << c.ctx.message;
  if (state)
    *state = c.state();
  return readFile(path);
}

// Loads `bytes` into a fresh context of `m`; expects failure with a message
// containing `expected` and the state unchanged.
void expectRejected(const tfcc_model_info *m, const std::vector<uint8_t> &bytes,
                    const std::string &expected, const std::string &what) {
  Context c(m);
  c.scribble(99);
  std::vector<uint8_t> before = c.state();
  EXPECT_EQ(tfcc_rt_load_checkpoint_buffer(m, &c.ctx, bytes.data(),
                                           bytes.size()),
            TFCC_INVALID_ARGUMENT)
      << what;
  EXPECT_NE(std::string(c.ctx.message).find(expected), std::string::npos)
      << what << ": " << c.ctx.message;
  EXPECT_EQ(c.state(), before) << what << ": the state changed";
}

TEST(CheckpointTest, RoundTrip) {
  std::vector<uint8_t> saved;
  std::vector<uint8_t> bytes = savedCheckpoint(&saved);
  ASSERT_GE(bytes.size(), 8u);
  EXPECT_EQ(std::memcmp(bytes.data() + 4, "TFCK", 4), 0);
  EXPECT_FALSE(exists(tempDir() + "/saved.tfck.tmp"));

  Context c(&kModel);
  ASSERT_NE(c.state(), saved);
  std::string path = tempDir() + "/saved.tfck";
  ASSERT_EQ(tfcc_rt_load_checkpoint(&kModel, &c.ctx, path.c_str()), TFCC_OK)
      << c.ctx.message;
  EXPECT_STREQ(c.ctx.message, "");
  // Every variable's bytes are restored (the padding between them is not
  // part of the checkpoint).
  std::vector<uint8_t> now = c.state();
  for (const tfcc_variable_info &v : kVariables)
    EXPECT_EQ(std::memcmp(now.data() + v.offset, saved.data() + v.offset,
                          v.bytes),
              0)
        << v.name;
  // From memory as well.
  Context d(&kModel);
  ASSERT_EQ(tfcc_rt_load_checkpoint_buffer(&kModel, &d.ctx, bytes.data(),
                                           bytes.size()),
            TFCC_OK)
      << d.ctx.message;
  EXPECT_EQ(d.state(), now);
  // Saving the loaded state gives the same file.
  std::string again = tempDir() + "/again.tfck";
  ASSERT_EQ(tfcc_rt_save_checkpoint(&kModel, &d.ctx, again.c_str()), TFCC_OK);
  EXPECT_EQ(readFile(again), bytes);
}

TEST(CheckpointTest, SaveReplacesAnExistingFile) {
  std::string path = tempDir() + "/replace.tfck";
  writeFile(path, std::vector<uint8_t>(3, 'x'));
  Context c(&kModel);
  ASSERT_EQ(tfcc_rt_save_checkpoint(&kModel, &c.ctx, path.c_str()), TFCC_OK)
      << c.ctx.message;
  Context d(&kModel);
  d.scribble(1);
  EXPECT_EQ(tfcc_rt_load_checkpoint(&kModel, &d.ctx, path.c_str()), TFCC_OK)
      << d.ctx.message;
}

TEST(CheckpointTest, RejectsACheckpointOfAnotherModel) {
  expectRejected(&kOtherModel, savedCheckpoint(),
                 "is a checkpoint of model 'ckpt_model', not other_model",
                 "other model");
}

TEST(CheckpointTest, RejectsWrongShapesDtypesAndVariableSets) {
  std::vector<uint8_t> bytes = savedCheckpoint();
  expectRejected(&kReshapedModel, bytes,
                 "variable 'w' has shape [3] in the checkpoint, [4] in the "
                 "model",
                 "wrong shape");
  expectRejected(&kRetypedModel, bytes,
                 "variable 'm' has dtype 8 in the checkpoint, 1 in the model",
                 "wrong dtype");
  expectRejected(&kFewerModel, bytes, "has no variable 'train_step/step'",
                 "unknown variable");
  // A checkpoint of kFewerModel lacks a variable of kModel.
  Context c(&kFewerModel);
  std::string path = tempDir() + "/fewer.tfck";
  ASSERT_EQ(tfcc_rt_save_checkpoint(&kFewerModel, &c.ctx, path.c_str()),
            TFCC_OK);
  expectRejected(&kModel, readFile(path), "lacks variable 'train_step/step'",
                 "missing variable");
}

TEST(CheckpointTest, RejectsEveryTruncation) {
  std::vector<uint8_t> bytes = savedCheckpoint();
  for (size_t n = 0; n < bytes.size(); ++n)
    expectRejected(&kModel,
                   std::vector<uint8_t>(bytes.begin(), bytes.begin() + n),
                   "corrupt checkpoint", "truncated to " + std::to_string(n));
}

TEST(CheckpointTest, RejectsCorruptBytes) {
  std::vector<uint8_t> bytes = savedCheckpoint();
  std::vector<uint8_t> bad = bytes;
  bad[4] = 'X'; // the file identifier
  expectRejected(&kModel, bad, "file identifier is not \"TFCK\"", "identifier");
  bad = bytes;
  bad[0] = 0xF0; // the root offset, far outside
  bad[1] = 0xFF;
  expectRejected(&kModel, bad, "corrupt checkpoint (bad root table)",
                 "root offset");
  // Every single-byte change (a flipped bit, or 0xFF) either fails with a
  // message and the state unchanged, or loads exactly the saved values (a
  // change in padding or the informational `trainable` flag): the CRC-32C
  // catches every change of the data. Never out-of-bounds (run under
  // ASan/valgrind to see it).
  std::vector<uint8_t> saved;
  bytes = savedCheckpoint(&saved);
  int loaded = 0;
  for (size_t i = 0; i < bytes.size(); ++i)
    for (uint8_t x : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xFF)}) {
      bad = bytes;
      bad[i] ^= x;
      Context c(&kModel);
      c.scribble(42);
      std::vector<uint8_t> before = c.state();
      tfcc_status_t s = tfcc_rt_load_checkpoint_buffer(&kModel, &c.ctx,
                                                       bad.data(), bad.size());
      if (s != TFCC_OK) {
        EXPECT_EQ(s, TFCC_INVALID_ARGUMENT);
        EXPECT_NE(c.ctx.message[0], '\0') << "byte " << i;
        EXPECT_EQ(c.state(), before) << "byte " << i;
      } else {
        ++loaded;
        EXPECT_EQ(variableBytes(c.state()), variableBytes(saved))
            << "byte " << i << " ^ " << int(x)
                                    << " loaded other values";
      }
    }
  // Some bytes are padding: the loop saw both outcomes.
  EXPECT_GT(loaded, 0);
}

// Positions in a checkpoint's bytes, found by following its offsets as a
// FlatBuffers reader does (for tests that damage one field).
struct Layout {
  const std::vector<uint8_t> &bytes;
  uint32_t u32(size_t at) const {
    return uint32_t(bytes[at]) | uint32_t(bytes[at + 1]) << 8 |
           uint32_t(bytes[at + 2]) << 16 | uint32_t(bytes[at + 3]) << 24;
  }
  size_t vtableOf(size_t table) const { return table - int32_t(u32(table)); }
  // Where field `id` of the table at `table` is stored.
  size_t field(size_t table, int id) const {
    size_t vt = vtableOf(table) + 4 + 2 * id;
    return table + (bytes[vt] | bytes[vt + 1] << 8);
  }
  // The slot (a uoffset) of variable `i` in the root's variable list.
  size_t variableSlot(size_t i) const {
    size_t list = field(u32(0), 2);
    size_t vars = list + u32(list);
    return vars + 4 + 4 * i;
  }
  size_t variableTable(size_t i) const {
    size_t slot = variableSlot(i);
    return slot + u32(slot);
  }
};

// Found by fuzz/checkpoint_load: the vtable of a variable gives its
// `trainable` flag an offset past the table. The loader, which does not use
// the flag, accepted the file; flatc's verifier (tfcc --weights) refused it.
TEST(CheckpointTest, RejectsAFieldOffsetPastItsTable) {
  std::vector<uint8_t> bytes = savedCheckpoint();
  Layout layout{bytes};
  // Field 3 (trainable) of the first variable: its offset gets the high bit.
  size_t vtable = layout.vtableOf(layout.variableTable(0));
  bytes[vtable + 4 + 2 * 3 + 1] |= 0x80;
  expectRejected(&kModel, bytes, "corrupt checkpoint (bad trainable field)",
                 "trainable offset");
}

// Found by fuzz/checkpoint_load: a uoffset of 0 (FlatBuffers forbids it: it
// points at itself) read as an empty vector, so the step counter's shape
// field of 0 loaded as a scalar's shape; flatc's verifier refuses it.
TEST(CheckpointTest, RejectsAZeroOffset) {
  const std::vector<uint8_t> saved = savedCheckpoint();
  Layout layout{saved};
  size_t last = layout.u32(layout.variableSlot(0) - 4) - 1; // the step counter
  auto zeroed = [&](size_t at) {
    std::vector<uint8_t> bytes = saved;
    std::fill(bytes.begin() + at, bytes.begin() + at + 4, 0);
    return bytes;
  };
  expectRejected(&kModel, zeroed(layout.field(layout.variableTable(last), 2)),
                 "corrupt checkpoint (bad shape)", "shape offset 0");
  expectRejected(&kModel, zeroed(0), "corrupt checkpoint (bad root table)",
                 "root offset 0");
  expectRejected(&kModel, zeroed(layout.variableSlot(last)),
                 "corrupt checkpoint (bad variable)", "variable offset 0");
}

TEST(CheckpointTest, RejectsDataThatDoesNotMatchItsChecksum) {
  std::vector<uint8_t> bytes = savedCheckpoint();
  // The file ends with the data of the last variable (the step counter).
  bytes.back() ^= 0x10;
  expectRejected(&kModel, bytes,
                 "corrupt checkpoint (the data of variable 'train_step/step' "
                 "has CRC-32C 0x",
                 "flipped data");
}

// Check values of CRC-32C from RFC 3720 (iSCSI), appendix B.4, and the
// catalogue's "123456789".
TEST(CheckpointTest, Crc32cMatchesPublishedCheckValues) {
  std::vector<uint8_t> zeros(32, 0), ones(32, 0xFF), ascending(32),
      descending(32);
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<uint8_t>(i);
    descending[i] = static_cast<uint8_t>(31 - i);
  }
  EXPECT_EQ(tfcc_rt_crc32c(0, "123456789", 9), 0xE3069283u);
  EXPECT_EQ(tfcc_rt_crc32c(0, zeros.data(), 32), 0x8A9136AAu);
  EXPECT_EQ(tfcc_rt_crc32c(0, ones.data(), 32), 0x62A8AB43u);
  EXPECT_EQ(tfcc_rt_crc32c(0, ascending.data(), 32), 0x46DD794Eu);
  EXPECT_EQ(tfcc_rt_crc32c(0, descending.data(), 32), 0x113FDB5Cu);
  EXPECT_EQ(tfcc_rt_crc32c(0, nullptr, 0), 0u);
  // Continuing from a partial sum gives the sum of the whole.
  EXPECT_EQ(tfcc_rt_crc32c(tfcc_rt_crc32c(0, "1234", 4), "56789", 5),
            0xE3069283u);
}

TEST(CheckpointTest, RejectsAnotherFormatVersion) {
  std::vector<uint8_t> bytes = savedCheckpoint();
  // The version is the first field of the root table (after its soffset).
  uint32_t root = bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24;
  ASSERT_EQ(bytes[root + 4], 2);
  bytes[root + 4] = 1; // version 1 had no checksums
  expectRejected(&kModel, bytes,
                 "unsupported checkpoint format version 1 (this runtime reads "
                 "version 2)",
                 "version");
}

TEST(CheckpointTest, ReportsIoErrors) {
  Context c(&kModel);
  c.scribble(3);
  std::vector<uint8_t> before = c.state();
  std::string missing = tempDir() + "/missing.tfck";
  EXPECT_EQ(tfcc_rt_load_checkpoint(&kModel, &c.ctx, missing.c_str()),
            TFCC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(c.ctx.message).find("No such file or directory"),
            std::string::npos)
      << c.ctx.message;
  EXPECT_EQ(c.state(), before);

  std::string unwritable = tempDir() + "/no/such/dir/x.tfck";
  EXPECT_EQ(tfcc_rt_save_checkpoint(&kModel, &c.ctx, unwritable.c_str()),
            TFCC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(c.ctx.message).find("cannot create"),
            std::string::npos)
      << c.ctx.message;
  // A directory where the file should go: the rename fails, the temporary
  // file is removed.
  std::string dir = tempDir() + "/a_directory";
  mkdir(dir.c_str(), 0700);
  EXPECT_EQ(tfcc_rt_save_checkpoint(&kModel, &c.ctx, dir.c_str()),
            TFCC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(c.ctx.message).find("cannot rename"),
            std::string::npos)
      << c.ctx.message;
  EXPECT_FALSE(exists(dir + ".tmp"));
  // Loading a directory is a read error.
  EXPECT_NE(tfcc_rt_load_checkpoint(&kModel, &c.ctx, dir.c_str()), TFCC_OK);
  EXPECT_EQ(c.state(), before);
  // An endless stream stops at the largest checkpoint the model can have.
  EXPECT_EQ(tfcc_rt_load_checkpoint(&kModel, &c.ctx, "/dev/zero"),
            TFCC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(c.ctx.message)
                .find("'/dev/zero' is larger than any checkpoint of this model"),
            std::string::npos)
      << c.ctx.message;
  EXPECT_EQ(c.state(), before);

  EXPECT_EQ(tfcc_rt_save_checkpoint(&kModel, &c.ctx, nullptr),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(tfcc_rt_load_checkpoint(&kModel, &c.ctx, nullptr),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(tfcc_rt_load_checkpoint(&kOtherModel, &c.ctx, missing.c_str()),
            TFCC_INVALID_ARGUMENT); // a context of another model
  EXPECT_EQ(tfcc_rt_save_checkpoint(&kModel, nullptr, missing.c_str()),
            TFCC_INVALID_ARGUMENT);
}

// A model whose state is one 2 MiB variable and the step counter: a save
// takes milliseconds, long enough to be killed part way.
constexpr uint64_t kBigBytes = 2ull << 20;
const int64_t kBigDims[] = {static_cast<int64_t>(kBigBytes / 4)};
const tfcc_variable_info kBigVariables[] = {
    {"big", TFCC_DTYPE_F32, 1, kBigDims, 0, kBigBytes, 1, 0},
    {"train_step/step", TFCC_DTYPE_I64, 0, nullptr, kBigBytes, 8, 0, 0},
};
const tfcc_model_info *bigModel() {
  static const std::vector<uint8_t> init(kBigBytes + 64);
  static const tfcc_model_info m = {
      TFCC_ABI_VERSION, 0, "big_model", nullptr, 0, kBigBytes + 64, 2, 0,
      kBigVariables, init.data()};
  return &m;
}

// Generation g of the big state: Context::scribble(g), the step counter g.
void fillGeneration(Context &c, int64_t g) {
  c.scribble(static_cast<uint8_t>(g));
  std::memcpy(static_cast<uint8_t *>(c.ctx.state) + kBigBytes, &g, 8);
}

// Kills a child process at a random moment of tfcc_rt_save_checkpoint (a
// delay spread over the time one save takes, after the child says it
// starts) until 100 kills have left the temporary file on disk (killed while
// writing it, or before the rename): each time the checkpoint at `path` must
// load and hold one whole generation, the one before or (renamed just
// before the kill) the new one.
TEST(CheckpointTest, KillMidSaveLeavesThePreviousCheckpoint) {
  const tfcc_model_info *m = bigModel();
  Context c(m);
  std::string path = tempDir() + "/killed.tfck", tmp = path + ".tmp";
  fillGeneration(c, 0);
  ASSERT_EQ(tfcc_rt_save_checkpoint(m, &c.ctx, path.c_str()), TFCC_OK)
      << c.ctx.message;
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(tfcc_rt_save_checkpoint(m, &c.ctx, path.c_str()), TFCC_OK);
  auto saveUs = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  std::mt19937 rng(15);
  std::uniform_int_distribution<long> delayUs(0, saveUs + saveUs / 4);
  int64_t committed = 0;
  int withTemporary = 0, completed = 0, attempts = 0;
  Context loaded(m);
  while (withTemporary < 100 && attempts < 2000) {
    int64_t g = ++attempts;
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(fds[0]);
      fillGeneration(c, g);
      char mark = 's';
      if (write(fds[1], &mark, 1) != 1)
        _exit(2);
      tfcc_status_t s = tfcc_rt_save_checkpoint(m, &c.ctx, path.c_str());
      mark = 'd';
      if (s != TFCC_OK || write(fds[1], &mark, 1) != 1)
        _exit(3);
      _exit(0);
    }
    close(fds[1]);
    char mark = 0;
    ASSERT_EQ(read(fds[0], &mark, 1), 1);
    ASSERT_EQ(mark, 's');
    usleep(static_cast<useconds_t>(delayUs(rng)));
    kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    bool done = read(fds[0], &mark, 1) == 1;
    close(fds[0]);
    ASSERT_TRUE(done || (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
        << "the saving child failed on its own (status " << status << ")";
    completed += done;
    if (!done && exists(tmp))
      ++withTemporary;

    loaded.scribble(200);
    ASSERT_EQ(tfcc_rt_load_checkpoint(m, &loaded.ctx, path.c_str()), TFCC_OK)
        << "kill " << attempts << ": " << loaded.ctx.message;
    int64_t step = 0;
    std::memcpy(&step, static_cast<uint8_t *>(loaded.ctx.state) + kBigBytes,
                8);
    ASSERT_TRUE(step == committed || step == g)
        << "kill " << attempts << ": step " << step << ", expected "
        << committed << " or " << g;
    Context expected(m);
    fillGeneration(expected, step);
    ASSERT_EQ(std::memcmp(loaded.ctx.state, expected.ctx.state, kBigBytes), 0)
        << "kill " << attempts << ": the data is not generation " << step;
    committed = step;
  }
  EXPECT_GE(withTemporary, 100) << attempts << " kills, " << completed
                                << " saves completed first";
  std::printf("[ faults   ] %d kills: %d with the temporary file on disk, %d "
              "after the save completed; the checkpoint whole every time\n",
              attempts, withTemporary, completed);
}

} // namespace
