//===- AbiEmitter.cpp - the C interface of a compiled model ---------------===//
//
// Adds to the LLVM module of a model: one uniform kernel per entry
// (`void(void* const* buffers, const int64_t* dims, void* arena,
// void* state)`) that builds the memref descriptors of the lowered function
// (dims[0] the batch, dims[k] named dimension k), the reflective tfcc_model_info
// table, and the exported functions the generated header declares. Each
// exported function is a thin call into the runtime (runtime/src/runtime.c),
// which validates arguments before any kernel runs.
//
//===----------------------------------------------------------------------===//

#include "compiler/AbiEmitter.h"

#include "compiler/HeaderEmitter.h"
#include "dialects/graph/IR/DimNames.h"
#include "runtime/include/tfcc/tfcc_types.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <map>

using namespace llvm;

namespace tfcc {
namespace {

constexpr uint32_t kAbiVersion = TFCC_ABI_VERSION;

class AbiEmitter {
public:
  AbiEmitter(Module &module, const ModelSignature &sig)
      : module(module), ctx(module.getContext()), sig(sig),
        names(computeCNames(sig)), ptrTy(PointerType::get(ctx, 0)),
        i32Ty(Type::getInt32Ty(ctx)), i64Ty(Type::getInt64Ty(ctx)) {
    argInfoTy = StructType::create(ctx, {ptrTy, i32Ty, i32Ty, ptrTy},
                                   "tfcc_arg_info");
    entryInfoTy = StructType::create(
        ctx,
        {ptrTy, i32Ty, i32Ty, ptrTy, ptrTy, i32Ty, i32Ty, i64Ty, i64Ty, ptrTy,
         ptrTy},
        "tfcc_entry_info");
    variableInfoTy = StructType::create(
        ctx, {ptrTy, i32Ty, i32Ty, ptrTy, i64Ty, i64Ty, i32Ty, i32Ty},
        "tfcc_variable_info");
    modelInfoTy = StructType::create(
        ctx,
        {i32Ty, i32Ty, ptrTy, ptrTy, i64Ty, i64Ty, i32Ty, i32Ty, ptrTy, ptrTy,
         i32Ty, i32Ty, ptrTy, ptrTy, ptrTy},
        "tfcc_model_info");
  }

  Error emit(ArrayRef<std::string> implNames) {
    SmallVector<Function *> kernels;
    for (auto [entry, implName] : llvm::zip(sig.entries, implNames)) {
      Function *impl = module.getFunction(implName);
      if (!impl)
        return createStringError(inconvertibleErrorCode(),
                                 "lowered function '" + implName +
                                     "' is missing");
      impl->setLinkage(GlobalValue::InternalLinkage);
      kernels.push_back(emitKernel(entry, impl));
      resolvers.push_back(emitResolver(entry, implName));
    }
    GlobalVariable *info = emitModelInfo(kernels);
    emitExportedFunctions(info);
    return Error::success();
  }

private:
  /// Values of a row-major memref descriptor, expanded as the default
  /// calling convention of convert-func-to-llvm passes them.
  void pushDescriptor(IRBuilder<> &b, Value *data, ArrayRef<int64_t> dims,
                      ArrayRef<Value *> dimValues,
                      SmallVectorImpl<Value *> &args) {
    args.push_back(data); // allocated pointer
    args.push_back(data); // aligned pointer
    args.push_back(b.getInt64(0));
    SmallVector<Value *> sizes;
    for (int64_t d : dims)
      sizes.push_back(d >= 0 ? b.getInt64(d) : dimValues[namedDimIndex(d)]);
    args.append(sizes.begin(), sizes.end());
    SmallVector<Value *> strides(dims.size());
    Value *stride = b.getInt64(1);
    for (size_t i = dims.size(); i-- > 0;) {
      strides[i] = stride;
      stride = b.CreateMul(stride, sizes[i]);
    }
    args.append(strides.begin(), strides.end());
  }

