//===- Compiler.cpp - the library behind the tfcc tool --------------------===//
//
// model.mlir -> verify -> graph pipeline -> linalg -> bufferize -> arena ->
// LLVM dialect -> LLVM IR + C interface -> object -> (lld) model.so + model.h
//
//===----------------------------------------------------------------------===//

#include "compiler/Compiler.h"
#include "passes/CheckpointWeights.h"

#include "compiler/AbiEmitter.h"
#include "compiler/Calibration.h"
#include "compiler/ElementTypes.h"
#include "compiler/Frontend.h"
#include "compiler/GraphExport.h"
#include "compiler/GraphViews.h"
#include "compiler/HeaderEmitter.h"
#include "compiler/Linker.h"
#include "compiler/Pipeline.h"
#include "compiler/Registration.h"
#include "dialects/graph/IR/DimNames.h"
#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/Initializers.h"
#include "passes/Passes.h"
#include "tfcc/tfcc_runtime.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/TargetParser/ARMTargetParser.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>

using namespace mlir;

namespace tfcc {
namespace {

/// k of named dimension `name` in `dims` (1-based), 0 when it is not one
/// (the batch).
size_t findNamedDim(const std::vector<DimSignature> &dims, StringRef name) {
  for (size_t k = 0; k < dims.size(); ++k)
    if (dims[k].name == name)
      return k + 1;
  return 0;
}

/// The dims of `arg` renamed by a kDimNamesAttr array (one string per dim):
/// dynamic dims with the name of a named dimension become it.
void applyDimNames(ArgSignature &arg, ArrayAttr names,
                   const std::vector<DimSignature> &dims) {
  if (!names || names.size() != arg.dims.size())
    return;
  for (size_t i = 0; i < arg.dims.size(); ++i)
    if (arg.dims[i] == kDynamicDim)
      if (auto name = dyn_cast<StringAttr>(names[i]))
        if (size_t k = findNamedDim(dims, name.getValue()))
          arg.dims[i] = namedDim(k);
}

FailureOr<ArgSignature> argSignature(Location loc, Type type, DictionaryAttr attrs,
                                     const std::string &fallbackName) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<DType> dtype =
      tensor ? dtypeOfElementType(tensor.getElementType()) : std::nullopt;
  if (!dtype)
    return emitError(loc) << "entry point argument of type " << type
                          << " is not supported at the C interface";
  ArgSignature arg;
  arg.name = fallbackName;
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>(kArgNameAttr))
      arg.name = name.str();
  arg.dtype = *dtype;
  for (int64_t d : tensor.getShape())
    arg.dims.push_back(ShapedType::isDynamic(d) ? kDynamicDim : d);
  return arg;
}

/// The variables of a training model as tfcc-layout-state placed them in
/// the state memory, each with its initial value; nothing for a model
/// without state.
LogicalResult readStateLayout(ModuleOp module, ModelSignature &sig) {
  auto stateBytes =
      module->getAttrOfType<IntegerAttr>(mlir::tfcc::kStateBytesAttr);
  if (!stateBytes)
    return success();
  for (auto variable : module.getOps<graph::VariableOp>()) {
    RankedTensorType type = variable.getTensorType();
    auto offset =
        variable->getAttrOfType<IntegerAttr>(mlir::tfcc::kStateOffsetAttr);
    std::optional<DType> dtype = dtypeOfElementType(type.getElementType());
    if (!offset || !dtype)
      return variable.emitError() << "internal error: variable without a "
                                     "place in the state memory";
    VariableSignature v;
    v.name = variable.getSymName().str();
    v.dtype = *dtype;
    v.dims.assign(type.getShape().begin(), type.getShape().end());
    v.bytes = type.getNumElements() * byteSize(*dtype);
    v.offset = offset.getInt();
    v.trainable = variable.getTrainable();
    FailureOr<DenseElementsAttr> init =
        graph::getVariableInitialValue(variable);
    if (failed(init))
      return variable.emitError() << "cannot compute the initial value of "
                                     "variable '"
                                  << v.name << "'";
    ArrayRef<char> raw = init->getRawData();
    size_t elementBytes = byteSize(*dtype);
    v.init.resize(v.bytes);
    if (init->isSplat()) {
      if (raw.size() < elementBytes)
        return variable.emitError() << "unexpected initial value layout";
      for (uint64_t i = 0; i < v.bytes; i += elementBytes)
        std::memcpy(v.init.data() + i, raw.data(), elementBytes);
    } else {
      if (raw.size() != v.bytes)
        return variable.emitError() << "unexpected initial value layout";
      std::memcpy(v.init.data(), raw.data(), v.bytes);
    }
    sig.variables.push_back(std::move(v));
  }
  sig.stateBytes = stateBytes.getInt();
  sig.stateful = true;
  return success();
}

/// Checks the inputs' kDimNamesAttr (one string per dim, names on dynamic
/// dims only) and records --dim-bound as the module's kDimBoundsAttr; every
/// bound must name a dimension of some input.
bool applyDimBounds(ModuleOp module, const std::map<std::string, int64_t> &bounds,
                    llvm::raw_ostream &errors) {
  std::set<std::string> names;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || !func.isPublic())
      continue;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      Attribute attr = func.getArgAttr(i, graph::kDimNamesAttr);
      if (!attr)
        continue;
      auto type = dyn_cast<RankedTensorType>(func.getArgument(i).getType());
      auto array = dyn_cast<ArrayAttr>(attr);
      auto fail = [&](const Twine &why) {
        errors << "tfcc: error: input " << i << " of entry '"
               << func.getSymName() << "': " << graph::kDimNamesAttr
               << " " << why << "\n";
        return false;
      };
      if (!type || !array || array.size() != static_cast<size_t>(type.getRank()))
        return fail("must be an array of one string per dimension");
      for (auto [dim, name] : llvm::enumerate(array)) {
        auto text = dyn_cast<StringAttr>(name);
        if (!text)
          return fail("must be an array of one string per dimension");
        if (text.getValue().empty())
          continue;
        if (!type.isDynamicDim(dim))
          return fail("names static dimension " + Twine(dim) + " ('" +
                      text.getValue() + "'): only dynamic dimensions have names");
        names.insert(text.str());
      }
    }
  }
  SmallVector<NamedAttribute> entries;
  Builder b(module.getContext());
  for (const auto &[name, bound] : bounds) {
    if (!names.count(name)) {
      errors << "tfcc: error: --dim-bound " << name << "=" << bound
             << " cannot take effect: no dynamic input dimension is named '"
             << name << "'";
      if (names.empty())
        errors << " (the inputs have no named dimensions beyond the batch)";
      else {
        errors << " (named: ";
        for (auto [i, known] : llvm::enumerate(names))
          errors << (i ? ", " : "") << known;
        errors << ")";
      }
      errors << "\n";
      return false;
    }
    entries.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(bound)));
  }
  if (!entries.empty())
    module->setAttr(graph::kDimBoundsAttr, b.getDictionaryAttr(entries));
  return true;
}

