//===- LayoutPropagation.cpp - sink transposes and cancel inverse pairs ---===//
//
// NCHW models reach the graph IR with every NHWC op wrapped in transposes.
// These patterns push each transpose down toward its uses, always in that
// direction (op(transpose(x, p)) -> transpose(op'(x), p)), and compose
// consecutive transposes, so the transpose leaving one NHWC op meets the one
// entering the next and the two cancel. Nothing here touches function
// arguments or results, so the external interface keeps its layout.
//
// Conventions: y = transpose(x, p) has dim i of y = dim p[i] of x. An op
// working on y ("y-space") is rewritten to work on x ("x-space"); a value of
// y-space is brought to x-space by transpose(v, inverse(p)).
//
//===----------------------------------------------------------------------===//

#include "passes/AnchoredRewrite.h"
#include "passes/Passes.h"

#include "dialects/graph/IR/GraphOps.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_LAYOUTPROPAGATION
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
using namespace mlir::graph;

namespace {

using Perm = SmallVector<int64_t, 4>;

//===----------------------------------------------------------------------===//
// Permutation helpers
//===----------------------------------------------------------------------===//

SmallVector<int64_t> toI64s(ArrayAttr attr) {
  SmallVector<int64_t> values;
  for (Attribute a : attr)
    values.push_back(cast<IntegerAttr>(a).getInt());
  return values;
}

Perm getPerm(TransposeOp op) {
  Perm perm;
  for (Attribute a : op.getPerm())
    perm.push_back(cast<IntegerAttr>(a).getInt());
  return perm;
}

Perm invert(ArrayRef<int64_t> perm) {
  Perm inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  return inverse;
}

bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (p != (int64_t)i)
      return false;
  return true;
}

/// The shape of transpose(v, perm) for v of shape `shape`.
SmallVector<int64_t> permuteShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> perm) {
  SmallVector<int64_t> result;
  for (int64_t p : perm)
    result.push_back(shape[p]);
  return result;
}

RankedTensorType permuteType(RankedTensorType type, ArrayRef<int64_t> perm) {
  return RankedTensorType::get(permuteShape(type.getShape(), perm),
                               type.getElementType());
}

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Transposing a value of shape `shape` by `perm` only moves unit dimensions
/// (the others keep their order), so it is a reshape. Dynamic dims count as
/// non-unit.
bool isReshapeLike(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (shape[p] == 1)
      continue;
    if (p < last)
      return false;
    last = p;
  }
  return true;
}

/// transpose(value, perm) computed on the elements.
DenseElementsAttr permuteElements(DenseElementsAttr value,
                                  ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  RankedTensorType resultType = permuteType(type, perm);
  if (value.isSplat() || isReshapeLike(type.getShape(), perm))
    return value.reshape(resultType);
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = type.getRank();
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t i = rank - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  SmallVector<Attribute> input(value.getValues<Attribute>());
  SmallVector<Attribute> output;
  output.reserve(input.size());
  SmallVector<int64_t> index(rank, 0); // index into the result
  ArrayRef<int64_t> resultShape = resultType.getShape();
  for (size_t n = 0; n < input.size(); ++n) {
    int64_t offset = 0;
    for (int64_t i = 0; i < rank; ++i)
      offset += index[i] * strides[perm[i]];
    output.push_back(input[offset]);
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++index[i] < resultShape[i])
        break;
      index[i] = 0;
    }
  }
  return DenseElementsAttr::get(resultType, output);
}

/// A value computed from constants and variables only (through reshapes and
/// transposes). A transpose of such a value does not drive a rewrite: moving
/// it would only trade places with the transpose created on the other side.
bool isConstantLike(Value v) {
  Operation *def = v.getDefiningOp();
  while (def && isa<ReshapeOp, TransposeOp>(def))
    def = def->getOperand(0).getDefiningOp();
  return def && isa<ConstantOp, ReadOp>(def);
}

//===----------------------------------------------------------------------===//
// Operands of broadcasting elementwise ops
//===----------------------------------------------------------------------===//

