//===- Replicas.cpp - MPI for tfcc-train --mpi ----------------------------===//

#include "tools/tfcc-train/Replicas.h"

#include <cstdlib>

#ifdef TFCC_HAVE_MPI
// The C API only (Open MPI's C++ bindings are deprecated).
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <vector>
#endif

namespace tfcc {

#ifdef TFCC_HAVE_MPI

namespace {

std::string mpiError(const char *call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    length = 0;
  return std::string(call) + " failed: " +
         (length ? std::string(text, size_t(length))
                 : "MPI error " + std::to_string(code)) +
         " (did another replica end?)";
}

template <typename T>
bool sumInBuckets(T *values, size_t count, MPI_Datatype type,
                  std::string &error) {
  const size_t bucket = std::max<size_t>(1, Replicas::kBucketBytes / sizeof(T));
  std::vector<MPI_Request> requests;
  for (size_t first = 0; first < count; first += bucket) {
    int n = int(std::min(bucket, count - first));
    requests.emplace_back();
    int code = MPI_Iallreduce(MPI_IN_PLACE, values + first, n, type, MPI_SUM,
                              MPI_COMM_WORLD, &requests.back());
    if (code != MPI_SUCCESS) {
      error = mpiError("MPI_Iallreduce", code);
      return false;
    }
  }
  int code =
      MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  if (code != MPI_SUCCESS) {
    error = mpiError("MPI_Waitall", code);
    return false;
  }
  return true;
}

} // namespace

bool Replicas::available() { return true; }

std::unique_ptr<Replicas> Replicas::start(int &argc, char **&argv,
                                          std::string &error) {
  int code = MPI_Init(&argc, &argv);
  if (code != MPI_SUCCESS) {
    error = mpiError("MPI_Init", code);
    return nullptr;
  }
  // Errors come back as codes, turned into messages by the callers.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return std::unique_ptr<Replicas>(new Replicas(rank, size));
}

Replicas::~Replicas() { MPI_Finalize(); }

bool Replicas::sum(float *values, size_t count, std::string &error) {
  return sumInBuckets(values, count, MPI_FLOAT, error);
}

bool Replicas::sum(double *values, size_t count, std::string &error) {
  return sumInBuckets(values, count, MPI_DOUBLE, error);
}

void Replicas::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

#else // no MPI

bool Replicas::available() { return false; }

std::unique_ptr<Replicas> Replicas::start(int &, char **&, std::string &error) {
  error = "--mpi cannot take effect: this tfcc-train was built without Open "
          "MPI (install libopenmpi-dev and openmpi-bin, then configure again; "
          "docs/distributed.md)";
  return nullptr;
}

Replicas::~Replicas() = default;

bool Replicas::sum(float *, size_t, std::string &error) {
  error = "no MPI";
  return false;
}

bool Replicas::sum(double *, size_t, std::string &error) {
  error = "no MPI";
  return false;
}

void Replicas::abort(int code) { std::exit(code); }

#endif

} // namespace tfcc
