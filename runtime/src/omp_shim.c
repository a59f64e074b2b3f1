/* omp_shim.c - the libomp entry points generated loop nests call.
 *
 * tfcc-parallelize-loops turns large generated loop nests into OpenMP
 * regions (omp.parallel + omp.wsloop nowait, static schedule); LLVM's
 * OpenMPIRBuilder outlines each body into a microtask and calls five libomp
 * functions, which the compiler renames __kmpc_X -> tfcc_rt_omp_X
 * (renameOpenMPRuntimeCalls in compiler/Compiler.cpp) to the functions
 * below: libomp's signatures and meaning, on the context's thread pool (the
 * thread-local current pool, tfcc_rt_get_current_pool) instead of libomp.
 * No thread is created, only the pool's threads run team members, and with
 * no pool (the default 1-thread context, embedded builds) the caller runs
 * the microtask alone. No libomp name is defined (and, like the rest of the
 * runtime, the symbols are hidden), so a model never clashes with a real
 * libomp the application uses.
 *
 * What the generated code needs, and all this supports: each team member
 * computes its own static block of the loop (tfcc_rt_omp_for_static_init_8u:
 * the pass gives every distributed loop index-typed, i.e. 64-bit, induction
 * variables), with no barrier (nowait) and no other synchronization, so a
 * member may run after another on the same thread (tfcc_rt_parallel_for
 * claims members as chunks), and since iterations are independent the
 * results never depend on the team size. */
#include "tfcc/tfcc_kernels.h"

#include <stdarg.h>
#include <stdint.h>

/* The microtask: (global thread id*, bound thread id*, captured args...). */
typedef void (*tfcc_omp_microtask)(int32_t*, int32_t*, ...);

#define TFCC_OMP_MAX_ARGS 8
/* Team members per pool thread: the pool's threads claim members (static
 * blocks of the loop) one at a time, so a thread that was preempted or
 * started late delays the region by one small block, not half of it. */
#define TFCC_OMP_MEMBERS_PER_THREAD 4

/* Per thread; a bare-metal runtime has one thread and no thread-local
 * storage. */
#if TFCC_RT_FREESTANDING
#define TFCC_OMP_THREAD_LOCAL
#else
#define TFCC_OMP_THREAD_LOCAL __thread
#endif
/* Team of the microtask running on this thread (size 0: none). */
static TFCC_OMP_THREAD_LOCAL int32_t tls_team_size;
static TFCC_OMP_THREAD_LOCAL int32_t tls_member;
/* tfcc_rt_omp_push_num_threads's request for the next fork (0: none). */
static TFCC_OMP_THREAD_LOCAL int32_t tls_requested;

typedef struct {
  tfcc_omp_microtask fn;
  int32_t argc;
  int32_t team;
  void* args[TFCC_OMP_MAX_ARGS];
} tfcc_omp_job;