/// The C interface, read from the public functions of the verified model.
FailureOr<ModelSignature> buildSignature(ModuleOp module,
                                         const std::string &prefix) {
  ModelSignature sig;
  sig.modelName = module.getSymName() ? module.getSymName()->str() : "model";
  sig.prefix = prefix;
  if (auto bounds =
          module->getAttrOfType<DictionaryAttr>(graph::kDimBoundsAttr))
    for (NamedAttribute bound : bounds)
      if (auto value = dyn_cast<IntegerAttr>(bound.getValue()))
        sig.dims.push_back({bound.getName().str(), value.getInt()});
  if (sig.dims.size() > TFCC_RT_MAX_DIMS)
    return emitError(module.getLoc())
           << "the model has " << sig.dims.size()
           << " named dimensions: a compiled model has at most "
           << TFCC_RT_MAX_DIMS << " (TFCC_RT_MAX_DIMS)";
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || !func.isPublic())
      continue;
    EntrySignature entry;
    entry.name = func.getSymName().str();
    FunctionType type = func.getFunctionType();
    for (unsigned i = 0; i < type.getNumInputs(); ++i) {
      auto arg = argSignature(func.getLoc(), type.getInput(i),
                              func.getArgAttrDict(i), "input_" + std::to_string(i));
      if (failed(arg))
        return failure();
      applyDimNames(*arg,
                    func.getArgAttrOfType<ArrayAttr>(i, graph::kDimNamesAttr),
                    sig.dims);
      entry.inputs.push_back(*arg);
    }
    for (unsigned i = 0; i < type.getNumResults(); ++i) {
      auto arg =
          argSignature(func.getLoc(), type.getResult(i), func.getResultAttrDict(i),
                       "output_" + std::to_string(i));
      if (failed(arg))
        return failure();
      entry.outputs.push_back(*arg);
    }
    // The runtime passes an entry's buffers in one array of this size.
    if (entry.inputs.size() + entry.outputs.size() > TFCC_RT_MAX_ARGS)
      return emitError(func.getLoc())
             << "entry point '" << entry.name << "' has "
             << entry.inputs.size() + entry.outputs.size() << " arguments ("
             << entry.inputs.size() << " inputs, "
             << entry.outputs.size() << " outputs"
             << "): a compiled model's entry takes at most "
             << TFCC_RT_MAX_ARGS << " (TFCC_RT_MAX_ARGS)";
    sig.entries.push_back(std::move(entry));
  }
  if (sig.entries.empty())
    return emitError(module.getLoc())
           << "model '" << sig.modelName
           << "' has no entry point (a public func.func)";
  for (auto variable : module.getOps<graph::VariableOp>()) {
    RankedTensorType type = variable.getTensorType();
    uint64_t bytes = type.getNumElements() *
                     std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    sig.weightBytes += bytes;
    ++sig.numWeights;
    if (std::optional<DType> dtype = dtypeOfElementType(type.getElementType()))
      sig.weightBytesByDtype[*dtype] += bytes;
  }
  if (failed(readStateLayout(module, sig)))
    return failure();
  return sig;
}

/// fixed + perBatch * batch, as the report prints it.
/// `full` always shows both parts (the summary lines of a dynamic entry).
std::string affineText(int64_t fixed, int64_t perBatch, bool full = false) {
  if (perBatch == 0 && !full)
    return std::to_string(fixed);
  std::string per = std::to_string(perBatch) + "*batch";
  return fixed == 0 && !full ? per : std::to_string(fixed) + " + " + per;
}

std::pair<int64_t, int64_t> pairOf(DictionaryAttr dict, StringRef name) {
  auto a = dict ? dict.getAs<DenseI64ArrayAttr>(name) : DenseI64ArrayAttr();
  if (!a || a.size() != 2)
    return {0, 0};
  return {a[0], a[1]};
}

/// The memory plan of one entry, as tfcc-arena-allocation recorded it.
void reportPlan(llvm::raw_ostream &os, const EntrySignature &entry,
                DictionaryAttr plan) {
  os << "Memory plan of entry '" << entry.name << "'";
  if (entry.hasDynamicBatch())
    os << " (dynamic batch: sizes and offsets are fixed + per_batch*batch)";
  os << "\n";
  if (!plan) {
    os << "  (no plan recorded)\n\n";
    return;
  }
  auto buffers = plan.getAs<ArrayAttr>("buffers");
  os << "  live ranges are [first, last] positions among the entry's ops after "
        "bufferization\n";
  os << llvm::formatv("  {0,4}  {1,-20} {2,-20} {3,-13} {4}\n", "#", "offset",
                      "size", "live", "buffer");
  int64_t index = 0;
  for (Attribute a : buffers ? buffers.getValue() : ArrayRef<Attribute>()) {
    auto buffer = dyn_cast<DictionaryAttr>(a);
    if (!buffer)
      continue;
    auto [of, op] = pairOf(buffer, "offset");
    auto [sf, sp] = pairOf(buffer, "size");
    auto [first, last] = pairOf(buffer, "live");
    std::string name, where;
    if (auto n = buffer.getAs<StringAttr>("name"))
      name = n.str();
    if (auto l = buffer.getAs<StringAttr>("loc"))
      where = l.str();
    std::string label = name.empty() ? where
                        : where.empty() ? name
                                        : name + " (" + where + ")";
    std::string live = "[" + std::to_string(first) + ", " +
                       std::to_string(last) + "]";
    os << llvm::formatv("  {0,4}  {1,-20} {2,-20} {3,-13} {4}\n", index++,
                        affineText(of, op), affineText(sf, sp), live, label);
  }
  auto [bf, bp] = pairOf(plan, "bound");
  auto [nf, np] = pairOf(plan, "naive");
  int64_t boundAtOne = 0;
  if (auto b = plan.getAs<IntegerAttr>("bound_at_1"))
    boundAtOne = b.getInt();
  int64_t pf = entry.arenaBytesFixed, pp = entry.arenaBytesPerBatch;
  bool dynamic = entry.hasDynamicBatch();
  os << "  planned arena:  " << affineText(pf, pp, dynamic) << " bytes";
  if (dynamic)
    os << " (" << pf + pp << " at batch 1)";
  os << "\n  liveness bound: ";
  if (dynamic)
    os << boundAtOne << " bytes at batch 1 (per component: "
       << affineText(bf, bp, true) << ")";
  else
    os << boundAtOne << " bytes";
  os << "\n  naive sum:      " << affineText(nf, np, dynamic) << " bytes";
  if (dynamic)
    os << " (" << nf + np << " at batch 1)";
  os << "\n";
  if (boundAtOne > 0)
    os << llvm::formatv("  planned / bound{0}: {1:F3}\n",
                        dynamic ? " at batch 1" : "",
                        double(pf + pp) / double(boundAtOne));
  os << "\n";
}