/// How an operand of a rank-`perm.size()` elementwise op in y-space is brought
/// to x-space.
enum class OperandKind {
  Invalid,
  Unchanged,        // all dims 1 (a scalar): broadcasts the same either way
  Transposed,       // transpose(x, perm): use x
  Reshaped,         // rank expansion plus a transpose that only moves unit dims
  PermutedConstant, // graph.constant with dense elements, permuted here
  TransposedWeight, // graph.read (or a dense_resource constant): a transpose
};

/// The operand's shape with leading 1s up to `rank` (NumPy broadcasting).
SmallVector<int64_t> expandRank(RankedTensorType type, int64_t rank) {
  SmallVector<int64_t> shape(rank - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  return shape;
}

OperandKind classifyOperand(Value v, ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  RankedTensorType type = tensorType(v);
  if (type.getRank() > rank)
    return OperandKind::Invalid;
  if (auto transpose = v.getDefiningOp<TransposeOp>())
    if (type.getRank() == rank && ArrayRef<int64_t>(getPerm(transpose)) == perm)
      return OperandKind::Transposed;
  if (llvm::all_of(type.getShape(), [](int64_t d) { return d == 1; }))
    return OperandKind::Unchanged;
  SmallVector<int64_t> shape = expandRank(type, rank);
  if (isReshapeLike(shape, invert(perm)) &&
      llvm::count(shape, ShapedType::kDynamic) <= 1)
    return OperandKind::Reshaped;
  if (auto constant = v.getDefiningOp<ConstantOp>())
    if (isa<DenseElementsAttr>(constant.getValue()))
      return OperandKind::PermutedConstant;
  // A variable may change (training), so its value is not copied here.
  if (isa_and_present<ReadOp, ConstantOp>(v.getDefiningOp()))
    return OperandKind::TransposedWeight;
  return OperandKind::Invalid;
}

/// Brings operand `v` (classified as `kind`) from y-space to x-space.
Value convertOperand(PatternRewriter &rewriter, Location loc, Value v,
                     OperandKind kind, ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  Perm inverse = invert(perm);
  RankedTensorType type = tensorType(v);
  auto expanded =
      RankedTensorType::get(expandRank(type, rank), type.getElementType());
  switch (kind) {
  case OperandKind::Unchanged:
    return v;
  case OperandKind::Transposed:
    return v.getDefiningOp<TransposeOp>().getX();
  case OperandKind::Reshaped: {
    RankedTensorType target = permuteType(expanded, inverse);
    if (target == type)
      return v;
    return rewriter.create<ReshapeOp>(loc, target, v);
  }
  case OperandKind::PermutedConstant: {
    auto value =
        cast<DenseElementsAttr>(v.getDefiningOp<ConstantOp>().getValue());
    DenseElementsAttr permuted =
        permuteElements(value.reshape(expanded), inverse);
    return rewriter.create<ConstantOp>(loc, permuted.getType(), permuted);
  }
  case OperandKind::TransposedWeight: {
    Value expandedValue = v;
    if (expanded != type)
      expandedValue = rewriter.create<ReshapeOp>(loc, expanded, v);
    return rewriter.create<TransposeOp>(loc, permuteType(expanded, inverse),
                                        expandedValue,
                                        rewriter.getI64ArrayAttr(inverse));
  }
  case OperandKind::Invalid:
    break;
  }
  llvm_unreachable("operand cannot be brought to the transposed layout");
}

/// Producers known to be rewritten (or not) with one perm, during one use
/// check.
using LookaheadCache = DenseMap<Operation *, bool>;

/// How many producers deep the use check looks.
constexpr int kMaxLookahead = 32;

bool isElementwise(Operation *op);

bool matchesPerm(Operation *op, ArrayRef<int64_t> perm, LookaheadCache *cache,
                 int depth);

/// `v` is computed by an elementwise op or concat that will be rewritten with
/// `perm`, so it will be a transpose with that perm.
bool willBeTransposed(Value v, ArrayRef<int64_t> perm, LookaheadCache *cache,
                      int depth) {
  Operation *producer = v.getDefiningOp();
  if (!cache || depth >= kMaxLookahead || !producer ||
      !(isElementwise(producer) || isa<ConcatOp>(producer)) ||
      tensorType(v).getRank() != (int64_t)perm.size())
    return false;
  if (auto it = cache->find(producer); it != cache->end())
    return it->second;
  (*cache)[producer] = false;
  bool result = matchesPerm(producer, perm, cache, depth + 1);
  (*cache)[producer] = result;
  return result;
}

/// Every operand of `op` can be brought to x-space with `perm`, and one of
/// them is a transpose of a computed (not constant) value, or, with a cache,
/// will be one once its producer is rewritten.
bool matchesPerm(Operation *op, ArrayRef<int64_t> perm, LookaheadCache *cache,
                 int depth) {
  bool driven = false;
  for (Value v : op->getOperands()) {
    OperandKind kind = classifyOperand(v, perm);
    if (kind == OperandKind::Transposed) {
      driven |= !isConstantLike(v.getDefiningOp<TransposeOp>().getX());
      continue;
    }
    if (kind != OperandKind::Invalid)
      continue;
    if (!willBeTransposed(v, perm, cache, depth))
      return false;
    driven = true;
  }
  return driven;
}

/// The permutation under which every operand of the elementwise op `op`
/// (operands broadcast to one result; concat uses it too) can be brought to
/// x-space, one of them a transpose of a computed value.
///
/// With `lookahead` the answer is the one expected once the producers of the
/// operands have been rewritten (mul(t, sigmoid(t)), say). Rewrites use none.
std::optional<Perm> matchElementwise(Operation *op, bool lookahead = false) {
  if (!isElementwise(op) && !isa<ConcatOp>(op))
    return std::nullopt;
  int64_t rank = tensorType(op->getResult(0)).getRank();
  for (Value candidate : op->getOperands()) {
    auto transpose = candidate.getDefiningOp<TransposeOp>();
    if (!transpose || tensorType(candidate).getRank() != rank ||
        isConstantLike(transpose.getX()))
      continue;
    Perm perm = getPerm(transpose);
    LookaheadCache cache;
    if (matchesPerm(op, perm, lookahead ? &cache : nullptr, 0))
      return perm;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Matchers of the other op families (shared with the use check below)
//===----------------------------------------------------------------------===//

/// The transpose feeding operand 0 of `op`, when it moves a computed value.
TransposeOp getSinkableInput(Operation *op) {
  auto transpose = op->getOperand(0).getDefiningOp<TransposeOp>();
  if (!transpose || isConstantLike(transpose.getX()))
    return {};
  return transpose;
}

/// Ops that will take a transpose of one of their operands through.
bool canSinkInto(Operation *user);

/// Whether a transpose among `operands` dies once its users are rewritten:
/// it has one use, or every user takes it through. Otherwise sinking would
/// add a transpose rather than move one.
bool anyTransposeDies(ValueRange operands) {
  for (Value v : operands) {
    auto transpose = v.getDefiningOp<TransposeOp>();
    if (!transpose)
      continue;
    if (transpose->hasOneUse() ||
        llvm::all_of(transpose->getUsers(), canSinkInto))
      return true;
  }
  return false;
}

/// Ops sunk through by the elementwise pattern.
bool isElementwise(Operation *op) {
  if (!isa<GraphDialect>(op->getDialect()) || op->getNumResults() != 1 ||
      isa<SoftmaxOp, LogSoftmaxOp>(op))
    return false;
  // (De)quantization per tensor: its scalar scale and zero point broadcast
  // like any scalar operand. Per axis, they follow `axis`, not broadcasting.
  if (isa<QuantizeOp, DequantizeOp>(op))
    return tensorType(op->getOperand(1)).getRank() == 0;
  return op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
         isa<AddOp, SubOp, MulOp, DivOp, MaximumOp, MinimumOp, PowOp, CompareOp,
             SelectOp, CastOp>(op);
}

bool canSinkInto(Operation *user) {
  if (isa<TransposeOp>(user))
    return true;
  if (isElementwise(user) || isa<ConcatOp>(user))
    return matchElementwise(user, /*lookahead=*/true).has_value();
  if (isa<SoftmaxOp, LogSoftmaxOp, PadOp, SliceOp, ReduceSumOp, ReduceMeanOp,
          ReduceMaxOp, ReduceMinOp>(user))
    return static_cast<bool>(getSinkableInput(user));
  return false;
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getX().getDefiningOp<TransposeOp>();
    if (!producer)
      return rewriter.notifyMatchFailure(op, "operand is not a transpose");
    Perm inner = getPerm(producer), outer = getPerm(op), composed;
    for (int64_t p : outer)
      composed.push_back(inner[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, op.getType(), producer.getX(), rewriter.getI64ArrayAttr(composed));
    return success();
  }
};

/// An identity transpose whose written result type is less static than its
/// operand (TransposeOp::fold keeps those): graph ops that infer their result
/// type take the operand directly. Function results and same-type ops keep it.
struct ForwardIdentityTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!isIdentity(getPerm(op)))
      return rewriter.notifyMatchFailure(op, "perm is not the identity");
    auto acceptsRefinedType = [](OpOperand &use) {
      Operation *user = use.getOwner();
      return isa<GraphDialect>(user->getDialect()) &&
             !user->hasTrait<OpTrait::SameOperandsAndResultType>();
    };
    if (llvm::none_of(op->getUses(), acceptsRefinedType))
      return rewriter.notifyMatchFailure(op, "no use accepts the operand type");
    rewriter.replaceUsesWithIf(op.getY(), op.getX(), acceptsRefinedType);
    return success();
  }
};

