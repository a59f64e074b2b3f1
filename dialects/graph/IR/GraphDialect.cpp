//===- GraphDialect.cpp - graph dialect and attributes --------------------===//

#include "dialects/graph/IR/GraphOps.h"

#include "dialects/graph/IR/Initializers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>
#include <string>

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

//===----------------------------------------------------------------------===//
// Optimizers: #graph.sgd<...> and #graph.adam<...>
//===----------------------------------------------------------------------===//

namespace {
/// Parses `<key = value, ...>` (possibly `<>`) where keys come in any order
/// and each at most once; `parseValue(key)` parses one value and returns
/// failure after reporting an error, or std::nullopt for an unknown key.
ParseResult parseOptimizerKeys(
    AsmParser &parser, StringRef mnemonic, StringRef expectedKeys,
    function_ref<std::optional<ParseResult>(StringRef)> parseValue) {
  if (parser.parseLess())
    return failure();
  if (succeeded(parser.parseOptionalGreater()))
    return success();
  llvm::StringSet<> seen;
  do {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (!seen.insert(key).second)
      return parser.emitError(keyLoc)
             << "duplicate #graph." << mnemonic << " key '" << key << "'";
    std::optional<ParseResult> parsed = parseValue(key);
    if (!parsed)
      return parser.emitError(keyLoc)
             << "unknown #graph." << mnemonic << " key '" << key
             << "' (expected " << expectedKeys << ")";
    if (failed(*parsed))
      return failure();
  } while (succeeded(parser.parseOptionalComma()));
  return parser.parseGreater();
}

ParseResult parseFloatValue(AsmParser &parser, APFloat &value) {
  double parsed;
  if (parser.parseFloat(parsed))
    return failure();
  value = APFloat(parsed);
  return success();
}

/// The shortest decimal that reads back as the same double, always with a
/// decimal point (`0.001`, `0.9`, `1.0e-07`), as the spec writes them.
std::string formatFloat(double d) {
  std::string text;
  for (int precision = 1; precision <= 17; ++precision) {
    text = llvm::formatv("{0}", llvm::format("%.*g", precision, d)).str();
    if (std::strtod(text.c_str(), nullptr) == d)
      break;
  }
  if (text.find_first_of(".ni") == std::string::npos) {
    size_t exponent = text.find('e');
    text.insert(exponent == std::string::npos ? text.size() : exponent, ".0");
  }
  return text;
}

void printFloatKey(AsmPrinter &printer, StringRef key, const APFloat &value) {
  printer << key << " = " << formatFloat(value.convertToDouble());
}
} // namespace

Attribute SgdAttr::parse(AsmParser &parser, Type) {
  // Keras' defaults.
  APFloat learningRate(1.0e-2), momentum(0.0);
  bool nesterov = false;
  auto parseValue = [&](StringRef key) -> std::optional<ParseResult> {
    if (key == "learning_rate")
      return parseFloatValue(parser, learningRate);
    if (key == "momentum")
      return parseFloatValue(parser, momentum);
    if (key != "nesterov")
      return std::nullopt;
    StringRef word;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&word))
      return failure();
    if (word != "true" && word != "false")
      return parser.emitError(loc)
             << "'nesterov' must be true or false, got '" << word << "'";
    nesterov = word == "true";
    return success();
  };
  if (parseOptimizerKeys(parser, "sgd",
                         "'learning_rate', 'momentum' or 'nesterov'",
                         parseValue))
    return {};
  return parser.getChecked<SgdAttr>(parser.getContext(), learningRate,
                                    momentum, nesterov);
}

void SgdAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printFloatKey(printer, "learning_rate", getLearningRate());
  printer << ", ";
  printFloatKey(printer, "momentum", getMomentum());
  printer << ", nesterov = " << (getNesterov() ? "true" : "false") << ">";
}

LogicalResult SgdAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              APFloat learningRate, APFloat momentum, bool) {
  if (!(learningRate.convertToDouble() > 0.0))
    return emitError() << "#graph.sgd 'learning_rate' must be positive, got "
                       << formatFloat(learningRate.convertToDouble());
  double m = momentum.convertToDouble();
  if (!(m >= 0.0 && m < 1.0))
    return emitError() << "#graph.sgd 'momentum' must be in [0, 1), got "
                       << formatFloat(m);
  return success();
}

Attribute AdamAttr::parse(AsmParser &parser, Type) {
  // Keras' defaults.
  APFloat learningRate(1.0e-3), beta1(0.9), beta2(0.999), epsilon(1.0e-7);
  auto parseValue = [&](StringRef key) -> std::optional<ParseResult> {
    if (key == "learning_rate")
      return parseFloatValue(parser, learningRate);
    if (key == "beta1")
      return parseFloatValue(parser, beta1);
    if (key == "beta2")
      return parseFloatValue(parser, beta2);
    if (key == "epsilon")
      return parseFloatValue(parser, epsilon);
    return std::nullopt;
  };
  if (parseOptimizerKeys(parser, "adam",
                         "'learning_rate', 'beta1', 'beta2' or 'epsilon'",
                         parseValue))
    return {};
  return parser.getChecked<AdamAttr>(parser.getContext(), learningRate, beta1,
                                     beta2, epsilon);
}

void AdamAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printFloatKey(printer, "learning_rate", getLearningRate());
  printer << ", ";
  printFloatKey(printer, "beta1", getBeta1());
  printer << ", ";
  printFloatKey(printer, "beta2", getBeta2());
  printer << ", ";
  printFloatKey(printer, "epsilon", getEpsilon());
  printer << ">";
}

LogicalResult AdamAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               APFloat learningRate, APFloat beta1,
                               APFloat beta2, APFloat epsilon) {
  if (!(learningRate.convertToDouble() > 0.0))
    return emitError() << "#graph.adam 'learning_rate' must be positive, got "
                       << formatFloat(learningRate.convertToDouble());
  for (auto [key, value] : {std::pair<StringRef, APFloat>{"beta1", beta1},
                            std::pair<StringRef, APFloat>{"beta2", beta2}}) {
    double b = value.convertToDouble();
    if (!(b >= 0.0 && b < 1.0))
      return emitError() << "#graph.adam '" << key
                         << "' must be in [0, 1), got " << formatFloat(b);
  }
  if (!(epsilon.convertToDouble() > 0.0))
    return emitError() << "#graph.adam 'epsilon' must be positive, got "
                       << formatFloat(epsilon.convertToDouble());
  return success();
}