/// Reads the arena sizes tfcc-arena-allocation recorded on each entry, and
/// prints the memory plans to `report` when there is one.
void recordArenaSizes(ModuleOp module, ArrayRef<std::string> implNames,
                      ModelSignature &sig, llvm::raw_ostream *report) {
  // Derived dimensions follow the named ones, under the planner's names
  // until the outputs below have taken them.
  size_t firstDerived = sig.dims.size();
  if (auto derived = module->getAttrOfType<ArrayAttr>(graph::kDerivedDimsAttr))
    for (Attribute record : derived) {
      auto dict = cast<DictionaryAttr>(record);
      sig.dims.push_back({dict.getAs<StringAttr>("name").str(),
                          dict.getAs<IntegerAttr>("bound").getInt(),
                          /*derived=*/true});
    }
  for (auto [name, entry] : llvm::zip(implNames, sig.entries)) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func)
      continue;
    if (auto fixed = func->getAttrOfType<IntegerAttr>("tfcc.arena_fixed"))
      entry.arenaBytesFixed = fixed.getInt();
    if (auto per = func->getAttrOfType<IntegerAttr>("tfcc.arena_per_batch"))
      entry.arenaBytesPerBatch = per.getInt();
    // The planner named the dynamic dims of each output (the lowered
    // function's output arguments follow the inputs and the state).
    unsigned firstOutput = entry.inputs.size() + (sig.stateful ? 1 : 0);
    for (auto [i, output] : llvm::enumerate(entry.outputs))
      if (firstOutput + i < func.getNumArguments())
        applyDimNames(output,
                      func.getArgAttrOfType<ArrayAttr>(
                          firstOutput + i, graph::kDimNamesAttr),
                      sig.dims);
    auto plan = func->getAttrOfType<DictionaryAttr>("tfcc.arena_plan");
    auto [nf, np] = pairOf(plan, "naive");
    entry.arenaNaiveFixed = nf;
    entry.arenaNaivePerBatch = np;
    if (report)
      reportPlan(*report, entry, plan);
  }
  // The names users see: "<output name>.<dim>".
  for (const EntrySignature &entry : sig.entries)
    for (const ArgSignature &output : entry.outputs)
      for (auto [d, dim] : llvm::enumerate(output.dims))
        if (dim < kDynamicDim && namedDimIndex(dim) > firstDerived)
          sig.dims[namedDimIndex(dim) - 1].name =
              output.name + "." + std::to_string(d);
}

/// Checks --max-arena: the planned arena of every entry at batch 1.
bool checkArenaLimit(const ModelSignature &sig, int64_t limit,
                     llvm::raw_ostream &errors) {
  if (limit < 0)
    return true;
  bool ok = true;
  for (const EntrySignature &entry : sig.entries) {
    bool dynamic = entry.hasDynamicBatch();
    uint64_t bytes = entry.arenaBytesFixed +
                     (dynamic ? entry.arenaBytesPerBatch : 0);
    bytes = (bytes + 63) / 64 * 64;
    if (bytes <= static_cast<uint64_t>(limit))
      continue;
    errors << "tfcc: error: entry '" << entry.name << "' needs an arena of "
           << bytes << " bytes";
    if (dynamic)
      errors << " at batch 1 (" << entry.arenaBytesFixed << " + "
             << entry.arenaBytesPerBatch << " * batch)";
    errors << ", more than --max-arena=" << limit << "\n";
    ok = false;
  }
  return ok;
}

bool writeFile(const std::string &path, llvm::StringRef contents,
               llvm::raw_ostream &errors) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    errors << "tfcc: error: cannot write '" << path << "': " << ec.message()
           << "\n";
    return false;
  }
  os << contents;
  return true;
}

/// Writes the module's text to `path` ("-" = stdout).
bool printModule(ModuleOp module, const std::string &path,
                 llvm::raw_ostream &errors) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  os << "\n"; // as mlir-opt and tfcc-opt end their output
  if (path == "-") {
    llvm::outs() << text;
    return true;
  }
  return writeFile(path, text, errors);
}

/// The triple --target names, normalized, as LLVM and the runtime folders
/// read it:
/// Debian's armhf triple (arm-linux-gnueabihf, no ARM version) is ARMv7-A, as
/// Debian's armhf port and its cross compilers take it.
/// What a --target=cuda build cannot do yet, refused by name (docs/cuda.md).
bool checkCudaBuild(const CompileOptions &o, llvm::raw_ostream &errors) {
  const char *refused = nullptr;
  if (!o.quantize.empty())
    refused = "--quantize: the int8 kernels are CPU kernels";
  else if (o.checkNumerics)
    refused = "--check-numerics: its report is written by host code";
  else if (!o.profileHooks)
    refused = "--no-profile-hooks: a CUDA build has no profiling hooks";
  if (!refused)
    return true;
  errors << "tfcc: error: --target=cuda cannot compile " << refused << "\n";
  return false;
}

/// The CUDA toolkit's tools gpu-module-to-binary runs, there before it runs.
bool checkCudaToolkit(const GpuCodeOptions &gpu, llvm::raw_ostream &errors) {
  for (const char *tool : {"ptxas", "fatbinary"}) {
    llvm::SmallString<128> path(gpu.toolkit);
    llvm::sys::path::append(path, "bin", tool);
    if (llvm::sys::fs::can_execute(path))
      continue;
    errors << "tfcc: error: --target=cuda builds the GPU binary with the "
              "CUDA toolkit's ptxas and fatbinary: '"
           << path << "' is missing (give the toolkit with --cuda-toolkit=DIR "
           << "or CUDA_HOME)\n";
    return false;
  }
  return true;
}

llvm::Triple targetTripleOf(const CompileOptions &o) {
  // Normalized: read positionally, "armv7a-linux-gnueabihf" would have no
  // OS or environment, and so the soft-float calling convention.
  llvm::Triple triple(llvm::Triple::normalize(
      o.targetTriple.empty() ? llvm::sys::getDefaultTargetTriple()
                             : o.targetTriple));
  if (triple.isARM() && triple.getArchName() == "arm")
    triple.setArchName("armv7a");
  return triple;
}

