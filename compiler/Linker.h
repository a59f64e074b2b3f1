//===- Linker.h - link model objects with the runtime, in process -*- C++ -*-===//

#ifndef TFCC_COMPILER_LINKER_H
#define TFCC_COMPILER_LINKER_H

#include <string>
#include <vector>

namespace tfcc {

enum class LinkKind { SharedLibrary, Relocatable };

/// Links `objects` and `archives` (whole) with lld's ELF driver. A shared
/// library is linked against libc and libm only, found in `libraryDirs`
/// (and `supportArchives`, e.g. libgcc.a for a 32-bit ARM target's 64-bit
/// division), and must have no undefined symbols. Returns false and fills `error` with lld's
/// messages on failure.
bool linkWithLld(LinkKind kind, const std::vector<std::string> &objects,
                 const std::vector<std::string> &archives,
                 const std::vector<std::string> &libraryDirs,
                 const std::vector<std::string> &supportArchives,
                 const std::string &output, const std::string &soname,
                 std::string &error);

/// Writes the static library `archive` holding the object file `object` as
/// its one member, named `<member>.o`, with a symbol table (as `ar rcs`).
bool writeStaticArchive(const std::string &object, const std::string &archive,
                        const std::string &member, std::string &error);

/// Directories holding the host's libc.so and libm.so (Debian multiarch).
std::vector<std::string> hostLibraryDirs();

} // namespace tfcc

#endif // TFCC_COMPILER_LINKER_H
