/* dnnl_bench.c - oneDNN sgemm (dnnl_sgemm, row-major C = A * B) as the GEMM ceiling of the
 * matmul workloads.
 *
 *   dnnl_bench N B.bin        (threads: OMP_NUM_THREADS, Debian's libdnnl uses OpenMP)
 *
 * B.bin holds the N x N constant weight of the matmul model (float32, row-major), so "check"
 * computes the same product as the other systems. Speaks the protocol of common.h.
 */
#define _GNU_SOURCE
#include <stdint.h>

#include <dnnl.h>
#include <dnnl_version.h>

#include "common.h"

typedef struct {
  int64_t n;
  float *a, *b, *c;
  size_t bytes;
} gemm_t;

static int run(void* self, char* err, size_t len) {
  gemm_t* g = self;
  dnnl_status_t s = dnnl_sgemm('N', 'N', g->n, g->n, g->n, 1.0f, g->a, g->n, g->b, g->n, 0.0f,
                               g->c, g->n);
  if (s != dnnl_success) { snprintf(err, len, "dnnl_sgemm: status %d", (int)s); return 1; }
  return 0;
}

static int check(void* self, const char* in, const char* out, size_t* written, char* err,
                 size_t len) {
  gemm_t* g = self;
  void* a = g->a;
  const void* c = g->c;
  if (bench_read_inputs(in, 1, &a, &g->bytes)) {
    snprintf(err, len, "cannot read %zu bytes from %s", g->bytes, in);
    return 1;
  }
  if (run(self, err, len)) return 1;
  if (bench_write_outputs(out, 1, &c, &g->bytes)) { snprintf(err, len, "cannot write %s", out); return 1; }
  *written = g->bytes;
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: dnnl_bench N B.bin\n");
    return 2;
  }
  gemm_t g;
  g.n = atoll(argv[1]);
  g.bytes = (size_t)g.n * (size_t)g.n * sizeof(float);
  g.a = bench_alloc(g.bytes);
  g.b = bench_alloc(g.bytes);
  g.c = bench_alloc(g.bytes);
  void* b = g.b;
  if (bench_read_inputs(argv[2], 1, &b, &g.bytes)) {
    bench_reply("error cannot read %zu bytes from %s", g.bytes, argv[2]);
    return 1;
  }
  for (size_t i = 0; i < (size_t)(g.n * g.n); ++i) g.a[i] = (float)((i * 7919) % 1000) / 1000.0f;
  const dnnl_version_t* v = dnnl_version();
  char err[256];
  if (run(&g, err, sizeof err)) { bench_reply("error %s", err); return 1; }
  bench_reply("ready onednn=%d.%d.%d threads=%s", v->major, v->minor, v->patch,
              getenv("OMP_NUM_THREADS") ? getenv("OMP_NUM_THREADS") : "default");
  return bench_serve(&g, run, check);
}