/// Whether any op of `module` takes or gives an f16 / bf16 tensor.
bool hasLowPrecisionFloats(ModuleOp module) {
  auto low = [](Type type) {
    Type element = getElementTypeOrSelf(type);
    return element.isF16() || element.isBF16();
  };
  return module
      ->walk([&](Operation *op) {
        return llvm::any_of(op->getOperandTypes(), low) ||
                       llvm::any_of(op->getResultTypes(), low)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// An ARM target without an OS ("none": firmware).
bool isBareMetalArm(const llvm::Triple &triple) {
  return (triple.isARM() || triple.isThumb()) &&
         triple.getOS() == llvm::Triple::UnknownOS &&
         (triple.getEnvironment() == llvm::Triple::EABI ||
          triple.getEnvironment() == llvm::Triple::EABIHF);
}

/// For a target other than the host's architecture that tfcc builds a
/// runtime for: the folder (Debian's multiarch name) of its runtime archive
/// beside the host's (lib/<folder>/libtfcc_runtime.a, built by CMakeLists.txt
/// with runtime/toolchains/<folder>.cmake) and of its libc in a cross sysroot
/// (/usr/<folder>/lib). Empty when there is none.
llvm::StringRef crossRuntimeFolder(const llvm::Triple &triple) {
  // Cortex-M4F/M7 (ARMv7E-M, hard float), bare metal: the freestanding
  // runtime (no OS, so no sysroot: picolibc's headers).
  if (isBareMetalArm(triple) &&
      triple.getEnvironment() == llvm::Triple::EABIHF &&
      llvm::ARM::parseArch(triple.getArchName()) ==
          llvm::ARM::ArchKind::ARMV7EM)
    return "thumbv7em-none-eabihf";
  if (!triple.isOSLinux())
    return "";
  if (triple.getArch() == llvm::Triple::aarch64 &&
      triple.getEnvironment() == llvm::Triple::GNU)
    return "aarch64-linux-gnu";
  // The runtime's ARM build is ARMv7-A with NEON.
  if ((triple.isARM() || triple.isThumb()) &&
      triple.getEnvironment() == llvm::Triple::GNUEABIHF &&
      llvm::ARM::parseArchVersion(triple.getArchName()) >= 7 &&
      llvm::ARM::parseArchProfile(triple.getArchName()) ==
          llvm::ARM::ProfileKind::A)
    return "arm-linux-gnueabihf";
  return "";
}

/// The newest libgcc.a of Debian's cross GCC for `folder`
/// (/usr/lib/gcc-cross/<folder>/<version>/), or "" when there is none.
std::string crossLibgcc(llvm::StringRef folder) {
  llvm::SmallString<128> base("/usr/lib/gcc-cross");
  llvm::sys::path::append(base, folder);
  std::string best;
  int bestVersion = -1;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(base, ec), end; !ec && it != end;
       it.increment(ec)) {
    int version = 0;
    if (llvm::StringRef(llvm::sys::path::filename(it->path()))
            .getAsInteger(10, version) ||
        version <= bestVersion)
      continue;
    llvm::SmallString<256> path(it->path());
    llvm::sys::path::append(path, "libgcc.a");
    if (llvm::sys::fs::exists(path)) {
      best = path.str().str();
      bestVersion = version;
    }
  }
  return best;
}

/// The section of a model's constants (its weights, packed for the kernels):
/// firmware places it in flash by name (docs/embedded.md).
constexpr llvm::StringLiteral kWeightsSection = ".rodata.tfcc_weights";

/// The targets tfcc links models for, for error messages.
constexpr const char *kLinkableTargets =
    "x86_64-linux-gnu (the host), aarch64-linux-gnu, armv7a-linux-gnueabihf "
    "and thumbv7em-none-eabihf";

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const CompileOptions &o,
                                                         std::string &error) {
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  std::string triple = targetTripleOf(o).str();
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    error = "unknown --target '" + o.targetTriple +
            "': LLVM has no backend for it (tfcc links models for " +
            kLinkableTargets + "; --emit=llvm and --emit=mlir take any " +
            "triple LLVM knows)";
    return nullptr;
  }
  std::string cpu = o.cpu;
  std::string features;
  if (cpu.empty() || cpu == "native" || cpu == "host") {
    if (o.targetTriple.empty() || cpu == "native" || cpu == "host") {
      cpu = llvm::sys::getHostCPUName().str();
      llvm::SubtargetFeatures f;
      for (auto &feature : llvm::sys::getHostCPUFeatures())
        f.AddFeature(feature.first(), feature.second);
      features = f.getString();
    } else {
      cpu = "generic";
    }
  }
  llvm::Triple parsed(triple);
  // The Cortex-M target means a Cortex-M4F unless --cpu says otherwise (the
  // CPU the freestanding runtime is built for).
  if (cpu == "generic" && crossRuntimeFolder(parsed) == "thumbv7em-none-eabihf")
    cpu = "cortex-m4";
  // On ARM the FPU (and NEON) comes with the CPU, as clang adds it (LLVM's
  // ARM CPUs alone leave it out); a generic ARMv7-A gets NEON, which the
  // runtime is built for (clang's default there is VFPv3-D16 only).
  if (features.empty() && (parsed.isARM() || parsed.isThumb())) {
    llvm::ARM::FPUKind kind =
        cpu == "generic"
            ? llvm::ARM::parseFPU("neon")
            : llvm::ARM::getDefaultFPU(
                  cpu, llvm::ARM::parseArch(parsed.getArchName()));
    std::vector<llvm::StringRef> fpu;
    llvm::ARM::getFPUFeatures(kind, fpu);
    llvm::SubtargetFeatures f;
    for (llvm::StringRef feature : fpu)
      f.AddFeature(feature);
    features = f.getString();
  }
  // LLVM only warns about an unknown CPU and then fails deep in code
  // generation: refuse it first.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, "", ""));
  if (subtarget && !subtarget->isCPUStringValid(cpu)) {
    std::string given = o.targetTriple.empty() ? triple : o.targetTriple;
    error = "unknown --cpu '" + cpu + "' for target '" + given +
            "' (llc-19 -mtriple=" + given + " -mcpu=help lists the CPUs)";
    return nullptr;
  }
  llvm::TargetOptions options;
  // Firmware is linked at fixed addresses: no GOT.
  llvm::Reloc::Model relocation =
      isBareMetalArm(parsed) ? llvm::Reloc::Static : llvm::Reloc::PIC_;
  // Code generation follows -O as clang's does, except that -O2 keeps the
  // aggressive level it has always had (every benchmark figure used it);
  // -O0 selects instructions fast (FastISel) for huge graphs.
  static constexpr llvm::CodeGenOptLevel kCodeGenLevels[] = {
      llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
      llvm::CodeGenOptLevel::Aggressive, llvm::CodeGenOptLevel::Aggressive};
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, options, relocation, std::nullopt,
      kCodeGenLevels[std::clamp(o.optLevel, 0, 3)]));
  if (!tm) {
    error = "cannot create a target machine for '" + triple + "'";
    return nullptr;
  }
  // The code must run with the runtime built for the target.
  llvm::StringRef folder = crossRuntimeFolder(tm->getTargetTriple());
  if (folder == "arm-linux-gnueabihf" &&
      !tm->getMCSubtargetInfo()->checkFeatures("+neon")) {
    error = "--cpu '" + cpu + "' has no NEON, which the runtime for --target '" +
            o.targetTriple + "' is built for (ARMv7-A with NEON)";
    return nullptr;
  }
  if (folder == "thumbv7em-none-eabihf" &&
      !tm->getMCSubtargetInfo()->checkFeatures("+vfp2sp")) {
    error = "--cpu '" + cpu + "' has no floating-point unit, which the " +
            "runtime for --target '" + o.targetTriple +
            "' is built for (a Cortex-M4F's single-precision FPU, hard-float "
            "calls)";
    return nullptr;
  }
  return tm;
}

/// The runtime archive for `tm` beside the default one: with an explicit
/// --cpu on x86-64, the archive whose kernels stop at that CPU's level (no
/// AVX-512 code for an AVX2 CPU, no AVX at all for a baseline one), so the
/// model carries only code its CPU runs; otherwise the archive with every
/// level, chosen at run time.
std::string runtimeLibraryFor(const CompileOptions &o,
                              const llvm::TargetMachine &tm) {
  std::string library = defaultRuntimeLibrary();
  bool pinned = !o.cpu.empty() && o.cpu != "native" && o.cpu != "host";
  if (!pinned || tm.getTargetTriple().getArch() != llvm::Triple::x86_64)
    return library;
  const llvm::MCSubtargetInfo &cpu = *tm.getMCSubtargetInfo();
  const char *level = nullptr;
  if (!cpu.checkFeatures("+avx2,+fma"))
    level = "x86-64";
  else if (!cpu.checkFeatures("+avx512f,+avx512dq,+avx512bw,+avx512vl"))
    level = "x86-64-v3";
  if (!level)
    return library;
  llvm::SmallString<256> path(llvm::sys::path::parent_path(library));
  llvm::sys::path::append(path, std::string("libtfcc_runtime_") + level + ".a");
  return path.str().str();
}

