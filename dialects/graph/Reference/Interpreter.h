//===- Interpreter.h - reference interpreter of the graph IR ----*- C++ -*-===//
//
// The numerical oracle of tfcc: evaluates a graph-IR function on concrete
// tensors with plain loops, op by op. It shares no code with the lowering;
// its conventions (rounding, summation order, NaN) are in docs/interpreter.md.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_DIALECTS_GRAPH_REFERENCE_INTERPRETER_H
#define TFCC_DIALECTS_GRAPH_REFERENCE_INTERPRETER_H

#include "dialects/graph/Reference/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace tfcc::ref {

/// Evaluates the public functions of a graph-IR module. Variables start at
/// their initial values; a `graph.assign` (in a training entry point made by
/// tfcc-autodiff) changes them, and later reads and runs see the new value.
class Interpreter {
public:
  /// Prepares `module`, which must outlive the interpreter. Every variable is
  /// initialized exactly like the compiler does, with getVariableInitialValue;
  /// a variable whose initializer fails makes each run that reads it fail.
  explicit Interpreter(mlir::ModuleOp module);

  /// Runs public function `entry` on `inputs`. Each input is checked against
  /// its argument type (rank, static dimensions, element kind, value count);
  /// dynamic dimensions take the input's size. On failure returns failure()
  /// and error() says why, naming the op's location for runtime errors.
  mlir::FailureOr<std::vector<Tensor>> run(llvm::StringRef entry,
                                           llvm::ArrayRef<Tensor> inputs);

  /// Runs `entry` `steps` times on the same inputs (e.g. a train step made by
  /// tfcc-autodiff) and returns the first result of each run (the losses).
  mlir::FailureOr<std::vector<Tensor>>
  runSteps(llvm::StringRef entry, llvm::ArrayRef<Tensor> inputs,
           unsigned steps);

  /// The current value of variable `name`; failure (see error()) if there is
  /// no such variable or it could not be initialized.
  mlir::FailureOr<Tensor> variable(llvm::StringRef name);

  /// Replaces the current value of variable `name` (kind and shape must fit
  /// its type; f32 values are rounded to float).
  mlir::LogicalResult setVariable(llvm::StringRef name, Tensor value);

  /// Every variable back to its initial value.
  void resetVariables();

  /// The names of the module's variables, in declaration order.
  std::vector<std::string> variableNames() const;

  /// Why the last run failed; empty after a successful run.
  const std::string &error() const { return error_; }

private:
  struct Variable {
    std::optional<Tensor> value;
    std::optional<Tensor> initial;
    std::string error; // why `value` is missing
  };

  mlir::FailureOr<std::vector<Tensor>>
  call(mlir::func::FuncOp func, std::vector<Tensor> arguments, unsigned depth);
  mlir::LogicalResult fail(const llvm::Twine &message);

  mlir::ModuleOp module_;
  llvm::StringMap<Variable> variables_;
  std::string error_;
};

} // namespace tfcc::ref

#endif // TFCC_DIALECTS_GRAPH_REFERENCE_INTERPRETER_H
