//===- GraphExport.cpp - the graph IR as plain nodes and edges ------------===//

#include "compiler/GraphExport.h"

#include "compiler/ElementTypes.h"
#include "compiler/Frontend.h"
#include "passes/NodeNames.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>

using namespace mlir;

namespace tfcc {
namespace {

ExportedType exportType(Type type) {
  ExportedType out;
  auto shaped = dyn_cast<ShapedType>(type);
  std::optional<DType> dtype =
      dtypeOfElementType(shaped ? shaped.getElementType() : type);
  out.dataType = dtype ? tfDataType(*dtype).number : 0;
  out.dtype = dtype ? dtypeName(*dtype) : "?";
  auto tensor = dyn_cast<RankedTensorType>(type);
  out.ranked = bool(tensor);
  if (tensor)
    for (int64_t d : tensor.getShape())
      out.dims.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return out;
}

/// The nodes of one entry point.
class EntryExporter {
public:
  explicit EntryExporter(func::FuncOp func) : func_(func) {
    scope_.name = func.getSymName().str();
  }

  ExportedScope run() {
    for (auto [i, arg] : llvm::enumerate(func_.getArguments())) {
      std::string name = "input_" + std::to_string(i);
      if (auto attr = func_.getArgAttrOfType<StringAttr>(i, kArgNameAttr))
        name = attr.str();
      ExportedNode &node =
          add("Placeholder", unique(name), {}, ValueRange{}, {arg.getType()});
      names_[arg] = node.name;
    }
    for (Operation &op : func_.getBody().front()) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
          std::string name = "output_" + std::to_string(i);
          if (auto attr =
                  func_.getResultAttrOfType<StringAttr>(i, kArgNameAttr))
            name = attr.str();
          add("Identity", unique(name), {}, ValueRange{value},
              {value.getType()});
        }
        continue;
      }
      std::vector<std::string> names = mlir::tfcc::locationNames(op.getLoc());
      std::string name;
      for (const std::string &n : names)
        name += (name.empty() ? "" : "+") + n;
      // An unnamed op referring to a symbol (graph.read @conv1_kernel): the
      // symbol's name.
      if (name.empty())
        for (NamedAttribute attr : op.getAttrs())
          if (auto symbol = dyn_cast<FlatSymbolRefAttr>(attr.getValue())) {
            name = symbol.getValue().str();
            break;
          }
      std::string opName = op.getName().stripDialect().str();
      ExportedNode &node = add(opName, unique(name.empty() ? opName : name),
                               names, op.getOperands(),
                               std::vector<Type>(op.getResultTypes().begin(),
                                                 op.getResultTypes().end()));
      for (auto [i, result] : llvm::enumerate(op.getResults()))
        names_[result] =
            i == 0 ? node.name : node.name + ":" + std::to_string(i);
    }
    return std::move(scope_);
  }

private:
  ExportedNode &add(const std::string &op, const std::string &name,
                    std::vector<std::string> names, ValueRange inputs,
                    const std::vector<Type> &types) {
    ExportedNode node;
    node.name = name;
    node.op = op;
    node.names = std::move(names);
    for (Value input : inputs) {
      auto it = names_.find(input);
      if (it != names_.end())
        node.inputs.push_back(it->second);
    }
    for (Type type : types)
      node.outputs.push_back(exportType(type));
    scope_.nodes.push_back(std::move(node));
    return scope_.nodes.back();
  }

  /// `name`, or `name_1`, `name_2`, ... when taken (two ops of one name).
  std::string unique(const std::string &name) {
    std::string candidate = name;
    for (int k = 1; !taken_.insert(candidate).second; ++k)
      candidate = name + "_" + std::to_string(k);
    return candidate;
  }

  func::FuncOp func_;
  ExportedScope scope_;
  llvm::DenseMap<Value, std::string> names_;
  llvm::StringSet<> taken_;
};

} // namespace

std::vector<ExportedScope> exportGraph(ModuleOp module) {
  std::vector<ExportedScope> scopes;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      scopes.push_back(EntryExporter(func).run());
  return scopes;
}

namespace {

/// "1024", "86528*batch" or "1024 + 86528*batch" for the plan's
/// [fixed, per_batch] pair `name` of `dict`.
std::string planBytes(DictionaryAttr dict, StringRef name) {
  auto pair = dict.getAs<DenseI64ArrayAttr>(name);
  int64_t fixed = pair && pair.size() == 2 ? pair[0] : 0;
  int64_t perBatch = pair && pair.size() == 2 ? pair[1] : 0;
  if (perBatch == 0)
    return std::to_string(fixed);
  std::string per = std::to_string(perBatch) + "*batch";
  return fixed == 0 ? per : std::to_string(fixed) + " + " + per;
}

} // namespace

void annotateArenaOffsets(std::vector<ExportedScope> &scopes,
                          ModuleOp planned) {
  for (ExportedScope &scope : scopes) {
    auto func = planned.lookupSymbol<func::FuncOp>(
        std::string(mlir::tfcc::kEntryImplPrefix) + scope.name);
    auto plan = func ? func->getAttrOfType<DictionaryAttr>("tfcc.arena_plan")
                     : DictionaryAttr();
    auto buffers = plan ? plan.getAs<ArrayAttr>("buffers") : ArrayAttr();
    if (!buffers)
      continue;
    for (Attribute attr : buffers) {
      auto buffer = dyn_cast<DictionaryAttr>(attr);
      auto nameAttr = buffer ? buffer.getAs<StringAttr>("name") : StringAttr();
      if (!nameAttr)
        continue;
      StringRef name = nameAttr.getValue().ltrim('/');
      for (ExportedNode &node : scope.nodes) {
        if (std::find(node.names.begin(), node.names.end(), name) ==
            node.names.end())
          continue;
        node.arena.push_back("arena @" + planBytes(buffer, "offset") + ", " +
                             planBytes(buffer, "size") + " bytes");
        break;
      }
    }
  }
}

} // namespace tfcc
