//===- OmpShimTest.cpp - the runtime's libomp entry points ----------------===//
//
// runtime/src/omp_shim.c implements the few libomp functions that the
// OpenMP regions of generated loop nests call (tfcc-parallelize-loops; the
// compiler renames __kmpc_X to tfcc_rt_omp_X), on the context's thread pool.
// These tests drive them the way LLVM's OpenMPIRBuilder code does:
// push_num_threads, fork_call with one aggregate argument, and in the
// microtask global_thread_num + for_static_init_8u + for_static_fini over
// the inclusive normalized range [0, trip - 1].
//
//===----------------------------------------------------------------------===//

#include "tfcc/tfcc_kernels.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

extern "C" {
typedef void (*Microtask)(int32_t *, int32_t *, ...);
int32_t tfcc_rt_omp_global_thread_num(void *loc);
void tfcc_rt_omp_push_num_threads(void *loc, int32_t gtid, int32_t num_threads);
void tfcc_rt_omp_fork_call(void *loc, int32_t argc, Microtask microtask, ...);
void tfcc_rt_omp_for_static_init_8u(void *loc, int32_t gtid, int32_t schedtype,
                                    int32_t *plastiter, uint64_t *plower,
                                    uint64_t *pupper, int64_t *pstride,
                                    int64_t incr, int64_t chunk);
void tfcc_rt_omp_for_static_fini(void *loc, int32_t gtid);
}

