//===- Linker.cpp - link model objects with the runtime, in process -------===//

#include "compiler/Linker.h"

#include "lld/Common/Driver.h"

#include "llvm/Support/raw_ostream.h"

#include <mutex>

LLD_HAS_DRIVER(elf)

namespace {

/// Directories holding the host's libc.so and libm.so (Debian multiarch).
std::vector<std::string> hostLibraryDirs() {
  return {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64",
          "/usr/lib", "/lib"};
}

} // namespace

bool tfcc::linkWithLld(LinkKind kind, const std::vector<std::string> &objects,
                       const std::vector<std::string> &archives,
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
    for (const std::string &dir : hostLibraryDirs())
      args.push_back("-L" + dir);
  } else {
    args.push_back("-r");
  }
  args.insert(args.end(), objects.begin(), objects.end());
  args.push_back("--whole-archive");
  args.insert(args.end(), archives.begin(), archives.end());
  args.push_back("--no-whole-archive");
  if (kind == LinkKind::SharedLibrary)
    args.insert(args.end(), {"-lm", "-lc"});

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
  return true;
}