/// The runtime archive a model for `tm` links (--runtime-lib, or the
/// host's archive for its CPU, or a cross target's from lib/<folder>/), the
/// folders of the libc and libm a shared library links against and, for a
/// cross target, the cross GCC's libgcc.a (the compiler helpers its code
/// calls: 64-bit division on 32-bit ARM, AArch64's outlined atomics); false
/// with an error naming what is missing.
bool resolveRuntime(const CompileOptions &o, const llvm::TargetMachine &tm,
                    std::string &runtime, std::vector<std::string> &libraryDirs,
                    std::vector<std::string> &supportArchives,
                    llvm::raw_ostream &errors) {
  const llvm::Triple &triple = tm.getTargetTriple();
  llvm::Triple host(llvm::sys::getDefaultTargetTriple());
  libraryDirs = hostLibraryDirs();
  if (triple.getArch() == host.getArch() && triple.getOS() == host.getOS()) {
    runtime = o.runtimeLibrary.empty() ? runtimeLibraryFor(o, tm)
                                       : o.runtimeLibrary;
  } else {
    llvm::StringRef folder = crossRuntimeFolder(triple);
    if (folder.empty() && o.runtimeLibrary.empty()) {
      errors << "tfcc: error: no runtime for --target '" << o.targetTriple
             << "': tfcc links models for " << kLinkableTargets
             << " (or pass --runtime-lib with a runtime archive built for "
                "it); --emit=llvm and --emit=mlir take any triple\n";
      return false;
    }
    if (o.runtimeLibrary.empty()) {
      llvm::SmallString<256> path(
          llvm::sys::path::parent_path(defaultRuntimeLibrary()));
      llvm::sys::path::append(path, folder, "libtfcc_runtime.a");
      runtime = path.str().str();
      if (!llvm::sys::fs::exists(runtime)) {
        errors << "tfcc: error: the runtime for " << folder
               << " was not built ('" << runtime
               << "' is missing): tfcc's build makes it when the Debian "
                  "packages for that target are installed "
                  "(.ci/install-deps.sh, docs/embedded.md), or pass "
                  "--runtime-lib\n";
        return false;
      }
    } else {
      runtime = o.runtimeLibrary;
    }
    libraryDirs = {"/usr/" + std::string(folder.empty() ? o.targetTriple
                                                        : folder.str()) +
                   "/lib"};
    bool relocatable =
        o.emit == EmitKind::Object || o.emit == EmitKind::StaticArchive;
    if (!relocatable && isBareMetalArm(triple)) {
      errors << "tfcc: error: --emit=so needs an operating system with a "
                "dynamic loader; for --target '"
             << o.targetTriple
             << "' (bare metal) use --emit=obj or --emit=static and link it "
                "into the firmware\n";
      return false;
    }
    if (!relocatable) {
      if (!llvm::sys::fs::exists(libraryDirs[0])) {
        errors << "tfcc: error: --emit=so for " << o.targetTriple
               << " links against its libc in '" << libraryDirs[0]
               << "', which is missing (Debian's cross sysroot); --emit=obj "
                  "and --emit=static need none\n";
        return false;
      }
      std::string libgcc =
          crossLibgcc(folder.empty() ? llvm::StringRef(o.targetTriple) : folder);
      if (!libgcc.empty())
        supportArchives.push_back(libgcc);
    }
  }
  if (!llvm::sys::fs::exists(runtime)) {
    errors << "tfcc: error: runtime library '" << runtime
           << "' not found (pass --runtime-lib)\n";
    return false;
  }
  return true;
}

/// Bytes of the code sections, and of the section `constants`, of the object
/// or library at `path`.
struct SectionBytes {
  uint64_t code = 0, constants = 0;
};
llvm::Expected<SectionBytes> sectionBytes(const std::string &path,
                                          llvm::StringRef constants) {
  auto file = llvm::object::ObjectFile::createObjectFile(path);
  if (!file)
    return file.takeError();
  SectionBytes bytes;
  for (const llvm::object::SectionRef &section :
       file->getBinary()->sections()) {
    llvm::Expected<llvm::StringRef> name = section.getName();
    if (!name)
      return name.takeError();
    if (section.isText())
      bytes.code += section.getSize();
    else if (*name == constants)
      bytes.constants += section.getSize();
  }
  return bytes;
}

/// --report's last line, once the output is linked: the model's code and
/// constants (in its own object) and the runtime's code (the rest of the
/// output's code), for the target built.
bool reportCodeSizes(const CompileOptions &o, const llvm::TargetMachine &tm,
                     const std::string &modelObject, const std::string &output,
                     llvm::raw_ostream &errors) {
  llvm::Expected<SectionBytes> model = sectionBytes(modelObject, kWeightsSection);
  llvm::Expected<SectionBytes> linked = sectionBytes(output, kWeightsSection);
  if (!model || !linked) {
    errors << "tfcc: error: --report cannot read the code it wrote: "
           << llvm::toString(model ? linked.takeError() : model.takeError())
           << "\n";
    return false;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "Code for " << tm.getTargetTriple().str() << " (" << tm.getTargetCPU()
     << "): model " << model->code << " bytes, runtime "
     << (linked->code - std::min(linked->code, model->code))
     << " bytes (every kernel; a program linked with --gc-sections keeps "
        "those the model calls); constants (weights packed for the kernels, "
        "section "
     << kWeightsSection << "): " << model->constants << " bytes\n";
  if (o.reportPath == "-") {
    llvm::outs() << text;
    llvm::outs().flush();
    return true;
  }
  std::error_code ec;
  llvm::raw_fd_ostream file(o.reportPath, ec, llvm::sys::fs::OF_Append);
  if (ec) {
    errors << "tfcc: error: cannot write '" << o.reportPath
           << "': " << ec.message() << "\n";
    return false;
  }
  file << text;
  return true;
}

bool emitObject(llvm::Module &module, llvm::TargetMachine &tm,
                const std::string &path, llvm::raw_ostream &errors) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    errors << "tfcc: error: cannot write '" << path << "': " << ec.message()
           << "\n";
    return false;
  }
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    errors << "tfcc: error: the target cannot emit object files\n";
    return false;
  }
  pm.run(module);
  return true;
}

} // namespace

void registerCompilerCLOptions() {
  // Before parsing: --mlir-print-ir-after=PASS looks PASS up then.
  registerCompilerPasses();
  registerPipelineCLOptions();
}

std::string headerPathFor(const std::string &outputPath) {
  llvm::SmallString<256> path(outputPath);
  llvm::sys::path::replace_extension(path, ".h");
  return path.str().str();
}

