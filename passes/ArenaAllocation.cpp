//===- ArenaAllocation.cpp - place heap buffers in a caller arena ---------===//
//
// Generated code never calls malloc: every buffer bufferization allocated
// becomes a view into an arena the caller passes in. Buffer sizes are affine
// functions of the batch size (the value of every dynamic dimension of an
// entry point), so offsets and the arena size are too; the header states them.
//
// Buffers whose live ranges do not overlap share arena space (MemoryPlan.h).
// A buffer is live from the first op that touches its memory to the last use
// of it or of anything derived from it: views, casts, extracted pointers and
// whatever is computed from those (see BufferLiveness).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/DimNames.h"
#include "passes/MemoryPlan.h"
#include "passes/Passes.h"

#include "tfcc/tfcc_types.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_ARENAALLOCATION
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
namespace memplan = mlir::tfcc::memplan;

namespace {

constexpr int64_t kArenaAlignment = TFCC_ARENA_ALIGNMENT;

/// What a size that is not affine in the batch asks the user to do.
constexpr const char *kUnboundedAdvice =
    "dynamic dimension of an entry without a bound takes the batch's value; "
    "name the dimensions beyond the batch and bound them (tfcc --dim-bound "
    "NAME=N; docs/c-api.md, \"Dimensions\"), or give the model's inputs "
    "static sizes beyond the batch (ONNX: tfcc --input-shape "
    "NAME=1x3x48x192, '?' keeps the batch)";

/// An integer known to lie in [lo, hi].
struct Range {
  int64_t lo = 0, hi = 0;
  bool isExact() const { return lo == hi; }
};

/// perBatch * batch + fixed, each coefficient known within a range over the
/// values the dimensions beyond the batch may take (1 to their bounds, given
/// at compile time); exact for entries whose only dynamic dimension is the
/// batch. `symbol` names the value when it is exactly one dimension beyond
/// the batch (what an output's dimension must be).
struct BatchAffine {
  Range perBatch, fixed;
  std::string symbol;

  static BatchAffine constant(int64_t v) { return {{0, 0}, {v, v}, {}}; }
  bool isExact() const { return perBatch.isExact() && fixed.isExact(); }
  bool isBatch() const {
    return isExact() && perBatch.lo == 1 && fixed.lo == 0;
  }
};

/// The operand giving dynamic dimension `dim` of `type` among `sizes`.
Value dynamicSize(ValueRange sizes, MemRefType type, int64_t dim) {
  int64_t position = 0;
  for (int64_t i = 0; i < dim; ++i)
    position += type.isDynamicDim(i);
  return sizes[position];
}

int64_t roundUp(int64_t v) {
  return (v + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

FailureOr<Range> addRanges(Range a, Range b, bool subtract = false) {
  Range r;
  if (subtract ? (llvm::SubOverflow(a.lo, b.hi, r.lo) ||
                  llvm::SubOverflow(a.hi, b.lo, r.hi))
               : (llvm::AddOverflow(a.lo, b.lo, r.lo) ||
                  llvm::AddOverflow(a.hi, b.hi, r.hi)))
    return failure();
  return r;
}

FailureOr<Range> multiplyRanges(Range a, Range b) {
  int64_t products[4];
  if (llvm::MulOverflow(a.lo, b.lo, products[0]) ||
      llvm::MulOverflow(a.lo, b.hi, products[1]) ||
      llvm::MulOverflow(a.hi, b.lo, products[2]) ||
      llvm::MulOverflow(a.hi, b.hi, products[3]))
    return failure();
  return Range{*std::min_element(products, products + 4),
               *std::max_element(products, products + 4)};
}

/// Expresses index values as affine functions of the batch size. A dynamic
/// dimension of a function argument is the batch, or, where its
/// kDimNamesAttr entry names a dimension with a bound in the module's
/// kDimBoundsAttr, a value in [1, bound].
class BatchAffineAnalysis {
public:
  explicit BatchAffineAnalysis(func::FuncOp func) : func(func) {
    auto module = func->getParentOfType<ModuleOp>();
    bounds = module ? module->getAttrOfType<DictionaryAttr>(
                          graph::kDimBoundsAttr)
                    : DictionaryAttr();
  }

  FailureOr<BatchAffine> evaluate(Value value, int depth = 0) {
    if (depth > 64)
      return failure();
    if (auto constant = getConstantIntValue(value))
      return BatchAffine::constant(*constant);
    Operation *def = value.getDefiningOp();
    if (!def)
      return failure();
    if (auto dim = dyn_cast<memref::DimOp>(def))
      return evaluateDim(dim.getSource(), dim.getConstantIndex(), depth);
    if (auto cast = dyn_cast<arith::IndexCastOp>(def))
      return evaluate(cast.getIn(), depth + 1);
    if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
      SmallVector<BatchAffine> operands;
      for (Value v : apply.getMapOperands()) {
        auto e = evaluate(v, depth + 1);
        if (failed(e))
          return failure();
        operands.push_back(*e);
      }
      AffineMap map = apply.getAffineMap();
      return evaluateExpr(map.getResult(0), operands, map.getNumDims());
    }
    if (def->getNumOperands() != 2)
      return failure();
    auto a = evaluate(def->getOperand(0), depth + 1);
    auto b = evaluate(def->getOperand(1), depth + 1);
    if (failed(a) || failed(b))
      return failure();
    if (isa<arith::AddIOp>(def))
      return add(*a, *b, /*subtract=*/false);
    if (isa<arith::SubIOp>(def))
      return add(*a, *b, /*subtract=*/true);
    if (isa<arith::MulIOp>(def))
      return multiply(*a, *b);
    if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(def))
      return divide(*a, *b, /*ceil=*/false);
    if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(def))
      return divide(*a, *b, /*ceil=*/true);
    if (isa<arith::MaxSIOp, arith::MinSIOp>(def))
      return extremum(*a, *b, isa<arith::MaxSIOp>(def));
    return failure();
  }

