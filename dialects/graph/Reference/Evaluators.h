//===- Evaluators.h - one evaluator per graph op (private) ------*- C++ -*-===//
//
// Private to the reference interpreter. Each graph op has one evaluator,
// `evaluate(XOp, operands, report)`, grouped by family in Elementwise.cpp,
// Convolution.cpp, Reductions.cpp and Shape.cpp. Evaluators compute results
// in double; the interpreter then rounds f32 results to float, keeps f64
// results and wraps integer results to their width (see
// docs/interpreter.md).
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_DIALECTS_GRAPH_REFERENCE_EVALUATORS_H
#define TFCC_DIALECTS_GRAPH_REFERENCE_EVALUATORS_H

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/Reference/Tensor.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"

#include <string>
#include <vector>

namespace tfcc::ref::detail {

/// The operands of an op, in operand order (an absent optional operand, such
/// as a bias, is simply not there).
using Operands = llvm::ArrayRef<const Tensor *>;

/// Where an evaluator says why it failed; the interpreter appends the op's
/// location. Messages start lower-case and have no trailing period.
class Report {
public:
  mlir::LogicalResult fail(const llvm::Twine &why) {
    message = why.str();
    return mlir::failure();
  }
  std::string message;
};

//===----------------------------------------------------------------------===//
// Helpers shared by the evaluators (Tensor.cpp)
//===----------------------------------------------------------------------===//

/// The element kind of `op`'s single result (checked by the interpreter
/// before any evaluator runs).
ElementKind resultKindOf(mlir::Operation *op);

/// The integers of an I64ArrayAttr.
std::vector<int64_t> toInts(mlir::ArrayAttr array);

/// `axis` in [-rank, rank) made non-negative.
mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                       Report &report);

/// NumPy broadcasting of two shapes (aligned at the last dimension).
mlir::FailureOr<std::vector<int64_t>> broadcastShapes(llvm::ArrayRef<int64_t> a,
                                                      llvm::ArrayRef<int64_t> b,
                                                      Report &report);

/// Checks that `tensor` has rank `rank` (`what` names it in the message).
mlir::LogicalResult expectRank(const Tensor &tensor, int64_t rank,
                               llvm::StringRef what, Report &report);

/// Index of element (n, h, w, c) of an NHWC tensor.
int64_t nhwc(const Tensor &t, int64_t n, int64_t h, int64_t w, int64_t c);

/// Checks that every index of graph.gather / graph.gather_grad is in
/// [0, dim).
mlir::LogicalResult checkGatherIndices(const Tensor &indices, int64_t dim,
                                       Report &report);

/// The multi-index of row-major position `linear` in `shape`.
std::vector<int64_t> unravel(int64_t linear, llvm::ArrayRef<int64_t> shape);

/// The row-major offset, in a tensor of `shape`, of the element that
/// broadcasts to `index` of a result of rank >= shape.size() (size-1
/// dimensions are read at 0).
int64_t broadcastOffset(llvm::ArrayRef<int64_t> index,
                        llvm::ArrayRef<int64_t> shape);

/// `value` as a kind-`kind` element: rounded to float for f32, kept for f64,
/// wrapped to 32 bits for i32 and 8 bits for i8 and ui8 (two's complement),
/// saturated for i64, value & 1 for i1.
double normalizeElement(double value, ElementKind kind);

/// How one spatial dimension of a convolution or pooling window is walked
/// (Convolution.cpp).
struct WindowGeometry {
  int64_t outSize;
  int64_t padBefore;
};

/// TF output size and leading padding of a spatial dimension (VALID or SAME).
mlir::FailureOr<WindowGeometry> windowGeometry(int64_t in, int64_t kernel,
                                               int64_t stride, int64_t dilation,
                                               llvm::StringRef padding,
                                               Report &report);

/// Resize source coordinates (Shape.cpp), computed in float as TF does.
float resizeSource(int64_t dst, float scale, bool halfPixelCenters,
                   bool bilinear);
/// Nearest source index: floor(src) clamped to [0, in - 1].
int64_t nearestIndex(float src, int64_t in);
/// Bilinear taps: lower = max(floor(src), 0), upper = min(ceil(src), in - 1),
/// weight of upper = src - floor(src).
struct Taps {
  int64_t lower, upper;
  double lerp;
};
Taps bilinearTaps(float src, int64_t in);

//===----------------------------------------------------------------------===//
// Elementwise.cpp
//===----------------------------------------------------------------------===//

#define TFCC_DECLARE_EVALUATOR(OP)                                             \
  mlir::FailureOr<Tensor> evaluate(mlir::graph::OP op, Operands operands,      \
                                   Report &report);