/// op(transpose(x, p), c, ...) -> transpose(op(x, c'), p) for elementwise ops
/// (unary, binary, compare, select, cast); the other operands are transposes
/// with the same perm, constants permuted at compile time, variables read
/// and transposed, or broadcast operands whose transpose is a reshape.
template <typename OpTy>
struct SinkTransposeThroughElementwise : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    std::optional<Perm> perm = matchElementwise(op);
    if (!perm)
      return rewriter.notifyMatchFailure(
          op, "operands are not transposes with one perm or permutable");
    if (!anyTransposeDies(op->getOperands()))
      return rewriter.notifyMatchFailure(
          op, "each transposed operand has other uses that keep it");
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(convertOperand(rewriter, op.getLoc(), v,
                                        classifyOperand(v, *perm), *perm));
    auto resultType = cast<RankedTensorType>(op.getType());
    Type innerType = op->template hasTrait<OpTrait::SameOperandsAndResultType>()
                         ? operands.front().getType()
                         : permuteType(resultType, invert(*perm));
    OperationState state(op.getLoc(), op->getName(), operands, {innerType},
                         op->getAttrs());
    Operation *inner = rewriter.create(state);
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, resultType, inner->getResult(0), rewriter.getI64ArrayAttr(*perm));
    return success();
  }
};

