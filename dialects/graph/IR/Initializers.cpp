//===- Initializers.cpp - deterministic variable initial values -----------===//
//
// Generator: element i of a variable with seed s draws 64-bit words from
// splitmix64(s * 0x9E3779B97F4A7C15 + counter); a uniform u in [0, 1) is the
// top 24 bits times 2^-24 (exact in f32). Normal draws use Box-Muller on two
// uniforms and, like Keras' truncated_normal, redraw values beyond 2 stddev.
// Values are computed in double and rounded to f32 once (other float types
// convert that f32 value).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/Initializers.h"

#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>

using namespace mlir;
using namespace mlir::graph;

uint64_t mlir::graph::splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

namespace {

/// Counter-based stream: the value of element i never depends on the order
/// in which elements are generated.
struct CounterStream {
  uint64_t key;
  double uniform(uint64_t counter) const {
    return double(splitmix64(key + counter) >> 40) * 0x1.0p-24;
  }
};

struct Fans {
  double in, out;
};

Fans computeFans(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return {1, 1};
  if (shape.size() == 1)
    return {double(shape[0]), double(shape[0])};
  double receptive = 1;
  for (int64_t d : shape.drop_back(2))
    receptive *= double(d);
  return {double(shape[shape.size() - 2]) * receptive,
          double(shape.back()) * receptive};
}

// Keras: stddev of a normal truncated at 2 sigma, divided so that the
// truncated distribution has the requested variance.
constexpr double kTruncatedNormalCorrection = 0.87962566103423978;

} // namespace

bool mlir::graph::isKnownInitializerKind(StringRef kind) {
  return llvm::is_contained(
      ArrayRef<StringRef>{"zeros", "ones", "glorot_uniform", "glorot_normal",
                          "he_uniform", "he_normal", "uniform"},
      kind);
}

void mlir::graph::generateInitializer(StringRef kind, int64_t seed,
                                      std::optional<double> scale,
                                      ArrayRef<int64_t> shape,
                                      MutableArrayRef<float> values) {
  if (kind == "zeros" || kind == "ones") {
    std::fill(values.begin(), values.end(), kind == "ones" ? 1.0f : 0.0f);
    return;
  }
  Fans fans = computeFans(shape);
  CounterStream stream{uint64_t(seed) * 0x9E3779B97F4A7C15ull};
  bool normal = kind.ends_with("_normal");
  double limit = 0, stddev = 0;
  if (kind == "glorot_uniform")
    limit = std::sqrt(6.0 / (fans.in + fans.out));
  else if (kind == "he_uniform")
    limit = std::sqrt(6.0 / fans.in);
  else if (kind == "uniform")
    limit = scale.value_or(0.05);
  else if (kind == "glorot_normal")
    stddev = std::sqrt(2.0 / (fans.in + fans.out)) / kTruncatedNormalCorrection;
  else if (kind == "he_normal")
    stddev = std::sqrt(2.0 / fans.in) / kTruncatedNormalCorrection;

  for (size_t i = 0; i < values.size(); ++i) {
    if (!normal) {
      values[i] = float(limit * (2.0 * stream.uniform(i) - 1.0));
      continue;
    }
    // Each attempt uses its own pair of counters, far from other elements'.
    double z = 0;
    for (uint64_t attempt = 0;; ++attempt) {
      uint64_t base = (uint64_t(i) << 8) + 2 * attempt;
      double u1 = 1.0 - stream.uniform(base); // (0, 1]: log is finite
      double u2 = stream.uniform(base + 1);
      z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
      if (std::fabs(z) <= 2.0 || attempt == 100)
        break;
    }
    values[i] = float(stddev * z);
  }
}

FailureOr<DenseElementsAttr>
mlir::graph::getVariableInitialValue(VariableOp op) {
  RankedTensorType type = op.getTensorType();
  Attribute init = op.getInit();
  if (auto dense = dyn_cast<DenseElementsAttr>(init))
    return dense;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(init)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return op.emitOpError() << "dense_resource blob '"
                              << resource.getRawHandle().getKey()
                              << "' is missing";
    ArrayRef<char> data = blob->getData();
    if (type.getElementType().isInteger(1)) {
      SmallVector<bool> bits;
      for (char c : data)
        bits.push_back(c != 0);
      return DenseElementsAttr::get(type, bits);
    }
    bool isSplat = false;
    if (!DenseElementsAttr::isValidRawBuffer(type, data, isSplat))
      return op.emitOpError() << "dense_resource blob '"
                              << resource.getRawHandle().getKey()
                              << "' has the wrong size for " << type;
    return DenseElementsAttr::getFromRawBuffer(type, data);
  }
  auto initAttr = dyn_cast<InitAttr>(init);
  if (!initAttr)
    return op.emitOpError() << "unsupported initial value " << init;
  Type elementType = type.getElementType();
  if (auto intType = dyn_cast<IntegerType>(elementType))
    return DenseElementsAttr::get(
        type, APInt(intType.getWidth(), initAttr.getKind() == "ones" ? 1 : 0));
  std::vector<float> values(type.getNumElements());
  std::optional<double> scale;
  if (initAttr.getScale())
    scale = initAttr.getScale()->convertToDouble();
  generateInitializer(initAttr.getKind(), initAttr.getSeed(), scale,
                      type.getShape(), values);
  if (elementType.isF32())
    return DenseElementsAttr::get(type, ArrayRef<float>(values));
  auto floatType = cast<FloatType>(elementType);
  SmallVector<APFloat> converted;
  for (float v : values) {
    APFloat f(v);
    bool losesInfo;
    f.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &losesInfo);
    converted.push_back(f);
  }
  return DenseElementsAttr::get(type, converted);
}