  /// `void(int64_t* dims)` calling the entry's shape function (the memory
  /// planner's, for its derived dimensions) on dims as a memref; null when
  /// the entry has none.
  Constant *emitResolver(const EntrySignature &entry, StringRef implName) {
    Function *shape =
        module.getFunction((Twine(mlir::graph::kShapeFunctionPrefix) + implName).str());
    if (!shape)
      return ConstantPointerNull::get(ptrTy);
    shape->setLinkage(GlobalValue::InternalLinkage);
    auto *fnTy = FunctionType::get(Type::getVoidTy(ctx), {ptrTy}, false);
    Function *resolver =
        Function::Create(fnTy, GlobalValue::InternalLinkage,
                         "__tfcc_resolve_" + entry.name, module);
    IRBuilder<> b(BasicBlock::Create(ctx, "entry", resolver));
    Value *dims = resolver->getArg(0);
    b.CreateCall(shape, {dims, dims, b.getInt64(0),
                         b.getInt64(sig.dims.size() + 1), b.getInt64(1)});
    b.CreateRetVoid();
    return resolver;
  }

  Function *emitKernel(const EntrySignature &entry, Function *impl) {
    auto *fnTy = FunctionType::get(Type::getVoidTy(ctx),
                                   {ptrTy, ptrTy, ptrTy, ptrTy}, false);
    Function *kernel =
        Function::Create(fnTy, GlobalValue::InternalLinkage,
                         "__tfcc_kernel_" + entry.name, module);
    IRBuilder<> b(BasicBlock::Create(ctx, "entry", kernel));
    Value *buffers = kernel->getArg(0);
    // dims[0] is the batch, dims[k] named dimension k.
    SmallVector<Value *> dimValues;
    for (size_t k = 0; k <= sig.dims.size(); ++k)
      dimValues.push_back(b.CreateLoad(
          i64Ty, b.CreateConstGEP1_64(i64Ty, kernel->getArg(1), k)));
    Value *batch = dimValues[0];
    Value *arena = kernel->getArg(2);
    Value *state = kernel->getArg(3);
    SmallVector<Value *> args;
    unsigned index = 0;
    for (const auto *group : {&entry.inputs, &entry.outputs}) {
      // The state (memref<STATE_BYTES x i8>) is the argument after the
      // inputs of a stateful model's lowered functions.
      if (group == &entry.outputs && sig.stateful)
        args.append({state, state, b.getInt64(0),
                     b.getInt64(std::max<uint64_t>(sig.stateBytes, 1)),
                     b.getInt64(1)});
      for (const ArgSignature &arg : *group) {
        Value *slot = b.CreateConstGEP1_64(ptrTy, buffers, index++);
        pushDescriptor(b, b.CreateLoad(ptrTy, slot), arg.dims, dimValues,
                       args);
      }
    }
    // The arena: memref<?xi8> of fixed + perBatch * batch bytes.
    Value *arenaBytes = b.CreateAdd(
        b.getInt64(entry.arenaBytesFixed),
        b.CreateMul(b.getInt64(entry.arenaBytesPerBatch), batch));
    args.append({arena, arena, b.getInt64(0), arenaBytes, b.getInt64(1)});
    args.push_back(batch);
    CallInst *call = b.CreateCall(impl, args);
    b.CreateRetVoid();
    // Inlined now, not by the optimizer: the lowered function takes 5 + 2 *
    // rank scalars per memref, and LLVM's interprocedural passes are
    // quadratic in a function's argument count (4000 inputs: 90 s to
    // compile). The kernel is its only caller, so -O2 inlined it anyway.
    InlineFunctionInfo inlineInfo;
    if (InlineFunction(*call, inlineInfo).isSuccess() && impl->use_empty())
      impl->eraseFromParent();
    return kernel;
  }