/// The OpenMP runtime functions that distributed loop nests call
/// (tfcc-parallelize-loops, outlined by the OpenMP translation), renamed to
/// the tfcc runtime's implementations (runtime/src/omp_shim.c): a model never
/// defines or calls a libomp symbol, so it cannot clash with a libomp the
/// application links, even as a relocatable object. Any other OpenMP runtime
/// call is an internal error.
llvm::Error renameOpenMPRuntimeCalls(llvm::Module &module) {
  static const std::pair<llvm::StringRef, llvm::StringRef> kNames[] = {
      {"__kmpc_fork_call", "tfcc_rt_omp_fork_call"},
      {"__kmpc_push_num_threads", "tfcc_rt_omp_push_num_threads"},
      {"__kmpc_global_thread_num", "tfcc_rt_omp_global_thread_num"},
      {"__kmpc_for_static_init_8u", "tfcc_rt_omp_for_static_init_8u"},
      {"__kmpc_for_static_fini", "tfcc_rt_omp_for_static_fini"}};
  for (auto [from, to] : kNames)
    if (llvm::Function *f = module.getFunction(from))
      f->setName(to);
  for (llvm::Function &f : module)
    if (f.isDeclaration() &&
        (f.getName().starts_with("__kmpc_") || f.getName().starts_with("omp_")))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "internal error: generated code calls the OpenMP runtime function " +
              f.getName().str() + ", which the tfcc runtime does not provide");
  return llvm::Error::success();
}

std::string defaultRuntimeLibrary() {
  std::string exe = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&defaultRuntimeLibrary));
  llvm::SmallString<256> path(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(path, "..", "lib", "libtfcc_runtime.a");
  return path.str().str();
}

namespace {

/// compile(), with every diagnostic written to `errors`.
/// tfcc -v: MLIR's timing report cut to its first level, the stages
/// (the passes of each pipeline are --mlir-timing's).
class StageTimingOutput : public OutputStrategy {
public:
  using OutputStrategy::OutputStrategy;
  void printHeader(const TimeRecord &total) override { total_ = total.wall; }
  void printFooter() override {
    os << "tfcc:" << stages_ << llvm::format(" (%.3f s in all)\n", total_);
  }
  void printTime(const TimeRecord &, const TimeRecord &) override {}
  void printListEntry(StringRef, const TimeRecord &, const TimeRecord &,
                      bool) override {}
  void printTreeEntry(unsigned indent, StringRef name, const TimeRecord &time,
                      const TimeRecord &) override {
    if (indent == 0)
      stages_ += llvm::formatv("{0} {1} {2:f3} s", stages_.empty() ? "" : ",",
                               name, time.wall)
                     .str();
  }
  void printTreeEntryEnd(unsigned, bool) override {}

private:
  std::string stages_;
  double total_ = 0;
};

bool compileTo(const CompileOptions &o, llvm::raw_ostream &errors) {
  // The model is parsed with its own dialects only (registerModelDialects);
  // the pipeline's are added once it is loaded.
  DialectRegistry registry;
  registerModelDialects(registry);
  registerCompilerPasses();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  ::tfcc::ModelDiagnosticHandler diagnostics(sourceMgr, &context, errors);
  // --mlir-timing: one report over the pipelines and LLVM's phases, printed
  // when the manager goes out of scope.
  DefaultTimingManager timingManager;
  applyPipelineTimingOptions(timingManager);
  if (o.verbose && !timingManager.isEnabled()) {
    timingManager.setEnabled(true);
    timingManager.setDisplayMode(DefaultTimingManager::DisplayMode::Tree);
    timingManager.setOutput(std::make_unique<StageTimingOutput>(llvm::errs()));
  }
  TimingScope timing = timingManager.getRootScope();

  // `tfcc model.mlir -o out/model.so` creates out/ when it is missing.
  if (o.outputPath != "-") {
    llvm::StringRef dir = llvm::sys::path::parent_path(o.outputPath);
    if (!dir.empty())
      if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
        errors << "tfcc: error: cannot create '" << dir << "': " << ec.message()
               << "\n";
        return false;
      }
  }

  if (o.inputText && (!o.inputShapes.empty() || !o.inputValues.empty())) {
    errors << "tfcc: error: input "
           << (o.inputShapes.empty() ? "values" : "shapes")
           << " apply to ONNX models only\n";
    return false;
  }
  // The target and the runtime it links, checked before any work.
  std::unique_ptr<llvm::TargetMachine> tm;
  std::string runtime;
  std::vector<std::string> libraryDirs, supportArchives;
  if (o.emit == EmitKind::SharedLibrary || o.emit == EmitKind::Object ||
      o.emit == EmitKind::StaticArchive || o.emit == EmitKind::LlvmIr) {
    std::string error;
    tm = createTargetMachine(o, error);
    if (!tm) {
      errors << "tfcc: error: " << error << "\n";
      return false;
    }
    if (o.emit != EmitKind::LlvmIr &&
        !resolveRuntime(o, *tm, runtime, libraryDirs, supportArchives,
                        errors))
      return false;
  }

