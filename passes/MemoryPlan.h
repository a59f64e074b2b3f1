//===- MemoryPlan.h - offsets for buffers with live ranges ------*- C++ -*-===//
//
// The arithmetic of the arena memory plan, free of MLIR: buffers have sizes
// that are affine in the batch (fixed + perBatch * batch) and live ranges over
// the op positions of a function; the planner gives each buffer an offset,
// itself affine in the batch, such that two buffers whose live ranges overlap
// never overlap in memory for any batch >= 1.
//
// Placement is componentwise: when buffer p lies below buffer q, both
// p.offset.fixed + p.size.fixed <= q.offset.fixed and p.offset.perBatch +
// p.size.perBatch <= q.offset.perBatch hold, which keeps them apart for every
// batch >= 1 (and is the classic offset assignment when nothing depends on the
// batch).
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_PASSES_MEMORYPLAN_H
#define TFCC_PASSES_MEMORYPLAN_H

#include <cstdint>
#include <vector>

namespace mlir::tfcc::memplan {

/// fixed + perBatch * batch.
struct Affine {
  int64_t fixed = 0;
  int64_t perBatch = 0;
  int64_t at(int64_t batch) const { return fixed + perBatch * batch; }
  bool isZero() const { return fixed == 0 && perBatch == 0; }
  friend bool operator==(const Affine &a, const Affine &b) {
    return a.fixed == b.fixed && a.perBatch == b.perBatch;
  }
};

struct Buffer {
  Affine size;
  /// Inclusive range of positions where the buffer holds live data.
  int64_t first = 0, last = 0;
  /// Set by planMemory.
  Affine offset;
  bool overlapsInTime(const Buffer &other) const {
    return !(last < other.first || other.last < first);
  }
};

struct Summary {
  /// The arena the plan needs: the componentwise maximum of offset + size.
  Affine peak;
  /// The arena without reuse: the sum of all sizes.
  Affine naive;
  /// Componentwise liveness bounds: the largest sum of the fixed (per-batch)
  /// parts of the buffers live at one position. Any placement of this form
  /// needs at least these.
  Affine boundComponents;
  /// The tightest liveness bound at batch 1: the largest sum of sizes at batch
  /// 1 of the buffers live at one position. No placement (of any form) fits a
  /// batch-1 call in fewer bytes.
  int64_t boundAtOne = 0;
};

/// The largest sum of sizes at `batch` over the buffers live at one position.
int64_t livenessBound(const std::vector<Buffer> &buffers, int64_t batch);

/// Assigns every buffer's offset (greedy placements in several orders; the
/// best one is kept) and summarizes the plan.
Summary planMemory(std::vector<Buffer> &buffers);

/// True when no two buffers that are live at the same time overlap for any
/// batch >= 1 (checks the componentwise condition).
bool verifyPlan(const std::vector<Buffer> &buffers);

} // namespace mlir::tfcc::memplan

#endif // TFCC_PASSES_MEMORYPLAN_H
