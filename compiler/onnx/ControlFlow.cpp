//===- ControlFlow.cpp - ONNX If and Loop to graph IR ---------------------===//
//
// If with a condition known at import time (a constant, or a comparison of
// static shapes) becomes the nodes of the branch it takes. With a condition
// known only at run time both branches are converted and each output
// selects between them (graph.select on a scalar condition): correct for
// branches without side effects, which ONNX's are, at the cost of running
// both. Loop is unrolled when its trip count and condition are known at
// import time (the iteration number is then a constant in each copy of the
// body, so shape computations on it fold). Scan is not supported.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/HostFolding.h"
#include "compiler/onnx/ImportContext.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::onnx_import {
namespace {

using SubgraphValue = ImportContext::SubgraphValue;
using SubgraphValues = std::vector<SubgraphValue>;

FailureOr<SubgraphValues> importBranch(ImportContext &ctx,
                                       llvm::StringRef name) {
  FailureOr<SubgraphValues> outputs = ctx.importSubgraph(name);
  if (failed(outputs))
    return failure();
  if (static_cast<int>(outputs->size()) != ctx.numOutputs())
    return ctx.invalid("'" + name + "' with " + llvm::Twine(outputs->size()) +
                       " outputs for " + llvm::Twine(ctx.numOutputs()) +
                       " node outputs");
  return outputs;
}

/// An output of a subgraph as a graph value.
FailureOr<Value> branchValue(ImportContext &ctx, SubgraphValue &output,
                             llvm::StringRef branch, int index) {
  if (output.value)
    return output.value;
  if (output.host->hasUnknowns())
    return ctx.unsupported("output " + llvm::Twine(index) + " of '" + branch +
                           "', derived from a dynamic dimension, under a "
                           "condition known only at run time");
  return ctx.constant(*output.host);
}

/// The truth of a one-element boolean (or number) known at import time.
bool truthOf(const HostTensor &t) {
  return t.isFloat() ? t.floats[0] != 0.0 : t.ints[0] != 0;
}

/// A known one-element value's truth; nullopt when not known.
std::optional<bool> knownTruth(const SubgraphValue &v) {
  if (!v.host || v.host->numElements() != 1 || v.host->hasUnknowns())
    return std::nullopt;
  return truthOf(*v.host);
}

LogicalResult convertIf(ImportContext &ctx) {
  if (const HostTensor *cond = ctx.constantInput(0)) {
    if (cond->numElements() != 1)
      return ctx.invalid("condition of " + llvm::Twine(cond->numElements()) +
                         " elements (If takes one boolean)");
    FailureOr<SubgraphValues> outputs =
        importBranch(ctx, truthOf(*cond) ? "then_branch" : "else_branch");
    if (failed(outputs))
      return failure();
    for (auto [i, output] : llvm::enumerate(*outputs)) {
      if (output.value)
        ctx.setOutput(i, output.value);
      else
        ctx.setConstantOutput(i, std::move(*output.host));
    }
    return success();
  }

  RankedTensorType condType = ctx.inputType(0);
  if (condType &&
      (!condType.getElementType().isInteger(1) || !condType.hasStaticShape() ||
       condType.getNumElements() != 1))
    return ctx.invalid("condition of type " + typeName(condType) +
                       " (If takes one boolean)");
  FailureOr<Value> cond = ctx.input(0);
  if (failed(cond))
    return failure();
  FailureOr<Value> scalarCond = ctx.reshape(*cond, {});
  if (failed(scalarCond))
    return failure();
  FailureOr<SubgraphValues> thenOutputs = importBranch(ctx, "then_branch");
  if (failed(thenOutputs))
    return failure();
  FailureOr<SubgraphValues> elseOutputs = importBranch(ctx, "else_branch");
  if (failed(elseOutputs))
    return failure();
  for (int i = 0; i < ctx.numOutputs(); ++i) {
    FailureOr<Value> a = branchValue(ctx, (*thenOutputs)[i], "then_branch", i);
    if (failed(a))
      return failure();
    FailureOr<Value> b = branchValue(ctx, (*elseOutputs)[i], "else_branch", i);
    if (failed(b))
      return failure();
    if (a->getType() != b->getType())
      return ctx.unsupported(
          "output " + llvm::Twine(i) + " of type " + typeName(a->getType()) +
          " in 'then_branch' and " + typeName(b->getType()) +
          " in 'else_branch' under a condition known only at run time (tfcc "
          "computes both branches and selects; they must yield one type)");
    FailureOr<Value> y = ctx.create<SelectOp>(*scalarCond, *a, *b);
    if (failed(y))
      return failure();
    ctx.setOutput(i, *y);
  }
  return success();
}

/// Unrolling makes a copy of the body per iteration: this and
/// ImportContext::kMaxSubgraphNodes (all copies of all bodies) bound the work
/// a small file can ask for.
constexpr int64_t kMaxLoopIterations = 4096;

SubgraphValue hostScalar(Type type, int64_t value) {
  return SubgraphValue{Value(), makeFilled(type, {}, value)};
}

/// Input `i` as a subgraph value: known at import time (possibly partially)
/// or a graph value.
FailureOr<SubgraphValue> inputValue(ImportContext &ctx, int i) {
  SubgraphValue v;
  if (const HostTensor *host = ctx.partialConstantInput(i)) {
    v.host = *host;
    return v;
  }
  FailureOr<Value> value = ctx.input(i);
  if (failed(value))
    return failure();
  v.value = *value;
  return v;
}

/// The scan output of every iteration stacked on a new axis 0.
FailureOr<Value> stackIterations(ImportContext &ctx, SubgraphValues &parts,
                                 int k) {
  SmallVector<Value> rows;
  for (SubgraphValue &part : parts) {
    FailureOr<Value> v = branchValue(ctx, part, "body", k);
    if (failed(v))
      return failure();
    auto type = cast<RankedTensorType>(v->getType());
    SmallVector<int64_t> shape = {1};
    shape.append(type.getShape().begin(), type.getShape().end());
    FailureOr<Value> row = ctx.reshape(*v, shape);
    if (failed(row))
      return failure();
    rows.push_back(*row);
  }
  if (rows.size() == 1)
    return rows[0];
  return ctx.create<ConcatOp>(ValueRange(rows),
                              ctx.builder().getI64IntegerAttr(0));
}

LogicalResult convertLoop(ImportContext &ctx) {
  const onnx::AttributeProto *body = ctx.attr("body");
  if (!body || !body->has_g())
    return ctx.invalid("missing graph attribute 'body'");
  int numCarried = ctx.numInputs() - 2;
  int numScans = body->g().output_size() - 1 - numCarried;
  if (numCarried < 0 || body->g().input_size() != 2 + numCarried ||
      numScans < 0 || ctx.numOutputs() > numCarried + numScans)
    return ctx.invalid(
        llvm::formatv(
            "'body' with {0} inputs and {1} outputs for {2} node inputs and "
            "{3} "
            "node outputs (the body takes the iteration number, the condition "
            "and the loop-carried values; it yields the condition, the "
            "loop-carried values and the scan outputs)",
            body->g().input_size(), body->g().output_size(), ctx.numInputs(),
            ctx.numOutputs())
            .str());

  std::optional<int64_t> tripCount;
  if (ctx.hasInput(0)) {
    const HostTensor *m = ctx.constantInput(0);
    if (!m)
      return ctx.unsupported("non-constant 'M' input (tfcc unrolls a Loop "
                             "whose trip count is known when importing)");
    if (m->isFloat() || m->numElements() != 1)
      return ctx.invalid("trip count of type " + typeName(m->type()));
    tripCount = std::max<int64_t>(m->ints[0], 0);
  }
  SubgraphValue condition = hostScalar(ctx.builder().getI1Type(), 1);
  if (ctx.hasInput(1)) {
    FailureOr<SubgraphValue> c = inputValue(ctx, 1);
    if (failed(c))
      return failure();
    condition = *c;
  }
  SubgraphValues carried;
  for (int i = 0; i < numCarried; ++i) {
    FailureOr<SubgraphValue> v = inputValue(ctx, 2 + i);
    if (failed(v))
      return failure();
    carried.push_back(std::move(*v));
  }

  std::vector<SubgraphValues> scans(numScans);
  for (int64_t iteration = 0;; ++iteration) {
    std::optional<bool> go = knownTruth(condition);
    if (!go)
      return ctx.unsupported(
          iteration == 0 ? llvm::Twine("non-constant 'cond' input (tfcc "
                                       "unrolls a Loop whose condition is "
                                       "known when importing)")
                         : llvm::Twine("condition computed at run time by "
                                       "'body' (tfcc unrolls a Loop whose "
                                       "condition is known when importing)"));
    if (!*go || (tripCount && iteration >= *tripCount))
      break;
    if (iteration >= kMaxLoopIterations)
      return ctx.unsupported(
          llvm::formatv("loop of more than {0} iterations (tfcc unrolls loops: "
                        "at most {0} "
                        "iterations, {1} nodes in all subgraphs)",
                        kMaxLoopIterations, ImportContext::kMaxSubgraphNodes)
              .str());
    SubgraphValues inputs = {hostScalar(ctx.builder().getI64Type(), iteration),
                             condition};
    inputs.insert(inputs.end(), carried.begin(), carried.end());
    FailureOr<SubgraphValues> outputs = ctx.importSubgraph("body", inputs);
    if (failed(outputs))
      return failure();
    condition = (*outputs)[0];
    for (int i = 0; i < numCarried; ++i)
      carried[i] = (*outputs)[1 + i];
    for (int k = 0; k < numScans; ++k)
      scans[k].push_back((*outputs)[1 + numCarried + k]);
  }

  for (int i = 0; i < numCarried; ++i) {
    if (carried[i].value)
      ctx.setOutput(i, carried[i].value);
    else
      ctx.setConstantOutput(i, std::move(*carried[i].host));
  }
  for (int k = 0; k < numScans; ++k) {
    if (!ctx.hasOutput(numCarried + k))
      continue;
    if (scans[k].empty())
      return ctx.unsupported("scan output " + llvm::Twine(k) +
                             " of a loop that runs no iteration (its shape "
                             "is unknown)");
    FailureOr<Value> stacked = stackIterations(ctx, scans[k], k);
    if (failed(stacked))
      return failure();
    ctx.setOutput(numCarried + k, *stacked);
  }
  return success();
}

} // namespace
} // namespace tfcc::onnx_import

void tfcc::onnx_import::registerControlFlowConverters(ConverterTable &table) {
  table["If"] = convertIf;
  table["Loop"] = convertLoop;
}
