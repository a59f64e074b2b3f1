//===- Linker.cpp - link model objects with the runtime, in process -------===//

#include "compiler/Linker.h"

#include "lld/Common/Driver.h"

#include "llvm/Object/ArchiveWriter.h"
#include "llvm/ObjCopy/ConfigManager.h"
#include "llvm/ObjCopy/ObjCopy.h"
#include "llvm/Object/Binary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

LLD_HAS_DRIVER(elf)

namespace {

/// Makes the hidden symbols of the relocatable object `path` local, as
/// `llvm-objcopy --localize-hidden` does: the runtime's functions (hidden)
/// then stay inside the object, so that the objects of two models link into
/// one program without clashing; the model's own API (default visibility)
/// stays global.
bool localizeHiddenSymbols(const std::string &path, std::string &error) {
  llvm::SmallVector<char, 0> buffer;
  {
    // The input's mapping is gone before the file is rewritten.
    llvm::Expected<llvm::object::OwningBinary<llvm::object::Binary>> binary =
        llvm::object::createBinary(path);
    if (!binary) {
      error = llvm::toString(binary.takeError());
      return false;
    }
    llvm::objcopy::ConfigManager config;
    config.Common.InputFilename = path;
    config.Common.OutputFilename = path;
    config.ELF.LocalizeHidden = true;
    llvm::raw_svector_ostream os(buffer);
    if (llvm::Error err = llvm::objcopy::executeObjcopyOnBinary(
            config, *binary->getBinary(), os)) {
      error = llvm::toString(std::move(err));
      return false;
    }
  }
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec) {
    error = "cannot write '" + path + "': " + ec.message();
    return false;
  }
  out.write(buffer.data(), buffer.size());
  return true;
}

} // namespace

std::vector<std::string> tfcc::hostLibraryDirs() {
  return {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64",
          "/usr/lib", "/lib"};
}

bool tfcc::linkWithLld(LinkKind kind, const std::vector<std::string> &objects,
                       const std::vector<std::string> &archives,
                       const std::vector<std::string> &libraryDirs,
                       const std::vector<std::string> &supportArchives,
                       const std::string &output, const std::string &soname,
                       std::string &error) {
  // lld keeps global state: one link at a time per process.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);

  std::vector<std::string> args = {"ld.lld", "-o", output};
  if (kind == LinkKind::SharedLibrary) {
    args.insert(args.end(), {"-shared", "-z", "defs", "-z", "now", "-z",
                             "relro", "--as-needed", "--gc-sections",
                             "-soname", soname, "--build-id"});
    for (const std::string &dir : libraryDirs)
      args.push_back("-L" + dir);
  } else {
    args.push_back("-r");
  }
  args.insert(args.end(), objects.begin(), objects.end());
  args.push_back("--whole-archive");
  args.insert(args.end(), archives.begin(), archives.end());
  args.push_back("--no-whole-archive");
  if (kind == LinkKind::SharedLibrary) {
    args.insert(args.end(), {"-lm", "-lc"});
    args.insert(args.end(), supportArchives.begin(), supportArchives.end());
  }

  std::vector<const char *> argv;
  for (const std::string &a : args)
    argv.push_back(a.c_str());
  std::string out, err;
  llvm::raw_string_ostream outStream(out), errStream(err);
  lld::Result result = lld::lldMain(argv, outStream, errStream,
                                    {{lld::Gnu, &lld::elf::link}});
  if (result.retCode != 0) {
    error = errStream.str().empty() ? outStream.str() : errStream.str();
    return false;
  }
  if (kind == LinkKind::Relocatable)
    return localizeHiddenSymbols(output, error);
  return true;
}

bool tfcc::writeStaticArchive(const std::string &object,
                              const std::string &archive,
                              const std::string &member, std::string &error) {
  llvm::Expected<llvm::NewArchiveMember> file =
      llvm::NewArchiveMember::getFile(object, /*Deterministic=*/true);
  if (!file) {
    error = llvm::toString(file.takeError());
    return false;
  }
  std::string name = member + ".o"; // MemberName refers to it
  file->MemberName = name;
  std::vector<llvm::NewArchiveMember> members;
  members.push_back(std::move(*file));
  if (llvm::Error err = llvm::writeArchive(
          archive, members, llvm::SymtabWritingMode::NormalSymtab,
          llvm::object::Archive::K_GNU, /*Deterministic=*/true,
          /*Thin=*/false)) {
    error = llvm::toString(std::move(err));
    return false;
  }
  return true;
}