/// softmax(transpose(x, p), axis) -> transpose(softmax(x, p[axis]), p).
template <typename OpTy>
struct SinkTransposeThroughSoftmax : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    TransposeOp transpose = getSinkableInput(op);
    if (!transpose || !anyTransposeDies(op->getOperands()))
      return rewriter.notifyMatchFailure(op,
                                         "operand is no sinkable transpose");
    Perm perm = getPerm(transpose);
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += perm.size();
    Value inner = rewriter.create<OpTy>(op.getLoc(), transpose.getX().getType(),
                                        transpose.getX(),
                                        rewriter.getI64IntegerAttr(perm[axis]));
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner,
                                             transpose.getPerm());
    return success();
  }
};

/// reduce(transpose(x, p), axes) -> transpose(reduce(x, p[axes]), q), where
/// q orders the kept dims as the original result does.
template <typename OpTy>
struct SinkTransposeThroughReduce : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    TransposeOp transpose = getSinkableInput(op);
    if (!transpose || !anyTransposeDies(op->getOperands()))
      return rewriter.notifyMatchFailure(op,
                                         "operand is no sinkable transpose");
    Perm perm = getPerm(transpose);
    int64_t rank = perm.size();
    SmallVector<bool> reduced(rank, false); // in x-space
    SmallVector<int64_t> axes;
    for (int64_t a : toI64s(op.getAxes())) {
      int64_t axis = a < 0 ? a + rank : a;
      reduced[perm[axis]] = true;
      axes.push_back(perm[axis]);
    }
    llvm::sort(axes);
    // Result dim i of the original op is x dim kept[i]; the new reduce keeps
    // x dims in increasing order.
    Perm resultPerm;
    if (op.getKeepDims()) {
      resultPerm = perm;
    } else {
      SmallVector<int64_t> position(rank, -1);
      for (int64_t j = 0, n = 0; j < rank; ++j)
        if (!reduced[j])
          position[j] = n++;
      for (int64_t p : perm)
        if (!reduced[p])
          resultPerm.push_back(position[p]);
    }
    auto resultType = cast<RankedTensorType>(op.getType());
    Value inner = rewriter.create<OpTy>(
        op.getLoc(), permuteType(resultType, invert(resultPerm)),
        transpose.getX(), rewriter.getI64ArrayAttr(axes), op.getKeepDims());
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, resultType, inner, rewriter.getI64ArrayAttr(resultPerm));
    return success();
  }
};

