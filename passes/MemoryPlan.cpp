//===- MemoryPlan.cpp - offsets for buffers with live ranges --------------===//
//
// Greedy offset assignment: buffers are placed one at a time, each at the
// best valid position among the ones the already placed buffers it conflicts
// with (overlapping live ranges) leave free. Several orders and two choices of
// position are tried; the plan closest to the liveness bound wins.
//
//===----------------------------------------------------------------------===//

#include "passes/MemoryPlan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

namespace mlir::tfcc::memplan {
namespace {

Affine end(const Buffer &b) {
  return {b.offset.fixed + b.size.fixed, b.offset.perBatch + b.size.perBatch};
}

/// p lies entirely below q for every batch >= 1 (componentwise).
bool below(const Affine &pEnd, const Affine &qOffset) {
  return pEnd.fixed <= qOffset.fixed && pEnd.perBatch <= qOffset.perBatch;
}

enum class Fit { Lowest, Best };

/// Places buffers in `order`; returns the offsets.
std::vector<Affine> place(const std::vector<Buffer> &buffers,
                          const std::vector<size_t> &order, Fit fit,
                          int64_t batch) {
  std::vector<Buffer> work = buffers;
  std::vector<size_t> placed;
  std::vector<size_t> conflicts;
  std::vector<Affine> candidates;
  for (size_t i : order) {
    Buffer &buffer = work[i];
    buffer.offset = {};
    if (buffer.size.isZero()) {
      placed.push_back(i);
      continue;
    }
    conflicts.clear();
    for (size_t j : placed)
      if (!work[j].size.isZero() && work[j].overlapsInTime(buffer))
        conflicts.push_back(j);

    // Candidates: the bottom, the end of each conflicting buffer, and the
    // componentwise maxima of the ends of the lowest k conflicting buffers
    // (for batch-independent sizes the ends alone suffice).
    candidates.clear();
    candidates.push_back({});
    std::sort(conflicts.begin(), conflicts.end(), [&](size_t a, size_t b) {
      int64_t ea = end(work[a]).at(batch), eb = end(work[b]).at(batch);
      return ea != eb ? ea < eb : a < b;
    });
    Affine prefix;
    for (size_t j : conflicts) {
      Affine e = end(work[j]);
      candidates.push_back(e);
      prefix = {std::max(prefix.fixed, e.fixed),
                std::max(prefix.perBatch, e.perBatch)};
      if (!(prefix == e))
        candidates.push_back(prefix);
    }

    bool found = false;
    Affine bestOffset;
    int64_t bestGap = 0, bestCost = 0;
    for (const Affine &c : candidates) {
      Affine cEnd{c.fixed + buffer.size.fixed,
                  c.perBatch + buffer.size.perBatch};
      int64_t gap = std::numeric_limits<int64_t>::max();
      bool valid = true;
      for (size_t j : conflicts) {
        const Buffer &other = work[j];
        if (below(end(other), c))
          continue;
        if (!below(cEnd, other.offset)) {
          valid = false;
          break;
        }
        gap = std::min(gap, other.offset.at(batch) - cEnd.at(batch));
      }
      if (!valid)
        continue;
      int64_t cost = c.at(batch);
      bool better;
      if (!found)
        better = true;
      else if (fit == Fit::Best && gap != bestGap)
        better = gap < bestGap;
      else if (cost != bestCost)
        better = cost < bestCost;
      else
        better = c.perBatch < bestOffset.perBatch;
      if (better) {
        found = true;
        bestOffset = c;
        bestGap = gap;
        bestCost = cost;
      }
    }
    // The componentwise maximum of all conflicting ends is always valid, so
    // `found` holds; it is among the candidates as the last prefix.
    buffer.offset = bestOffset;
    placed.push_back(i);
  }
  std::vector<Affine> offsets;
  for (const Buffer &b : work)
    offsets.push_back(b.offset);
  return offsets;
}

Affine peakOf(const std::vector<Buffer> &buffers) {
  Affine peak;
  for (const Buffer &b : buffers) {
    Affine e = end(b);
    peak.fixed = std::max(peak.fixed, e.fixed);
    peak.perBatch = std::max(peak.perBatch, e.perBatch);
  }
  return peak;
}

/// The largest sum of `component(size)` over the buffers live at one position.
template <typename F>
int64_t maxLiveSum(const std::vector<Buffer> &buffers, F component) {
  // Sweep: +size at first, -size after last.
  std::map<int64_t, int64_t> delta;
  for (const Buffer &b : buffers) {
    delta[b.first] += component(b.size);
    delta[b.last + 1] -= component(b.size);
  }
  int64_t live = 0, best = 0;
  for (auto [pos, d] : delta) {
    live += d;
    best = std::max(best, live);
  }
  return best;
}

} // namespace

int64_t livenessBound(const std::vector<Buffer> &buffers, int64_t batch) {
  return maxLiveSum(buffers, [&](const Affine &s) { return s.at(batch); });
}

bool verifyPlan(const std::vector<Buffer> &buffers) {
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer &a = buffers[i];
    if (a.offset.fixed < 0 || a.offset.perBatch < 0)
      return false;
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const Buffer &b = buffers[j];
      if (a.size.isZero() || b.size.isZero() || !a.overlapsInTime(b))
        continue;
      if (!below(end(a), b.offset) && !below(end(b), a.offset))
        return false;
    }
  }
  return true;
}

