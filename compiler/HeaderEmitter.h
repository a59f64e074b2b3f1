//===- HeaderEmitter.h - The C header of a compiled model -----------------===//
//
// Emits the self-contained C99 header that ships with a compiled model (modeled
// on tfcompile's codegen): a banner, the runtime's public types, memory-size
// macros and the documented prototypes of the functions the model exports.
//
// The compiler must export exactly the symbols named by computeCNames(): the
// emitter only declares them.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_HEADEREMITTER_H
#define TFCC_COMPILER_HEADEREMITTER_H

#include "compiler/ModelSignature.h"

#include <string>
#include <utility>
#include <vector>

namespace tfcc {

/// The C names of a model's interface. Deterministic functions of the
/// signature.
struct CNames {
  struct Entry {
    std::string function;            // "mnist_cnn_predict"
    std::string macro;               // "MNIST_CNN_PREDICT" (+ "_ARENA_BYTES")
    std::vector<std::string> inputs; // parameter names, sanitized and unique
    std::vector<std::string> outputs;
  };
  std::string prefix;         // lower-case function prefix: "mnist_cnn"
  std::string macroPrefix;    // upper-case macro prefix: "MNIST_CNN"
  std::string includeGuard;   // "MNIST_CNN_TFCC_H_"
  std::vector<Entry> entries; // parallel to ModelSignature::entries
  /// The index macro of each named dimension ("OCR_DIM_W"; + "_MAX" for its
  /// bound), parallel to ModelSignature::dims.
  std::vector<std::string> dimMacros;
};

/// A function every compiled model exports besides its entries, named
/// "<prefix>_<suffix>". The one source of the header's prototypes, of the
/// forwarders AbiEmitter emits into the runtime and of the names entry
/// functions must avoid (modelFunctions()).
struct ModelFunction {
  const char *suffix; // "init"
  const char *result; // C result type: "tfcc_status_t"
  const char *params; // C parameters, "type name, ...": "int64_t max_batch"
  /// The runtime function the export forwards its arguments to; nullptr for
  /// "<prefix>_info", which returns the model's reflective table.
  const char *runtimeName;
  bool passesInfo;   // the runtime function takes the model's table first
  bool statefulOnly; // exported only by models with variables
  /// The header comment before the prototype ("$p": the function prefix,
  /// "$P": the macro prefix, "$stack_kib": the kernels' stack need), or
  /// nullptr when the previous row's comment covers this one too.
  const char *doc;
  bool blankLineAfter; // a blank line after the prototype in the header
};

/// Every ModelFunction, in the order the header declares them.
const std::vector<ModelFunction> &modelFunctions();

/// Splits ModelFunction::params into (type, name) pairs; "void" or "" gives
/// none.
std::vector<std::pair<std::string, std::string>>
splitCParams(const std::string &params);

/// Turns `name` into a C identifier: characters other than [A-Za-z0-9_] become
/// '_', runs of '_' collapse to one, and a name that is empty or starts with a
/// digit or '_' gets "arg" in front (so "0" -> "arg_0" and "_x" -> "arg_x").
/// Keeps case.
std::string sanitizeCIdentifier(const std::string &name);

/// Computes every C name of the interface:
///  - the prefix is ModelSignature::prefix (or modelName when empty),
///    sanitized and lower-cased for functions, upper-cased for macros;
///  - entry functions are "<prefix>_<entry>", keeping the entry's case, with
///    "_2", "_3", ... on a clash (with each other, case-insensitively, or with
///    the suffixes of modelFunctions() the model exports);
///  - parameter names avoid C and C++ keywords, common libc macros, "ctx" and
///    "batch" by a trailing '_', and duplicates by "_2", "_3", ...
/// The compiler exports exactly these symbols.
CNames computeCNames(const ModelSignature &sig);

/// Returns the whole generated header. `typesHeaderText` is the text of
/// runtime/include/tfcc/tfcc_types.h, embedded verbatim after the banner.
std::string emitHeader(const ModelSignature &sig,
                       const std::string &typesHeaderText);

/// The text of runtime/include/tfcc/tfcc_types.h this compiler was built with
/// (defined in a file that compiler/support.cmake generates at configure time).
const char *tfccTypesHeaderText();

} // namespace tfcc

#endif // TFCC_COMPILER_HEADEREMITTER_H