  /// A private read-only global holding `init` (the table's arrays).
  GlobalVariable *readOnlyGlobal(Constant *init, const Twine &name) {
    return new GlobalVariable(module, init->getType(), /*isConstant=*/true,
                              GlobalValue::PrivateLinkage, init, name);
  }

  Constant *string(const std::string &s) {
    auto it = strings.find(s);
    if (it != strings.end())
      return it->second;
    IRBuilder<> b(ctx);
    Constant *c = b.CreateGlobalStringPtr(s, ".tfcc.str", 0, &module);
    strings[s] = c;
    return c;
  }

  Constant *argInfos(const std::vector<ArgSignature> &args,
                     const std::string &name) {
    SmallVector<Constant *> infos;
    for (const ArgSignature &arg : args) {
      Constant *dims = ConstantPointerNull::get(ptrTy);
      if (!arg.dims.empty()) {
        auto *dimsInit = ConstantDataArray::get(ctx, ArrayRef<int64_t>(arg.dims));
        dims = readOnlyGlobal(dimsInit, name + ".dims");
      }
      infos.push_back(ConstantStruct::get(
          argInfoTy, {string(arg.name), ConstantInt::get(i32Ty, int(arg.dtype)),
                      ConstantInt::get(i32Ty, arg.dims.size()), dims}));
    }
    if (infos.empty())
      return ConstantPointerNull::get(ptrTy);
    auto *arrayTy = ArrayType::get(argInfoTy, infos.size());
    return readOnlyGlobal(ConstantArray::get(arrayTy, infos), name);
  }