Summary planMemory(std::vector<Buffer> &buffers) {
  Summary summary;
  for (const Buffer &b : buffers) {
    summary.naive.fixed += b.size.fixed;
    summary.naive.perBatch += b.size.perBatch;
  }
  summary.boundComponents = {
      maxLiveSum(buffers, [](const Affine &s) { return s.fixed; }),
      maxLiveSum(buffers, [](const Affine &s) { return s.perBatch; })};
  summary.boundAtOne = livenessBound(buffers, 1);
  if (buffers.empty())
    return summary;

  // Plans are compared by their worst ratio to the liveness bound at a small
  // and a large batch.
  constexpr int64_t kLargeBatch = 1024;
  int64_t boundSmall = std::max<int64_t>(1, summary.boundAtOne);
  int64_t boundLarge = std::max<int64_t>(1, livenessBound(buffers, kLargeBatch));
  auto score = [&](const Affine &peak) {
    return std::max(double(peak.at(1)) / double(boundSmall),
                    double(peak.at(kLargeBatch)) / double(boundLarge));
  };

  std::vector<Affine> bestOffsets;
  double bestScore = 0;
  std::vector<Buffer> trial = buffers;
  for (int64_t batch : {int64_t(1), kLargeBatch}) {
    auto size = [&](size_t i) { return buffers[i].size.at(batch); };
    auto duration = [&](size_t i) {
      return buffers[i].last - buffers[i].first + 1;
    };
    std::vector<size_t> bySize(buffers.size());
    std::iota(bySize.begin(), bySize.end(), 0);
    std::vector<size_t> byTime = bySize, byArea = bySize;
    std::stable_sort(bySize.begin(), bySize.end(), [&](size_t a, size_t b) {
      if (size(a) != size(b))
        return size(a) > size(b);
      return duration(a) > duration(b);
    });
    std::stable_sort(byTime.begin(), byTime.end(), [&](size_t a, size_t b) {
      if (buffers[a].first != buffers[b].first)
        return buffers[a].first < buffers[b].first;
      return size(a) > size(b);
    });
    std::stable_sort(byArea.begin(), byArea.end(), [&](size_t a, size_t b) {
      // Overflow-safe enough: sizes are far below 2^40, durations 2^20.
      return size(a) * duration(a) > size(b) * duration(b);
    });
    for (const std::vector<size_t> *order : {&bySize, &byArea, &byTime})
      for (Fit fit : {Fit::Lowest, Fit::Best}) {
        std::vector<Affine> offsets = place(buffers, *order, fit, batch);
        for (size_t i = 0; i < trial.size(); ++i)
          trial[i].offset = offsets[i];
        double s = score(peakOf(trial));
        if (bestOffsets.empty() || s < bestScore) {
          bestOffsets = std::move(offsets);
          bestScore = s;
        }
      }
  }
  for (size_t i = 0; i < buffers.size(); ++i)
    buffers[i].offset = bestOffsets[i];
  summary.peak = peakOf(buffers);
  return summary;
}

} // namespace mlir::tfcc::memplan