  FailureOr<BatchAffine> evaluateDimOf(Value memref, int64_t dim) {
    return evaluateDim(memref, dim, 0);
  }

private:
  func::FuncOp func;
  DictionaryAttr bounds;

  /// Dimension `index` of entry argument `arg`: the batch, or a bounded
  /// dimension beyond it.
  FailureOr<BatchAffine> evaluateArgumentDim(BlockArgument arg,
                                             int64_t index) {
    if (arg.getOwner()->getParentOp() != func.getOperation() || !bounds)
      return BatchAffine{{1, 1}, {0, 0}, {}};
    auto names = func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(),
                                                  graph::kDimNamesAttr);
    if (!names || index >= static_cast<int64_t>(names.size()))
      return BatchAffine{{1, 1}, {0, 0}, {}};
    auto name = dyn_cast<StringAttr>(names[index]);
    auto bound = name ? bounds.getAs<IntegerAttr>(name) : IntegerAttr();
    if (!bound)
      return BatchAffine{{1, 1}, {0, 0}, {}};
    return BatchAffine{{0, 0}, {1, bound.getInt()}, name.str()};
  }

  FailureOr<BatchAffine> evaluateDim(Value source, std::optional<int64_t> index,
                                     int depth) {
    auto type = dyn_cast<MemRefType>(source.getType());
    if (!type || !index || *index < 0 || *index >= type.getRank())
      return failure();
    if (!type.isDynamicDim(*index))
      return BatchAffine::constant(type.getDimSize(*index));
    if (auto arg = dyn_cast<BlockArgument>(source))
      return evaluateArgumentDim(arg, *index);
    if (auto alloc = source.getDefiningOp<memref::AllocOp>())
      return evaluate(dynamicSize(alloc.getDynamicSizes(), type, *index),
                      depth + 1);
    if (auto view = source.getDefiningOp<memref::ViewOp>())
      return evaluate(dynamicSize(view.getSizes(), type, *index), depth + 1);
    if (auto cast = source.getDefiningOp<memref::CastOp>())
      return evaluateDim(cast.getSource(), index, depth + 1);
    if (auto subview = source.getDefiningOp<memref::SubViewOp>()) {
      // Result dims are the non-dropped sizes, in order.
      llvm::SmallBitVector dropped = subview.getDroppedDims();
      int64_t resultDim = -1;
      for (auto [i, size] : llvm::enumerate(subview.getMixedSizes())) {
        if (dropped.test(i) || ++resultDim != *index)
          continue;
        if (auto attr = dyn_cast<Attribute>(size))
          return BatchAffine::constant(cast<IntegerAttr>(attr).getInt());
        return evaluate(cast<Value>(size), depth + 1);
      }
      return failure();
    }
    if (auto collapse = source.getDefiningOp<memref::CollapseShapeOp>()) {
      // A collapsed dim is the product of its source dims.
      BatchAffine product = BatchAffine::constant(1);
      SmallVector<ReassociationIndices, 4> groups =
          collapse.getReassociationIndices();
      for (int64_t d : groups[*index]) {
        auto e = evaluateDim(collapse.getSrc(), d, depth + 1);
        if (failed(e))
          return failure();
        auto p = multiply(product, *e);
        if (failed(p))
          return failure();
        product = *p;
      }
      return product;
    }
    if (auto expand = source.getDefiningOp<memref::ExpandShapeOp>())
      return evaluate(dynamicSize(expand.getOutputShape(), type, *index),
                      depth + 1);
    return failure();
  }