  GlobalVariable *emitModelInfo(ArrayRef<Function *> kernels) {
    SmallVector<Constant *> entries;
    for (auto [entry, kernel, resolver] :
         llvm::zip(sig.entries, kernels, resolvers)) {
      std::string base = ".tfcc." + entry.name;
      entries.push_back(ConstantStruct::get(
          entryInfoTy,
          {string(entry.name), ConstantInt::get(i32Ty, entry.inputs.size()),
           ConstantInt::get(i32Ty, entry.outputs.size()),
           argInfos(entry.inputs, base + ".inputs"),
           argInfos(entry.outputs, base + ".outputs"),
           ConstantInt::get(i32Ty, entry.hasDynamicBatch() ? 1 : 0),
           ConstantInt::get(i32Ty, entry.hasNamedDims() ? 1 : 0),
           ConstantInt::get(i64Ty, entry.arenaBytesFixed),
           ConstantInt::get(i64Ty, entry.arenaBytesPerBatch), kernel,
           resolver}));
    }
    auto *entriesTy = ArrayType::get(entryInfoTy, entries.size());
    GlobalVariable *entriesVar =
        readOnlyGlobal(ConstantArray::get(entriesTy, entries), ".tfcc.entries");
    Constant *variables = ConstantPointerNull::get(ptrTy);
    Constant *stateInit = ConstantPointerNull::get(ptrTy);
    if (!sig.variables.empty()) {
      SmallVector<Constant *> infos;
      std::vector<uint8_t> image(sig.stateBytes, 0);
      for (const VariableSignature &v : sig.variables) {
        Constant *dims = ConstantPointerNull::get(ptrTy);
        if (!v.dims.empty()) {
          auto *dimsInit = ConstantDataArray::get(ctx, ArrayRef<int64_t>(v.dims));
          dims = readOnlyGlobal(dimsInit, ".tfcc.var.dims");
        }
        infos.push_back(ConstantStruct::get(
            variableInfoTy,
            {string(v.name), ConstantInt::get(i32Ty, int(v.dtype)),
             ConstantInt::get(i32Ty, v.dims.size()), dims,
             ConstantInt::get(i64Ty, v.offset), ConstantInt::get(i64Ty, v.bytes),
             ConstantInt::get(i32Ty, v.trainable ? 1 : 0),
             ConstantInt::get(i32Ty, 0)}));
        std::copy(v.init.begin(), v.init.end(), image.begin() + v.offset);
      }
      auto *arrayTy = ArrayType::get(variableInfoTy, infos.size());
      variables =
          readOnlyGlobal(ConstantArray::get(arrayTy, infos), ".tfcc.variables");
      auto *imageInit = ConstantDataArray::get(ctx, ArrayRef<uint8_t>(image));
      GlobalVariable *imageVar = readOnlyGlobal(imageInit, ".tfcc.state_init");
      imageVar->setAlignment(Align(TFCC_ARENA_ALIGNMENT));
      stateInit = imageVar;
    }
    Constant *dimNames = ConstantPointerNull::get(ptrTy);
    Constant *dimBounds = ConstantPointerNull::get(ptrTy);
    Constant *dimFlags = ConstantPointerNull::get(ptrTy);
    if (!sig.dims.empty()) {
      SmallVector<Constant *> nameConstants;
      SmallVector<int64_t> bounds;
      SmallVector<int32_t> flags;
      for (const DimSignature &dim : sig.dims) {
        nameConstants.push_back(string(dim.name));
        bounds.push_back(dim.bound);
        flags.push_back(dim.derived ? TFCC_DIM_DERIVED : 0);
      }
      auto *namesTy = ArrayType::get(ptrTy, nameConstants.size());
      dimNames = readOnlyGlobal(ConstantArray::get(namesTy, nameConstants),
                                ".tfcc.dim_names");
      dimBounds = readOnlyGlobal(
          ConstantDataArray::get(ctx, ArrayRef<int64_t>(bounds)),
          ".tfcc.dim_bounds");
      dimFlags = readOnlyGlobal(
          ConstantDataArray::get(ctx, ArrayRef<int32_t>(flags)),
          ".tfcc.dim_flags");
    }
    Constant *model = ConstantStruct::get(
        modelInfoTy,
        {ConstantInt::get(i32Ty, kAbiVersion),
         ConstantInt::get(i32Ty, entries.size()), string(sig.modelName),
         entriesVar, ConstantInt::get(i64Ty, sig.weightBytes),
         ConstantInt::get(i64Ty, sig.stateful ? sig.stateBytes : 0),
         ConstantInt::get(i32Ty, sig.variables.size()),
         ConstantInt::get(i32Ty, trainEntryField()), variables, stateInit,
         ConstantInt::get(i32Ty, sig.dims.size()),
         ConstantInt::get(i32Ty, sig.cuda ? TFCC_MODEL_FLAG_CUDA : 0), dimNames,
         dimBounds, dimFlags});
    return new GlobalVariable(module, modelInfoTy, true,
                              GlobalValue::InternalLinkage, model,
                              ".tfcc.model_info");
  }

  /// tfcc_model_info.train_entry: 1 + the index of the entry that updates
  /// the state (the graph.train_step), 0 when there is none.
  int32_t trainEntryField() const {
    for (auto [index, entry] : llvm::enumerate(sig.entries))
      if (!sig.trainEntry.empty() && entry.name == sig.trainEntry)
        return int32_t(index) + 1;
    return 0;
  }

  Function *exported(const std::string &name, Type *result,
                     ArrayRef<Type *> params) {
    auto *fn = Function::Create(FunctionType::get(result, params, false),
                                GlobalValue::ExternalLinkage, name, module);
    fn->setVisibility(GlobalValue::DefaultVisibility);
    return fn;
  }

  FunctionCallee runtime(StringRef name, Type *result, ArrayRef<Type *> params) {
    return module.getOrInsertFunction(
        name, FunctionType::get(result, params, false));
  }

  /// The LLVM type of a C type of the model-level functions' table.
  Type *llvmType(StringRef cType) {
    if (cType.ends_with("*"))
      return ptrTy;
    if (cType == "void")
      return Type::getVoidTy(ctx);
    if (cType == "tfcc_status_t" || cType == "int32_t")
      return i32Ty;
    if (cType == "int64_t" || cType == "uint64_t")
      return i64Ty;
    report_fatal_error("modelFunctions(): no LLVM type for C type '" + cType +
                       "'");
  }

