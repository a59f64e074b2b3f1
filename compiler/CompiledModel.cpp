//===- CompiledModel.cpp - load and call a model .so built by tfcc --------===//

#include "compiler/CompiledModel.h"

#include "runtime/include/tfcc/tfcc_runtime.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace tfcc {

//===----------------------------------------------------------------------===//
// The model's prefix, from the ELF dynamic symbol table
//===----------------------------------------------------------------------===//

namespace {
/// Reads byte ranges of a file, refusing any range past its end.
class FileReader {
public:
  explicit FileReader(const std::string &path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd_ >= 0 && fstat(fd_, &st) == 0 && S_ISREG(st.st_mode))
      size_ = uint64_t(st.st_size);
  }
  ~FileReader() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  bool opened() const { return fd_ >= 0; }
  bool read(uint64_t offset, uint64_t bytes, void *out) const {
    if (offset > size_ || bytes > size_ - offset)
      return false;
    return pread(fd_, out, bytes, off_t(offset)) == ssize_t(bytes);
  }

private:
  int fd_ = -1;
  uint64_t size_ = 0;
};
} // namespace

std::string findModelPrefix(const std::string &path, std::string &error) {
  FileReader file(path);
  if (!file.opened()) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    return "";
  }
  Elf64_Ehdr eh;
  if (!file.read(0, sizeof eh, &eh) ||
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    error = "'" + path + "' is not an ELF shared library";
    return "";
  }
  // Models for 32-bit targets (ARMv7, Cortex-M) cannot load in this process.
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_shentsize != sizeof(Elf64_Shdr)) {
    error = "'" + path +
            "' is not a 64-bit little-endian ELF library "
            "(a model built for another target?)";
    return "";
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (!file.read(eh.e_shoff, uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr),
                 sections.data())) {
    error = "'" + path + "' is truncated (section headers)";
    return "";
  }
  std::set<std::string> names;
  for (const Elf64_Shdr &dynsym : sections) {
    if (dynsym.sh_type != SHT_DYNSYM || dynsym.sh_link >= sections.size() ||
        dynsym.sh_entsize != sizeof(Elf64_Sym))
      continue;
    const Elf64_Shdr &strtab = sections[dynsym.sh_link];
    std::vector<Elf64_Sym> symbols(dynsym.sh_size / sizeof(Elf64_Sym));
    std::string strings(strtab.sh_size, '\0');
    if (!file.read(dynsym.sh_offset, symbols.size() * sizeof(Elf64_Sym),
                   symbols.data()) ||
        !file.read(strtab.sh_offset, strings.size(), strings.data())) {
      error = "'" + path + "' is truncated (dynamic symbols)";
      return "";
    }
    for (const Elf64_Sym &sym : symbols)
      if (sym.st_shndx != SHN_UNDEF && sym.st_name < strings.size())
        names.insert(strings.c_str() + sym.st_name);
  }
  const std::string invoke = "_invoke";
  for (const std::string &name : names) {
    if (name.size() <= invoke.size() ||
        name.compare(name.size() - invoke.size(), invoke.size(), invoke) != 0)
      continue;
    std::string prefix = name.substr(0, name.size() - invoke.size());
    if (names.count(prefix + "_info") && names.count(prefix + "_create"))
      return prefix;
  }
  error = "'" + path + "' exports no tfcc model (no <prefix>_info/_invoke)";
  return "";
}

//===----------------------------------------------------------------------===//
// CompiledModel
//===----------------------------------------------------------------------===//

