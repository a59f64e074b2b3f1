//===- BoundedFile.cpp - read a regular file of bounded size --------------===//

#include "compiler/BoundedFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

bool tfcc::readBoundedFile(const std::string &path, int64_t maxBytes,
                           const std::string &what,
                           std::vector<uint8_t> &bytes,
                           std::string &error) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = "cannot open " + what + " '" + path + "': " + std::strerror(errno);
    return false;
  }
  // The opened file's status (not the path's: it may have been replaced).
  struct stat st;
  if (fstat(fileno(file), &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fclose(file);
    error = what + " '" + path + "' is not a regular file";
    return false;
  }
  if (st.st_size > maxBytes) {
    std::fclose(file);
    error = what + " '" + path + "' is " + std::to_string(st.st_size) +
            " bytes, more than the " + std::to_string(maxBytes) + " a " +
            what + " may have";
    return false;
  }
  bytes.resize(static_cast<size_t>(st.st_size));
  size_t n = bytes.empty() ? 0 : std::fread(bytes.data(), 1, bytes.size(), file);
  bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed || n != bytes.size()) {
    error = "cannot read " + what + " '" + path + "'" +
            (failed ? std::string(": read error") : ": it shrank while read");
    return false;
  }
  return true;
}