public:
  /// Whether `v` is the exact constant `c`.
  static bool isConstant(const BatchAffine &v, int64_t c) {
    return v.isExact() && v.perBatch.lo == 0 && v.fixed.lo == c;
  }

  static FailureOr<BatchAffine> add(const BatchAffine &a, const BatchAffine &b,
                                    bool subtract) {
    // x + 0 keeps x's name (a dimension through a view's arithmetic).
    if (isConstant(b, 0))
      return a;
    if (isConstant(a, 0) && !subtract)
      return b;
    auto per = addRanges(a.perBatch, b.perBatch, subtract);
    auto fixed = addRanges(a.fixed, b.fixed, subtract);
    if (failed(per) || failed(fixed))
      return failure();
    return BatchAffine{*per, *fixed, {}};
  }

  static FailureOr<BatchAffine> multiply(const BatchAffine &a,
                                         const BatchAffine &b) {
    if (isConstant(b, 1))
      return a;
    if (isConstant(a, 1))
      return b;
    if ((a.perBatch.lo != 0 || a.perBatch.hi != 0) &&
        (b.perBatch.lo != 0 || b.perBatch.hi != 0))
      return failure(); // quadratic in the batch
    auto perA = multiplyRanges(a.perBatch, b.fixed);
    auto perB = multiplyRanges(b.perBatch, a.fixed);
    auto fixed = multiplyRanges(a.fixed, b.fixed);
    if (failed(perA) || failed(perB) || failed(fixed))
      return failure();
    auto per = addRanges(*perA, *perB);
    if (failed(per))
      return failure();
    return BatchAffine{*per, *fixed, {}};
  }

  /// Division by a positive constant: exact where it divides every
  /// coefficient. Otherwise (only with dimensions beyond the batch) bounds:
  /// a dividend without a batch part divides its range (rounding as the op
  /// does: `ceil` for ceiling division, truncation below zero counted as
  /// such); with one, floor(p / d) and ceil(p / d) bound the batch part and
  /// the fixed part gets one more of slack each way.
  static FailureOr<BatchAffine> divide(const BatchAffine &a,
                                       const BatchAffine &b, bool ceil) {
    if (!b.isExact() || b.perBatch.lo != 0 || b.fixed.lo <= 0)
      return failure();
    int64_t d = b.fixed.lo;
    if (d == 1)
      return a;
    if (a.isExact() && a.perBatch.lo % d == 0 && a.fixed.lo % d == 0)
      return BatchAffine{{a.perBatch.lo / d, a.perBatch.lo / d},
                         {a.fixed.lo / d, a.fixed.lo / d},
                         {}};
    if (a.isExact() && a.perBatch.lo != 0)
      return failure(); // not affine in the batch
    auto down = [&](int64_t v) { return llvm::divideFloorSigned(v, d); };
    auto up = [&](int64_t v) { return llvm::divideCeilSigned(v, d); };
    if (a.perBatch.lo == 0 && a.perBatch.hi == 0)
      return BatchAffine{{0, 0},
                         {ceil ? up(a.fixed.lo) : down(a.fixed.lo),
                          ceil || a.fixed.hi < 0 ? up(a.fixed.hi)
                                                 : down(a.fixed.hi)},
                         {}};
    return BatchAffine{{down(a.perBatch.lo), up(a.perBatch.hi)},
                       {down(a.fixed.lo) - 1, up(a.fixed.hi) + 1},
                       {}};
  }

  /// max/min: bounds that hold for every batch >= 1 (each coefficient's
  /// extremes); exact when both sides are the same exact value.
  static FailureOr<BatchAffine> extremum(const BatchAffine &a,
                                         const BatchAffine &b, bool isMax) {
    if (a.isExact() && b.isExact() && a.perBatch.lo == b.perBatch.lo &&
        a.fixed.lo == b.fixed.lo)
      return BatchAffine{a.perBatch, a.fixed,
                         a.symbol == b.symbol ? a.symbol : std::string()};
    // min/max of a dimension with itself (a run-time agreement check).
    if (!a.symbol.empty() && a.symbol == b.symbol)
      return a;
    if (isMax)
      return BatchAffine{{std::min(a.perBatch.lo, b.perBatch.lo),
                          std::max(a.perBatch.hi, b.perBatch.hi)},
                         {std::min(a.fixed.lo, b.fixed.lo),
                          std::max(a.fixed.hi, b.fixed.hi)},
                         {}};
    return BatchAffine{{std::min(a.perBatch.lo, b.perBatch.lo),
                        std::min(a.perBatch.hi, b.perBatch.hi)},
                       {std::min(a.fixed.lo, b.fixed.lo),
                        std::min(a.fixed.hi, b.fixed.hi)},
                       {}};
  }

  static FailureOr<BatchAffine> evaluateExpr(AffineExpr expr,
                                             ArrayRef<BatchAffine> operands,
                                             unsigned numDims) {
    if (auto c = dyn_cast<AffineConstantExpr>(expr))
      return BatchAffine::constant(c.getValue());
    if (auto d = dyn_cast<AffineDimExpr>(expr))
      return operands[d.getPosition()];
    if (auto s = dyn_cast<AffineSymbolExpr>(expr))
      return operands[numDims + s.getPosition()];
    auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
    if (!bin)
      return failure();
    auto l = evaluateExpr(bin.getLHS(), operands, numDims);
    auto r = evaluateExpr(bin.getRHS(), operands, numDims);
    if (failed(l) || failed(r))
      return failure();
    switch (expr.getKind()) {
    case AffineExprKind::Add:
      return add(*l, *r, /*subtract=*/false);
    case AffineExprKind::Mul:
      return multiply(*l, *r);
    case AffineExprKind::FloorDiv:
      return divide(*l, *r, /*ceil=*/false);
    case AffineExprKind::CeilDiv:
      return divide(*l, *r, /*ceil=*/true);
    default:
      return failure();
    }
  }
};