  TimingScope loadTiming = timing.nest("load model");
  OwningOpRef<ModuleOp> module =
      o.inputText ? loadModelText(*o.inputText, o.inputPath, sourceMgr, context)
                  : loadModelFile(o.inputPath, sourceMgr, context,
                                  o.inputShapes, o.inputValues);
  loadTiming.stop();
  if (!module)
    return false;
  addCompilerDialects(context);
  if (!applyDimBounds(*module, o.dimBounds, errors))
    return false;
  if (!o.weightsPath.empty() &&
      failed(runApplyCheckpoint(*module, o.weightsPath, o.prefix, &timing)))
    return false;
  if (failed(runNormalizePipeline(*module, &timing)))
    return false;
  bool training = !module->getOps<graph::TrainStepOp>().empty();
  // The train step's entry (tfcc_model_info.train_entry), named before
  // tfcc-autodiff turns it into a function like the others.
  std::string trainStepName;
  for (graph::TrainStepOp step : module->getOps<graph::TrainStepOp>())
    trainStepName = step.getSymName().str();
  if (o.splitTrainStep && (!training || !o.train)) {
    errors << "tfcc: error: --split-train-step cannot take effect: '"
           << o.inputPath << "' "
           << (training ? "is built with --no-train"
                        : "has no graph.train_step to split")
           << "\n";
    return false;
  }
  if (!o.train) {
    if (!training) {
      errors << "tfcc: error: --no-train cannot take effect: '" << o.inputPath
             << "' has no graph.train_step to drop\n";
      return false;
    }
    if (failed(runDropTrainSteps(*module, &timing)))
      return false;
  }
  // A training model: tfcc-autodiff first (before inlining and the folders
  // that treat graph.dropout as the identity), every variable in state memory.
  if (!o.precision.empty() && !o.quantize.empty()) {
    errors << "tfcc: error: --precision=" << o.precision
           << " and --quantize=" << o.quantize
           << " cannot both take effect: int8 kernels have no "
           << "16-bit float form\n";
    return false;
  }
  if (!o.ioDtype.empty() && !o.quantize.empty()) {
    errors << "tfcc: error: --io-dtype=" << o.ioDtype
           << " and --quantize=" << o.quantize
           << " cannot both take effect: the calibration runs the float32 "
           << "model on float32 data\n";
    return false;
  }
  // 16-bit entry points before anything reads the signature (autodiff's
  // train step takes its loss function's arguments).
  if (!o.ioDtype.empty() &&
      failed(runRetypeInterface(*module, o.ioDtype, &timing)))
    return false;
  // Mixed precision in a training build: the policy before autodiff, which
  // then differentiates through its casts (float32 master weights); after
  // fusion otherwise, so that fused epilogues compute in 16 bits.
  bool trainBuild = training && o.train;
  if (!o.precision.empty() && trainBuild &&
      failed(runPrecisionPolicy(*module, o.precision, &timing)))
    return false;
  if (failed(runTrainingPasses(*module, &timing,
                               trainBuild && o.precision == "mixed_f16",
                               o.splitTrainStep)))
    return false;
  // 16-bit ops in f32 (rounding each result) before the graph pipeline, so
  // that their convolutions and dense layers fuse into kernel calls as float32
  // ones do: a mixed-precision train step's, and those of a model written in
  // f16 / bf16. The policy of an inference build comes after fusion instead.
  if (((!o.precision.empty() && trainBuild) ||
       hasLowPrecisionFloats(*module)) &&
      failed(runWidenLowPrecision(*module, &timing)))
    return false;
  if (!o.quantize.empty()) {
    if (training && o.train) {
      errors << "tfcc: error: --quantize=" << o.quantize
             << " quantizes inference builds: '" << o.inputPath
             << "' has a graph.train_step (add --no-train)\n";
      return false;
    }
    if (failed(runInlinePipeline(*module, &timing)))
      return false;
    TimingScope calibrationTiming = timing.nest("int8 calibration");
    if (!calibrateInt8(*module, o, errors))
      return false;
    calibrationTiming.stop();
    if (failed(runQuantizeInt8(*module, o.quantizeWeightBits, &timing)))
      return false;
  }
  FailureOr<ModelSignature> sig = buildSignature(*module, o.prefix);
  if (failed(sig))
    return false;
  if (trainBuild)
    sig->trainEntry = trainStepName;
  if (o.checkNumerics) {
    // Dynamic loss scaling expects infinite gradients (it skips the step).
    if (trainBuild && o.precision == "mixed_f16") {
      errors << "tfcc: error: --check-numerics cannot take effect on a "
             << "--precision=mixed_f16 train step: its loss scaling makes "
             << "infinite gradients on purpose (build with --no-train, or "
             << "without --precision)\n";
      return false;
    }
    if (failed(runCheckNumerics(*module, &timing)))
      return false;
  }
  if (o.cuda && !checkCudaBuild(o, errors))
    return false;
  sig->cuda = o.cuda;
  bool gpuLowering = o.cuda || o.gpuLoopsOnHost;
  if (failed(runGraphPipeline(*module, &timing, gpuLowering)))
    return false;
  if (!o.precision.empty() && !trainBuild &&
      failed(runPrecisionPolicy(*module, o.precision, &timing)))
    return false;
  if (o.emit == EmitKind::Graph)
    return printModule(*module, o.outputPath, errors);
  if (o.emit == EmitKind::GraphDef || o.emit == EmitKind::Dot ||
      o.emit == EmitKind::Html) {
    std::vector<ExportedScope> scopes = exportGraph(*module);
    // The drawings show where the memory plan puts each node's buffers
    // (GraphDef has no place for it).
    // A graph the lowering refuses is still drawn, without them: the view
    // is how one looks at such a graph.
    if (o.emit != EmitKind::GraphDef) {
      std::string lowering;
      LogicalResult planned = success();
      {
        ScopedDiagnosticHandler quiet(
            module->getContext(), [&](Diagnostic &diagnostic) {
              if (lowering.empty() &&
                  diagnostic.getSeverity() == DiagnosticSeverity::Error)
                lowering = diagnostic.str();
              return success();
            });
        planned = runToArenaPipeline(*module, &timing, gpuLowering);
      }
      if (succeeded(planned))
        annotateArenaOffsets(scopes, *module);
      else
        errors << "tfcc: warning: the graph is drawn without arena offsets: "
               << "the lowering failed (" << lowering << ")\n";
    }
    std::string name = sig->modelName;
    std::string view = o.emit == EmitKind::GraphDef ? graphDefOf(scopes)
                       : o.emit == EmitKind::Dot    ? dotOf(scopes, name)
                                                    : htmlOf(scopes, name);
    if (o.outputPath == "-") {
      llvm::outs() << view;
      return true;
    }
    return writeFile(o.outputPath, view, errors);
  }

  if (failed(runToArenaPipeline(*module, &timing, gpuLowering)))
    return false;
  // tfcc-rename-entries gave the entries these names.
  std::vector<std::string> implNames;
  for (const EntrySignature &entry : sig->entries)
    implNames.push_back(mlir::tfcc::kEntryImplPrefix + entry.name);
  {
    std::unique_ptr<llvm::ToolOutputFile> reportFile;
    llvm::raw_ostream *report = nullptr;
    if (o.reportPath == "-") {
      report = &llvm::outs();
    } else if (!o.reportPath.empty()) {
      std::error_code ec;
      reportFile = std::make_unique<llvm::ToolOutputFile>(
          o.reportPath, ec, llvm::sys::fs::OF_Text);
      if (ec) {
        errors << "tfcc: error: cannot write '" << o.reportPath
               << "': " << ec.message() << "\n";
        return false;
      }
      report = &reportFile->os();
    }
    if (report) {
      *report << "Weights: " << sig->weightBytes << " bytes in "
              << sig->numWeights << " variables (";
      if (sig->weightBytesByDtype.empty())
        *report << "none";
      for (auto [i, item] : llvm::enumerate(sig->weightBytesByDtype))
        *report << (i ? ", " : "") << dtypeName(item.first) << ": "
                << item.second;
      *report << "), before any packing for the kernels\n";
    }
    recordArenaSizes(*module, implNames, *sig, report);
    if (sig->dims.size() > TFCC_RT_MAX_DIMS) {
      errors << "tfcc: error: the model has " << sig->dims.size()
             << " named and derived dimensions: a compiled model has at most "
             << TFCC_RT_MAX_DIMS << " (TFCC_RT_MAX_DIMS)\n";
      return false;
    }
    if (reportFile)
      reportFile->keep();
    if (report)
      report->flush();
  }
  if (!checkArenaLimit(*sig, o.maxArenaBytes, errors))
    return false;
  // The header needs the memory plan (its arena sizes).
  if (o.emit == EmitKind::Header)
    return writeFile(o.outputPath, emitHeader(*sig, tfccTypesHeaderText()),
                     errors);
  // Profiling hooks wherever the runtime has a profiler (not bare metal).
  bool bareMetal = isBareMetalArm(targetTripleOf(o));
  if (!o.profileHooks && bareMetal) {
    errors << "tfcc: error: --no-profile-hooks cannot take effect for --target "
           << o.targetTriple << ": bare-metal builds have no profiling hooks\n";
    return false;
  }
  GpuCodeOptions gpu = o.gpu;
  if (gpu.toolkit.empty()) {
    const char *home = std::getenv("CUDA_HOME");
    gpu.toolkit = home && *home ? home : "/usr/local/cuda";
  }
  if (o.cuda && !checkCudaToolkit(gpu, errors))
    return false;
  if (o.cuda             ? failed(runGpuToLLVMPipeline(*module, &timing, gpu))
      : o.gpuLoopsOnHost ? failed(runGpuLoopsOnHostPipeline(*module, &timing))
                         : failed(runToLLVMPipeline(
                               *module, &timing, o.profileHooks && !bareMetal)))
    return false;
  if (o.emit == EmitKind::Mlir)
    return printModule(*module, o.outputPath, errors);