std::unique_ptr<CompiledModel> CompiledModel::open(const std::string &path,
                                                   std::string &error) {
  std::string prefix = findModelPrefix(path, error);
  if (prefix.empty())
    return nullptr;
  std::unique_ptr<CompiledModel> model(new CompiledModel());
  // dlopen searches the library path for names without a slash.
  std::string absolute =
      path.find('/') == std::string::npos ? "./" + path : path;
  model->handle_ = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!model->handle_) {
    error = std::string("dlopen failed: ") + dlerror();
    return nullptr;
  }
  auto sym = [&](const char *suffix) {
    return dlsym(model->handle_, (prefix + suffix).c_str());
  };
  // The ABI version first: a model of another version may lack functions.
  auto infoFn = reinterpret_cast<const tfcc_model_info *(*)()>(sym("_info"));
  if (infoFn && infoFn()->abi_version != TFCC_ABI_VERSION) {
    error = "'" + path + "' was built for runtime ABI " +
            std::to_string(infoFn()->abi_version) + ", not " +
            std::to_string(TFCC_ABI_VERSION);
    return nullptr;
  }
  model->create_ = reinterpret_cast<CreateFn>(sym("_create_with_threads"));
  model->destroy_ = reinterpret_cast<DestroyFn>(sym("_destroy"));
  model->invoke_ = reinterpret_cast<InvokeFn>(sym("_invoke_dims"));
  model->resolve_ = reinterpret_cast<ResolveFn>(sym("_resolve_dims"));
  model->statusString_ =
      reinterpret_cast<StatusStringFn>(sym("_status_string"));
  if (!infoFn || !model->create_ || !model->destroy_ || !model->invoke_ ||
      !model->resolve_ || !model->statusString_) {
    error = "'" + path + "' lacks some of the functions of the tfcc C API";
    return nullptr;
  }
  model->info_ = infoFn();
  model->getVariable_ = reinterpret_cast<GetVarFn>(sym("_get_variable"));
  model->setVariable_ = reinterpret_cast<SetVarFn>(sym("_set_variable"));
  model->resetState_ = reinterpret_cast<ResetFn>(sym("_reset_state"));
  model->loadCheckpoint_ =
      reinterpret_cast<CheckpointFn>(sym("_load_checkpoint"));
  model->saveCheckpoint_ =
      reinterpret_cast<CheckpointFn>(sym("_save_checkpoint"));
  model->profileStart_ = reinterpret_cast<ResetFn>(sym("_profile_start"));
  model->profileStop_ = reinterpret_cast<CheckpointFn>(sym("_profile_stop"));
  return model;
}

std::string CompiledModel::statusMessage(tfcc_status_t status) const {
  std::string text = statusString_(status);
  if (context_ && context_->message[0])
    text += std::string(": ") + context_->message;
  return text;
}

bool CompiledModel::getVariable(const std::string &name, NpyArray &out,
                                std::string &error) {
  if (!getVariable_ || !context_) {
    error = "the model has no state memory (or no context yet)";
    return false;
  }
  for (int32_t i = 0; i < info_->num_variables; ++i) {
    const tfcc_variable_info &v = info_->variables[i];
    if (name != v.name)
      continue;
    out = NpyArray();
    out.dtype = static_cast<DType>(v.dtype);
    out.shape.assign(v.dims, v.dims + v.rank);
    out.data.assign(v.bytes, 0);
    tfcc_status_t status =
        getVariable_(context_, name.c_str(), out.data.data(), out.data.size());
    if (status != TFCC_OK) {
      error = statusMessage(status);
      return false;
    }
    return true;
  }
  error = "no variable '" + name + "' in the compiled model";
  return false;
}

bool CompiledModel::setVariable(const std::string &name, const NpyArray &value,
                                std::string &error) {
  if (!setVariable_ || !context_) {
    error = "the model has no state memory (or no context yet)";
    return false;
  }
  tfcc_status_t status = setVariable_(context_, name.c_str(), value.data.data(),
                                      value.data.size());
  if (status != TFCC_OK) {
    error = statusMessage(status);
    return false;
  }
  return true;
}

bool CompiledModel::resetState(std::string &error) {
  if (!resetState_ || !context_) {
    error = "the model has no state memory (or no context yet)";
    return false;
  }
  tfcc_status_t status = resetState_(context_);
  if (status != TFCC_OK) {
    error = statusMessage(status);
    return false;
  }
  return true;
}

