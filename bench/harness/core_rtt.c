/* core_rtt.c - how far apart the CPUs that two threads run on are: the round trip of a
 * cache line bounced between two threads, in ns (median of 15 batches of 20000 round
 * trips). On this VM it reads ~50-60 ns while the two vCPUs share an L3 slice and ~300-400
 * ns while they do not; the 2-thread rows of every system slow down in the second state.
 * bench.py runs it around each 2-thread row. Usage: core_rtt -> prints one number. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TRIPS 20000
#define BATCHES 15

static _Alignas(64) atomic_long flag;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void* echo(void* arg) {
  (void)arg;
  for (long i = 0; i < (long)TRIPS * BATCHES; ++i) {
    while (atomic_load_explicit(&flag, memory_order_acquire) != 2 * i + 1) {
    }
    atomic_store_explicit(&flag, 2 * i + 2, memory_order_release);
  }
  return NULL;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(void) {
  pthread_t t;
  if (pthread_create(&t, NULL, echo, NULL) != 0) {
    fprintf(stderr, "core_rtt: cannot create a thread\n");
    return 1;
  }
  double ns[BATCHES];
  long i = 0;
  for (int b = 0; b < BATCHES; ++b) {
    double t0 = now();
    for (int k = 0; k < TRIPS; ++k, ++i) {
      atomic_store_explicit(&flag, 2 * i + 1, memory_order_release);
      while (atomic_load_explicit(&flag, memory_order_acquire) != 2 * i + 2) {
      }
    }
    ns[b] = (now() - t0) / TRIPS * 1e9;
  }
  pthread_join(t, NULL);
  qsort(ns, BATCHES, sizeof ns[0], cmp);
  printf("%.0f\n", ns[BATCHES / 2]);
  return 0;
}
