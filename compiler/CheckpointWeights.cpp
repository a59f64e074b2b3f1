//===- CheckpointWeights.cpp - bake a checkpoint into a build -------------===//
//
// A small bounds-checked FlatBuffers reader for runtime/checkpoint.fbs (the
// runtime's C reader needs a compiled model's table; this one needs only the
// module). FlatBuffers layout: a root uoffset, then tables whose first word
// is a soffset back to a vtable of [vtable bytes, table bytes, field offsets].
//
//===----------------------------------------------------------------------===//

#include "compiler/CheckpointWeights.h"

#include "compiler/ElementTypes.h"
#include "dialects/graph/IR/GraphOps.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <map>

using namespace mlir;

namespace {

class Reader {
public:
  explicit Reader(llvm::StringRef bytes) : data(bytes) {}

  bool fits(uint64_t at, uint64_t n) const {
    return at <= data.size() && n <= data.size() - at;
  }
  bool u32(uint64_t at, uint32_t &v) const {
    if (!fits(at, 4))
      return false;
    v = 0;
    for (int i = 3; i >= 0; --i)
      v = (v << 8) | static_cast<uint8_t>(data[at + i]);
    return true;
  }
  bool u16(uint64_t at, uint16_t &v) const {
    if (!fits(at, 2))
      return false;
    v = static_cast<uint8_t>(data[at]) |
        (static_cast<uint16_t>(static_cast<uint8_t>(data[at + 1])) << 8);
    return true;
  }
  bool i64(uint64_t at, int64_t &v) const {
    uint32_t lo, hi;
    if (!u32(at, lo) || !u32(at + 4, hi))
      return false;
    v = static_cast<int64_t>((static_cast<uint64_t>(hi) << 32) | lo);
    return true;
  }

  /// The table at `at`: its position and its vtable's field offsets.
  struct Table {
    uint64_t at = 0;
    std::vector<uint16_t> fields;
  };
  bool table(uint64_t at, Table &t) const {
    uint32_t soffset;
    if (!u32(at, soffset))
      return false;
    int64_t vtable = static_cast<int64_t>(at) - static_cast<int32_t>(soffset);
    uint16_t vsize, tsize;
    if (vtable < 0 || !u16(vtable, vsize) || !u16(vtable + 2, tsize) ||
        vsize < 4 || !fits(vtable, vsize) || !fits(at, tsize))
      return false;
    t.at = at;
    t.fields.clear();
    for (uint16_t i = 4; i + 2 <= vsize; i += 2) {
      uint16_t off;
      u16(vtable + i, off);
      if (off >= tsize && off != 0)
        return false;
      t.fields.push_back(off);
    }
    return true;
  }
  /// Position of field `id`, or 0 when absent.
  uint64_t field(const Table &t, size_t id) const {
    return id < t.fields.size() && t.fields[id] ? t.at + t.fields[id] : 0;
  }
  /// Follows the uoffset stored at `at`.
  bool ref(uint64_t at, uint64_t &target) const {
    uint32_t off;
    if (!u32(at, off))
      return false;
    target = at + off;
    return fits(target, 0);
  }
  /// A vector of `elem`-byte elements at `at`: its count and first element.
  bool vector(uint64_t at, uint64_t elem, uint64_t &count,
              uint64_t &first) const {
    uint32_t n;
    if (!u32(at, n) || !fits(at + 4, static_cast<uint64_t>(n) * elem))
      return false;
    count = n;
    first = at + 4;
    return true;
  }
  bool string(uint64_t at, std::string &s) const {
    uint64_t n, first;
    if (!vector(at, 1, n, first) || !fits(first, n + 1))
      return false;
    s.assign(data.data() + first, n);
    return true;
  }
  const char *bytes(uint64_t at) const { return data.data() + at; }

private:
  llvm::StringRef data;
};

struct Entry {
  int32_t dtype = 0;
  std::vector<int64_t> shape;
  uint64_t data = 0, bytes = 0;
};

} // namespace