/// concat(transpose(a, p), transpose(b, p), axis) ->
/// transpose(concat(a, b, p[axis]), p); constant operands are permuted.
struct SinkTransposeThroughConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Perm> perm = matchElementwise(op);
    if (!perm || !anyTransposeDies(op.getInputs()))
      return rewriter.notifyMatchFailure(op,
                                         "operands are no sinkable transposes");
    SmallVector<Value> operands;
    for (Value v : op.getInputs())
      operands.push_back(convertOperand(rewriter, op.getLoc(), v,
                                        classifyOperand(v, *perm), *perm));
    int64_t rank = perm->size();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    Value inner = rewriter.create<ConcatOp>(
        op.getLoc(), permuteType(op.getType(), invert(*perm)), operands,
        rewriter.getI64IntegerAttr((*perm)[axis]));
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner,
                                             rewriter.getI64ArrayAttr(*perm));
    return success();
  }
};

/// pad(transpose(x, p), pads) -> transpose(pad(x, pads'), p), the (low, high)
/// pair of result dim i moving to x dim p[i].
struct SinkTransposeThroughPad : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    TransposeOp transpose = getSinkableInput(op);
    if (!transpose || !anyTransposeDies(op->getOperands()))
      return rewriter.notifyMatchFailure(op,
                                         "operand is no sinkable transpose");
    Perm perm = getPerm(transpose);
    SmallVector<int64_t> pads = toI64s(op.getPads());
    SmallVector<int64_t> newPads(pads.size());
    for (auto [i, p] : llvm::enumerate(perm)) {
      newPads[2 * p] = pads[2 * i];
      newPads[2 * p + 1] = pads[2 * i + 1];
    }
    Value inner = rewriter.create<PadOp>(
        op.getLoc(), permuteType(op.getType(), invert(perm)), transpose.getX(),
        rewriter.getI64ArrayAttr(newPads), op.getValueAttr(),
        op.getModeAttr());
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner,
                                             transpose.getPerm());
    return success();
  }
};

