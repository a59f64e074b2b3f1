//===- TrainStepNames.h - the names of a train step's halves -----*- C++
//-*-===//
//
// No MLIR: read by tfcc-autodiff, which creates the entries, and by the tools
// that call them (tfcc-train --mpi) or must refuse them (tfcc-serve: they
// update the state).
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_DIALECTS_GRAPH_IR_TRAINSTEPNAMES_H
#define TFCC_DIALECTS_GRAPH_IR_TRAINSTEPNAMES_H

#include <string>
#include <string_view>

namespace mlir::graph {

/// The entries tfcc --split-train-step adds beside a train step named `step`
/// (docs/distributed.md): compute_gradients and apply_gradients for a step
/// named train_step (<prefix>_compute_gradients in the header), else
/// <step>_compute_gradients and <step>_apply_gradients.
inline std::string trainStepHalfName(std::string_view step,
                                     std::string_view half) {
  std::string name = step == "train_step" ? "" : std::string(step) + "_";
  return name + std::string(half);
}
inline std::string computeGradientsName(std::string_view step) {
  return trainStepHalfName(step, "compute_gradients");
}
inline std::string applyGradientsName(std::string_view step) {
  return trainStepHalfName(step, "apply_gradients");
}

} // namespace mlir::graph

#endif // TFCC_DIALECTS_GRAPH_IR_TRAINSTEPNAMES_H