/// Output dimensions computed from the input's (a convolution's output
/// width): each becomes a derived dimension of the model, k = 1 + (named
/// dimensions) + its index, recorded in the module's kDerivedDimsAttr
/// ({name, bound}) and computed by the entry's shape function
/// `@__tfcc_dims_<entry>(%dims: memref<?xi64>)`, which reads the batch and
/// the named dimensions from %dims and writes the derived ones. The function
/// is the entry's own index arithmetic, rebuilt on the values in %dims.
class DerivedDims {
public:
  explicit DerivedDims(ModuleOp module) : module(module) {
    bounds = module->getAttrOfType<DictionaryAttr>(graph::kDimBoundsAttr);
    if (auto existing = module->getAttrOfType<ArrayAttr>(graph::kDerivedDimsAttr))
      records.assign(existing.begin(), existing.end());
  }

  /// Makes dimension `dim` of `output` (an argument of `func`, copied from
  /// `source`) a derived dimension of at most `bound`; returns its name, or
  /// failure when its size is not arithmetic on the input dims.
  FailureOr<std::string> add(func::FuncOp func, BlockArgument output,
                             int64_t dim, Value source, int64_t bound) {
    if (!bounds)
      return failure();
    if (!shapeFunction || entry != func)
      startShapeFunction(func);
    OpBuilder b(shapeFunction.getBody().front().getTerminator());
    cache.clear();
    FailureOr<Value> size = rebuildDim(b, source, dim, 0);
    if (failed(size))
      return failure();
    // "<entry>.<output argument>.<dim>" (the argument counts the inputs).
    StringRef entryName = func.getSymName();
    entryName.consume_front(tfcc::kEntryImplPrefix);
    std::string name = (entryName + "." + Twine(output.getArgNumber()) + "." +
                        Twine(dim))
                           .str();
    Location loc = func.getLoc();
    int64_t k = 1 + bounds.size() + records.size();
    Value value = b.create<arith::IndexCastOp>(loc, b.getI64Type(), *size);
    Value slot = b.create<arith::ConstantIndexOp>(loc, k);
    b.create<memref::StoreOp>(loc, value, shapeFunction.getArgument(0), slot);
    Builder attrs(module.getContext());
    records.push_back(attrs.getDictionaryAttr(
        {attrs.getNamedAttr("name", attrs.getStringAttr(name)),
         attrs.getNamedAttr("bound", attrs.getI64IntegerAttr(bound))}));
    module->setAttr(graph::kDerivedDimsAttr, attrs.getArrayAttr(records));
    return name;
  }

private:
  ModuleOp module;
  DictionaryAttr bounds;
  SmallVector<Attribute> records;
  func::FuncOp entry, shapeFunction;
  /// Loads of %dims by index k.
  DenseMap<int64_t, Value> cache;

  void startShapeFunction(func::FuncOp func) {
    entry = func;
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    MLIRContext *ctx = module.getContext();
    auto dimsType = MemRefType::get({ShapedType::kDynamic},
                                    IntegerType::get(ctx, 64));
    shapeFunction = b.create<func::FuncOp>(
        func.getLoc(), (Twine(graph::kShapeFunctionPrefix) + func.getSymName()).str(),
        b.getFunctionType({dimsType}, {}));
    Block *body = shapeFunction.addEntryBlock();
    b.setInsertionPointToEnd(body);
    b.create<func::ReturnOp>(func.getLoc());
  }

  /// %dims[k] as an index value (loaded once per derived dim).
  Value loadDim(OpBuilder &b, int64_t k) {
    auto it = cache.find(k);
    if (it != cache.end())
      return it->second;
    Location loc = shapeFunction.getLoc();
    Value slot = b.create<arith::ConstantIndexOp>(loc, k);
    Value raw =
        b.create<memref::LoadOp>(loc, shapeFunction.getArgument(0), slot);
    Value index = b.create<arith::IndexCastOp>(loc, b.getIndexType(), raw);
    cache[k] = index;
    return index;
  }

