//===- Shape.cpp - ONNX shape and data-movement ops to graph IR -----------===//
//
// Reshape Flatten Transpose Concat Split Slice Squeeze Unsqueeze Pad Gather
// Constant ConstantOfShape Shape Size Expand Range. Shape-typed inputs
// (Reshape's shape, Slice's starts, ...) must be known at import time; the
// shape subgraphs that compute them are folded here when their inputs are
// (HostFolding.h). Shape and Size of a tensor with dynamic dims give
// partially known values (unknown entries for the dynamic sizes) that fold
// through the data-movement ops here; Reshape accepts an unknown entry where
// it copies a dynamic input dimension (PyTorch's x.view(x.size(0), -1)).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/HostFolding.h"
#include "compiler/onnx/ImportContext.h"
#include "dialects/graph/IR/ShapeInference.h"
#include "dialects/graph/IR/TensorSize.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::onnx_import {
namespace {

constexpr int64_t kDyn = ShapedType::kDynamic;

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

bool small(const HostTensor *t) {
  return t && t->numElements() <= kMaxFoldedElements;
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") +
         (shape[i] == kDyn ? std::string("?") : std::to_string(shape[i]));
  return s + "]";
}

/// The input's type, or an "input N of unknown shape" diagnostic.
FailureOr<RankedTensorType> inputTypeOf(ImportContext &ctx, int i) {
  if (RankedTensorType type = ctx.inputType(i))
    return type;
  return ctx.unsupported("input " + llvm::Twine(i) + " of unknown shape");
}

/// Normalizes `axis` against `rank`, or reports it out of range.
FailureOr<int64_t> normalizedAxis(ImportContext &ctx, StringRef what,
                                  int64_t axis, int64_t rank) {
  if (std::optional<int64_t> a = normalizeAxis(axis, rank))
    return *a;
  return ctx.unsupported(what + " = " + llvm::Twine(axis) +
                         " out of range for rank " + llvm::Twine(rank));
}

/// Normalized, duplicate-free axes.
FailureOr<SmallVector<int64_t>> normalizedAxes(ImportContext &ctx,
                                               StringRef what,
                                               ArrayRef<int64_t> axes,
                                               int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t axis : axes) {
    std::optional<int64_t> a = normalizeAxis(axis, rank);
    if (!a || llvm::is_contained(result, *a))
      return ctx.unsupported(what + " = " + formatInts(axes) +
                             " (out of range or repeated for rank " +
                             llvm::Twine(rank) + ")");
    result.push_back(*a);
  }
  return result;
}

LogicalResult setResult(ImportContext &ctx, FailureOr<Value> value) {
  if (failed(value))
    return failure();
  ctx.setOutput(0, *value);
  return success();
}

