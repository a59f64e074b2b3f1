//===- GraphDefEmitter.cpp - the graph IR as a TensorFlow GraphDef
//---------===//
//
// The protos are encoded by hand (the fields TensorBoard reads of
// tensorflow/core/framework/{graph,node_def,attr_value,tensor_shape,types}.proto):
//   GraphDef: node 1 (NodeDef)
//   NodeDef: name 1, op 2, input 3 (repeated), attr 5 (map<string, AttrValue>)
//   AttrValue: list 1 (ListValue), type 6 (DataType), shape 7
//   ListValue: shape 7 (repeated TensorShapeProto)
//   TensorShapeProto: dim 2 (Dim: size 1, name 2)
//
//===----------------------------------------------------------------------===//

#include "compiler/GraphDefEmitter.h"

#include "compiler/ElementTypes.h"
#include "compiler/Frontend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>

using namespace mlir;

namespace tfcc {
namespace {

/// Appends protobuf fields to a byte string.
class ProtoWriter {
public:
  void varint(uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      bytes_.push_back(char(v ? byte | 0x80 : byte));
    } while (v);
  }
  void key(unsigned field, unsigned wireType) {
    varint((uint64_t(field) << 3) | wireType);
  }
  void integer(unsigned field, int64_t v) {
    key(field, 0);
    varint(uint64_t(v));
  }
  void bytes(unsigned field, llvm::StringRef text) {
    key(field, 2);
    varint(text.size());
    bytes_.append(text.data(), text.size());
  }
  void message(unsigned field, const ProtoWriter &m) { bytes(field, m.bytes_); }
  const std::string &str() const { return bytes_; }

private:
  std::string bytes_;
};

/// TensorFlow's DataType number of an element type (DT_INVALID = 0 when it
/// has none).
int64_t tfDataType(Type element) {
  std::optional<DType> dtype = dtypeOfElementType(element);
  if (!dtype)
    return 0;
  switch (*dtype) {
  case DType::F32:
    return 1;
  case DType::F64:
    return 2;
  case DType::I32:
    return 3;
  case DType::U8:
    return 4;
  case DType::I8:
    return 6;
  case DType::I64:
    return 9;
  case DType::BOOL:
    return 10;
  case DType::BF16:
    return 14;
  case DType::F16:
    return 19;
  }
  return 0;
}

ProtoWriter shapeProto(Type type) {
  ProtoWriter shape;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) {
    shape.integer(3, 1); // unknown_rank
    return shape;
  }
  for (int64_t d : tensor.getShape()) {
    ProtoWriter dim;
    dim.integer(1, ShapedType::isDynamic(d) ? -1 : d);
    shape.message(2, dim);
  }
  return shape;
}

Type elementOf(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped ? shaped.getElementType() : type;
}

/// The model's names of a location (NameLoc names, outermost first, each
/// once), joined with '+' (a fused op carries several); "" when it has none.
std::string locationName(Location loc) {
  std::vector<std::string> names;
  loc->walk([&](Location l) {
    if (auto named = dyn_cast<NameLoc>(l)) {
      std::string name = named.getName().str();
      if (!name.empty() &&
          std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(name);
    }
    return WalkResult::advance();
  });
  std::string joined;
  for (const std::string &name : names)
    joined += (joined.empty() ? "" : "+") + name;
  // A leading '/' (ONNX's "/conv1/Conv") would make an empty name scope.
  while (!joined.empty() && joined.front() == '/')
    joined.erase(joined.begin());
  return joined;
}

/// The nodes of one entry point, under its name scope.
class EntryExporter {
public:
  EntryExporter(func::FuncOp func, ProtoWriter &graph)
      : func_(func), graph_(graph), scope_(func.getSymName().str() + "/") {}

  void run() {
    for (auto [i, arg] : llvm::enumerate(func_.getArguments())) {
      std::string name = "input_" + std::to_string(i);
      if (auto attr = func_.getArgAttrOfType<StringAttr>(i, kArgNameAttr))
        name = attr.str();
      name = unique(name);
      names_[arg] = name;
      ProtoWriter placeholder;
      placeholder.bytes(1, scope_ + name);
      placeholder.bytes(2, "Placeholder");
      attr(placeholder, "dtype", typeAttr(arg.getType()));
      attr(placeholder, "shape", shapeAttr(arg.getType()));
      graph_.message(1, placeholder);
    }
    for (Operation &op : func_.getBody().front()) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
          std::string name = "output_" + std::to_string(i);
          if (auto attr =
                  func_.getResultAttrOfType<StringAttr>(i, kArgNameAttr))
            name = attr.str();
          node("Identity", unique(name), {value}, {value.getType()});
        }
        continue;
      }
      std::string opName = op.getName().stripDialect().str();
      std::string name = locationName(op.getLoc());
      // An unnamed op referring to a symbol (graph.read @conv1_kernel): the
      // symbol's name.
      if (name.empty())
        for (NamedAttribute attr : op.getAttrs())
          if (auto symbol = dyn_cast<FlatSymbolRefAttr>(attr.getValue())) {
            name = symbol.getValue().str();
            break;
          }
      std::string nodeName = unique(name.empty() ? opName : name);
      for (auto [i, result] : llvm::enumerate(op.getResults()))
        names_[result] = i == 0 ? nodeName : nodeName + ":" + std::to_string(i);
      node(opName, nodeName, op.getOperands(), op.getResultTypes());
    }
  }

private:
  void node(llvm::StringRef op, const std::string &name, ValueRange inputs,
            TypeRange types) {
    ProtoWriter def;
    def.bytes(1, scope_ + name);
    def.bytes(2, op);
    for (Value input : inputs) {
      auto it = names_.find(input);
      if (it != names_.end())
        def.bytes(3, scope_ + it->second);
    }
    if (!types.empty()) {
      attr(def, "T", typeAttr(types.front()));
      ProtoWriter shapes, list;
      for (Type type : types)
        shapes.message(7, shapeProto(type));
      list.message(1, shapes);
      attr(def, "_output_shapes", list);
    }
    graph_.message(1, def);
  }

  static ProtoWriter typeAttr(Type type) {
    ProtoWriter value;
    value.integer(6, tfDataType(elementOf(type)));
    return value;
  }
  static ProtoWriter shapeAttr(Type type) {
    ProtoWriter value;
    value.message(7, shapeProto(type));
    return value;
  }
  /// A map<string, AttrValue> entry of NodeDef.attr.
  static void attr(ProtoWriter &node, llvm::StringRef key,
                   const ProtoWriter &value) {
    ProtoWriter entry;
    entry.bytes(1, key);
    entry.message(2, value);
    node.message(5, entry);
  }
  /// `name`, or `name_1`, `name_2`, ... when taken (two ops of one name).
  std::string unique(const std::string &name) {
    std::string candidate = name;
    for (int k = 1; !taken_.insert(candidate).second; ++k)
      candidate = name + "_" + std::to_string(k);
    return candidate;
  }

  func::FuncOp func_;
  ProtoWriter &graph_;
  std::string scope_;
  llvm::DenseMap<Value, std::string> names_;
  llvm::StringSet<> taken_;
};

} // namespace

std::string emitGraphDef(ModuleOp module) {
  ProtoWriter graph;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      EntryExporter(func, graph).run();
  return graph.str();
}

} // namespace tfcc
