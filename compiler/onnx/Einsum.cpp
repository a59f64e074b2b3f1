//===- Einsum.cpp - ONNX Einsum as transposes, reductions and matmuls ------===//
//
// Einsum has no op of its own in the graph IR: it is a documented
// decomposition. Operands are combined left to right; for each pair, labels
// only one side has and nothing later needs are summed out first
// (graph.reduce_sum), then the labels both have and the result keeps are
// the batch, those both have and nothing keeps are contracted, and the rest
// free: each side is transposed and reshaped to [batch, free, contracted] /
// [batch, contracted, free], multiplied with graph.matmul and reshaped back.
// A single operand is summed and transposed. The result is transposed to
// the output's label order.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ComposedOps.h"
#include "compiler/onnx/HostFolding.h"
#include "compiler/onnx/ImportContext.h"

#include "llvm/ADT/STLExtras.h"

#include <string>

using namespace mlir;
using namespace mlir::graph;
using namespace tfcc::onnx_import;

namespace {

/// An operand or a partial result: its value and one label per dimension.
struct Labeled {
  Value value;
  std::string labels;
  int64_t size(char label) const {
    return cast<RankedTensorType>(value.getType())
        .getDimSize(labels.find(label));
  }
};

/// Sums out the labels of `x` that are not in `keep`.
Labeled sumOut(OpChain &b, Labeled x, const std::string &keep) {
  SmallVector<int64_t> axes;
  std::string kept;
  for (auto [i, label] : llvm::enumerate(x.labels)) {
    if (keep.find(label) == std::string::npos)
      axes.push_back(i);
    else
      kept += label;
  }
  if (axes.empty())
    return x;
  OpBuilder &ob = b.ctx.builder();
  x.value = b.op<ReduceSumOp>(x.value, ob.getI64ArrayAttr(axes),
                              ob.getBoolAttr(false));
  x.labels = kept;
  return x;
}

/// `x` transposed to the label order `order` (a permutation of its labels).
Labeled ordered(OpChain &b, Labeled x, const std::string &order) {
  if (x.labels == order)
    return x;
  SmallVector<int64_t> perm;
  for (char label : order)
    perm.push_back(x.labels.find(label));
  x.value = b.transpose(x.value, perm);
  x.labels = order;
  return x;
}

int64_t product(const Labeled &x, const std::string &labels) {
  int64_t n = 1;
  for (char label : labels)
    n *= x.size(label);
  return n;
}

/// The pairwise step: a and b contracted over the labels `keep` does not
/// hold; the result's labels are batch, a's free, b's free.
Labeled contract(OpChain &b, Labeled lhs, Labeled rhs, const std::string &keep) {
  auto in = [](const std::string &s, char c) {
    return s.find(c) != std::string::npos;
  };
  lhs = sumOut(b, lhs, keep + rhs.labels);
  rhs = sumOut(b, rhs, keep + lhs.labels);
  std::string batch, contracted, freeL, freeR;
  for (char label : lhs.labels) {
    if (in(rhs.labels, label))
      (in(keep, label) ? batch : contracted) += label;
    else
      freeL += label;
  }
  for (char label : rhs.labels)
    if (!in(lhs.labels, label))
      freeR += label;
  lhs = ordered(b, lhs, batch + freeL + contracted);
  rhs = ordered(b, rhs, batch + contracted + freeR);
  if (b.failed)
    return lhs;
  int64_t nb = product(lhs, batch), m = product(lhs, freeL),
          k = product(lhs, contracted), n = product(rhs, freeR);
  SmallVector<int64_t> shape;
  for (char label : batch + freeL)
    shape.push_back(lhs.size(label));
  for (char label : freeR)
    shape.push_back(rhs.size(label));
  Value a = b.reshape(lhs.value, {nb, m, k});
  Value c = b.reshape(rhs.value, {nb, k, n});
  Value product = b.op<MatmulOp>(a, c, b.ctx.builder().getBoolAttr(false),
                                 b.ctx.builder().getBoolAttr(false));
  return Labeled{b.reshape(product, shape), batch + freeL + freeR};
}

LogicalResult convertEinsum(ImportContext &ctx) {
  std::string equation = ctx.attrString("equation", "");
  std::string spaceless;
  for (char c : equation)
    if (c != ' ')
      spaceless += c;
  if (spaceless.find("...") != std::string::npos)
    return ctx.unsupported("equation '" + equation + "' with an ellipsis");
  size_t arrow = spaceless.find("->");
  std::string lhsText = spaceless.substr(0, arrow);
  SmallVector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhsText.find(',', start);
    terms.push_back(lhsText.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (int(terms.size()) != ctx.numInputs())
    return ctx.invalid("equation '" + equation + "' with " +
                       llvm::Twine(terms.size()) + " operands for " +
                       llvm::Twine(ctx.numInputs()) + " inputs");
  // Implicit output: the labels that appear once, in alphabetical order.
  std::string output;
  if (arrow != std::string::npos) {
    output = spaceless.substr(arrow + 2);
  } else {
    for (char c = 'A'; c <= 'z'; ++c)
      if (llvm::count(lhsText, c) == 1 && std::isalpha(c))
        output += c;
  }
  auto isLabel = [](char c) { return std::isalpha(static_cast<unsigned char>(c)); };
  for (const std::string &term : llvm::concat<const std::string>(
           terms, llvm::ArrayRef<std::string>(output))) {
    for (auto [i, c] : llvm::enumerate(term)) {
      if (!isLabel(c))
        return ctx.invalid("equation '" + equation + "': '" +
                           llvm::Twine(c) + "' is not a label");
      if (term.find(c, i + 1) != std::string::npos)
        return ctx.unsupported("equation '" + equation + "' repeating '" +
                               llvm::Twine(c) + "' in one term (a diagonal)");
    }
  }
  for (char c : output)
    if (lhsText.find(c) == std::string::npos)
      return ctx.invalid("equation '" + equation + "': output label '" +
                         llvm::Twine(c) + "' is in no operand");

  OpChain b{ctx};
  SmallVector<Labeled> operands;
  llvm::StringMap<int64_t> sizes;
  for (auto [i, term] : llvm::enumerate(terms)) {
    FailureOr<Value> x = ctx.input(i);
    if (failed(x))
      return failure();
    auto type = cast<RankedTensorType>(x->getType());
    Type element = type.getElementType();
    if (!element.isF32() && !element.isF64())
      return ctx.unsupported("input element type " + typeName(element));
    if (!type.hasStaticShape())
      return ctx.unsupported("input " + llvm::Twine(i) + " of dynamic shape " +
                             typeName(type));
    if (type.getRank() != int64_t(term.size()))
      return ctx.invalid("equation '" + equation + "': term '" + term +
                         "' for input " + llvm::Twine(i) + " of rank " +
                         llvm::Twine(type.getRank()));
    for (auto [d, c] : llvm::enumerate(term)) {
      auto [it, fresh] = sizes.try_emplace(std::string(1, c), type.getDimSize(d));
      if (!fresh && it->second != type.getDimSize(d))
        return ctx.invalid("equation '" + equation + "': label '" +
                           llvm::Twine(c) + "' of sizes " +
                           llvm::Twine(it->second) + " and " +
                           llvm::Twine(type.getDimSize(d)));
    }
    operands.push_back(Labeled{*x, term});
  }
  Labeled result = operands[0];
  for (size_t i = 1; i < operands.size() && !b.failed; ++i) {
    std::string later = output;
    for (size_t j = i + 1; j < operands.size(); ++j)
      later += operands[j].labels;
    result = contract(b, result, operands[i], later);
  }
  if (!b.failed)
    result = sumOut(b, result, output);
  if (!b.failed)
    result = ordered(b, result, output);
  return b.finish(result.value);
}

} // namespace

void tfcc::onnx_import::registerEinsumConverters(ConverterTable &table) {
  table["Einsum"] = convertEinsum;
}