bool CompiledModel::loadCheckpoint(const std::string &path,
                                   std::string &error) {
  return callCheckpoint(loadCheckpoint_, path, error);
}

bool CompiledModel::saveCheckpoint(const std::string &path,
                                   std::string &error) {
  return callCheckpoint(saveCheckpoint_, path, error);
}

bool CompiledModel::callCheckpoint(CheckpointFn fn, const std::string &path,
                                   std::string &error) {
  if (!fn || !context_) {
    error = "the model has no state memory (or no context yet)";
    return false;
  }
  tfcc_status_t status = fn(context_, path.c_str());
  if (status != TFCC_OK) {
    error = statusMessage(status);
    return false;
  }
  return true;
}

void CompiledModel::setThreads(int32_t numThreads) {
  if (numThreads == numThreads_)
    return;
  numThreads_ = numThreads;
  if (context_)
    destroy_(context_);
  context_ = nullptr;
  contextBatch_ = 0;
}

CompiledModel::~CompiledModel() {
  if (context_)
    destroy_(context_);
  if (handle_)
    dlclose(handle_);
}

int CompiledModel::findEntry(const std::string &name) const {
  for (int i = 0; i < info_->num_entries; ++i)
    if (name.empty() || name == info_->entries[i].name)
      return i;
  return -1;
}

bool CompiledModel::reserve(int64_t maxBatch, std::string &error) {
  maxBatch = std::max<int64_t>(maxBatch, 1);
  if (context_ && contextBatch_ >= maxBatch)
    return true;
  if (context_)
    destroy_(context_);
  context_ = nullptr;
  tfcc_status_t status = create_(maxBatch, numThreads_, &context_);
  if (status != TFCC_OK) {
    error = std::string("creating a context with ") +
            std::to_string(numThreads_) + " thread" +
            (numThreads_ == 1 ? "" : "s") + " failed: " + statusString_(status);
    return false;
  }
  contextBatch_ = maxBatch;
  if (profiling_) {
    status = profileStart_(context_);
    if (status != TFCC_OK) {
      error = "profiling: " + statusMessage(status);
      return false;
    }
  }
  return true;
}

bool CompiledModel::startProfile(std::string &error) {
  if (!profileStart_ || !profileStop_) {
    error = "the model exports no <prefix>_profile_start (built by an older "
            "tfcc)";
    return false;
  }
  profiling_ = true;
  if (!context_)
    return true;
  tfcc_status_t status = profileStart_(context_);
  if (status != TFCC_OK) {
    error = "profiling: " + statusMessage(status);
    return false;
  }
  return true;
}

bool CompiledModel::stopProfile(const std::string &path, std::string &error) {
  if (!profiling_ || !context_) {
    error = "profiling: no context is profiling";
    return false;
  }
  tfcc_status_t status = profileStop_(context_, path.c_str());
  if (status != TFCC_OK) {
    error = "profiling: " + statusMessage(status);
    return false;
  }
  profiling_ = false;
  return true;
}

