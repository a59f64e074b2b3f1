//===- Replicas.h - the processes of a data-parallel tfcc-train -*- C++ -*-===//
//
// tfcc-train --mpi (docs/distributed.md): one process per MPI rank, each a
// replica of the model. This is the whole of what tfcc-train asks of MPI, so
// that the rest of the tool builds without it; a build without Open MPI
// refuses --mpi.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_TOOLS_TFCC_TRAIN_REPLICAS_H
#define TFCC_TOOLS_TFCC_TRAIN_REPLICAS_H

#include <cstddef>
#include <memory>
#include <string>

namespace tfcc {

class Replicas {
public:
  /// Whether this tfcc-train was built with Open MPI.
  static bool available();
  /// MPI_Init and this process's place among the replicas; null with `error`
  /// set when MPI cannot start (or the build has no MPI).
  static std::unique_ptr<Replicas> start(int &argc, char **&argv,
                                         std::string &error);
  ~Replicas(); // MPI_Finalize

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Sums `count` floats (or doubles) element-wise over the replicas, in
  /// place, in buckets of at most kBucketBytes reduced concurrently. False
  /// with `error` set when MPI reports a failure.
  bool sum(float *values, size_t count, std::string &error);
  bool sum(double *values, size_t count, std::string &error);
  /// Ends every replica with `code` (MPI_Abort): after a failure of this one,
  /// so that the others do not wait for it forever.
  [[noreturn]] void abort(int code);

  static constexpr size_t kBucketBytes = 4 << 20;

private:
  Replicas(int rank, int size) : rank_(rank), size_(size) {}
  int rank_ = 0, size_ = 1;
};

} // namespace tfcc

#endif // TFCC_TOOLS_TFCC_TRAIN_REPLICAS_H
