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

#include "passes/MemoryPlan.h"
#include "passes/Passes.h"

#include "tfcc/tfcc_types.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/Builders.h"
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

/// perBatch * batch + fixed.
struct BatchAffine {
  int64_t perBatch = 0;
  int64_t fixed = 0;
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

/// Expresses index values as affine functions of the batch size, where every
/// dynamic dimension of a function argument is the batch.
class BatchAffineAnalysis {
public:
  FailureOr<BatchAffine> evaluate(Value value, int depth = 0) {
    if (depth > 64)
      return failure();
    if (auto constant = getConstantIntValue(value))
      return BatchAffine{0, *constant};
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
    auto binary = [&](Value a, Value b) -> FailureOr<std::pair<BatchAffine, BatchAffine>> {
      auto ea = evaluate(a, depth + 1), eb = evaluate(b, depth + 1);
      if (failed(ea) || failed(eb))
        return failure();
      return std::make_pair(*ea, *eb);
    };
    if (auto add = dyn_cast<arith::AddIOp>(def)) {
      auto r = binary(add.getLhs(), add.getRhs());
      if (failed(r))
        return failure();
      return BatchAffine{r->first.perBatch + r->second.perBatch,
                         r->first.fixed + r->second.fixed};
    }
    if (auto sub = dyn_cast<arith::SubIOp>(def)) {
      auto r = binary(sub.getLhs(), sub.getRhs());
      if (failed(r))
        return failure();
      return BatchAffine{r->first.perBatch - r->second.perBatch,
                         r->first.fixed - r->second.fixed};
    }
    if (auto mul = dyn_cast<arith::MulIOp>(def)) {
      auto r = binary(mul.getLhs(), mul.getRhs());
      if (failed(r))
        return failure();
      return multiply(r->first, r->second);
    }
    if (isa<arith::DivUIOp, arith::DivSIOp, arith::CeilDivSIOp,
            arith::CeilDivUIOp, arith::FloorDivSIOp>(def)) {
      auto r = binary(def->getOperand(0), def->getOperand(1));
      if (failed(r))
        return failure();
      return divide(r->first, r->second);
    }
    return failure();
  }

  FailureOr<BatchAffine> evaluateDimOf(Value memref, int64_t dim) {
    return evaluateDim(memref, dim, 0);
  }

private:
  FailureOr<BatchAffine> evaluateDim(Value source, std::optional<int64_t> index,
                                     int depth) {
    auto type = dyn_cast<MemRefType>(source.getType());
    if (!type || !index || *index < 0 || *index >= type.getRank())
      return failure();
    if (!type.isDynamicDim(*index))
      return BatchAffine{0, type.getDimSize(*index)};
    if (isa<BlockArgument>(source))
      return BatchAffine{1, 0};
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
          return BatchAffine{0, cast<IntegerAttr>(attr).getInt()};
        return evaluate(cast<Value>(size), depth + 1);
      }
      return failure();
    }
    if (auto collapse = source.getDefiningOp<memref::CollapseShapeOp>()) {
      // A collapsed dim is the product of its source dims.
      BatchAffine product{0, 1};
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

  static FailureOr<BatchAffine> multiply(BatchAffine a, BatchAffine b) {
    if (a.perBatch != 0 && b.perBatch != 0)
      return failure(); // quadratic in the batch
    return BatchAffine{a.perBatch * b.fixed + b.perBatch * a.fixed,
                       a.fixed * b.fixed};
  }

  static FailureOr<BatchAffine> divide(BatchAffine a, BatchAffine b) {
    if (b.perBatch != 0 || b.fixed <= 0 || a.perBatch % b.fixed != 0 ||
        a.fixed % b.fixed != 0)
      return failure();
    return BatchAffine{a.perBatch / b.fixed, a.fixed / b.fixed};
  }

  static FailureOr<BatchAffine> evaluateExpr(AffineExpr expr,
                                             ArrayRef<BatchAffine> operands,
                                             unsigned numDims) {
    if (auto c = dyn_cast<AffineConstantExpr>(expr))
      return BatchAffine{0, c.getValue()};
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
      return BatchAffine{l->perBatch + r->perBatch, l->fixed + r->fixed};
    case AffineExprKind::Mul:
      return multiply(*l, *r);
    case AffineExprKind::FloorDiv:
    case AffineExprKind::CeilDiv:
      return divide(*l, *r);
    default:
      return failure();
    }
  }
};

/// At the C interface every dynamic dimension of an argument is the batch
/// size, and the caller sizes output buffers that way: an output computed with
/// another size (a concat along the batch, say) would be written out of
/// bounds, so it is a compile-time error.
LogicalResult verifyOutputSizes(func::FuncOp func,
                                BatchAffineAnalysis &analysis) {
  WalkResult result = func.walk([&](memref::CopyOp copy) {
    auto target = dyn_cast<BlockArgument>(copy.getTarget());
    if (!target || target.getOwner()->getParentOp() != func)
      return WalkResult::advance();
    auto type = cast<MemRefType>(target.getType());
    for (int64_t i = 0; i < type.getRank(); ++i) {
      if (!type.isDynamicDim(i))
        continue;
      auto size = analysis.evaluateDimOf(copy.getSource(), i);
      if (succeeded(size) && size->perBatch == 1 && size->fixed == 0)
        continue;
      InFlightDiagnostic diag =
          copy.emitError("tfcc-arena-allocation: dynamic dimension ")
          << i << " of output " << type;
      if (succeeded(size))
        diag << " is " << size->perBatch << " * batch + " << size->fixed;
      else
        diag << " is not provably the batch size";
      diag << "; the C interface needs every dynamic dimension of an entry "
              "point to equal the batch size";
      return WalkResult::interrupt();
    }
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
LogicalResult allocateInArena(func::FuncOp func) {
  SmallVector<memref::AllocOp> allocs;
  func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  BatchAffineAnalysis analysis;
  if (failed(verifyOutputSizes(func, analysis)))
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
    BatchAffine bytes{0, bits < 8 ? 1 : int64_t(bits / 8)};
    for (int64_t i = 0; i < type.getRank(); ++i) {
      BatchAffine dim{0, type.getDimSize(i)};
      if (type.isDynamicDim(i)) {
        auto e = analysis.evaluate(
            dynamicSize(alloc.getDynamicSizes(), type, i));
        if (failed(e))
          return alloc.emitError("tfcc-arena-allocation: the size of buffer ")
                 << type << " is not an affine function of the batch size";
        dim = *e;
      }
      auto product = BatchAffine{bytes.perBatch * dim.fixed +
                                     dim.perBatch * bytes.fixed,
                                 bytes.fixed * dim.fixed};
      if (bytes.perBatch != 0 && dim.perBatch != 0)
        return alloc.emitError("tfcc-arena-allocation: the size of buffer ")
               << type << " grows faster than linearly with the batch size";
      bytes = product;
    }
    if (bytes.perBatch < 0 || bytes.fixed < 0)
      return alloc.emitError("tfcc-arena-allocation: the size of buffer ")
             << type << " is negative for some batch size";
    memplan::Buffer buffer = liveness.rangeOf(alloc);
    buffer.size = {roundUp(bytes.fixed), roundUp(bytes.perBatch)};
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
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(allocateInArena(func)))
        return signalPassFailure();
      materializeViewAddresses(func);
    }
  }
};

} // namespace
