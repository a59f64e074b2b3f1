//===- GraphDialect.cpp - graph dialect and attributes --------------------===//

#include "dialects/graph/IR/GraphOps.h"

#include "dialects/graph/IR/Initializers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::graph;

#include "dialects/graph/IR/GraphDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/graph/IR/GraphAttrs.cpp.inc"

namespace {
/// Graph ops are pure dataflow (variables are read by symbol), so a private
/// function's body can always be inlined into its caller.
struct GraphInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void GraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/graph/IR/GraphOps.cpp.inc"
      >();
  registerAttributes();
  addInterfaces<GraphInlinerInterface>();
}

void GraphDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/graph/IR/GraphAttrs.cpp.inc"
      >();
}

Operation *GraphDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}

//===----------------------------------------------------------------------===//
// #graph.init<"KIND", seed = N, scale = S>
//===----------------------------------------------------------------------===//

Attribute InitAttr::parse(AsmParser &parser, Type) {
  std::string kind;
  int64_t seed = 0;
  std::optional<APFloat> scale;
  if (parser.parseLess() || parser.parseString(&kind))
    return {};
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (!seen.insert(key).second) {
      parser.emitError(keyLoc) << "duplicate #graph.init key '" << key << "'";
      return {};
    }
    if (key == "seed") {
      if (parser.parseInteger(seed))
        return {};
    } else if (key == "scale") {
      double value;
      if (parser.parseFloat(value))
        return {};
      scale = APFloat(value);
    } else {
      parser.emitError(keyLoc) << "unknown #graph.init key '" << key
                               << "' (expected 'seed' or 'scale')";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<InitAttr>(parser.getContext(), kind, seed, scale);
}

void InitAttr::print(AsmPrinter &printer) const {
  printer << "<\"" << getKind() << "\", seed = " << getSeed();
  if (getScale()) {
    printer << ", scale = ";
    printer.printFloat(*getScale());
  }
  printer << ">";
}

LogicalResult InitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               StringRef kind, int64_t seed,
                               std::optional<APFloat> scale) {
  if (!isKnownInitializerKind(kind))
    return emitError() << "unknown initializer kind \"" << kind
                       << "\"; expected zeros, ones, glorot_uniform, "
                          "glorot_normal, he_uniform, he_normal or uniform";
  if (kind == "uniform" && !scale)
    return emitError() << "initializer \"uniform\" requires 'scale'";
  if (kind != "uniform" && scale)
    return emitError() << "'scale' is only valid for the \"uniform\" "
                          "initializer, not \""
                       << kind << "\"";
  if (scale && !(scale->convertToDouble() > 0.0))
    return emitError() << "'scale' must be positive, got "
                       << scale->convertToDouble();
  if (seed < 0)
    return emitError() << "'seed' must be non-negative, got " << seed;
  return success();
}
