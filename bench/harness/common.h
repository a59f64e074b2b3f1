/* common.h - the line protocol every benchmark harness speaks (bench/README.md).
 *
 * A harness loads one model, prints "ready <note>" (or "error <why>" and exits 1), then
 * serves commands read from stdin, one per line, answering one line each:
 *   check IN OUT   run once on the inputs in file IN (raw, concatenated in input order),
 *                  write the outputs (raw, concatenated) to OUT       -> "ok <bytes written>"
 *   time K         run K times back to back                          -> "ok <seconds>"
 *   quit           exit 0
 * Failures answer "error <why>". The orchestrator (bench/bench.py) runs one command at a
 * time across all harnesses, so only one system computes at any moment.
 */
#ifndef TFCC_BENCH_COMMON_H_
#define TFCC_BENCH_COMMON_H_

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void bench_reply(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stdout, fmt, ap);
  va_end(ap);
  fputc('\n', stdout);
  fflush(stdout);
}

static void* bench_alloc(size_t bytes) {
  size_t rounded = (bytes + 63) / 64 * 64;
  void* p = aligned_alloc(64, rounded ? rounded : 64);
  if (p) memset(p, 0, rounded ? rounded : 64);
  return p;
}

/* Reads exactly `n` buffers of the given sizes from `path`; 0 on success. */
static int bench_read_inputs(const char* path, int n, void* const* bufs, const size_t* sizes) {
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  for (int i = 0; i < n; ++i) {
    if (fread(bufs[i], 1, sizes[i], f) != sizes[i]) { fclose(f); return -1; }
  }
  int extra = fgetc(f) != EOF;
  fclose(f);
  return extra ? -2 : 0;
}

static int bench_write_outputs(const char* path, int n, const void* const* bufs,
                               const size_t* sizes) {
  FILE* f = fopen(path, "wb");
  if (!f) return -1;
  for (int i = 0; i < n; ++i) {
    if (fwrite(bufs[i], 1, sizes[i], f) != sizes[i]) { fclose(f); return -1; }
  }
  return fclose(f);
}

/* The serve loop: `run` runs the model once (0 on success, else fills `err`). check_in/out
 * handle "check". */
typedef int (*bench_run_fn)(void* self, char* err, size_t err_len);
typedef int (*bench_check_fn)(void* self, const char* in, const char* out, size_t* written,
                              char* err, size_t err_len);

static int bench_serve(void* self, bench_run_fn run, bench_check_fn check) {
  char line[4096], err[1024];
  while (fgets(line, sizeof line, stdin)) {
    char cmd[32] = {0}, a[2048] = {0}, b[2048] = {0};
    int n = sscanf(line, "%31s %2047s %2047s", cmd, a, b);
    err[0] = 0;
    if (n < 1) continue;
    if (!strcmp(cmd, "quit")) return 0;
    if (!strcmp(cmd, "check") && n == 3) {
      size_t written = 0;
      if (check(self, a, b, &written, err, sizeof err)) bench_reply("error %s", err);
      else bench_reply("ok %zu", written);
    } else if (!strcmp(cmd, "time") && n == 2) {
      long k = atol(a);
      if (k < 1) { bench_reply("error bad count"); continue; }
      double t0 = bench_now();
      int rc = 0;
      for (long i = 0; i < k && !rc; ++i) rc = run(self, err, sizeof err);
      double t1 = bench_now();
      if (rc) bench_reply("error %s", err);
      else bench_reply("ok %.9f", t1 - t0);
    } else {
      bench_reply("error unknown command");
    }
  }
  return 0;
}

#endif /* TFCC_BENCH_COMMON_H_ */