  /// k of dimension `dim` of the entry's argument `arg`: 0 (the batch) or
  /// that of its bounded name.
  int64_t argumentDimIndex(BlockArgument arg, int64_t dim) {
    auto names =
        entry.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), graph::kDimNamesAttr);
    if (!names || dim >= static_cast<int64_t>(names.size()))
      return 0;
    auto name = dyn_cast<StringAttr>(names[dim]);
    if (!name)
      return 0;
    for (auto [i, bound] : llvm::enumerate(bounds))
      if (bound.getName() == name)
        return 1 + i;
    return 0;
  }

  FailureOr<Value> rebuild(OpBuilder &b, Value value, int depth) {
    if (depth > 64)
      return failure();
    Location loc = shapeFunction.getLoc();
    if (auto constant = getConstantIntValue(value))
      return b.create<arith::ConstantIndexOp>(loc, *constant).getResult();
    Operation *def = value.getDefiningOp();
    if (!def)
      return failure();
    if (auto dim = dyn_cast<memref::DimOp>(def)) {
      std::optional<int64_t> index = dim.getConstantIndex();
      if (!index)
        return failure();
      return rebuildDim(b, dim.getSource(), *index, depth + 1);
    }
    if (auto cast = dyn_cast<arith::IndexCastOp>(def))
      return rebuild(b, cast.getIn(), depth + 1);
    if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
      SmallVector<Value> operands;
      for (Value v : apply.getMapOperands()) {
        FailureOr<Value> r = rebuild(b, v, depth + 1);
        if (failed(r))
          return failure();
        operands.push_back(*r);
      }
      return b.create<affine::AffineApplyOp>(loc, apply.getAffineMap(),
                                             operands)
          .getResult();
    }
    // Index arithmetic the LLVM lowering handles (no floordivsi/ceildivsi).
    if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp,
             arith::DivUIOp, arith::MaxSIOp, arith::MinSIOp>(def) ||
        !def->getResult(0).getType().isIndex())
      return failure();
    IRMapping mapping;
    for (Value operand : def->getOperands()) {
      FailureOr<Value> r = rebuild(b, operand, depth + 1);
      if (failed(r))
        return failure();
      mapping.map(operand, *r);
    }
    return b.clone(*def, mapping)->getResult(0);
  }

  FailureOr<Value> rebuildDim(OpBuilder &b, Value source, int64_t index,
                              int depth) {
    auto type = dyn_cast<MemRefType>(source.getType());
    if (!type || index < 0 || index >= type.getRank() || depth > 64)
      return failure();
    Location loc = shapeFunction.getLoc();
    if (!type.isDynamicDim(index))
      return b.create<arith::ConstantIndexOp>(loc, type.getDimSize(index))
          .getResult();
    if (auto arg = dyn_cast<BlockArgument>(source)) {
      if (arg.getOwner()->getParentOp() != entry.getOperation())
        return failure();
      return loadDim(b, argumentDimIndex(arg, index));
    }
    if (auto alloc = source.getDefiningOp<memref::AllocOp>())
      return rebuild(b, dynamicSize(alloc.getDynamicSizes(), type, index),
                     depth + 1);
    if (auto view = source.getDefiningOp<memref::ViewOp>())
      return rebuild(b, dynamicSize(view.getSizes(), type, index), depth + 1);
    if (auto cast = source.getDefiningOp<memref::CastOp>())
      return rebuildDim(b, cast.getSource(), index, depth + 1);
    if (auto subview = source.getDefiningOp<memref::SubViewOp>()) {
      llvm::SmallBitVector dropped = subview.getDroppedDims();
      int64_t resultDim = -1;
      for (auto [i, size] : llvm::enumerate(subview.getMixedSizes())) {
        if (dropped.test(i) || ++resultDim != index)
          continue;
        if (auto attr = dyn_cast<Attribute>(size))
          return b
              .create<arith::ConstantIndexOp>(loc,
                                              cast<IntegerAttr>(attr).getInt())
              .getResult();
        return rebuild(b, cast<Value>(size), depth + 1);
      }
      return failure();
    }
    if (auto collapse = source.getDefiningOp<memref::CollapseShapeOp>()) {
      Value product = b.create<arith::ConstantIndexOp>(loc, 1);
      for (int64_t d : collapse.getReassociationIndices()[index]) {
        FailureOr<Value> e = rebuildDim(b, collapse.getSrc(), d, depth + 1);
        if (failed(e))
          return failure();
        product = b.create<arith::MulIOp>(loc, product, *e);
      }
      return product;
    }
    if (auto expand = source.getDefiningOp<memref::ExpandShapeOp>())
      return rebuild(b, dynamicSize(expand.getOutputShape(), type, index),
                     depth + 1);
    return failure();
  }
};

