//===- CheckpointWeights.cpp - bake a checkpoint into a build -------------===//
//
// Reads runtime/checkpoint.fbs through the code flatc generates from it
// (checkpoint_generated.h, built with the compiler) after
// flatbuffers::Verifier has checked every offset, so the schema is the one
// description of the format on this side; the C runtime keeps its own
// reader (runtime/src/checkpoint.c), cross-checked against flatc's by
// test/tools/checkpoint.test.
//
//===----------------------------------------------------------------------===//

#include "passes/CheckpointWeights.h"

#include "compiler/BoundedFile.h"
#include "dialects/graph/IR/Limits.h"

#include "checkpoint_generated.h"
#include "compiler/ElementTypes.h"
#include "dialects/graph/IR/GraphOps.h"
#include "tfcc/tfcc_runtime.h"

#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

using namespace mlir;

namespace {

// The schema's DType numbers are tfcc_dtype_t's (TFCC_DTYPES): a schema
// that drifts from the list does not build.
#define TFCC_CHECK_SCHEMA_DTYPE(name, number, bytes, ctype)                    \
  static_assert(static_cast<int>(tfcc::checkpoint::DType_##name) == number,    \
                "runtime/checkpoint.fbs: DType " #name " differs from "        \
                "TFCC_DTYPES");
TFCC_DTYPES(TFCC_CHECK_SCHEMA_DTYPE)
#undef TFCC_CHECK_SCHEMA_DTYPE
#define TFCC_DTYPE_NUMBER(name, number, bytes, ctype) number,
static_assert(static_cast<int>(tfcc::checkpoint::DType_MAX) ==
                  std::max({TFCC_DTYPES(TFCC_DTYPE_NUMBER)}),
              "runtime/checkpoint.fbs has a DType TFCC_DTYPES lacks");
#undef TFCC_DTYPE_NUMBER

struct Entry {
  int32_t dtype = 0;
  std::vector<int64_t> shape;
  const uint8_t *data = nullptr;
  uint64_t bytes = 0;
};

} // namespace

bool tfcc::applyCheckpointWeights(ModuleOp module, const std::string &path,
                                  const std::string &prefix,
                                  std::string &error) {
  std::vector<uint8_t> contents;
  if (!readBoundedFile(path, graph::kMaxTensorBytes + graph::kMaxMetadataBytes,
                       "checkpoint", contents, error))
    return false;
  return applyCheckpointWeightsFromBuffer(module, contents, path, prefix,
                                          error);
}

bool tfcc::applyCheckpointWeightsFromBuffer(ModuleOp module,
                                            llvm::ArrayRef<uint8_t> contents,
                                            const std::string &path,
                                            const std::string &prefix,
                                            std::string &error) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(contents.data()),
                        contents.size());
  auto corrupt = [&](const std::string &what) {
    error = "checkpoint '" + path + "' is truncated or corrupt (" + what + ")";
    return false;
  };
  const auto *buffer = reinterpret_cast<const uint8_t *>(bytes.data());
  if (bytes.size() < 8 || !checkpoint::CheckpointBufferHasIdentifier(buffer))
    return corrupt("no TFCK identifier");
  flatbuffers::Verifier verifier(buffer, bytes.size());
  if (!checkpoint::VerifyCheckpointBuffer(verifier))
    return corrupt("it does not verify against runtime/checkpoint.fbs");
  const checkpoint::Checkpoint *top = checkpoint::GetCheckpoint(buffer);
  if (top->version() != TFCC_CHECKPOINT_FORMAT_VERSION) {
    error = "checkpoint '" + path + "' has format version " +
            std::to_string(top->version()) + "; this tfcc reads version " +
            std::to_string(TFCC_CHECKPOINT_FORMAT_VERSION);
    return false;
  }
  std::string model = top->model()->str();
  std::string moduleName =
      module.getSymName() ? module.getSymName()->str() : "";
  if (model != moduleName && model != prefix) {
    error = "checkpoint '" + path + "' is of model '" + model + "', not '" +
            (prefix.empty() ? moduleName : prefix) + "'";
    return false;
  }
  std::map<std::string, Entry> entries;
  if (const auto *variables = top->variables()) {
    for (const checkpoint::Variable *variable : *variables) {
      Entry e;
      e.dtype = static_cast<int32_t>(variable->dtype());
      // Byte by byte: in a file from another writer the int64 dims may sit at
      // a 4-byte boundary, which the verifier allows (the runtime's reader
      // accepts it too); loading them as int64 would be undefined behaviour
      // (found by fuzz/checkpoint_load under UBSan).
      if (const auto *shape = variable->shape())
        for (flatbuffers::uoffset_t i = 0; i < shape->size(); ++i) {
          int64_t dim;
          std::memcpy(&dim, shape->Data() + i * sizeof dim, sizeof dim);
          e.shape.push_back(flatbuffers::EndianScalar(dim));
        }
      if (const auto *data = variable->data()) {
        e.data = data->data();
        e.bytes = data->size();
      }
      uint32_t crc = tfcc_rt_crc32c(0, e.data, e.bytes);
      if (crc != variable->crc32c()) {
        char sums[64];
        snprintf(sums, sizeof sums, "CRC-32C 0x%08x, the file says 0x%08x", crc,
                 variable->crc32c());
        return corrupt("the data of variable '" + variable->name()->str() +
                       "' has " + sums);
      }
      entries[variable->name()->str()] = std::move(e);
    }
  }
  // Check every variable before changing any.
  std::vector<std::pair<graph::VariableOp, DenseElementsAttr>> updates;
  for (auto variable : module.getOps<graph::VariableOp>()) {
    std::string name = variable.getSymName().str();
    auto it = entries.find(name);
    if (it == entries.end()) {
      error =
          "checkpoint '" + path + "' has no value for variable '" + name + "'";
      return false;
    }
    RankedTensorType type = variable.getTensorType();
    const Entry &e = it->second;
    std::optional<DType> dtype = dtypeOfElementType(type.getElementType());
    if (!dtype || static_cast<int32_t>(*dtype) != e.dtype ||
        e.shape != std::vector<int64_t>(type.getShape().begin(),
                                        type.getShape().end())) {
      std::string shape;
      for (int64_t d : e.shape)
        shape += (shape.empty() ? "" : "x") + std::to_string(d);
      error = "variable '" + name + "' is " +
              [&] {
                std::string s;
                llvm::raw_string_ostream os(s);
                os << type;
                return s;
              }() +
              " but the checkpoint holds dtype " + std::to_string(e.dtype) +
              " shape [" + shape + "]";
      return false;
    }
    if (type.getElementType().isInteger(1)) {
      error = "variable '" + name + "': bool variables are not supported";
      return false;
    }
    llvm::ArrayRef<char> raw(reinterpret_cast<const char *>(e.data), e.bytes);
    bool splat = false;
    if (!DenseElementsAttr::isValidRawBuffer(type, raw, splat) || splat) {
      error = "variable '" + name + "' holds " + std::to_string(e.bytes) +
              " bytes in the checkpoint, not the size of " +
              std::to_string(type.getNumElements()) + " elements";
      return false;
    }
    updates.emplace_back(variable,
                         DenseElementsAttr::getFromRawBuffer(type, raw));
  }
  for (auto &[variable, value] : updates)
    variable.setInitAttr(value);
  return true;
}