TFCC_DECLARE_EVALUATOR(AddOp)
TFCC_DECLARE_EVALUATOR(SubOp)
TFCC_DECLARE_EVALUATOR(MulOp)
TFCC_DECLARE_EVALUATOR(DivOp)
TFCC_DECLARE_EVALUATOR(MaximumOp)
TFCC_DECLARE_EVALUATOR(MinimumOp)
TFCC_DECLARE_EVALUATOR(PowOp)
TFCC_DECLARE_EVALUATOR(NegOp)
TFCC_DECLARE_EVALUATOR(AbsOp)
TFCC_DECLARE_EVALUATOR(ExpOp)
TFCC_DECLARE_EVALUATOR(LogOp)
TFCC_DECLARE_EVALUATOR(SqrtOp)
TFCC_DECLARE_EVALUATOR(RsqrtOp)
TFCC_DECLARE_EVALUATOR(SquareOp)
TFCC_DECLARE_EVALUATOR(TanhOp)
TFCC_DECLARE_EVALUATOR(SigmoidOp)
TFCC_DECLARE_EVALUATOR(ReluOp)
TFCC_DECLARE_EVALUATOR(Relu6Op)
TFCC_DECLARE_EVALUATOR(ErfOp)
TFCC_DECLARE_EVALUATOR(FloorOp)
TFCC_DECLARE_EVALUATOR(ModOp)
TFCC_DECLARE_EVALUATOR(MathOp)
TFCC_DECLARE_EVALUATOR(CeilOp)
TFCC_DECLARE_EVALUATOR(HardSigmoidOp)
TFCC_DECLARE_EVALUATOR(HardSwishOp)
TFCC_DECLARE_EVALUATOR(GeluOp)
TFCC_DECLARE_EVALUATOR(LeakyReluOp)
TFCC_DECLARE_EVALUATOR(ClipOp)
TFCC_DECLARE_EVALUATOR(DropoutOp)
TFCC_DECLARE_EVALUATOR(CastOp)
TFCC_DECLARE_EVALUATOR(QuantizeOp)
TFCC_DECLARE_EVALUATOR(DequantizeOp)
TFCC_DECLARE_EVALUATOR(CompareOp)
TFCC_DECLARE_EVALUATOR(SelectOp)

//===----------------------------------------------------------------------===//
// Convolution.cpp: matrix products, convolutions and pooling
//===----------------------------------------------------------------------===//

TFCC_DECLARE_EVALUATOR(MatmulOp)
TFCC_DECLARE_EVALUATOR(DenseOp)
TFCC_DECLARE_EVALUATOR(Conv2DOp)
TFCC_DECLARE_EVALUATOR(DepthwiseConv2DOp)
TFCC_DECLARE_EVALUATOR(MaxPool2DOp)
TFCC_DECLARE_EVALUATOR(AvgPool2DOp)
TFCC_DECLARE_EVALUATOR(GlobalAvgPool2DOp)
TFCC_DECLARE_EVALUATOR(GlobalMaxPool2DOp)

//===----------------------------------------------------------------------===//
// Reductions.cpp: reductions, softmax, normalization and losses
//===----------------------------------------------------------------------===//

TFCC_DECLARE_EVALUATOR(ReduceSumOp)
TFCC_DECLARE_EVALUATOR(ReduceMeanOp)
TFCC_DECLARE_EVALUATOR(ReduceMaxOp)
TFCC_DECLARE_EVALUATOR(ReduceMinOp)
TFCC_DECLARE_EVALUATOR(ArgmaxOp)
TFCC_DECLARE_EVALUATOR(SoftmaxOp)
TFCC_DECLARE_EVALUATOR(LogSoftmaxOp)
TFCC_DECLARE_EVALUATOR(BatchNormOp)
TFCC_DECLARE_EVALUATOR(LayerNormOp)
TFCC_DECLARE_EVALUATOR(SparseSoftmaxCrossEntropyOp)
TFCC_DECLARE_EVALUATOR(SoftmaxCrossEntropyOp)
TFCC_DECLARE_EVALUATOR(MeanSquaredErrorOp)

//===----------------------------------------------------------------------===//
// Shape.cpp: data movement
//===----------------------------------------------------------------------===//

TFCC_DECLARE_EVALUATOR(ReshapeOp)
TFCC_DECLARE_EVALUATOR(TransposeOp)
TFCC_DECLARE_EVALUATOR(ConcatOp)
TFCC_DECLARE_EVALUATOR(SliceOp)
TFCC_DECLARE_EVALUATOR(PadOp)
TFCC_DECLARE_EVALUATOR(ResizeOp)
TFCC_DECLARE_EVALUATOR(GatherOp)
TFCC_DECLARE_EVALUATOR(GatherElementsOp)
TFCC_DECLARE_EVALUATOR(TopKIndicesOp)
TFCC_DECLARE_EVALUATOR(NonMaxSuppressionOp)

//===----------------------------------------------------------------------===//
// Training.cpp: compiler-internal ops of training entry points
//===----------------------------------------------------------------------===//

TFCC_DECLARE_EVALUATOR(DropoutMaskOp)
TFCC_DECLARE_EVALUATOR(BroadcastLikeOp)
TFCC_DECLARE_EVALUATOR(ElementCountOp)
TFCC_DECLARE_EVALUATOR(MomentsOp)
TFCC_DECLARE_EVALUATOR(BatchNormTrainOp)
TFCC_DECLARE_EVALUATOR(BatchNormGradSumsOp)
TFCC_DECLARE_EVALUATOR(BatchNormTrainGradOp)
TFCC_DECLARE_EVALUATOR(Conv2DBackpropInputOp)
TFCC_DECLARE_EVALUATOR(Conv2DBackpropFilterOp)
TFCC_DECLARE_EVALUATOR(MaxPool2DGradOp)
TFCC_DECLARE_EVALUATOR(AvgPool2DGradOp)
TFCC_DECLARE_EVALUATOR(ResizeGradOp)
TFCC_DECLARE_EVALUATOR(GatherGradOp)

#undef TFCC_DECLARE_EVALUATOR

} // namespace tfcc::ref::detail

#endif // TFCC_DIALECTS_GRAPH_REFERENCE_EVALUATORS_H
