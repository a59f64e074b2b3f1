//===- ConvertGraphToLinalg.cpp - the tfcc-convert-graph-to-linalg pass ---===//
//
// Thin glue: variables become constants, then every graph op is rewritten by
// the pattern families (one file each in this directory). Any graph op left
// over is an error naming the op, its types and, where that is the cause,
// its dynamic dimensions.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/Initializers.h"
#include "passes/GraphToLinalg/KernelCalls.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_CONVERTGRAPHTOLINALG
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
using namespace mlir::tfcc;

namespace {

/// graph.read becomes an arith.constant of the variable's initial value: the
/// compiled inference code has no mutable state.
struct ReadLowering : OpRewritePattern<graph::ReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(graph::ReadOp op,
                                PatternRewriter &rewriter) const override {
    auto variable = SymbolTable::lookupNearestSymbolFrom<graph::VariableOp>(
        op, op.getVariableAttr());
    if (!variable)
      return rewriter.notifyMatchFailure(op, "unknown variable");
    FailureOr<DenseElementsAttr> value =
        graph::getVariableInitialValue(variable);
    if (failed(value))
      return rewriter.notifyMatchFailure(op, "variable has no initial value");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, *value);
    return success();
  }
};

/// graph.constant holds an ElementsAttr, which arith.constant accepts as is.
struct ConstantLowering : OpRewritePattern<graph::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(graph::ConstantOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getValue());
    return success();
  }
};

/// Whether `op` is lowered with ui8 operands and results told apart from i8
/// (data movement, casts, comparisons, elementwise integer arithmetic and
/// (de)quantization, the int8 kernels, whose inputs are ui8 by definition,
/// and max pooling, a kernel call for ui8 or reported). Other lowerings
/// assume signed integers.
bool lowersUnsigned(Operation *op) {
  return isa<graph::ConstantOp, graph::ReadOp, graph::CastOp, graph::QuantizeOp,
             graph::DequantizeOp, graph::CompareOp, graph::SelectOp,
             graph::AddOp, graph::SubOp, graph::MulOp, graph::DivOp,
             graph::ModOp, graph::MaximumOp, graph::MinimumOp, graph::PowOp,
             graph::NegOp, graph::AbsOp, graph::SquareOp, graph::ReshapeOp,
             graph::TransposeOp, graph::ConcatOp, graph::SliceOp, graph::PadOp,
             graph::GatherOp, graph::GatherElementsOp, graph::FusedConv2DInt8Op,
             graph::FusedDenseInt8Op, graph::MaxPool2DOp>(op);
}

bool hasUnsignedTypes(Operation *op) {
  return llvm::any_of(op->getOperands(), hasUnsignedElements) ||
         llvm::any_of(op->getResults(), hasUnsignedElements);
}

/// The user's words for a graph op no pattern lowered, in place of the
/// conversion driver's "failed to legalize operation": what was asked (the
/// op and its types) and, where it is the likely cause, what to change.
void reportUnlowered(Operation *op, bool kernelCalls) {
  std::string types;
  llvm::raw_string_ostream os(types);
  os << "(";
  llvm::interleaveComma(op->getOperandTypes(), os);
  os << ") -> ";
  llvm::interleaveComma(op->getResultTypes(), os);
  InFlightDiagnostic diag = op->emitError() << "tfcc cannot compile "
                                            << op->getName() << " " << os.str();
  if (!kernelCalls)
    diag << " for a GPU: it has no GPU lowering";
  else if (hasDynamicInnerDims(op))
    diag << ": its lowering needs static sizes for every dimension but the "
            "first (the batch); give the model's inputs static sizes (tfcc "
            "--input-shape NAME=1x3x48x192, '?' keeps the batch)";
  else
    diag << " with these attributes: a case its lowering does not handle";
}

struct ConvertGraphToLinalg
    : tfcc::impl::ConvertGraphToLinalgBase<ConvertGraphToLinalg> {
  using ConvertGraphToLinalgBase::ConvertGraphToLinalgBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    WalkResult unsupported = module.walk([](Operation *op) {
      if (!isa<graph::GraphDialect>(op->getDialect()) ||
          !hasUnsignedTypes(op) || lowersUnsigned(op))
        return WalkResult::advance();
      op->emitOpError("has ui8 operands or results, which tfcc compiles for "
                      "casts, comparisons, elementwise arithmetic, data "
                      "movement and (de)quantization only; cast to i32 or "
                      "f32 first");
      return WalkResult::interrupt();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();

    declareKernelFunctions(module);
    lowerElementwiseGroups(module);
    RewritePatternSet patterns(ctx);
    patterns.add<ReadLowering, ConstantLowering>(ctx);
    populateGraphElementwiseToLinalgPatterns(patterns);
    populateGraphLinalgOpsToLinalgPatterns(patterns, kernelCalls);
    populateGraphConvolutionToLinalgPatterns(patterns, kernelCalls);
    populateGraphPoolingToLinalgPatterns(patterns, kernelCalls);
    populateGraphNormalizationToLinalgPatterns(patterns, kernelCalls);
    populateGraphShapeToLinalgPatterns(patterns);
    populateGraphReductionToLinalgPatterns(patterns, kernelCalls);
    populateGraphLossToLinalgPatterns(patterns);
    populateGraphTrainingToLinalgPatterns(patterns, kernelCalls);
    populateGraphQuantizationToLinalgPatterns(patterns);
    populateGraphInt8KernelsToLinalgPatterns(patterns, kernelCalls);

    // Variables stay until every read is rewritten; the conversion reports
    // each other graph op it could not lower ("failed to legalize").
    ConversionTarget target(*ctx);
    target.addIllegalDialect<graph::GraphDialect>();
    target.addLegalOp<graph::VariableOp, graph::TrainStepOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    // The driver's "failed to legalize operation 'graph.x'" is replaced by
    // reportUnlowered on the op at that location (the IR is rolled back on
    // failure, so the op is still there).
    SmallVector<std::pair<Location, std::string>> unlowered;
    LogicalResult converted = failure();
    {
      ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
        StringRef prefix = "failed to legalize operation '";
        std::string message = diag.str();
        if (!StringRef(message).starts_with(prefix))
          return failure(); // not ours: passed on
        StringRef name = StringRef(message).drop_front(prefix.size());
        unlowered.emplace_back(
            diag.getLocation(),
            name.take_until([](char c) { return c == '\''; }).str());
        return success();
      });
      converted = applyPartialConversion(module, target, std::move(patterns));
    }
    if (failed(converted)) {
      for (auto &[loc, name] : unlowered) {
        Operation *found = nullptr;
        module.walk([&](Operation *op) {
          if (!found && op->getLoc() == loc &&
              op->getName().getStringRef() == name)
            found = op;
        });
        if (found)
          reportUnlowered(found, kernelCalls);
        else
          emitError(loc) << "tfcc cannot compile " << name;
      }
      return signalPassFailure();
    }

    eraseUnusedKernelFunctions(module);
    for (auto variable :
         llvm::make_early_inc_range(module.getOps<graph::VariableOp>()))
      variable.erase();
    // tfcc-autodiff replaces each train step by a training function; one
    // left here was not asked for (tfcc-opt without the autodiff): drop it
    // so the inference functions still compile.
    for (auto trainStep :
         llvm::make_early_inc_range(module.getOps<graph::TrainStepOp>()))
      trainStep.erase();
  }
};

} // namespace