static void omp_invoke(const tfcc_omp_job* job, int32_t member) {
  int32_t saved_size = tls_team_size, saved_member = tls_member;
  int32_t gtid = member, btid = member;
  void* const* a = job->args;
  tls_team_size = job->team;
  tls_member = member;
  /* Microtasks are declared variadic (libomp's kmpc_micro) but defined with
   * a fixed number of pointer arguments: each is called through its real
   * type (a call through the variadic type is undefined behaviour, which
   * UBSan's -fsanitize=function reports). */
  switch (job->argc) {
#define P int32_t*, int32_t*
  case 0: ((void (*)(P))job->fn)(&gtid, &btid); break;
  case 1: ((void (*)(P, void*))job->fn)(&gtid, &btid, a[0]); break;
  case 2: ((void (*)(P, void*, void*))job->fn)(&gtid, &btid, a[0], a[1]); break;
  case 3:
    ((void (*)(P, void*, void*, void*))job->fn)(&gtid, &btid, a[0], a[1], a[2]);
    break;
  case 4:
    ((void (*)(P, void*, void*, void*, void*))job->fn)(&gtid, &btid, a[0], a[1],
                                                       a[2], a[3]);
    break;
  case 5:
    ((void (*)(P, void*, void*, void*, void*, void*))job->fn)(
        &gtid, &btid, a[0], a[1], a[2], a[3], a[4]);
    break;
  case 6:
    ((void (*)(P, void*, void*, void*, void*, void*, void*))job->fn)(
        &gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5]);
    break;
  case 7:
    ((void (*)(P, void*, void*, void*, void*, void*, void*, void*))job->fn)(
        &gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
    break;
  default:
    ((void (*)(P, void*, void*, void*, void*, void*, void*, void*, void*))
         job->fn)(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    break;
#undef P
  }
  tls_team_size = saved_size;
  tls_member = saved_member;
}

static void omp_members(void* ctx, int64_t begin, int64_t end, int32_t thread) {
  (void)thread;
  for (int64_t m = begin; m < end; ++m)
    omp_invoke((const tfcc_omp_job*)ctx, (int32_t)m);
}

int32_t tfcc_rt_omp_global_thread_num(void* loc) {
  (void)loc;
  return tls_member;
}

void tfcc_rt_omp_push_num_threads(void* loc, int32_t gtid,
                                  int32_t num_threads) {
  (void)loc;
  (void)gtid;
  tls_requested = num_threads;
}

/* Runs microtask once per team member; returns when all are done. The team
 * is TFCC_OMP_MEMBERS_PER_THREAD members per thread of the current pool,
 * capped by tfcc_rt_omp_push_num_threads (the compiler asks for at most one
 * member per minimum amount of work); 1 inside another region or without a
 * pool. The compiler's OpenMP translation passes one aggregate argument;
 * more than TFCC_OMP_MAX_ARGS are never generated. */
void tfcc_rt_omp_fork_call(void* loc, int32_t argc,
                           tfcc_omp_microtask microtask, ...) {
  (void)loc;
  tfcc_omp_job job;
  job.fn = microtask;
  job.argc = argc < 0 ? 0 : argc;
  if (job.argc > TFCC_OMP_MAX_ARGS)
    job.argc = TFCC_OMP_MAX_ARGS; /* never generated; see above */
  va_list ap;
  va_start(ap, microtask);
  for (int32_t i = 0; i < job.argc; ++i)
    job.args[i] = va_arg(ap, void*);
  va_end(ap);
  int32_t threads = tfcc_rt_pool_num_threads(tfcc_rt_get_current_pool());
  int32_t team = threads > 1 ? threads * TFCC_OMP_MEMBERS_PER_THREAD : 1;
  if (tls_requested > 0 && tls_requested < team)
    team = tls_requested;
  tls_requested = 0;
  if (tls_team_size > 0)
    team = 1;
  job.team = team;
  if (team <= 1)
    omp_invoke(&job, 0);
  else
    tfcc_rt_parallel_for(team, omp_members, &job);
}

/* kmp_sch_static (34): member m of a team of t gets the m-th of t
 * contiguous blocks of the inclusive range [*lower, *upper] (the first
 * trip % t blocks one iteration longer); an empty block comes back as
 * *upper = *lower - incr. Other schedules are given the same block with a
 * stride past the end, so a chunked loop also runs it once. */
static void omp_static_init(int32_t schedtype, int32_t* plastiter,
                            uint64_t* plower, uint64_t* pupper,
                            int64_t* pstride, int64_t incr) {
  (void)schedtype;
  int64_t team = tls_team_size > 0 ? tls_team_size : 1;
  int64_t member = tls_team_size > 0 ? tls_member : 0;
  uint64_t lower = *plower, upper = *pupper, trip;
  if (incr == 0)
    incr = 1;
  if (incr > 0) {
    trip = upper < lower ? 0 : (upper - lower) / (uint64_t)incr + 1;
  } else {
    trip = upper > lower ? 0 : (lower - upper) / (uint64_t)(-incr) + 1;
  }
  /* The unsigned variant's zero-trip loop arrives as [0, UINT64_MAX]
   * (trip count - 1 wrapped): upper - lower + 1 wraps to 0 as well. */
  uint64_t base = trip / (uint64_t)team, extra = trip % (uint64_t)team;
  uint64_t m = (uint64_t)member;
  uint64_t begin = m * base + (m < extra ? m : extra);
  uint64_t count = base + (m < extra ? 1 : 0);
  *plower = lower + begin * (uint64_t)incr;
  *pupper = *plower + (count - 1) * (uint64_t)incr; /* count 0: lower - incr */
  *pstride = (int64_t)(trip * (uint64_t)incr);
  if (plastiter)
    *plastiter = count > 0 && begin + count == trip;
}

void tfcc_rt_omp_for_static_init_8u(void* loc, int32_t gtid, int32_t schedtype,
                                    int32_t* plastiter, uint64_t* plower,
                                    uint64_t* pupper, int64_t* pstride,
                                    int64_t incr, int64_t chunk) {
  (void)loc;
  (void)gtid;
  (void)chunk;
  omp_static_init(schedtype, plastiter, plower, pupper, pstride, incr);
}

void tfcc_rt_omp_for_static_fini(void* loc, int32_t gtid) {
  (void)loc;
  (void)gtid;
}