bool tfcc::applyCheckpointWeights(ModuleOp module, const std::string &path,
                                  const std::string &prefix,
                                  std::string &error) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    error = "cannot read checkpoint '" + path + "': " + file.getError().message();
    return false;
  }
  Reader r((*file)->getBuffer());
  auto corrupt = [&](const std::string &what) {
    error = "checkpoint '" + path + "' is truncated or corrupt (" + what + ")";
    return false;
  };
  uint64_t root;
  if (!r.fits(0, 8) || std::memcmp(r.bytes(4), "TFCK", 4) != 0)
    return corrupt("no TFCK identifier");
  Reader::Table top;
  if (!r.ref(0, root) || !r.table(root, top))
    return corrupt("root table");
  uint32_t version = 0;
  if (uint64_t at = r.field(top, 0); at && !r.u32(at, version))
    return corrupt("version");
  if (version != 1) {
    error = "checkpoint '" + path + "' has format version " +
            std::to_string(version) + "; this tfcc reads version 1";
    return false;
  }
  std::string model;
  uint64_t at, target;
  if (!(at = r.field(top, 1)) || !r.ref(at, target) || !r.string(target, model))
    return corrupt("model name");
  std::string moduleName = module.getSymName() ? module.getSymName()->str() : "";
  if (model != moduleName && model != prefix) {
    error = "checkpoint '" + path + "' is of model '" + model + "', not '" +
            (prefix.empty() ? moduleName : prefix) + "'";
    return false;
  }
  std::map<std::string, Entry> entries;
  if ((at = r.field(top, 2))) {
    uint64_t count, first;
    if (!r.ref(at, target) || !r.vector(target, 4, count, first))
      return corrupt("variables");
    for (uint64_t i = 0; i < count; ++i) {
      Reader::Table t;
      uint64_t vt, f;
      std::string name;
      Entry e;
      if (!r.ref(first + 4 * i, vt) || !r.table(vt, t))
        return corrupt("variable table");
      if (!(f = r.field(t, 0)) || !r.ref(f, target) || !r.string(target, name))
        return corrupt("variable name");
      uint32_t dtypeBits = 0;
      if ((f = r.field(t, 1)) && !r.u32(f, dtypeBits))
        return corrupt("dtype of " + name);
      e.dtype = static_cast<int32_t>(dtypeBits);
      if ((f = r.field(t, 2))) {
        uint64_t n, d0;
        if (!r.ref(f, target) || !r.vector(target, 8, n, d0))
          return corrupt("shape of " + name);
        for (uint64_t d = 0; d < n; ++d) {
          int64_t v;
          r.i64(d0 + 8 * d, v);
          e.shape.push_back(v);
        }
      }
      if ((f = r.field(t, 4)) &&
          (!r.ref(f, target) || !r.vector(target, 1, e.bytes, e.data)))
        return corrupt("data of " + name);
      entries[name] = std::move(e);
    }
  }
  // Check every variable before changing any.
  std::vector<std::pair<graph::VariableOp, DenseElementsAttr>> updates;
  for (auto variable : module.getOps<graph::VariableOp>()) {
    std::string name = variable.getSymName().str();
    auto it = entries.find(name);
    if (it == entries.end()) {
      error = "checkpoint '" + path + "' has no value for variable '" + name + "'";
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
    llvm::ArrayRef<char> raw(r.bytes(e.data), e.bytes);
    bool splat = false;
    if (!DenseElementsAttr::isValidRawBuffer(type, raw, splat) || splat) {
      error = "variable '" + name + "' holds " + std::to_string(e.bytes) +
              " bytes in the checkpoint, not the size of " +
              std::to_string(type.getNumElements()) + " elements";
      return false;
    }
    updates.emplace_back(variable, DenseElementsAttr::getFromRawBuffer(type, raw));
  }
  for (auto &[variable, value] : updates)
    variable.setInitAttr(value);
  return true;
}