/// At the C interface every dynamic dimension of an output is the batch or
/// one named dimension beyond it, and the caller sizes output buffers that
/// way: an output computed with another size (a concat along the batch, say)
/// would be written out of bounds, so it is a compile-time error. Records
/// each output's dimension names (kDimNamesAttr on the output arguments:
/// the name, "" for the batch and static dims).
LogicalResult verifyOutputSizes(func::FuncOp func,
                                BatchAffineAnalysis &analysis,
                                DerivedDims &derived) {
  WalkResult result = func.walk([&](memref::CopyOp copy) {
    auto target = dyn_cast<BlockArgument>(copy.getTarget());
    if (!target || target.getOwner()->getParentOp() != func)
      return WalkResult::advance();
    auto type = cast<MemRefType>(target.getType());
    SmallVector<Attribute> names;
    Builder b(func.getContext());
    for (int64_t i = 0; i < type.getRank(); ++i) {
      names.push_back(b.getStringAttr(""));
      if (!type.isDynamicDim(i))
        continue;
      auto size = analysis.evaluateDimOf(copy.getSource(), i);
      if (succeeded(size) && size->isBatch())
        continue;
      if (succeeded(size) && !size->symbol.empty()) {
        names.back() = b.getStringAttr(size->symbol);
        continue;
      }
      // Computed from the named dimensions alone (not the batch): a derived
      // dimension, given back to the caller by the entry's shape function.
      if (succeeded(size) && size->perBatch.lo == 0 && size->perBatch.hi == 0 &&
          size->fixed.hi >= 1) {
        FailureOr<std::string> name =
            derived.add(func, target, i, copy.getSource(), size->fixed.hi);
        if (succeeded(name)) {
          names.back() = b.getStringAttr(*name);
          continue;
        }
      }
      InFlightDiagnostic diag =
          copy.emitError("tfcc-arena-allocation: dynamic dimension ")
          << i << " of output " << type;
      if (succeeded(size) && size->isExact())
        diag << " is " << size->perBatch.lo << " * batch + " << size->fixed.lo;
      else
        diag << " is not provably the batch size, one dimension beyond it, "
                "or computed from those beyond it";
      diag << "; the C interface needs every dynamic dimension of an output "
              "to equal the batch size or one named dimension of an input, or "
              "to be computed from the named dimensions alone";
      return WalkResult::interrupt();
    }
    if (llvm::any_of(names, [](Attribute a) {
          return !cast<StringAttr>(a).getValue().empty();
        }))
      func.setArgAttr(target.getArgNumber(), graph::kDimNamesAttr,
                      b.getArrayAttr(names));
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Live ranges of buffers over the ops of a function's body, numbered in
/// order. An op nested in a loop or branch counts at the position of its
/// top-level ancestor.
///
/// A buffer is live from the first op with memory effects that uses it (or a
/// value derived from it) to the last op that uses any value derived from it.
/// Derived values, followed transitively and conservatively:
///   - every result of an op that takes a derived value, except ops that only
///     read the memory behind it (memref.load: the data, not the address) and
///     memref.dim / memref.rank / the sizes and strides of
///     memref.extract_strided_metadata;
///   - the block arguments of the regions of such an op (scf.for iter_args),
///     except for linalg ops, whose block arguments are elements;
///   - the results and region arguments of the parent op of a terminator
///     (scf.yield) that takes a derived value.
/// So views, casts, reshapes, `memref.extract_aligned_pointer_as_index` and
/// the arithmetic and calls on the extracted address all extend the range.
/// The buffer lives to the end of the function when a derived value escapes:
/// returned, or an address-like (non-memref) derived value handed to an op
/// that may write memory (stored somewhere), except to a call. Calls (runtime
/// kernels) are assumed not to keep the pointers they receive.
class BufferLiveness {
public:
  explicit BufferLiveness(func::FuncOp func) : func(func) {
    Region &body = func.getBody();
    if (!body.hasOneBlock()) {
      // Positions would not be ordered: every buffer lives throughout.
      linear = false;
      return;
    }
    for (Operation &op : body.front())
      position[&op] = numPositions++;
  }

  memplan::Buffer rangeOf(memref::AllocOp alloc) {
    memplan::Buffer range;
    int64_t allocPos = positionOf(alloc);
    if (!linear) {
      range.first = 0;
      range.last = std::max<int64_t>(numPositions - 1, 0);
      return range;
    }
    int64_t first = std::numeric_limits<int64_t>::max();
    int64_t firstAny = first;
    int64_t last = allocPos;
    bool toEnd = false;

    SmallVector<Value> worklist{alloc.getResult()};
    DenseSet<Value> seen{alloc.getResult()};
    auto derive = [&](Value v) {
      if (seen.insert(v).second)
        worklist.push_back(v);
    };
    while (!worklist.empty() && !toEnd) {
      Value v = worklist.pop_back_val();
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (isa<memref::DeallocOp>(user))
          continue;
        int64_t pos = positionOf(user);
        last = std::max(last, pos);
        firstAny = std::min(firstAny, pos);
        if (user->getNumRegions() != 0 || !isMemoryEffectFree(user))
          first = std::min(first, pos);

        if (user->hasTrait<OpTrait::IsTerminator>()) {
          Operation *parent = user->getParentOp();
          if (parent == func.getOperation()) {
            toEnd = true; // returned
            break;
          }
          for (Value r : parent->getResults())
            derive(r);
          for (Region &region : parent->getRegions())
            for (Block &block : region)
              for (BlockArgument arg : block.getArguments())
                derive(arg);
          continue;
        }
        bool isAddress = !isa<BaseMemRefType>(v.getType());
        if (isAddress && !isa<CallOpInterface>(user) && mayWrite(user)) {
          toEnd = true; // an address stored somewhere
          break;
        }
        if (isa<memref::DimOp, memref::RankOp>(user) || onlyReads(user, v))
          continue;
        if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(user)) {
          derive(meta.getBaseBuffer());
          continue;
        }
        for (Value r : user->getResults())
          derive(r);
        if (!isa<linalg::LinalgOp>(user))
          for (Region &region : user->getRegions())
            for (Block &block : region)
              for (BlockArgument arg : block.getArguments())
                derive(arg);
      }
    }
    if (toEnd)
      last = numPositions - 1;
    if (first == std::numeric_limits<int64_t>::max())
      first = firstAny == std::numeric_limits<int64_t>::max() ? allocPos
                                                              : firstAny;
    range.first = std::min(first, last);
    range.last = last;
    return range;
  }

private:
  int64_t positionOf(Operation *op) {
    while (op->getParentOp() != func.getOperation())
      op = op->getParentOp();
    auto it = position.find(op);
    return it == position.end() ? 0 : it->second;
  }

  /// Conservative: true unless the op declares that it does not write.
  static bool mayWrite(Operation *op) {
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return !isMemoryEffectFree(op);
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface)
      return true;
    return !iface.onlyHasEffect<MemoryEffects::Read>() &&
           !isMemoryEffectFree(op);
  }

  /// The op reads the memory `v` refers to and has no other effect: its
  /// results are data loaded from the buffer, not its address (an address
  /// stored in memory has already made its buffer live to the end).
  static bool onlyReads(Operation *op, Value v) {
    if (isa<CallOpInterface>(op) || op->getNumRegions() != 0)
      return false;
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface)
      return false;
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    bool readsV = false;
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (!isa<MemoryEffects::Read>(effect.getEffect()))
        return false;
      readsV |= effect.getValue() == v;
    }
    return readsV;
  }

  func::FuncOp func;
  DenseMap<Operation *, int64_t> position;
  int64_t numPositions = 0;
  bool linear = true;
};