/// Reshapes input 0 to `shape` (folded when the input is known, possibly
/// partially).
LogicalResult reshapeInput(ImportContext &ctx, ArrayRef<int64_t> shape) {
  if (const HostTensor *c = ctx.partialConstantInput(0); small(c)) {
    ctx.setConstantOutput(0, foldReshape(*c, shape));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (typeOf(*x).getShape() == shape && typeOf(*x).getNumDynamicDims() <= 1) {
    ctx.setOutput(0, *x);
    return success();
  }
  return setResult(ctx, ctx.reshape(*x, shape));
}

//===--- Reshape, Flatten, Squeeze, Unsqueeze -----------------------------===//

/// Reshape's 'shape' input, possibly partially known. An unknown entry is
/// the size of a dynamic dimension; at position i it is taken to be the size
/// of the input's dim i when that is dynamic (the batch in
/// Reshape(x, Concat(Shape(x)[0:1], [-1]))): all dynamic dims of a graph-IR
/// tensor stand for the same run-time size. Elsewhere it is unsupported.
LogicalResult convertReshape(ImportContext &ctx) {
  const HostTensor *shapeInput = ctx.partialConstantInput(1);
  FailureOr<std::vector<int64_t>> target =
      shapeInput && !shapeInput->isFloat()
          ? FailureOr<std::vector<int64_t>>(shapeInput->asInts())
          : constantIntsInput(ctx, 1, "shape");
  if (failed(target))
    return failure();
  FailureOr<RankedTensorType> inType = inputTypeOf(ctx, 0);
  if (failed(inType))
    return failure();
  ArrayRef<int64_t> in = inType->getShape();
  bool allowZero = ctx.attrInt("allowzero", 0) != 0;

  // Positions that copy the input dim: 0 (unless allowzero) and unknowns.
  // One unknown elsewhere, with no -1 in the shape, is what the element
  // count leaves, as a -1 would be (the checks below then need it to carry
  // one dynamic input dim, in order).
  SmallVector<bool> copies;
  bool hasInferred = false;
  for (auto [i, t] : llvm::enumerate(*target))
    hasInferred |= t == -1 && !shapeInput->isUnknown(i);
  for (auto [i, t] : llvm::enumerate(*target)) {
    bool unknown = shapeInput->isUnknown(i);
    if (unknown && (i >= in.size() || in[i] != kDyn) && !hasInferred) {
      (*target)[i] = -1;
      hasInferred = true;
      copies.push_back(false);
      continue;
    }
    if (unknown && (i >= in.size() || in[i] != kDyn))
      return ctx.unsupported(
          "'shape' = " + formatPartialInts(*shapeInput) +
          " whose entry " + llvm::Twine(i) + " is derived from " +
          ctx.unknownOrigin(1) + " for the input shape " + formatShape(in) +
          " (an unknown entry must be at the position of a dynamic input "
          "dimension)");
    copies.push_back(unknown || (t == 0 && !allowZero));
  }

  SmallVector<int64_t> out;
  int64_t inferred = -1;
  for (auto [i, t] : llvm::enumerate(*target)) {
    if (copies[i]) {
      if (i >= in.size())
        return ctx.unsupported("'shape' = " + formatInts(*target) +
                               " copies dimension " + llvm::Twine(i) +
                               " of the rank-" + llvm::Twine(in.size()) +
                               " input");
      out.push_back(in[i]);
    } else if (t == -1 && inferred < 0) {
      inferred = i;
      out.push_back(kDyn);
    } else if (t < 0) {
      return ctx.unsupported("'shape' = " + formatInts(*target));
    } else {
      out.push_back(t);
    }
  }
  if (inferred >= 0) {
    // Static when every dynamic input dim is copied to the same position.
    bool allDynamicCopied = true;
    int64_t inKnown = 1;
    for (auto [i, d] : llvm::enumerate(in)) {
      if (d != kDyn) {
        inKnown *= d;
        continue;
      }
      allDynamicCopied &= i < target->size() && copies[i];
    }
    // The target is file data: its product may pass int64.
    std::optional<int64_t> product = 1;
    for (auto [i, d] : llvm::enumerate(out))
      if ((int64_t)i != inferred && d != kDyn && product)
        product = graph::checkedBytesProduct(*product, d);
    if (!product)
      return ctx.unsupported("'shape' = " + formatInts(*target) +
                             " of more than " +
                             llvm::Twine(graph::kMaxTensorBytes) +
                             " elements, the largest tensor");
    int64_t outKnown = *product;
    if (allDynamicCopied) {
      if (outKnown == 0 || inKnown % outKnown != 0)
        return ctx.unsupported("'shape' = " + formatInts(*target) +
                               " for the input shape " + formatShape(in));
      out[inferred] = inKnown / outKnown;
    }
  }
  if (llvm::count(out, kDyn) > 1 &&
      !graph::isOrderPreservingReshape(in, out))
    return ctx.unsupported("reshape of " + formatShape(in) + " to " +
                           formatShape(out) +
                           " (more than one dynamic dimension, not the "
                           "input's in order with the static dimensions "
                           "around them agreeing)");
  return reshapeInput(ctx, out);
}

LogicalResult convertFlatten(ImportContext &ctx) {
  FailureOr<RankedTensorType> inType = inputTypeOf(ctx, 0);
  if (failed(inType))
    return failure();
  ArrayRef<int64_t> in = inType->getShape();
  int64_t rank = in.size();
  int64_t axis = ctx.attrInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return ctx.unsupported("attribute 'axis' = " +
                           llvm::Twine(ctx.attrInt("axis", 1)) +
                           " out of range for rank " + llvm::Twine(rank));
  auto product = [](ArrayRef<int64_t> dims) {
    int64_t n = 1;
    for (int64_t d : dims) {
      if (d == kDyn)
        return kDyn;
      n *= d;
    }
    return n;
  };
  SmallVector<int64_t> out = {product(in.take_front(axis)),
                              product(in.drop_front(axis))};
  if (out[0] == kDyn && out[1] == kDyn)
    return ctx.unsupported("flatten of " + formatShape(in) + " at axis " +
                           llvm::Twine(axis) +
                           " (dynamic dimensions on both sides)");
  return reshapeInput(ctx, out);
}

/// Squeeze/Unsqueeze axes: attribute before opset 13, input 1 from 13.
FailureOr<std::optional<std::vector<int64_t>>> squeezeAxes(ImportContext &ctx) {
  if (ctx.opset() < 13) {
    if (!ctx.hasAttr("axes"))
      return std::optional<std::vector<int64_t>>();
    return std::optional<std::vector<int64_t>>(ctx.attrInts("axes"));
  }
  if (!ctx.hasInput(1))
    return std::optional<std::vector<int64_t>>();
  FailureOr<std::vector<int64_t>> axes = constantIntsInput(ctx, 1, "axes");
  if (failed(axes))
    return failure();
  return std::optional<std::vector<int64_t>>(*axes);
}

LogicalResult convertSqueeze(ImportContext &ctx) {
  FailureOr<std::optional<std::vector<int64_t>>> axes = squeezeAxes(ctx);
  FailureOr<RankedTensorType> inType =
      failed(axes) ? FailureOr<RankedTensorType>(failure()) : inputTypeOf(ctx, 0);
  if (failed(inType))
    return failure();
  ArrayRef<int64_t> in = inType->getShape();
  SmallVector<bool> squeezed(in.size(), false);
  if (!*axes) {
    for (auto [i, d] : llvm::enumerate(in)) {
      if (d == kDyn)
        return ctx.unsupported("squeeze without 'axes' of the shape " +
                               formatShape(in) + " (dynamic dimensions)");
      squeezed[i] = d == 1;
    }
  } else {
    FailureOr<SmallVector<int64_t>> normalized =
        normalizedAxes(ctx, "'axes'", **axes, in.size());
    if (failed(normalized))
      return failure();
    for (int64_t a : *normalized) {
      if (in[a] != 1 && in[a] != kDyn)
        return ctx.unsupported("'axes' = " + formatInts(**axes) +
                               " selects dimension " + llvm::Twine(a) +
                               " of size " + llvm::Twine(in[a]) + " in " +
                               formatShape(in));
      if (in[a] == kDyn)
        return ctx.unsupported("squeeze of the dynamic dimension " +
                               llvm::Twine(a) + " of " + formatShape(in));
      squeezed[a] = true;
    }
  }
  SmallVector<int64_t> out;
  for (auto [i, d] : llvm::enumerate(in))
    if (!squeezed[i])
      out.push_back(d);
  return reshapeInput(ctx, out);
}

LogicalResult convertUnsqueeze(ImportContext &ctx) {
  FailureOr<std::optional<std::vector<int64_t>>> axes = squeezeAxes(ctx);
  if (failed(axes))
    return failure();
  if (!*axes)
    return ctx.unsupported(ctx.opset() < 13 ? "missing attribute 'axes'"
                                            : "missing 'axes' input");
  FailureOr<RankedTensorType> inType = inputTypeOf(ctx, 0);
  if (failed(inType))
    return failure();
  ArrayRef<int64_t> in = inType->getShape();
  int64_t outRank = in.size() + (*axes)->size();
  FailureOr<SmallVector<int64_t>> normalized =
      normalizedAxes(ctx, "'axes'", **axes, outRank);
  if (failed(normalized))
    return failure();
  SmallVector<int64_t> out;
  size_t next = 0;
  for (int64_t i = 0; i < outRank; ++i)
    out.push_back(llvm::is_contained(*normalized, i) ? 1 : in[next++]);
  return reshapeInput(ctx, out);
}

//===--- Transpose, Concat, Split, Slice ----------------------------------===//

LogicalResult convertTranspose(ImportContext &ctx) {
  FailureOr<RankedTensorType> inType = inputTypeOf(ctx, 0);
  if (failed(inType))
    return failure();
  int64_t rank = inType->getRank();
  std::vector<int64_t> perm;
  if (ctx.hasAttr("perm")) {
    perm = ctx.attrInts("perm");
  } else {
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  }
  SmallVector<bool> seen(rank, false);
  bool valid = (int64_t)perm.size() == rank;
  for (int64_t p : perm) {
    valid = valid && p >= 0 && p < rank && !seen[p];
    if (valid)
      seen[p] = true;
  }
  if (!valid)
    return ctx.unsupported("attribute 'perm' = " + formatInts(perm) +
                           " for rank " + llvm::Twine(rank));
  if (const HostTensor *c = ctx.partialConstantInput(0); small(c)) {
    ctx.setConstantOutput(0, foldTranspose(*c, perm));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  ctx.setOutput(0, ctx.transpose(*x, perm));
  return success();
}

LogicalResult convertConcat(ImportContext &ctx) {
  if (!ctx.hasAttr("axis"))
    return ctx.unsupported("missing attribute 'axis'");
  if (ctx.numInputs() < 1)
    return ctx.unsupported("node without inputs");
  FailureOr<RankedTensorType> firstType = inputTypeOf(ctx, 0);
  if (failed(firstType))
    return failure();
  FailureOr<int64_t> axis = normalizedAxis(
      ctx, "attribute 'axis'", ctx.attrInt("axis", 0), firstType->getRank());
  if (failed(axis))
    return failure();
  if (auto c = allConstantInputs(ctx, /*allowPartial=*/true)) {
    int64_t total = 0;
    for (const HostTensor *t : *c)
      total += t ? t->numElements() : 0;
    if (total <= kMaxFoldedElements && !llvm::is_contained(*c, nullptr))
      if (std::optional<HostTensor> folded = foldConcat(*c, *axis)) {
        ctx.setConstantOutput(0, std::move(*folded));
        return success();
      }
  }
  SmallVector<Value> inputs;
  for (int i = 0; i < ctx.numInputs(); ++i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    inputs.push_back(*v);
  }
  if (inputs.size() == 1) {
    ctx.setOutput(0, inputs[0]);
    return success();
  }
  return setResult(ctx, ctx.create<ConcatOp>(
                            ValueRange(inputs),
                            ctx.builder().getI64IntegerAttr(*axis)));
}

/// One output of Split/Slice: per dim, first index, step, element count
/// (kDyn: to the end of a dynamic dim) .
struct SliceSpec {
  SmallVector<int64_t> starts, steps, counts;
};

/// Emits the slice (folded when the input is known): graph.slice for the
/// positive steps, then a graph.gather of constant indices per dimension
/// with a negative step.
FailureOr<std::optional<HostTensor>> foldOrNull(ImportContext &ctx,
                                                const SliceSpec &spec) {
  const HostTensor *c = ctx.partialConstantInput(0);
  if (!c || llvm::is_contained(spec.counts, kDyn) ||
      productOf(spec.counts) > kMaxFoldedElements)
    return std::optional<HostTensor>();
  return std::optional<HostTensor>(
      foldSlice(*c, spec.starts, spec.steps, spec.counts));
}

FailureOr<Value> emitSlice(ImportContext &ctx, Value x, const SliceSpec &spec) {
  OpBuilder &b = ctx.builder();
  int64_t rank = spec.starts.size();
  SmallVector<int64_t> starts, limits, strides;
  bool needsSlice = false, anyStride = false;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = typeOf(x).getDimSize(d);
    int64_t start = spec.starts[d], step = spec.steps[d],
            count = spec.counts[d];
    if (step < 0) { // whole dim here; gathered below
      starts.push_back(0);
      limits.push_back(-1);
      strides.push_back(1);
      continue;
    }
    starts.push_back(start);
    strides.push_back(step);
    if (count == kDyn)
      limits.push_back(-1);
    else
      limits.push_back(count == 0 ? start : start + (count - 1) * step + 1);
    anyStride |= step != 1;
    needsSlice |= start != 0 || step != 1 ||
                  (count != kDyn && (dim == kDyn || limits.back() != dim));
  }
  Value result = x;
  if (needsSlice) {
    FailureOr<Value> sliced = ctx.create<SliceOp>(
        x, b.getI64ArrayAttr(starts), b.getI64ArrayAttr(limits),
        anyStride ? b.getI64ArrayAttr(strides) : ArrayAttr());
    if (failed(sliced))
      return failure();
    result = *sliced;
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (spec.steps[d] > 0)
      continue;
    SmallVector<int64_t> indices;
    for (int64_t i = 0; i < spec.counts[d]; ++i)
      indices.push_back(spec.starts[d] + i * spec.steps[d]);
    Value indexValue = ctx.constant(makeI64Tensor(ctx.context(), indices));
    FailureOr<Value> gathered = ctx.create<GatherOp>(
        result, indexValue, b.getI64IntegerAttr(d));
    if (failed(gathered))
      return failure();
    result = *gathered;
  }
  return result;
}

LogicalResult convertSplit(ImportContext &ctx) {
  FailureOr<RankedTensorType> inType = inputTypeOf(ctx, 0);
  if (failed(inType))
    return failure();
  ArrayRef<int64_t> in = inType->getShape();
  FailureOr<int64_t> axis = normalizedAxis(ctx, "attribute 'axis'",
                                           ctx.attrInt("axis", 0), in.size());
  if (failed(axis))
    return failure();
  std::vector<int64_t> sizes;
  int64_t n = ctx.numOutputs();
  int64_t dim = in[*axis];
  if (ctx.hasAttr("num_outputs")) {
    // Opset 18: parts of ceil(dim / num_outputs), the last one smaller.
    int64_t parts = ctx.attrInt("num_outputs", 0);
    if (ctx.hasInput(1))
      return ctx.invalid("both the 'split' input and attribute "
                         "'num_outputs'");
    if (parts != n)
      return ctx.invalid("attribute 'num_outputs' = " + llvm::Twine(parts) +
                         " for " + llvm::Twine(n) + " outputs");
    if (dim == kDyn)
      return ctx.unsupported("split of the dynamic dimension " +
                             llvm::Twine(*axis) + " of " + formatShape(in) +
                             " into 'num_outputs' parts");
    int64_t part = (dim + parts - 1) / parts;
    if (part * (parts - 1) >= dim && parts > 1)
      return ctx.invalid("attribute 'num_outputs' = " + llvm::Twine(parts) +
                         " for dimension " + llvm::Twine(*axis) + " of size " +
                         llvm::Twine(dim) + " (the last part would be empty)");
    sizes.assign(parts, part);
    sizes.back() = dim - part * (parts - 1);
  } else if (ctx.opset() < 13) {
    sizes = ctx.attrInts("split");
  } else if (ctx.hasInput(1)) {
    FailureOr<std::vector<int64_t>> s = constantIntsInput(ctx, 1, "split");
    if (failed(s))
      return failure();
    sizes = *s;
  }
  if (sizes.empty()) {
    if (dim == kDyn)
      return ctx.unsupported("equal split of the dynamic dimension " +
                             llvm::Twine(*axis) + " of " + formatShape(in));
    if (n < 1 || dim % n != 0)
      return ctx.unsupported("equal split of dimension " + llvm::Twine(*axis) +
                             " (size " + llvm::Twine(dim) + ") into " +
                             llvm::Twine(n) + " outputs");
    sizes.assign(n, dim / n);
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return ctx.unsupported("'split' = " + formatInts(sizes));
    total += s;
  }
  if ((int64_t)sizes.size() != n || (dim != kDyn && total != dim))
    return ctx.unsupported("'split' = " + formatInts(sizes) + " for " +
                           llvm::Twine(n) + " outputs and dimension size " +
                           llvm::Twine(dim));
  FailureOr<Value> x = failure();
  int64_t offset = 0;
  for (int64_t i = 0; i < n; offset += sizes[i], ++i) {
    if (!ctx.hasOutput(i))
      continue;
    SliceSpec spec;
    for (int64_t d = 0; d < (int64_t)in.size(); ++d) {
      spec.starts.push_back(d == *axis ? offset : 0);
      spec.steps.push_back(1);
      spec.counts.push_back(d == *axis ? sizes[i] : in[d]);
    }
    FailureOr<std::optional<HostTensor>> folded = foldOrNull(ctx, spec);
    if (*folded) {
      ctx.setConstantOutput(i, std::move(**folded));
      continue;
    }
    if (failed(x) && failed(x = ctx.input(0)))
      return failure();
    FailureOr<Value> out = emitSlice(ctx, *x, spec);
    if (failed(out))
      return failure();
    ctx.setOutput(i, *out);
  }
  return success();
}

LogicalResult convertSlice(ImportContext &ctx) {
  FailureOr<RankedTensorType> inType = inputTypeOf(ctx, 0);
  if (failed(inType))
    return failure();
  ArrayRef<int64_t> in = inType->getShape();
  int64_t rank = in.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = ctx.attrInts("starts");
    ends = ctx.attrInts("ends");
    axes = ctx.attrInts("axes");
  } else {
    FailureOr<std::vector<int64_t>> s = constantIntsInput(ctx, 1, "starts");
    if (failed(s))
      return failure();
    FailureOr<std::vector<int64_t>> e = constantIntsInput(ctx, 2, "ends");
    if (failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (ctx.hasInput(3)) {
      FailureOr<std::vector<int64_t>> a = constantIntsInput(ctx, 3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (ctx.hasInput(4)) {
      FailureOr<std::vector<int64_t>> st = constantIntsInput(ctx, 4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return ctx.unsupported("starts/ends/axes/steps of different lengths " +
                           llvm::Twine(starts.size()) + ", " +
                           llvm::Twine(ends.size()) + ", " +
                           llvm::Twine(axes.size()) + ", " +
                           llvm::Twine(steps.size()));
  FailureOr<SmallVector<int64_t>> normalized =
      normalizedAxes(ctx, "'axes'", axes, rank);
  if (failed(normalized))
    return failure();

  SliceSpec spec;
  for (int64_t d = 0; d < rank; ++d) {
    spec.starts.push_back(0);
    spec.steps.push_back(1);
    spec.counts.push_back(in[d]);
  }
  for (size_t k = 0; k < starts.size(); ++k) {
    int64_t d = (*normalized)[k], dim = in[d];
    int64_t start = starts[k], end = ends[k], step = steps[k];
    if (step == 0)
      return ctx.unsupported("'steps' = " + formatInts(steps));
    if (dim == kDyn) {
      // Only forward slices from a non-negative start are expressible.
      if (step < 0 || start < 0 || end < 0)
        return ctx.unsupported("slice [" + llvm::Twine(start) + ", " +
                               llvm::Twine(end) + ") step " +
                               llvm::Twine(step) +
                               " of the dynamic dimension " + llvm::Twine(d));
      // An end past any real size (PyTorch's INT64_MAX for x[a:]) is the
      // end of the dimension.
      spec.starts[d] = start;
      spec.steps[d] = step;
      spec.counts[d] = end >= std::numeric_limits<int32_t>::max()
                           ? kDyn
                           : stepCount(start, end, step);
      continue;
    }
    // Negative indices count from the end; adding a size to a negative int64
    // cannot overflow. Then clamp as ONNX does: to [0, dim] for positive
    // steps, [-1, dim - 1] for negative ones.
    if (start < 0)
      start += dim;
    if (end < 0)
      end += dim;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
    }
    int64_t count = dim == 0 ? 0 : stepCount(start, end, step);
    spec.starts[d] = count == 0 ? std::min(start, dim) : start;
    spec.steps[d] = step;
    spec.counts[d] = count;
  }
  FailureOr<std::optional<HostTensor>> folded = foldOrNull(ctx, spec);
  if (*folded) {
    ctx.setConstantOutput(0, std::move(**folded));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return setResult(ctx, emitSlice(ctx, *x, spec));
}

//===--- Pad, Gather, Expand ----------------------------------------------===//

/// Pad mode "wrap" (opset 19): along each padded axis, the last `lo` and
/// the first `hi` entries concatenated around x (pads at most the size).
FailureOr<Value> wrapPad(ImportContext &ctx, Value x, ArrayRef<int64_t> pads) {
  int64_t rank = typeOf(x).getRank();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t lo = pads[d], hi = pads[d + rank];
    if (lo == 0 && hi == 0)
      continue;
    ArrayRef<int64_t> shape = typeOf(x).getShape();
    int64_t dim = shape[d];
    if (dim == kDyn || lo > dim || hi > dim)
      return ctx.unsupported("wrap 'pads' = " + formatInts(pads) +
                             " for dimension " + llvm::Twine(d) + " of " +
                             formatShape(shape) +
                             " (a static size at least the pads)");
    auto part = [&](int64_t start, int64_t count) {
      SliceSpec spec;
      for (int64_t e = 0; e < rank; ++e) {
        spec.starts.push_back(e == d ? start : 0);
        spec.steps.push_back(1);
        spec.counts.push_back(e == d ? count : shape[e]);
      }
      return emitSlice(ctx, x, spec);
    };
    SmallVector<Value> parts;
    if (lo > 0) {
      FailureOr<Value> tail = part(dim - lo, lo);
      if (failed(tail))
        return failure();
      parts.push_back(*tail);
    }
    parts.push_back(x);
    if (hi > 0) {
      FailureOr<Value> head = part(0, hi);
      if (failed(head))
        return failure();
      parts.push_back(*head);
    }
    FailureOr<Value> joined = ctx.create<ConcatOp>(
        ValueRange(parts), ctx.builder().getI64IntegerAttr(d));
    if (failed(joined))
      return failure();
    x = *joined;
  }
  return x;
}

LogicalResult convertPad(ImportContext &ctx) {
  // constant, reflect and edge map to graph.pad's mode (an extension for
  // ONNX, docs/decisions.md); wrap (opset 19) to slices and a concat.
  std::string mode = ctx.attrString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return ctx.unsupported("attribute 'mode' = \"" + mode + "\"");
  if (mode == "wrap" && ctx.opset() < 19)
    return ctx.invalid("attribute 'mode' = \"wrap\" (Pad has it from opset "
                       "19)");
  std::vector<int64_t> pads;
  double value = 0.0; // graph.pad's value is an f32
  if (ctx.opset() < 11) {
    pads = ctx.attrInts("pads");
    value = ctx.attrFloat("value", 0.0f);
  } else {
    FailureOr<std::vector<int64_t>> p = constantIntsInput(ctx, 1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (ctx.hasInput(3)) {
      // Opset 18: the pads apply to these axes only.
      FailureOr<std::vector<int64_t>> axes = constantIntsInput(ctx, 3, "axes");
      if (failed(axes))
        return failure();
      FailureOr<RankedTensorType> xType = inputTypeOf(ctx, 0);
      if (failed(xType))
        return failure();
      int64_t rank = xType->getRank();
      if (pads.size() != 2 * axes->size())
        return ctx.invalid("'pads' = " + formatInts(pads) + " for 'axes' = " +
                           formatInts(*axes) + " (two per axis)");
      std::vector<int64_t> full(2 * rank, 0);
      std::vector<bool> seen(rank, false);
      for (auto [i, a] : llvm::enumerate(*axes)) {
        std::optional<int64_t> axis = normalizeAxis(a, rank);
        if (!axis || seen[*axis])
          return ctx.invalid("'axes' = " + formatInts(*axes) +
                             " (out of range or repeated for rank " +
                             llvm::Twine(rank) + ")");
        seen[*axis] = true;
        full[*axis] = pads[i];
        full[*axis + rank] = pads[i + axes->size()];
      }
      pads = std::move(full);
    }
    if (ctx.hasInput(2)) {
      const HostTensor *v = ctx.constantInput(2);
      if (!v)
        return ctx.unsupported("non-constant 'constant_value' input");
      if (v->numElements() != 1)
        return ctx.unsupported("'constant_value' input with " +
                               llvm::Twine(v->numElements()) + " elements");
      if (!v->isFloat() && v->ints[0] != 0)
        return ctx.unsupported("'constant_value' = " +
                               llvm::Twine(v->ints[0]) + " of type " +
                               typeName(v->elementType) +
                               " (graph.pad pads with an f32 value)");
      value = v->isFloat() ? v->floats[0] : 0.0;
    }
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  if ((int64_t)pads.size() != 2 * rank)
    return ctx.unsupported("'pads' = " + formatInts(pads) + " for rank " +
                           llvm::Twine(rank));
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return ctx.unsupported("negative 'pads' = " + formatInts(pads));
  if (mode != "constant")
    value = 0.0; // ignored by reflect and edge
  if (static_cast<double>(static_cast<float>(value)) != value)
    return ctx.unsupported("pad value " + std::to_string(value) +
                           " not representable in f32");
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; })) {
    ctx.setOutput(0, *x);
    return success();
  }
  if (mode == "wrap")
    return setResult(ctx, wrapPad(ctx, *x, pads));
  // ONNX: [x1_begin, x2_begin, ..., x1_end, x2_end, ...]; graph: [l0, h0, ...].
  SmallVector<int64_t> graphPads;
  for (int64_t d = 0; d < rank; ++d) {
    graphPads.push_back(pads[d]);
    graphPads.push_back(pads[d + rank]);
  }
  if (mode == "reflect") {
    RankedTensorType type = typeOf(*x);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t dim = type.getDimSize(d);
      if (dim != ShapedType::kDynamic &&
          (pads[d] >= dim || pads[d + rank] >= dim))
        return ctx.unsupported("reflect 'pads' = " + formatInts(pads) +
                               " not smaller than dimension " +
                               llvm::Twine(d) + " (" + llvm::Twine(dim) + ")");
    }
  }
  OpBuilder &b = ctx.builder();
  return setResult(ctx, ctx.create<PadOp>(*x, b.getI64ArrayAttr(graphPads),
                                          b.getF32FloatAttr(value),
                                          b.getStringAttr(mode)));
}

/// Input 1 of Gather or GatherElements with negative indices into
/// dimension `axis` (of size `dim`) wrapped: folded when `indices` are
/// constant, select(i < 0, i + dim, i) otherwise.
FailureOr<Value> wrappedIndices(ImportContext &ctx, const HostTensor *indices,
                                int64_t dim, int64_t axis) {
  OpBuilder &b = ctx.builder();
  if (indices) {
    HostTensor normalized = *indices;
    for (int64_t &v : normalized.ints) {
      if (v >= 0)
        continue;
      if (dim == kDyn)
        return ctx.unsupported("negative index " + llvm::Twine(v) +
                               " into the dynamic dimension " +
                               llvm::Twine(axis));
      v += dim;
    }
    return ctx.constant(normalized);
  }
  FailureOr<Value> idx = ctx.input(1);
  if (failed(idx))
    return failure();
  Type type = typeOf(*idx).getElementType();
  if (!type.isSignlessInteger(32) && !type.isSignlessInteger(64))
    return ctx.unsupported("indices of element type " + typeName(type));
  if (dim == kDyn)
    return ctx.unsupported("non-constant indices into the dynamic "
                           "dimension " +
                           llvm::Twine(axis));
  Value zero = ctx.constant(makeFilled(type, {}, 0));
  Value size = ctx.constant(makeFilled(type, {}, dim));
  FailureOr<Value> negative =
      ctx.create<CompareOp>(*idx, zero, b.getStringAttr("lt"));
  if (failed(negative))
    return failure();
  FailureOr<Value> wrapped = ctx.create<AddOp>(*idx, size);
  if (failed(wrapped))
    return failure();
  return ctx.create<SelectOp>(*negative, *wrapped, *idx);
}

LogicalResult convertGather(ImportContext &ctx) {
  FailureOr<RankedTensorType> tableType = inputTypeOf(ctx, 0);
  if (failed(tableType))
    return failure();
  FailureOr<int64_t> axis =
      normalizedAxis(ctx, "attribute 'axis'", ctx.attrInt("axis", 0),
                     tableType->getRank());
  if (failed(axis))
    return failure();
  int64_t dim = tableType->getDimSize(*axis);
  const HostTensor *table = ctx.partialConstantInput(0);
  const HostTensor *indices = ctx.constantInput(1);
  if (indices && indices->isFloat())
    return ctx.unsupported("indices of element type " +
                           typeName(indices->elementType));
  if (indices) {
    for (int64_t i : indices->ints) {
      if (dim != kDyn && (i < -dim || i >= dim))
        return ctx.unsupported("index " + llvm::Twine(i) +
                               " out of range for dimension " +
                               llvm::Twine(*axis) + " of size " +
                               llvm::Twine(dim));
    }
  }
  if (table && indices) {
    int64_t outer = productOf(tableType->getShape()) / std::max<int64_t>(dim, 1);
    if (outer * indices->numElements() <= kMaxFoldedElements)
      if (std::optional<HostTensor> folded =
              foldGather(*table, *indices, *axis)) {
        ctx.setConstantOutput(0, std::move(*folded));
        return success();
      }
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<Value> index = wrappedIndices(ctx, indices, dim, *axis);
  if (failed(index))
    return failure();
  OpBuilder &b = ctx.builder();
  return setResult(
      ctx, ctx.create<GatherOp>(*x, *index, b.getI64IntegerAttr(*axis)));
}

/// GatherElements: graph.gather_elements after negative indices are
/// wrapped (constant indices out of range are refused here).
LogicalResult convertGatherElements(ImportContext &ctx) {
  FailureOr<RankedTensorType> dataType = inputTypeOf(ctx, 0);
  if (failed(dataType))
    return failure();
  FailureOr<int64_t> axis = normalizedAxis(
      ctx, "attribute 'axis'", ctx.attrInt("axis", 0), dataType->getRank());
  if (failed(axis))
    return failure();
  int64_t dim = dataType->getDimSize(*axis);
  const HostTensor *indices = ctx.constantInput(1);
  if (indices && indices->isFloat())
    return ctx.unsupported("indices of element type " +
                           typeName(indices->elementType));
  if (indices && dim != kDyn)
    for (int64_t i : indices->ints)
      if (i < -dim || i >= dim)
        return ctx.unsupported(
            "index " + llvm::Twine(i) + " out of range for dimension " +
            llvm::Twine(*axis) + " of size " + llvm::Twine(dim));
  FailureOr<Value> data = ctx.input(0);
  if (failed(data))
    return failure();
  FailureOr<Value> index = wrappedIndices(ctx, indices, dim, *axis);
  if (failed(index))
    return failure();
  if (typeOf(*index).getRank() != dataType->getRank())
    return ctx.unsupported(
        "indices of rank " + llvm::Twine(typeOf(*index).getRank()) +
        " for data of rank " + llvm::Twine(dataType->getRank()));
  return setResult(ctx,
                   ctx.create<GatherElementsOp>(
                       *data, *index, ctx.builder().getI64IntegerAttr(*axis)));
}

LogicalResult convertExpand(ImportContext &ctx) {
  FailureOr<std::vector<int64_t>> shape = constantIntsInput(ctx, 1, "shape");
  if (failed(shape))
    return failure();
  FailureOr<RankedTensorType> inType = inputTypeOf(ctx, 0);
  if (failed(inType))
    return failure();
  ArrayRef<int64_t> in = inType->getShape();
  FailureOr<SmallVector<int64_t>> out = broadcastShapes(in, *shape);
  if (failed(out) || llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return ctx.unsupported("'shape' = " + formatInts(*shape) +
                           " not broadcastable with " + formatShape(in));
  // The broadcast below multiplies by a constant of ones of up to the
  // output's size, built on the host.
  std::optional<int64_t> outCount = checkedProductOf(*out);
  if (!outCount || *outCount > kMaxMaterializedElements)
    return ctx.unsupported("expansion to " + formatInts(*out) +
                           " with more than " +
                           std::to_string(kMaxMaterializedElements) +
                           " elements");
  if (const HostTensor *c = ctx.partialConstantInput(0);
      c && productOf(*out) <= kMaxFoldedElements)
    if (std::optional<HostTensor> folded = foldExpand(*c, *shape)) {
      ctx.setConstantOutput(0, std::move(*folded));
      return success();
    }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (ArrayRef<int64_t>(*out) == in) {
    ctx.setOutput(0, *x);
    return success();
  }
  // Broadcast against ones whose dims are 1 where the input already has the
  // target size: x * ones (exact), or select(true, x, x) for i1.
  // Dims align from the right, and the target shape may have a lower rank
  // than the input (x [1, 3, 1], shape [1, 3] -> [1, 3, 3]).
  SmallVector<int64_t> onesShape;
  size_t skip = out->size() - in.size();
  for (size_t i = 0; i < out->size(); ++i) {
    int64_t target = (*out)[i];
    bool have = i >= skip && in[i - skip] == target;
    onesShape.push_back(have ? 1 : target);
  }
  Type type = inType->getElementType();
  if (type.isSignlessInteger(1)) {
    Value ones = ctx.constant(makeFilled(type, onesShape, 1));
    return setResult(ctx, ctx.create<SelectOp>(ones, *x, *x));
  }
  Value ones = ctx.constant(makeFilled(type, onesShape, 1));
  return setResult(ctx, ctx.create<MulOp>(*x, ones));
}

//===--- constants and shapes ---------------------------------------------===//

LogicalResult convertConstant(ImportContext &ctx) {
  for (const char *name : {"sparse_value", "value_string", "value_strings"})
    if (ctx.hasAttr(name))
      return ctx.unsupported(llvm::Twine("attribute '") + name + "'");
  MLIRContext *context = ctx.context();
  if (ctx.hasAttr("value")) {
    FailureOr<HostTensor> value = ctx.attrTensor("value");
    if (failed(value))
      return failure();
    ctx.setConstantOutput(0, std::move(*value));
    return success();
  }
  Type f32 = Float32Type::get(context), i64 = IntegerType::get(context, 64);
  if (ctx.hasAttr("value_float")) {
    ctx.setConstantOutput(
        0, makeFilledFloat(f32, {}, ctx.attrFloat("value_float", 0)));
    return success();
  }
  if (ctx.hasAttr("value_floats")) {
    std::vector<float> floats = ctx.attrFloats("value_floats");
    ctx.setConstantOutput(
        0, makeFloatTensor(f32, {(int64_t)floats.size()},
                           std::vector<double>(floats.begin(), floats.end())));
    return success();
  }
  if (ctx.hasAttr("value_int")) {
    ctx.setConstantOutput(0, makeFilled(i64, {}, ctx.attrInt("value_int", 0)));
    return success();
  }
  if (ctx.hasAttr("value_ints")) {
    ctx.setConstantOutput(0, makeI64Tensor(context, ctx.attrInts("value_ints")));
    return success();
  }
  return ctx.unsupported("Constant without a value attribute");
}

LogicalResult convertConstantOfShape(ImportContext &ctx) {
  FailureOr<std::vector<int64_t>> shape = constantIntsInput(ctx, 0, "input");
  if (failed(shape))
    return failure();
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return ctx.unsupported("negative shape " + formatInts(*shape));
  std::optional<int64_t> count = checkedProductOf(*shape);
  if (!count || *count > kMaxMaterializedElements)
    return ctx.unsupported("shape " + formatInts(*shape) + " with more than " +
                           llvm::Twine(kMaxMaterializedElements) +
                           " elements");
  HostTensor value = makeFilledFloat(Float32Type::get(ctx.context()), {}, 0.0);
  if (ctx.hasAttr("value")) {
    FailureOr<HostTensor> v = ctx.attrTensor("value");
    if (failed(v))
      return failure();
    if (v->numElements() != 1)
      return ctx.unsupported("attribute 'value' with " +
                             llvm::Twine(v->numElements()) + " elements");
    value = foldReshape(*v, {});
  }
  HostTensor result = *foldExpand(value, *shape);
  if (result.numElements() <= kMaxFoldedElements)
    ctx.setConstantOutput(0, std::move(result));
  else
    ctx.setOutput(0, ctx.constant(result));
  return success();
}

LogicalResult convertShape(ImportContext &ctx) {
  FailureOr<RankedTensorType> inType = inputTypeOf(ctx, 0);
  if (failed(inType))
    return failure();
  int64_t rank = inType->getRank();
  auto clampIndex = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  int64_t start = clampIndex(ctx.attrInt("start", 0));
  int64_t end = clampIndex(ctx.attrInt("end", rank));
  // Dynamic dims are unknown entries (HostTensor::isUnknown).
  std::vector<int64_t> sizes(inType->getShape().begin() + start,
                             inType->getShape().begin() + std::max(start, end));
  HostTensor dims = makeI64Tensor(ctx.context(), sizes);
  for (int64_t i = start; i < end; ++i)
    if (inType->isDynamicDim(i))
      dims.setUnknown(i - start);
  ctx.setConstantOutput(0, std::move(dims));
  return success();
}

LogicalResult convertSize(ImportContext &ctx) {
  FailureOr<RankedTensorType> inType = inputTypeOf(ctx, 0);
  if (failed(inType))
    return failure();
  if (!inType->hasStaticShape()) {
    HostTensor size = makeI64Tensor(ctx.context(), {0}, /*scalar=*/true);
    size.setUnknown(0);
    ctx.setConstantOutput(0, std::move(size));
    return success();
  }
  ctx.setConstantOutput(
      0, makeI64Tensor(ctx.context(), {inType->getNumElements()},
                       /*scalar=*/true));
  return success();
}

LogicalResult convertRange(ImportContext &ctx) {
  const char *names[] = {"start", "limit", "delta"};
  const HostTensor *values[3];
  for (int i = 0; i < 3; ++i) {
    values[i] = ctx.constantInput(i);
    if (!values[i] && ctx.partialConstantInput(i))
      return unsupportedUnknownInput(ctx, i, names[i]);
    if (!values[i])
      return ctx.unsupported(llvm::Twine("non-constant '") + names[i] +
                             "' input");
    if (values[i]->numElements() != 1)
      return ctx.unsupported(llvm::Twine("'") + names[i] + "' input with " +
                             llvm::Twine(values[i]->numElements()) +
                             " elements");
  }
  Type type = values[0]->elementType;
  for (int i = 1; i < 3; ++i)
    if (values[i]->elementType != type)
      return ctx.unsupported(llvm::Twine("'") + names[i] + "' of type " +
                             typeName(values[i]->elementType) +
                             " with 'start' of type " + typeName(type));
  HostTensor tensor;
  if (values[0]->isFloat()) {
    double start = values[0]->floats[0], limit = values[1]->floats[0],
           delta = values[2]->floats[0];
    if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) ||
        !std::isfinite(delta))
      return ctx.unsupported("range [" + std::to_string(start) + ", " +
                             std::to_string(limit) + ") step " +
                             std::to_string(delta));
    double n = std::max(std::ceil((limit - start) / delta), 0.0);
    if (n > static_cast<double>(kMaxMaterializedElements))
      return ctx.unsupported("range of more than " +
                             llvm::Twine(kMaxMaterializedElements) +
                             " elements");
    std::vector<double> result;
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i)
      result.push_back(start + static_cast<double>(i) * delta);
    tensor = makeFloatTensor(type, {(int64_t)result.size()}, std::move(result));
  } else {
    int64_t start = values[0]->ints[0], limit = values[1]->ints[0],
            delta = values[2]->ints[0];
    if (delta == 0)
      return ctx.unsupported("'delta' = 0");
    int64_t n = stepCount(start, limit, delta);
    if (n > kMaxMaterializedElements)
      return ctx.unsupported("range [" + llvm::Twine(start) + ", " +
                             llvm::Twine(limit) + ") step " +
                             llvm::Twine(delta) + " of more than " +
                             llvm::Twine(kMaxMaterializedElements) +
                             " elements");
    // start + i * delta lies in [start, limit) for i < n, so the sum in
    // wrapping arithmetic is exact even where i * delta alone overflows.
    std::vector<int64_t> result;
    for (int64_t i = 0; i < n; ++i)
      result.push_back(static_cast<int64_t>(
          static_cast<uint64_t>(start) +
          static_cast<uint64_t>(i) * static_cast<uint64_t>(delta)));
    tensor = makeIntTensor(type, {n}, std::move(result));
  }
  if (tensor.numElements() <= kMaxFoldedElements)
    ctx.setConstantOutput(0, std::move(tensor));
  else
    ctx.setOutput(0, ctx.constant(tensor));
  return success();
}

} // namespace

void registerShapeConverters(ConverterTable &table) {
  table["Reshape"] = convertReshape;
  table["Flatten"] = convertFlatten;
  table["Squeeze"] = convertSqueeze;
  table["Unsqueeze"] = convertUnsqueeze;
  table["Transpose"] = convertTranspose;
  table["Concat"] = convertConcat;
  table["Split"] = convertSplit;
  table["Slice"] = convertSlice;
  table["Pad"] = convertPad;
  table["Gather"] = convertGather;
  table["GatherElements"] = convertGatherElements;
  table["Expand"] = convertExpand;
  table["Constant"] = convertConstant;
  table["ConstantOfShape"] = convertConstantOfShape;
  table["Shape"] = convertShape;
  table["Size"] = convertSize;
  table["Range"] = convertRange;
}

} // namespace tfcc::onnx_import