  void emitExportedFunctions(GlobalVariable *info) {
    // prefix_X(args...) = tfcc_rt_X([&info,] args...), as the table says;
    // prefix_info returns the table.
    FunctionCallee invoke, invokeDims;
    for (const ModelFunction &row : modelFunctions()) {
      if (row.statefulOnly && !sig.stateful)
        continue;
      Type *result = llvmType(row.result);
      SmallVector<Type *> params;
      for (const auto &param : splitCParams(row.params))
        params.push_back(llvmType(param.first));
      Function *fn = exported(names.prefix + "_" + row.suffix, result, params);
      IRBuilder<> b(BasicBlock::Create(ctx, "entry", fn));
      if (!row.runtimeName) {
        b.CreateRet(info);
        continue;
      }
      SmallVector<Type *> rtParams;
      SmallVector<Value *> args;
      if (row.passesInfo) {
        rtParams.push_back(ptrTy);
        args.push_back(info);
      }
      rtParams.append(params.begin(), params.end());
      for (Argument &a : fn->args())
        args.push_back(&a);
      FunctionCallee callee = runtime(row.runtimeName, result, rtParams);
      if (StringRef(row.suffix) == "invoke")
        invoke = callee;
      if (StringRef(row.suffix) == "invoke_dims")
        invokeDims = callee;
      Value *call = b.CreateCall(callee, args);
      if (result->isVoidTy())
        b.CreateRetVoid();
      else
        b.CreateRet(call);
    }

    // Each entry function: tfcc_rt_invoke (typed by the table's invoke row),
    // or tfcc_rt_invoke_dims for an entry with named dimensions (taking
    // their values where the others take the batch), with its index and its
    // pointers packed in argument order.
    assert(invoke && invokeDims && "modelFunctions() lacks an invoke row");
    for (auto [index, entry] : llvm::enumerate(sig.entries)) {
      size_t numIn = entry.inputs.size(), numOut = entry.outputs.size();
      bool named = entry.hasNamedDims();
      SmallVector<Type *> params = {ptrTy, named ? static_cast<Type *>(ptrTy) : i64Ty};
      params.append(numIn + numOut, ptrTy);
      Function *fn = exported(names.entries[index].function, i32Ty, params);
      IRBuilder<> b(BasicBlock::Create(ctx, "entry", fn));
      auto pack = [&](size_t first, size_t count) -> Value * {
        if (count == 0)
          return ConstantPointerNull::get(ptrTy);
        Value *array = b.CreateAlloca(ArrayType::get(ptrTy, count));
        for (size_t i = 0; i < count; ++i)
          b.CreateStore(fn->getArg(2 + first + i),
                        b.CreateConstGEP1_64(ptrTy, array, i));
        return array;
      };
      Value *inputs = pack(0, numIn);
      Value *outputs = pack(numIn, numOut);
      b.CreateRet(b.CreateCall(named ? invokeDims : invoke,
                               {info, b.getInt32(index), fn->getArg(0),
                                fn->getArg(1), inputs, outputs}));
    }
  }

  Module &module;
  LLVMContext &ctx;
  const ModelSignature &sig;
  CNames names;
  PointerType *ptrTy;
  IntegerType *i32Ty, *i64Ty;
  StructType *argInfoTy, *entryInfoTy, *variableInfoTy, *modelInfoTy;
  std::map<std::string, Constant *> strings;
  SmallVector<Constant *> resolvers; // parallel to sig.entries
};

} // namespace

Error emitCInterface(Module &module, const ModelSignature &sig,
                     ArrayRef<std::string> implNames) {
  return AbiEmitter(module, sig).emit(implNames);
}

} // namespace tfcc