namespace {

constexpr int32_t kSchedStatic = 34;

struct Loop {
  uint64_t trip;
  std::vector<std::atomic<int>> *hits; // per iteration
  std::vector<int32_t> *owner;         // team member of each iteration
  std::atomic<int> members{0};
  std::atomic<int> lastIters{0};
  std::atomic<int> maxTeam{0};
};

/// What OpenMPIRBuilder's static worksharing loop does in the outlined body.
/// Microtasks take untyped pointers, as the generated ones do (the runtime
/// calls them through that type).
void loopMicrotask(int32_t *gtid, int32_t *, void *arg) {
  Loop *loop = static_cast<Loop *>(arg);
  int32_t tid = tfcc_rt_omp_global_thread_num(nullptr);
  EXPECT_EQ(tid, *gtid);
  int32_t last = 0;
  uint64_t lower = 0, upper = loop->trip - 1;
  int64_t stride = 0;
  tfcc_rt_omp_for_static_init_8u(nullptr, tid, kSchedStatic, &last, &lower,
                                 &upper, &stride, 1, 0);
  uint64_t count = upper - lower + 1; // as the generated code computes it
  for (uint64_t i = 0; i < count; ++i) {
    (*loop->hits)[lower + i].fetch_add(1);
    (*loop->owner)[lower + i] = tid;
  }
  tfcc_rt_omp_for_static_fini(nullptr, tid);
  loop->members.fetch_add(1);
  loop->lastIters.fetch_add(last);
  int seen = loop->maxTeam.load();
  while (tid + 1 > seen &&
         !loop->maxTeam.compare_exchange_weak(seen, tid + 1)) {
  }
}

/// Runs a `trip`-iteration loop with the given num_threads request (0: none)
/// and checks every iteration ran once, members got contiguous ascending
/// blocks, and exactly one member saw the last iteration.
void runLoop(uint64_t trip, int32_t request, int expectTeam) {
  std::vector<std::atomic<int>> hits(trip);
  std::vector<int32_t> owner(trip, -1);
  Loop loop;
  loop.trip = trip;
  loop.hits = &hits;
  loop.owner = &owner;
  if (request > 0)
    tfcc_rt_omp_push_num_threads(
        nullptr, tfcc_rt_omp_global_thread_num(nullptr), request);
  tfcc_rt_omp_fork_call(nullptr, 1, reinterpret_cast<Microtask>(loopMicrotask),
                        &loop);
  EXPECT_EQ(loop.members.load(), expectTeam);
  EXPECT_EQ(loop.maxTeam.load(), expectTeam);
  EXPECT_EQ(loop.lastIters.load(), trip > 0 ? 1 : 0);
  for (uint64_t i = 0; i < trip; ++i) {
    ASSERT_EQ(hits[i].load(), 1) << "iteration " << i;
    if (i > 0)
      ASSERT_GE(owner[i], owner[i - 1]) << "iteration " << i;
  }
  // Blocks differ by at most one iteration.
  if (trip >= static_cast<uint64_t>(expectTeam)) {
    std::vector<uint64_t> sizes(expectTeam, 0);
    for (int32_t o : owner)
      ++sizes[o];
    for (uint64_t s : sizes)
      EXPECT_LE(s, trip / expectTeam + 1);
  }
}

struct PoolScope {
  explicit PoolScope(int32_t threads) : pool(tfcc_rt_pool_create(threads)) {
    tfcc_rt_set_current_pool(pool);
  }
  ~PoolScope() {
    tfcc_rt_set_current_pool(nullptr);
    tfcc_rt_pool_destroy(pool);
  }
  tfcc_rt_pool *pool;
};

TEST(OmpShim, NoPoolRunsOneMemberOnTheCaller) {
  tfcc_rt_set_current_pool(nullptr);
  for (uint64_t trip : {0, 1, 7, 1000})
    runLoop(trip, 0, 1);
  runLoop(100, 8, 1); // a request never exceeds the (absent) pool
}

TEST(OmpShim, TeamIsFourMembersPerPoolThreadCappedByTheRequest) {
  PoolScope scope(3);
  for (uint64_t trip : {0, 1, 2, 3, 11, 12, 13, 64, 1001})
    runLoop(trip, 0, 12);
  runLoop(1000, 2, 2);
  runLoop(1000, 1, 1);
  runLoop(1000, 5, 5);
  runLoop(1000, 100, 12);
  // The request applies to the next fork only.
  runLoop(1000, 0, 12);
}

TEST(OmpShim, MembersRunOnPoolThreads) {
  PoolScope scope(2);
  struct Seen {
    std::thread::id caller = std::this_thread::get_id();
    std::atomic<int> calls{0};
    std::atomic<bool> other{false};
  } seen;
  // Member 0 (claimed first, by the caller) waits for a member to run on the
  // pool's worker: members are not guaranteed to run concurrently, but a
  // worker takes part in a fork.
  auto microtask = +[](int32_t *gtid, int32_t *, void *arg) {
    Seen *s = static_cast<Seen *>(arg);
    if (std::this_thread::get_id() != s->caller)
      s->other = true;
    auto start = std::chrono::steady_clock::now();
    while (*gtid == 0 && !s->other &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(10))
      std::this_thread::yield();
    s->calls.fetch_add(1);
  };
  tfcc_rt_omp_fork_call(nullptr, 1, reinterpret_cast<Microtask>(microtask),
                        &seen);
  EXPECT_TRUE(seen.other.load());
  EXPECT_EQ(seen.calls.load(), 8);
}

TEST(OmpShim, NestedForkRunsSerially) {
  PoolScope scope(2);
  struct Nested {
    std::atomic<int> inner{0};
    std::atomic<int> outer{0};
  } n;
  auto inner = +[](int32_t *gtid, int32_t *, void *arg) {
    Nested *s = static_cast<Nested *>(arg);
    EXPECT_EQ(*gtid, 0);
    EXPECT_EQ(tfcc_rt_omp_global_thread_num(nullptr), 0);
    s->inner.fetch_add(1);
  };
  auto outer = +[](int32_t *gtid, int32_t *, void *arg, void *innerFn) {
    Nested *s = static_cast<Nested *>(arg);
    int32_t member = *gtid;
    tfcc_rt_omp_fork_call(nullptr, 1, reinterpret_cast<Microtask>(innerFn), s);
    // The outer member's identity is restored after the nested region.
    EXPECT_EQ(tfcc_rt_omp_global_thread_num(nullptr), member);
    s->outer.fetch_add(1);
  };
  tfcc_rt_omp_fork_call(nullptr, 2, reinterpret_cast<Microtask>(outer), &n,
                        reinterpret_cast<void *>(inner));
  EXPECT_EQ(n.outer.load(), 8);
  EXPECT_EQ(n.inner.load(), 8);
  EXPECT_EQ(tfcc_rt_omp_global_thread_num(nullptr), 0);
}

TEST(OmpShim, PassesEveryArgument) {
  auto microtask = +[](int32_t *, int32_t *, void *a, void *b, void *c,
                       void *d, void *e, void *f, void *g, void *h) {
    *static_cast<int *>(a) += 1;
    *static_cast<int *>(b) += 2;
    *static_cast<int *>(c) += 3;
    *static_cast<int *>(d) += 4;
    *static_cast<int *>(e) += 5;
    *static_cast<int *>(f) += 6;
    *static_cast<int *>(g) += 7;
    *static_cast<int *>(h) += 8;
  };
  int v[8] = {0};
  tfcc_rt_omp_fork_call(nullptr, 8, reinterpret_cast<Microtask>(microtask),
                        &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(v[i], i + 1);
}

} // namespace