/// "conv1" and "model.mlir:3:10" for a NameLoc("conv1", model.mlir:3:10).
std::pair<std::string, std::string> describe(Location loc) {
  std::string name, where;
  loc->walk([&](Location l) {
    if (auto n = dyn_cast<NameLoc>(l); n && name.empty())
      name = n.getName().str();
    // Imported ONNX nodes carry file:0:0: the name says more.
    if (auto f = dyn_cast<FileLineColLoc>(l);
        f && where.empty() && f.getLine() != 0)
      where = (f.getFilename().str() + ":" + std::to_string(f.getLine()) +
               ":" + std::to_string(f.getColumn()));
    return WalkResult::advance();
  });
  return {name, where};
}

/// Rewrites the allocations of one function; records the arena size and the
/// plan.
LogicalResult allocateInArena(func::FuncOp func, DerivedDims &derived) {
  SmallVector<memref::AllocOp> allocs;
  func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  BatchAffineAnalysis analysis(func);
  if (failed(verifyOutputSizes(func, analysis, derived)))
    return failure();
  std::vector<memplan::Buffer> buffers;
  BufferLiveness liveness(func);
  for (memref::AllocOp alloc : allocs) {
    if (alloc->getParentOp() != func)
      return alloc.emitError("tfcc-arena-allocation: a buffer allocated "
                             "inside a loop or branch is not supported");
    MemRefType type = alloc.getType();
    if (!type.getLayout().isIdentity())
      return alloc.emitError("tfcc-arena-allocation: buffer ")
             << type << " has a non-identity layout";
    unsigned bits = type.getElementTypeBitWidth();
    // Planned at the upper bound of each coefficient.
    BatchAffine bytes = BatchAffine::constant(bits < 8 ? 1 : int64_t(bits / 8));
    for (int64_t i = 0; i < type.getRank(); ++i) {
      BatchAffine dim = BatchAffine::constant(type.getDimSize(i));
      if (type.isDynamicDim(i)) {
        auto e = analysis.evaluate(
            dynamicSize(alloc.getDynamicSizes(), type, i));
        if (failed(e))
          return alloc.emitError("tfcc-arena-allocation: the size of buffer ")
                 << type
                 << " is not an affine function of the batch size: every "
                 << kUnboundedAdvice;
        dim = *e;
      }
      auto product = BatchAffineAnalysis::multiply(bytes, dim);
      if (failed(product))
        return alloc.emitError("tfcc-arena-allocation: the size of buffer ")
               << type << " grows faster than linearly with the batch size "
                          "or overflows: every "
               << kUnboundedAdvice;
      bytes = *product;
    }
    if (bytes.perBatch.hi < 0 || bytes.fixed.hi < 0 ||
        bytes.perBatch.hi > (int64_t(1) << 52) ||
        bytes.fixed.hi > (int64_t(1) << 52))
      return alloc.emitError("tfcc-arena-allocation: the size of buffer ")
             << type << " is negative or above 2^52 bytes for some batch size";
    memplan::Buffer buffer = liveness.rangeOf(alloc);
    buffer.size = {roundUp(bytes.fixed.hi), roundUp(bytes.perBatch.hi)};
    buffers.push_back(buffer);
  }

  memplan::Summary summary = memplan::planMemory(buffers);
  if (!memplan::verifyPlan(buffers))
    return func.emitError("tfcc-arena-allocation: internal error: the memory "
                          "plan overlaps live buffers");

  MLIRContext *ctx = func.getContext();
  Block &entry = func.getBody().front();
  auto arenaType = MemRefType::get({ShapedType::kDynamic},
                                   IntegerType::get(ctx, 8));
  Location loc = func.getLoc();
  unsigned numArgs = func.getNumArguments();
  func.insertArgument(numArgs, arenaType, {}, loc);
  func.insertArgument(numArgs + 1, IndexType::get(ctx), {}, loc);
  Value arena = entry.getArgument(numArgs);
  Value batch = entry.getArgument(numArgs + 1);

  Builder attrs(ctx);
  auto pair = [&](memplan::Affine a) {
    return attrs.getDenseI64ArrayAttr({a.fixed, a.perBatch});
  };
  SmallVector<Attribute> planEntries;
  for (auto [alloc, buffer] : llvm::zip(allocs, buffers)) {
    memplan::Affine offset = buffer.offset;
    auto [name, where] = describe(alloc.getLoc());
    planEntries.push_back(attrs.getDictionaryAttr({
        attrs.getNamedAttr("name", attrs.getStringAttr(name)),
        attrs.getNamedAttr("loc", attrs.getStringAttr(where)),
        attrs.getNamedAttr("offset", pair(offset)),
        attrs.getNamedAttr("size", pair(buffer.size)),
        attrs.getNamedAttr("live",
                           attrs.getDenseI64ArrayAttr({buffer.first,
                                                       buffer.last})),
    }));
    OpBuilder b(alloc);
    Value fixed = b.create<arith::ConstantIndexOp>(alloc.getLoc(), offset.fixed);
    Value byteOffset = fixed;
    if (offset.perBatch != 0) {
      Value per =
          b.create<arith::ConstantIndexOp>(alloc.getLoc(), offset.perBatch);
      Value scaled = b.create<arith::MulIOp>(alloc.getLoc(), batch, per);
      byteOffset = b.create<arith::AddIOp>(alloc.getLoc(), scaled, fixed);
    }
    auto view = b.create<memref::ViewOp>(alloc.getLoc(), alloc.getType(), arena,
                                         byteOffset, alloc.getDynamicSizes());
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.replaceAllUsesWith(view.getResult());
    alloc.erase();
  }
  func->setAttr("tfcc.arena_fixed", attrs.getI64IntegerAttr(summary.peak.fixed));
  func->setAttr("tfcc.arena_per_batch",
                attrs.getI64IntegerAttr(summary.peak.perBatch));
  func->setAttr(
      "tfcc.arena_plan",
      attrs.getDictionaryAttr({
          attrs.getNamedAttr("bound", pair(summary.boundComponents)),
          attrs.getNamedAttr("bound_at_1",
                             attrs.getI64IntegerAttr(summary.boundAtOne)),
          attrs.getNamedAttr("buffers", attrs.getArrayAttr(planEntries)),
          attrs.getNamedAttr("naive", pair(summary.naive)),
      }));
  return success();
}