bool CompiledModel::run(int entry, int64_t batch,
                        const std::vector<NpyArray> &inputs,
                        std::vector<NpyArray> &outputs, std::string &error) {
  lastRunNonFinite_ = false;
  const tfcc_entry_info &e = info_->entries[entry];
  if (inputs.size() != size_t(e.num_inputs)) {
    error = std::string(e.name) + " takes " + std::to_string(e.num_inputs) +
            " inputs, got " + std::to_string(inputs.size());
    return false;
  }
  // dims[0] the batch, dims[k] named dimension k: from the inputs' shapes.
  std::vector<int64_t> dims(1 + info_->num_dims, 0);
  dims[0] = batch;
  for (int i = 0; i < e.num_inputs; ++i) {
    const tfcc_arg_info &arg = e.inputs[i];
    if (!fitsArgument(inputs[i], arg, batch)) {
      error =
          "input '" + std::string(arg.name) + "' has the wrong dtype or shape";
      return false;
    }
    for (int d = 0; d < arg.rank; ++d) {
      if (arg.dims[d] >= TFCC_DIM_DYNAMIC)
        continue;
      int64_t &value = dims[size_t(-1 - arg.dims[d])];
      if (value != 0 && value != inputs[i].shape[d]) {
        error = "input '" + std::string(arg.name) + "' has " +
                std::to_string(inputs[i].shape[d]) + " for dimension " +
                info_->dim_names[-2 - arg.dims[d]] + ", another input " +
                std::to_string(value);
        return false;
      }
      value = inputs[i].shape[d];
    }
  }
  if (!reserve(batch, error))
    return false;
  // The derived dimensions (output sizes computed from the inputs').
  if (tfcc_status_t status = resolve_(entry, context_, dims.data())) {
    error = std::string(statusString_(status)) + ": " + context_->message;
    return false;
  }
  std::vector<int64_t> named(dims.begin() + 1, dims.end());
  outputs.assign(e.num_outputs, NpyArray());
  std::vector<const void *> in;
  std::vector<void *> out;
  // An empty input has no bytes, but the C API takes no NULL buffer.
  static const uint64_t emptyInput = 0;
  for (const NpyArray &a : inputs)
    in.push_back(a.data.empty() ? static_cast<const void *>(&emptyInput)
                                : a.data.data());
  for (int i = 0; i < e.num_outputs; ++i) {
    const tfcc_arg_info &arg = e.outputs[i];
    NpyArray &o = outputs[i];
    o.dtype = DType(arg.dtype);
    o.shape = argShape(arg, batch, named);
    o.data.assign(std::max<int64_t>(o.numElements(), 1) * byteSize(o.dtype), 0);
    out.push_back(o.data.data());
  }
  tfcc_status_t status =
      invoke_(entry, context_, dims.data(), in.data(), out.data());
  // The runtime's message for a --check-numerics report (runtime.c).
  lastRunNonFinite_ = status == TFCC_INVALID_ARGUMENT &&
                      std::strstr(context_->message, TFCC_RT_NONFINITE_TEXT);
  if (status != TFCC_OK) {
    error = std::string(statusString_(status)) + ": " + context_->message;
    return false;
  }
  // An empty output got one element of storage (no NULL buffers); it holds
  // none.
  for (NpyArray &o : outputs)
    o.data.resize(o.numElements() * byteSize(o.dtype));
  return true;
}

std::vector<int64_t> argShape(const tfcc_arg_info &arg, int64_t batch,
                              const std::vector<int64_t> &named) {
  std::vector<int64_t> shape;
  for (int d = 0; d < arg.rank; ++d) {
    int64_t dim = arg.dims[d];
    size_t k = size_t(-1 - dim);
    shape.push_back(dim >= 0 ? dim
                    : dim == TFCC_DIM_DYNAMIC || k > named.size()
                        ? batch
                        : named[k - 1]);
  }
  return shape;
}

bool fitsArgument(const NpyArray &array, const tfcc_arg_info &arg,
                  int64_t batch) {
  if (int(array.dtype) != arg.dtype || int(array.shape.size()) != arg.rank)
    return false;
  for (int d = 0; d < arg.rank; ++d)
    if (arg.dims[d] == TFCC_DIM_DYNAMIC ? batch >= 0 && array.shape[d] != batch
        : arg.dims[d] < 0               ? array.shape[d] < 1
                                        : array.shape[d] != arg.dims[d])
      return false;
  return true;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + (shape[i] == TFCC_DIM_DYNAMIC
                                ? std::string("batch")
                                : std::to_string(shape[i]));
  return s + "]";
}

} // namespace tfcc
