//===- ThreadsOption.h - a tool's --threads beside libLLVM's own -*- C++
//-*-===//
//
// libLLVM registers an undocumented option called "threads" of its own (at
// load time, before a tool's options): a tool's --threads takes the name
// over. Call it once, in main, before parsing the command line.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_TOOLS_THREADSOPTION_H
#define TFCC_TOOLS_THREADSOPTION_H

#include "llvm/Support/CommandLine.h"

namespace tfcc {

inline llvm::cl::opt<int> &threadsOption(llvm::cl::OptionCategory &category,
                                         const char *description) {
  auto &registered = llvm::cl::getRegisteredOptions();
  auto it = registered.find("threads");
  if (it != registered.end())
    it->second->removeArgument();
  static llvm::cl::opt<int> option("threads", llvm::cl::desc(description),
                                   llvm::cl::value_desc("N"), llvm::cl::init(1),
                                   llvm::cl::cat(category));
  return option;
}

} // namespace tfcc

#endif // TFCC_TOOLS_THREADSOPTION_H