/// Addresses handed to runtime kernels
/// (memref.extract_aligned_pointer_as_index) of buffers now in the arena
/// become the arena's address plus the view's byte shift. MLIR 19's
/// expand-strided-metadata rewrites extract_aligned_pointer_as_index(view)
/// into the pointer of the view's source, dropping memref.view's shift (kept
/// in the aligned pointer, not the offset), so the address is spelled out
/// here, where the views are made. Casts and reshapes of an identity-layout
/// buffer keep its address.
void materializeViewAddresses(func::FuncOp func) {
  func.walk([](memref::ExtractAlignedPointerAsIndexOp extract) {
    Value source = extract.getSource();
    while (Operation *def = source.getDefiningOp()) {
      if (!isa<memref::CastOp, memref::CollapseShapeOp, memref::ExpandShapeOp>(
              def))
        break;
      source = def->getOperand(0);
    }
    auto view = source.getDefiningOp<memref::ViewOp>();
    if (!view)
      return;
    OpBuilder b(extract);
    Location loc = extract.getLoc();
    Value base = b.create<memref::ExtractAlignedPointerAsIndexOp>(
        loc, view.getSource());
    extract.replaceAllUsesWith(
        b.create<arith::AddIOp>(loc, base, view.getByteShift()).getResult());
    extract.erase();
  });
}

struct ArenaAllocationPass
    : tfcc::impl::ArenaAllocationBase<ArenaAllocationPass> {
  void runOnOperation() override {
    // The shape functions DerivedDims adds are not planned.
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    DerivedDims derived(getOperation());
    for (auto func : funcs) {
      if (func.isExternal())
        continue;
      if (failed(allocateInArena(func, derived)))
        return signalPassFailure();
      materializeViewAddresses(func);
    }
  }
};

} // namespace
