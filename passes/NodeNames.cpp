//===- NodeNames.cpp - the model's node names of a location ---------------===//

#include "passes/NodeNames.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>

namespace mlir::tfcc {

std::vector<std::string> locationNames(Location loc) {
  std::vector<std::string> names;
  loc->walk([&](Location l) {
    if (auto named = dyn_cast<NameLoc>(l)) {
      std::string name = named.getName().str();
      while (!name.empty() && name.front() == '/')
        name.erase(name.begin());
      if (!name.empty() &&
          std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(name);
    }
    return WalkResult::advance();
  });
  return names;
}

std::string nodeLabel(Location loc) {
  std::string label;
  for (const std::string &name : locationNames(loc))
    label += (label.empty() ? "" : "+") + name;
  if (!label.empty())
    return label;
  loc->walk([&](Location l) {
    // Imported nodes carry file:0:0; a line says where a graph IR op is.
    if (auto file = dyn_cast<FileLineColLoc>(l); file && file.getLine() != 0) {
      // The file's name without its folders: the label is for reading.
      StringRef path = file.getFilename().strref();
      label = path.substr(path.find_last_of('/') + 1).str() + ":" +
              std::to_string(file.getLine()) + ":" +
              std::to_string(file.getColumn());
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return label;
}

} // namespace mlir::tfcc
