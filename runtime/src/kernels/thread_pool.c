/* thread_pool.c - the persistent thread pool of the kernel library.
 *
 * num_threads - 1 workers wait for a job generation counter to change: they
 * spin for a short while (so back-to-back kernel calls dispatch in well under
 * a microsecond or two), then sleep on a futex (a condition variable off
 * Linux). A job is (fn, ctx, n) cut into up to 8 chunks per thread. Thread i
 * owns the i-th contiguous run of chunks and takes them from the front; a
 * thread whose run is empty steals from the back of the others'. Without
 * stealing, thread i therefore covers the i-th fraction of [0, n) in every
 * job, so a layer split the same way as the one before it reads what this
 * thread just wrote, from its own cache: on a VM whose two vCPUs sit on
 * different L3 slices, interleaved chunks made every layer pull half its
 * input from the other slice. Each run is one 64-bit word, (generation,
 * first chunk, end chunk), changed by compare-and-swap, so a late worker can
 * never claim a chunk of a later job. The submitting thread works too and
 * returns when the count of finished indices reaches n.
 * Only tfcc_rt_pool_create mallocs. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif
#include "kernels_internal.h"

#if TFCC_RT_FREESTANDING
/* A bare-metal target (runtime/toolchains/thumbv7em-none-eabihf.cmake) has
 * no threads: no pool is ever made, and every job runs on the calling
 * thread, in one piece, as with a pool of one thread. */
static tfcc_rt_pool* current_pool;

tfcc_rt_pool* tfcc_rt_pool_create(int32_t num_threads) {
  (void)num_threads;
  return NULL;
}
void tfcc_rt_pool_destroy(tfcc_rt_pool* p) { (void)p; }
int32_t tfcc_rt_pool_num_threads(const tfcc_rt_pool* p) {
  (void)p;
  return 1;
}
void tfcc_rt_set_current_pool(tfcc_rt_pool* p) { current_pool = p; }
tfcc_rt_pool* tfcc_rt_get_current_pool(void) { return current_pool; }
void tfcc_rt_parallel_for(int64_t n, void (*fn)(void*, int64_t, int64_t, int32_t),
                          void* ctx) {
  if (n > 0)
    fn(ctx, 0, n, 0);
}
#else

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#define TFCC_USE_FUTEX 1
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TFCC_PAUSE() _mm_pause()
#else
#define TFCC_PAUSE() ((void)0)
#endif

#define LD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define LDX(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define ST(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* Spins (pause instructions) a worker makes before sleeping: ~50-100 us. */
#define TFCC_POOL_SPIN 4000
/* Stack of each worker (kernels need TFCC_RT_KERNEL_STACK_BYTES). */
#define TFCC_POOL_STACK (4u << 20)

typedef void (*tfcc_pf_fn)(void*, int64_t, int64_t, int32_t);

typedef struct tfcc_worker {
  struct tfcc_rt_pool* pool;
  int32_t index;
  pthread_t thread;
} tfcc_worker;

/* Chunks per thread in a job: enough to even out a late or preempted thread
 * by stealing, few enough that claiming stays cheap. */
#define TFCC_POOL_CHUNKS_PER_THREAD 8
/* A run word: (generation << 32) | (first chunk << 16) | end chunk. */
#define TFCC_RUN(gen, first, end)                                            \
  (((uint64_t)(gen) << 32) | ((uint64_t)(first) << 16) | (uint64_t)(end))
#define TFCC_RUN_GEN(w) ((uint32_t)((w) >> 32))
#define TFCC_RUN_FIRST(w) ((int64_t)(((w) >> 16) & 0xffffu))
#define TFCC_RUN_END(w) ((int64_t)((w)&0xffffu))
/* Chunk counts must fit the 16-bit fields. */
#define TFCC_POOL_MAX_THREADS (0xffff / TFCC_POOL_CHUNKS_PER_THREAD)

/* Thread i's run of chunks, alone on its cache line (its owner's claims do
 * not bounce a line the other threads use). */
typedef struct {
  uint64_t word;
  char pad[56];
} tfcc_run;

struct tfcc_rt_pool {
  int32_t num_threads;
  int32_t num_started;
  tfcc_worker* workers;
  tfcc_run* runs; /* num_threads, 64-byte aligned, in runs_block */
  void* runs_block;
  /* the job (written by the submitter before the generation is bumped) */
  tfcc_pf_fn fn;
  void* ctx;
  int64_t n;
  int64_t chunk; /* indices per chunk */
  char pad1[64];
  int64_t done; /* indices finished in the current job */
  char pad2[64];
  uint32_t gen; /* futex word: job generation */
  int32_t sleepers;
  int32_t stop;
  int32_t busy; /* a submitter owns the pool */
#if !TFCC_USE_FUTEX
  pthread_mutex_t mu;
  pthread_cond_t cv;
#endif
};