/// slice(transpose(x, p), starts, limits, strides) ->
/// transpose(slice(x, starts', limits', strides'), p).
struct SinkTransposeThroughSlice : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    TransposeOp transpose = getSinkableInput(op);
    if (!transpose || !anyTransposeDies(op->getOperands()))
      return rewriter.notifyMatchFailure(op,
                                         "operand is no sinkable transpose");
    Perm perm = getPerm(transpose);
    auto permuteList = [&](ArrayAttr list) {
      SmallVector<int64_t> values = toI64s(list), result(values.size());
      for (auto [i, p] : llvm::enumerate(perm))
        result[p] = values[i];
      return rewriter.getI64ArrayAttr(result);
    };
    ArrayAttr strides;
    if (op.getStrides())
      strides = permuteList(*op.getStrides());
    Value inner = rewriter.create<SliceOp>(
        op.getLoc(), permuteType(op.getType(), invert(perm)), transpose.getX(),
        permuteList(op.getStarts()), permuteList(op.getLimits()), strides);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner,
                                             transpose.getPerm());
    return success();
  }
};

struct LayoutPropagationPass
    : tfcc::impl::LayoutPropagationBase<LayoutPropagationPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    tfcc::populateLayoutPropagationPatterns(patterns);
    // Every rewrite keeps the values, so a run stopped by the iteration
    // limit still leaves correct (if less optimized) IR: not an error.
    (void)tfcc::applyPatternsAtAnchors(getOperation(), std::move(patterns));
  }
};

} // namespace

void mlir::tfcc::populateLayoutPropagationPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ComposeTransposes, ForwardIdentityTranspose,
               SinkTransposeThroughConcat, SinkTransposeThroughPad,
               SinkTransposeThroughSlice>(context);
  patterns.add<SinkTransposeThroughSoftmax<SoftmaxOp>,
               SinkTransposeThroughSoftmax<LogSoftmaxOp>>(context);
  patterns.add<SinkTransposeThroughReduce<ReduceSumOp>,
               SinkTransposeThroughReduce<ReduceMeanOp>,
               SinkTransposeThroughReduce<ReduceMaxOp>,
               SinkTransposeThroughReduce<ReduceMinOp>>(context);
  patterns.add<
      // Unary, same type.
      SinkTransposeThroughElementwise<NegOp>,
      SinkTransposeThroughElementwise<AbsOp>,
      SinkTransposeThroughElementwise<ExpOp>,
      SinkTransposeThroughElementwise<LogOp>,
      SinkTransposeThroughElementwise<SqrtOp>,
      SinkTransposeThroughElementwise<RsqrtOp>,
      SinkTransposeThroughElementwise<SquareOp>,
      SinkTransposeThroughElementwise<TanhOp>,
      SinkTransposeThroughElementwise<SigmoidOp>,
      SinkTransposeThroughElementwise<ReluOp>,
      SinkTransposeThroughElementwise<Relu6Op>,
      SinkTransposeThroughElementwise<ErfOp>,
      SinkTransposeThroughElementwise<FloorOp>,
      SinkTransposeThroughElementwise<MathOp>,
      SinkTransposeThroughElementwise<CeilOp>,
      SinkTransposeThroughElementwise<HardSigmoidOp>,
      SinkTransposeThroughElementwise<HardSwishOp>,
      SinkTransposeThroughElementwise<GeluOp>,
      SinkTransposeThroughElementwise<LeakyReluOp>,
      SinkTransposeThroughElementwise<ClipOp>,
      SinkTransposeThroughElementwise<DropoutOp>,
      SinkTransposeThroughElementwise<CastOp>,
      SinkTransposeThroughElementwise<QuantizeOp>,
      SinkTransposeThroughElementwise<DequantizeOp>,
      // Broadcasting.
      SinkTransposeThroughElementwise<AddOp>,
      SinkTransposeThroughElementwise<SubOp>,
      SinkTransposeThroughElementwise<MulOp>,
      SinkTransposeThroughElementwise<DivOp>,
      SinkTransposeThroughElementwise<MaximumOp>,
      SinkTransposeThroughElementwise<MinimumOp>,
      SinkTransposeThroughElementwise<PowOp>,
      SinkTransposeThroughElementwise<CompareOp>,
      SinkTransposeThroughElementwise<SelectOp>>(context);
}
