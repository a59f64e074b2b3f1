//===- Detection.cpp - ONNX NonMaxSuppression -----------------------------===//
//
// NonMaxSuppression's output has a data-dependent row count, which tfcc's C
// interface has no dimension for: it is padded to its static bound K =
// batches * classes * min(max_output_boxes_per_class, boxes), the rows past
// the count zero, and the count becomes an output of its own
// (`<output>_count`) wherever the padded rows reach the graph's outputs, as
// TFLite's NON_MAX_SUPPRESSION_V4 does. Which ops may read padded rows is the
// importer core's rule (OnnxImporter.cpp, checkPaddedRows).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ComposedOps.h"
#include "compiler/onnx/HostFolding.h"
#include "compiler/onnx/ImportContext.h"

#include <limits>

using namespace mlir;
using namespace mlir::graph;
using namespace tfcc::onnx_import;

namespace {

/// The one value of an optional constant float input (iou_threshold,
/// score_threshold); nullopt when absent.
FailureOr<std::optional<float>> scalarFloatInput(ImportContext &ctx, int i,
                                                 llvm::StringRef what) {
  if (!ctx.hasInput(i))
    return std::optional<float>();
  const HostTensor *value = ctx.constantInput(i);
  if (!value)
    return ctx.unsupported("non-constant '" + what +
                           "' (tfcc needs it at import time)");
  if (!value->isFloat() || value->numElements() != 1)
    return ctx.invalid("'" + what + "' input: one float expected");
  return std::optional<float>(static_cast<float>(value->floats[0]));
}

LogicalResult convertNonMaxSuppression(ImportContext &ctx) {
  FailureOr<Value> boxes = ctx.input(0), scores = ctx.input(1);
  if (failed(boxes) || failed(scores))
    return failure();
  auto boxesType = cast<RankedTensorType>(boxes->getType());
  auto scoresType = cast<RankedTensorType>(scores->getType());
  if (!boxesType.getElementType().isF32() ||
      !scoresType.getElementType().isF32())
    return ctx.unsupported("boxes or scores other than float32");
  if (!boxesType.hasStaticShape() || !scoresType.hasStaticShape())
    return ctx.unsupported("boxes or scores of dynamic shape (" +
                           typeName(boxesType) + ", " + typeName(scoresType) +
                           "): the output's bound must be known");
  int64_t maxPerClass = 0;
  if (ctx.hasInput(2)) {
    FailureOr<std::vector<int64_t>> values =
        constantIntsInput(ctx, 2, "max_output_boxes_per_class");
    if (failed(values))
      return failure();
    if (values->size() != 1)
      return ctx.invalid("'max_output_boxes_per_class' input: one value "
                         "expected");
    maxPerClass = std::max<int64_t>(values->front(), 0);
  }
  FailureOr<std::optional<float>> iou =
      scalarFloatInput(ctx, 3, "iou_threshold");
  FailureOr<std::optional<float>> scoreThreshold =
      scalarFloatInput(ctx, 4, "score_threshold");
  if (failed(iou) || failed(scoreThreshold))
    return failure();
  int64_t center = ctx.attrInt("center_point_box", 0);
  if (center != 0 && center != 1)
    return ctx.invalid("attribute 'center_point_box' = " + llvm::Twine(center));
  if (boxesType.getRank() == 3)
    maxPerClass = std::min(maxPerClass, boxesType.getDimSize(1));

  OpBuilder &ob = ctx.builder();
  OpChain b{ctx};
  Value raw = b.op<NonMaxSuppressionOp>(
      *boxes, *scores, ob.getI64IntegerAttr(maxPerClass),
      ob.getF32FloatAttr(iou->value_or(0.0f)),
      *scoreThreshold ? ob.getF32FloatAttr(**scoreThreshold) : FloatAttr(),
      ob.getI64IntegerAttr(center));
  if (b.failed)
    return failure();
  int64_t rows = cast<RankedTensorType>(raw.getType()).getDimSize(0);
  HostTensor zero = HostTensor::zeros(ob.getI64Type(), {});
  Value zeroValue = ctx.constant(zero);
  Value count, selected = raw;
  if (rows == 0) {
    count = zeroValue;
  } else {
    // The kernel marks padding rows -1: count the others, then pad with 0
    // (a valid index for the Gathers that usually follow).
    Value first =
        b.check(ctx.create<SliceOp>(raw, ob.getI64ArrayAttr({0, 0}),
                                    ob.getI64ArrayAttr({-1, 1}), ArrayAttr()));
    Value kept = b.compare(first, zeroValue, "ge");
    Value ones = b.cast(kept, ob.getI64Type());
    count = b.op<ReduceSumOp>(ones, ob.getI64ArrayAttr({0, 1}),
                              ob.getBoolAttr(false));
    selected = b.binary<MaximumOp>(raw, zeroValue);
  }
  if (b.failed)
    return failure();
  ctx.setPaddedRowsOutput(0, selected, count);
  return success();
}

} // namespace

void tfcc::onnx_import::registerDetectionConverters(ConverterTable &table) {
  table["NonMaxSuppression"] = convertNonMaxSuppression;
}