  TimingScope translateTiming = timing.nest("translate to LLVM IR");
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, sig->modelName);
  if (!llvmModule) {
    errors << "tfcc: error: translation to LLVM IR failed\n";
    return false;
  }
  if (llvm::Error err = renameOpenMPRuntimeCalls(*llvmModule)) {
    errors << "tfcc: error: " << llvm::toString(std::move(err)) << "\n";
    return false;
  }
  if (llvm::Error err = emitCInterface(*llvmModule, *sig, implNames)) {
    errors << "tfcc: error: " << llvm::toString(std::move(err)) << "\n";
    return false;
  }
  // Nothing in a model throws: without unwind tables, ARM code references no
  // EHABI personality routine, which bare-metal firmware does not link.
  for (llvm::Function &function : *llvmModule)
    if (!function.isDeclaration())
      function.addFnAttr(llvm::Attribute::NoUnwind);
  // The model's constants (memref globals: the weights) in a section of
  // their own, which firmware links into flash by name.
  for (llvm::GlobalVariable &global : llvmModule->globals())
    if (global.isConstant() && global.hasInitializer() &&
        global.getName().starts_with("__constant_"))
      global.setSection(kWeightsSection);
  std::string error;
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(tm->getTargetTriple().getTriple());
  translateTiming.stop();
  TimingScope optimizeTiming = timing.nest("LLVM optimization");
  auto optimize = makeOptimizingTransformer(o.optLevel, 0, tm.get());
  llvm::Error optimizeError = optimize(llvmModule.get());
  optimizeTiming.stop();
  if (llvm::Error err = std::move(optimizeError)) {
    errors << "tfcc: error: " << llvm::toString(std::move(err)) << "\n";
    return false;
  }
  if (o.emit == EmitKind::LlvmIr) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvmModule->print(os, nullptr);
    if (o.outputPath == "-") {
      llvm::outs() << text;
      return true;
    }
    return writeFile(o.outputPath, text, errors);
  }

  llvm::SmallString<128> objectPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tfcc-model", "o", objectPath)) {
    errors << "tfcc: error: cannot create a temporary file: " << ec.message()
           << "\n";
    return false;
  }
  llvm::FileRemover removeObject(objectPath);
  TimingScope codegenTiming = timing.nest("LLVM code generation");
  if (!emitObject(*llvmModule, *tm, objectPath.str().str(), errors))
    return false;
  codegenTiming.stop();

  std::string soname = llvm::sys::path::filename(o.outputPath).str();
  TimingScope linkTiming = timing.nest("link");
  // A static library holds the relocatable object, linked beside it first.
  std::string linked = o.outputPath;
  if (o.emit == EmitKind::StaticArchive)
    linked = o.outputPath + ".o";
  llvm::FileRemover removeLinked(linked, o.emit == EmitKind::StaticArchive);
  if (!linkWithLld(o.emit == EmitKind::SharedLibrary ? LinkKind::SharedLibrary
                                                     : LinkKind::Relocatable,
                   {objectPath.str().str()}, {runtime}, libraryDirs,
                   supportArchives, linked, soname, error)) {
    errors << "tfcc: error: linking '" << o.outputPath << "' failed:\n"
           << error;
    return false;
  }
  if (!o.reportPath.empty() &&
      !reportCodeSizes(o, *tm, objectPath.str().str(), linked, errors))
    return false;
  if (o.emit == EmitKind::StaticArchive &&
      !writeStaticArchive(linked, o.outputPath,
                          llvm::sys::path::stem(o.outputPath).str(), error)) {
    errors << "tfcc: error: writing '" << o.outputPath << "' failed: " << error
           << "\n";
    return false;
  }
  return writeFile(headerPathFor(o.outputPath),
                   emitHeader(*sig, tfccTypesHeaderText()), errors);
}

} // namespace

CompileStatus compile(const CompileOptions &o) {
  CompileStatus status;
  llvm::raw_string_ostream errors(status.diagnostics);
  status.ok = compileTo(o, errors);
  errors.flush();
  return status;
}

} // namespace tfcc

bool ::tfcc::parseDimBound(const std::string &spec,
                           std::map<std::string, int64_t> &values,
                           std::string &error, const std::string &flag) {
  auto [name, value] = llvm::StringRef(spec).rsplit('=');
  int64_t n;
  if (name.empty() || value.empty() || name.size() == spec.size()) {
    error = flag + " '" + spec + "' is not NAME=N (e.g. W=640)";
    return false;
  }
  if (value.getAsInteger(10, n) || n < 1 || n > (int64_t(1) << 31)) {
    error = flag + " '" + spec + "': '" + value.str() +
            "' is not an integer in [1, 2^31]";
    return false;
  }
  if (!values.emplace(name.str(), n).second) {
    error = flag + " names '" + name.str() + "' twice";
    return false;
  }
  return true;
}

bool ::tfcc::parseInputValue(const std::string &spec,
                             std::map<std::string, std::string> &values,
                             std::string &error) {
  auto [name, value] = llvm::StringRef(spec).rsplit('=');
  double number;
  if (name.empty() || value.empty() || name.size() == spec.size() ||
      value.getAsDouble(number)) {
    error = "--input-value '" + spec + "' is not NAME=NUMBER (e.g. sr=16000)";
    return false;
  }
  if (!values.emplace(name.str(), value.str()).second) {
    error = "--input-value names '" + name.str() + "' twice";
    return false;
  }
  return true;
}

bool ::tfcc::parseInputShape(const std::string &spec,
                           std::map<std::string, std::vector<int64_t>> &shapes,
                           std::string &error) {
  auto [name, dims] = llvm::StringRef(spec).rsplit('=');
  if (name.empty() || dims.empty() || name.size() == spec.size()) {
    error = "--input-shape '" + spec + "' is not NAME=DIMS (e.g. x=1x3x48x192)";
    return false;
  }
  std::vector<int64_t> shape;
  llvm::SmallVector<llvm::StringRef> parts;
  dims.split(parts, 'x');
  for (llvm::StringRef part : parts) {
    int64_t d;
    if (part == "?") {
      shape.push_back(-1);
    } else if (!part.getAsInteger(10, d) && d >= 0) {
      shape.push_back(d);
    } else {
      error = "--input-shape '" + spec + "': dimension '" + part.str() +
              "' is not a non-negative integer or '?'";
      return false;
    }
  }
  if (!shapes.emplace(name.str(), std::move(shape)).second) {
    error = "--input-shape names '" + name.str() + "' twice";
    return false;
  }
  return true;
}