static __thread tfcc_rt_pool* tls_pool;
static __thread int32_t tls_in_job; /* inside fn on this thread */
static __thread int32_t tls_index;  /* thread index while in a job */

static void pool_wait(tfcc_rt_pool* p, uint32_t seen) {
#if TFCC_USE_FUTEX
  syscall(SYS_futex, &p->gen, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
#else
  pthread_mutex_lock(&p->mu);
  while (__atomic_load_n(&p->gen, __ATOMIC_SEQ_CST) == seen)
    pthread_cond_wait(&p->cv, &p->mu);
  pthread_mutex_unlock(&p->mu);
#endif
}

static void pool_wake(tfcc_rt_pool* p) {
#if TFCC_USE_FUTEX
  syscall(SYS_futex, &p->gen, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
#else
  pthread_mutex_lock(&p->mu);
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
#endif
}

/* Takes one chunk of job `gen` from run r: from the front when r is the
 * caller's own run, else from the back. Returns the chunk, or -1 when r is
 * empty or belongs to another job. */
static int64_t pool_take(tfcc_run* r, uint32_t gen, int own) {
  uint64_t cur = LD(&r->word);
  for (;;) {
    if (TFCC_RUN_GEN(cur) != gen)
      return -1;
    int64_t first = TFCC_RUN_FIRST(cur), end = TFCC_RUN_END(cur);
    if (first >= end)
      return -1;
    uint64_t next = own ? TFCC_RUN(gen, first + 1, end)
                        : TFCC_RUN(gen, first, end - 1);
    if (__atomic_compare_exchange_n(&r->word, &cur, next, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
      return own ? first : end - 1;
  }
}

/* Runs chunks of job `gen` until none is left: thread `index`'s own run
 * first, then the other runs from their backs. The job's parameters may be
 * a later job's when this thread saw `gen` late, but then every run word
 * carries another generation and nothing runs: a run of `gen` still holds a
 * chunk only while that job is unfinished, and the next job's parameters
 * are written after it finishes. */
static void pool_work(tfcc_rt_pool* p, uint32_t gen, int32_t index) {
  tfcc_pf_fn fn = LDX(&p->fn);
  void* ctx = LDX(&p->ctx);
  int64_t n = LDX(&p->n), chunk = LDX(&p->chunk);
  int32_t t = p->num_threads;
  int64_t finished = 0;
  tls_in_job = 1;
  tls_index = index;
  for (int32_t k = 0; k < t; ++k) {
    tfcc_run* r = &p->runs[(index + k) % t];
    for (int64_t c; (c = pool_take(r, gen, k == 0)) >= 0;) {
      int64_t begin = c * chunk;
      int64_t end = begin + chunk < n ? begin + chunk : n;
      fn(ctx, begin, end, index);
      finished += end - begin;
    }
  }
  tls_in_job = 0;
  if (finished)
    __atomic_fetch_add(&p->done, finished, __ATOMIC_RELEASE);
}

static void* pool_main(void* arg) {
  tfcc_worker* wk = (tfcc_worker*)arg;
  tfcc_rt_pool* p = wk->pool;
  uint32_t seen = 0;
  for (;;) {
    uint32_t g = LD(&p->gen);
    for (int i = 0; g == seen && i < TFCC_POOL_SPIN; ++i) {
      TFCC_PAUSE();
      g = LD(&p->gen);
    }
    if (g == seen) {
      __atomic_fetch_add(&p->sleepers, 1, __ATOMIC_SEQ_CST);
      while ((g = __atomic_load_n(&p->gen, __ATOMIC_SEQ_CST)) == seen)
        pool_wait(p, seen);
      __atomic_fetch_sub(&p->sleepers, 1, __ATOMIC_SEQ_CST);
    }
    seen = g;
    if (LD(&p->stop))
      break;
    pool_work(p, g, wk->index);
  }
  return NULL;
}

tfcc_rt_pool* tfcc_rt_pool_create(int32_t num_threads) {
  if (num_threads < 1)
    return NULL;
  if (num_threads > TFCC_POOL_MAX_THREADS)
    num_threads = TFCC_POOL_MAX_THREADS;
  tfcc_rt_pool* p = (tfcc_rt_pool*)calloc(1, sizeof(tfcc_rt_pool));
  if (!p)
    return NULL;
  p->num_threads = num_threads;
  /* calloc, aligned by hand: aligned_alloc is not C99 */
  p->runs_block = calloc((size_t)num_threads + 1, sizeof(tfcc_run));
  if (!p->runs_block) {
    free(p);
    return NULL;
  }
  p->runs = (tfcc_run*)(((uintptr_t)p->runs_block + 63) & ~(uintptr_t)63);
#if !TFCC_USE_FUTEX
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
#endif
  if (num_threads > 1) {
    p->workers = (tfcc_worker*)calloc((size_t)num_threads, sizeof(tfcc_worker));
    if (!p->workers) {
      tfcc_rt_pool_destroy(p);
      return NULL;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, TFCC_POOL_STACK);
    for (int32_t i = 1; i < num_threads; ++i) {
      p->workers[i].pool = p;
      p->workers[i].index = i;
      if (pthread_create(&p->workers[i].thread, &attr, pool_main,
                         &p->workers[i]) != 0) {
        pthread_attr_destroy(&attr);
        tfcc_rt_pool_destroy(p);
        return NULL;
      }
      p->num_started = i;
    }
    pthread_attr_destroy(&attr);
  }
  return p;
}

void tfcc_rt_pool_destroy(tfcc_rt_pool* p) {
  if (!p)
    return;
  if (p->num_started > 0) {
    ST(&p->stop, 1);
    __atomic_fetch_add(&p->gen, 1, __ATOMIC_SEQ_CST);
    pool_wake(p);
    for (int32_t i = 1; i <= p->num_started; ++i)
      pthread_join(p->workers[i].thread, NULL);
  }
  if (tls_pool == p)
    tls_pool = NULL;
#if !TFCC_USE_FUTEX
  pthread_cond_destroy(&p->cv);
  pthread_mutex_destroy(&p->mu);
#endif
  free(p->workers);
  free(p->runs_block);
  free(p);
}

int32_t tfcc_rt_pool_num_threads(const tfcc_rt_pool* p) {
  return p ? p->num_threads : 1;
}

void tfcc_rt_set_current_pool(tfcc_rt_pool* p) { tls_pool = p; }
tfcc_rt_pool* tfcc_rt_get_current_pool(void) { return tls_pool; }

void tfcc_rt_parallel_for(int64_t n, tfcc_pf_fn fn, void* ctx) {
  if (n <= 0)
    return;
  tfcc_rt_pool* p = tls_pool;
  int32_t t = p ? p->num_threads : 1;
  if (t <= 1 || n == 1 || tls_in_job ||
      __atomic_exchange_n(&p->busy, 1, __ATOMIC_ACQUIRE)) {
    int32_t saved = tls_in_job;
    int32_t index = saved ? tls_index : 0;
    tls_in_job = 1;
    tls_index = index;
    fn(ctx, 0, n, index);
    tls_in_job = saved;
    return;
  }
  int64_t chunks = (int64_t)t * TFCC_POOL_CHUNKS_PER_THREAD;
  int64_t chunk = (n + chunks - 1) / chunks;
  if (n <= t)
    chunk = 1;
  chunks = (n + chunk - 1) / chunk;
  /* The previous job is finished, so all its runs are empty: no thread can
   * take a chunk while the parameters change. */
  p->fn = fn;
  p->ctx = ctx;
  p->n = n;
  p->chunk = chunk;
  __atomic_store_n(&p->done, 0, __ATOMIC_RELAXED);
  uint32_t gen = LDX(&p->gen) + 1;
  if (gen == 0)
    gen = 1; /* workers start with seen = 0 */
  for (int32_t i = 0; i < t; ++i)
    __atomic_store_n(&p->runs[i].word,
                     TFCC_RUN(gen, chunks * i / t, chunks * (i + 1) / t),
                     __ATOMIC_RELAXED);
  __atomic_store_n(&p->gen, gen, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&p->sleepers, __ATOMIC_SEQ_CST) > 0)
    pool_wake(p);
  pool_work(p, gen, 0);
  /* Wait for the chunks other threads claimed; yield now and then in case a
   * worker was preempted (an oversubscribed machine). */
  for (uint32_t spins = 0; LD(&p->done) != n; ++spins) {
    TFCC_PAUSE();
    if ((spins & 0x3fff) == 0x3fff)
      sched_yield();
  }
  ST(&p->busy, 0);
}
#endif /* TFCC_RT_FREESTANDING */
