/* bench/gemm/bench.c - tfcc micro-kernels vs oneDNN (see README.md).
 *
 * sgemm (B pre-packed for tfcc; plain row-major dnnl_sgemm for oneDNN) at
 * 1 and 2 threads, interleaved repeats, medians; then tfcc conv2d and
 * depthwise GFLOP/s on ResNet-18 / MobileNetV2 shapes. */
#define _GNU_SOURCE
#include "tfcc/tfcc_kernels.h"

#include <dnnl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void omp_set_num_threads(int);

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static float* falloc(size_t n) {
  float* p = NULL;
  if (posix_memalign((void**)&p, 64, (n ? n : 1) * sizeof(float)))
    abort();
  return p;
}

static void fill(float* p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
}

static int cmpd(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}
static double median(double* v, int n) {
  qsort(v, n, sizeof(double), cmpd);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
  int64_t M, N, K;
  float *A, *B, *Bp, *C, *C2;
} gemm_case;

/* Seconds per call: repeat until >= min_s elapsed. */
static double time_tfcc(gemm_case* g, double min_s) {
  int iters = 0;
  double t0 = now(), t;
  do {
    tfcc_rt_sgemm(1, g->M, g->N, g->K, g->A, g->K, 0, 0, g->Bp, 0, 0, 0, 1,
                  g->C, g->N, 0, NULL, NULL, TFCC_ACT_NONE, 0.f, 0.f);
    ++iters;
  } while ((t = now() - t0) < min_s);
  return t / iters;
}
static double time_dnnl(gemm_case* g, double min_s) {
  int iters = 0;
  double t0 = now(), t;
  do {
    dnnl_sgemm('N', 'N', g->M, g->N, g->K, 1.f, g->A, g->K, g->B, g->N, 0.f,
               g->C2, g->N);
    ++iters;
  } while ((t = now() - t0) < min_s);
  return t / iters;
}

static void quiet(void) { usleep(10000); } /* let both pools go to sleep */

/* ---- small / odd shapes (--small) ----------------------------------------
 * Timed with the calling thread's CPU time (robust on a shared machine: time
 * the thread is descheduled does not count; at 2 threads the caller waits for
 * the worker by spinning, so a slow split still shows), best of `reps`
 * repeats of >= min_s each. */
typedef void (*call_fn)(void* ctx);
static double best_time(call_fn fn, void* ctx, int reps, double min_s) {
  double best = 1e30;
  fn(ctx);
  for (int r = 0; r < reps; ++r) {
    int iters = 0;
    double t0 = cpu_now(), t;
    do {
      fn(ctx);
      ++iters;
    } while ((t = cpu_now() - t0) < min_s);
    if (t / iters < best)
      best = t / iters;
  }
  return best;
}

typedef struct {
  int64_t n, h, w, c, oc, kh, kw, sh, sw, pt, pl, oh, ow;
  float *x, *wp, *y, *bias;
} conv_case;
static void conv_call(void* ctx) {
  conv_case* k = (conv_case*)ctx;
  tfcc_rt_conv2d_f32(k->x, k->n, k->h, k->w, k->c, k->wp, k->oc, k->kh, k->kw,
                     k->sh, k->sw, 1, 1, k->pt, k->pl, k->oh, k->ow, k->bias,
                     NULL, TFCC_ACT_RELU, 0, 0, k->y);
}
typedef struct {
  int64_t M, N, K;
  float *A, *Bp, *C, *bias;
} mm_case;
static void mm_call(void* ctx) {
  mm_case* k = (mm_case*)ctx;
  tfcc_rt_sgemm(1, k->M, k->N, k->K, k->A, k->K, 0, 0, k->Bp, 0, 0, 0, 1, k->C,
                k->N, 0, k->bias, NULL, TFCC_ACT_RELU, 0.f, 0.f);
}
typedef struct {
  int64_t h, w, c;
  float *x, *wt, *y, *bias;
} dw_case;
static void dw_call(void* ctx) {
  dw_case* k = (dw_case*)ctx;
  tfcc_rt_depthwise_conv2d_f32(k->x, 1, k->h, k->w, k->c, k->wt, 1, 3, 3, 1, 1,
                               1, 1, 1, 1, k->h, k->w, k->bias, NULL,
                               TFCC_ACT_CLIP, 0.f, 6.f, k->y);
}

typedef struct {
  int64_t h, w, c, st, oh, ow;
  float *x, *wt, *y, *bias;
} dws_case;
static void dws_call(void* ctx) {
  dws_case* k = (dws_case*)ctx;
  tfcc_rt_depthwise_conv2d_f32(k->x, 1, k->h, k->w, k->c, k->wt, 1, 3, 3,
                               k->st, k->st, 1, 1, 1, 1, k->oh, k->ow, k->bias,
                               NULL, TFCC_ACT_CLIP, 0.f, 6.f, k->y);
}

/* --dw: every MobileNetV2 depthwise layer (3x3, pad 1, relu6), calling-thread
 * CPU time, best of reps, 1 and 2 threads. */
static void run_dw(int reps, double min_s) {
  tfcc_rt_pool* pools[2] = {tfcc_rt_pool_create(1), tfcc_rt_pool_create(2)};
  printf("MobileNetV2 depthwise 3x3: calling-thread CPU time, best of %d\n",
         reps);
  printf("%-24s %9s %8s %9s %8s\n", "shape", "1thr us", "GFLOP/s", "2thr us",
         "GFLOP/s");
  const int64_t shapes[][4] = {{112, 112, 32, 1}, {112, 112, 96, 2},
                               {56, 56, 144, 1},  {56, 56, 144, 2},
                               {28, 28, 192, 1},  {28, 28, 192, 2},
                               {14, 14, 384, 1},  {14, 14, 576, 1},
                               {14, 14, 576, 2},  {7, 7, 960, 1}};
  double tot[2] = {0, 0};
  for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); ++i) {
    dws_case k;
    k.h = shapes[i][0], k.w = shapes[i][1], k.c = shapes[i][2];
    k.st = shapes[i][3];
    k.oh = (k.h - 1) / k.st + 1, k.ow = (k.w - 1) / k.st + 1;
    k.x = falloc(k.h * k.w * k.c);
    k.wt = falloc(9 * k.c);
    k.y = falloc(k.oh * k.ow * k.c);
    k.bias = falloc(k.c);
    fill(k.x, k.h * k.w * k.c, 6);
    fill(k.wt, 9 * k.c, 7);
    fill(k.bias, k.c, 8);
    const double fl = 2.0 * k.oh * k.ow * k.c * 9;
    double t[2];
    for (int ti = 0; ti < 2; ++ti) {
      tfcc_rt_set_current_pool(pools[ti]);
      quiet();
      t[ti] = best_time(dws_call, &k, reps, min_s);
      tot[ti] += t[ti];
    }
    tfcc_rt_set_current_pool(NULL);
    char name[64];
    snprintf(name, sizeof name, "%lldx%lldx%lld s%lld", (long long)k.h,
             (long long)k.w, (long long)k.c, (long long)k.st);
    printf("%-24s %9.1f %8.1f %9.1f %8.1f\n", name, t[0] * 1e6,
           fl / t[0] * 1e-9, t[1] * 1e6, fl / t[1] * 1e-9);
    free(k.x);
    free(k.wt);
    free(k.y);
    free(k.bias);
  }
  printf("%-24s %9.1f %8s %9.1f\n", "total", tot[0] * 1e6, "", tot[1] * 1e6);
  tfcc_rt_pool_destroy(pools[0]);
  tfcc_rt_pool_destroy(pools[1]);
}

static void print_row(const char* name, double fl, double bytes, double t1,
                      double t2) {
  printf("%-34s %9.2f %8.1f %8.1f %9.2f %8.1f %6.2fx", name, t1 * 1e6,
         fl / t1 * 1e-9, bytes / t1 * 1e-9, t2 * 1e6, fl / t2 * 1e-9, t1 / t2);
  printf("\n");
  fflush(stdout);
}

static void run_small(int reps, double min_s) {
  tfcc_rt_pool* pools[2] = {tfcc_rt_pool_create(1), tfcc_rt_pool_create(2)};
  printf("small/odd shapes: calling-thread CPU time, best of %d\n", reps);
  printf("%-34s %9s %8s %8s %9s %8s %7s\n", "shape", "1thr us", "GFLOP/s",
         "GB/s", "2thr us", "GFLOP/s", "speedup");
  /* n, h, w, c, oc, k, stride, pad */
  const int64_t convs[][8] = {
      {1, 32, 32, 1, 6, 5, 1, 0},     {1, 14, 14, 6, 16, 5, 1, 0},
      {64, 32, 32, 1, 6, 5, 1, 0},    {64, 14, 14, 6, 16, 5, 1, 0},
      {1, 28, 28, 1, 32, 3, 1, 0},    {1, 13, 13, 32, 64, 3, 1, 0},
      {64, 28, 28, 1, 32, 3, 1, 0},   {64, 13, 13, 32, 64, 3, 1, 0},
      {1, 224, 224, 3, 64, 7, 2, 3},  {1, 224, 224, 3, 32, 3, 2, 1},
      {1, 56, 56, 64, 64, 3, 1, 1},   {1, 28, 28, 128, 128, 3, 1, 1},
      {1, 14, 14, 256, 256, 3, 1, 1}, {1, 7, 7, 512, 512, 3, 1, 1},
      {1, 56, 56, 64, 128, 1, 2, 0},  {1, 56, 56, 64, 256, 1, 1, 0},
  };
  for (size_t ci = 0; ci < sizeof(convs) / sizeof(convs[0]); ++ci) {
    const int64_t* s = convs[ci];
    conv_case k;
    k.n = s[0], k.h = s[1], k.w = s[2], k.c = s[3], k.oc = s[4];
    k.kh = k.kw = s[5];
    k.sh = k.sw = s[6];
    k.pt = k.pl = s[7];
    k.oh = (k.h + 2 * k.pt - k.kh) / k.sh + 1;
    k.ow = (k.w + 2 * k.pl - k.kw) / k.sw + 1;
    const int64_t K = k.kh * k.kw * k.c;
    float* wt = falloc(K * k.oc);
    k.x = falloc(k.n * k.h * k.w * k.c);
    k.wp = falloc(tfcc_rt_sgemm_packed_b_size(K, k.oc));
    k.y = falloc(k.n * k.oh * k.ow * k.oc);
    k.bias = falloc(k.oc);
    fill(k.x, k.n * k.h * k.w * k.c, 3);
    fill(wt, K * k.oc, 4);
    fill(k.bias, k.oc, 5);
    tfcc_rt_sgemm_pack_b(K, k.oc, wt, k.oc, 0, k.wp);
    double fl = 2.0 * k.n * k.oh * k.ow * k.oc * K;
    double bytes = 4.0 * (k.n * k.h * k.w * k.c + k.n * k.oh * k.ow * k.oc +
                          K * k.oc);
    double t[2];
    for (int ti = 0; ti < 2; ++ti) {
      tfcc_rt_set_current_pool(pools[ti]);
      quiet();
      t[ti] = best_time(conv_call, &k, reps, min_s);
    }
    tfcc_rt_set_current_pool(NULL);
    char name[96];
    snprintf(name, sizeof name, "conv n%lld %lldx%lldx%lld->%lld k%lld s%lld",
             (long long)k.n, (long long)k.h, (long long)k.w, (long long)k.c,
             (long long)k.oc, (long long)k.kh, (long long)k.sh);
    print_row(name, fl, bytes, t[0], t[1]);
    free(wt);
    free(k.x);
    free(k.wp);
    free(k.y);
    free(k.bias);
  }
  /* M, N, K */
  const int64_t mms[][3] = {{1, 120, 400},  {1, 84, 120},    {1, 10, 84},
                            {1, 64, 1600},  {1, 1000, 512},  {1, 768, 256},
                            {1, 3072, 768}, {128, 768, 256}, {128, 768, 768},
                            {64, 120, 400}, {64, 64, 1600},  {1024, 1024, 1024},
                            {2048, 2048, 2048}};
  for (size_t mi = 0; mi < sizeof(mms) / sizeof(mms[0]); ++mi) {
    mm_case k;
    k.M = mms[mi][0], k.N = mms[mi][1], k.K = mms[mi][2];
    float* B = falloc(k.K * k.N);
    k.A = falloc(k.M * k.K);
    k.Bp = falloc(tfcc_rt_sgemm_packed_b_size(k.K, k.N));
    k.C = falloc(k.M * k.N);
    k.bias = falloc(k.N);
    fill(k.A, k.M * k.K, 1);
    fill(B, k.K * k.N, 2);
    fill(k.bias, k.N, 3);
    tfcc_rt_sgemm_pack_b(k.K, k.N, B, k.N, 0, k.Bp);
    double fl = 2.0 * k.M * k.N * k.K;
    double bytes = 4.0 * (k.M * k.K + k.M * k.N +
                          (double)tfcc_rt_sgemm_packed_b_size(k.K, k.N));
    double t[2];
    for (int ti = 0; ti < 2; ++ti) {
      tfcc_rt_set_current_pool(pools[ti]);
      quiet();
      t[ti] = best_time(mm_call, &k, reps, k.M >= 1024 ? 2 * min_s : min_s);
    }
    tfcc_rt_set_current_pool(NULL);
    char name[96];
    snprintf(name, sizeof name, "sgemm M%lld N%lld K%lld", (long long)k.M,
             (long long)k.N, (long long)k.K);
    print_row(name, fl, bytes, t[0], t[1]);
    free(B);
    free(k.A);
    free(k.Bp);
    free(k.C);
    free(k.bias);
  }
  const int64_t dws[][3] = {{7, 7, 960}, {14, 14, 576}, {56, 56, 144}};
  for (size_t di = 0; di < sizeof(dws) / sizeof(dws[0]); ++di) {
    dw_case k;
    k.h = dws[di][0], k.w = dws[di][1], k.c = dws[di][2];
    k.x = falloc(k.h * k.w * k.c);
    k.wt = falloc(9 * k.c);
    k.y = falloc(k.h * k.w * k.c);
    k.bias = falloc(k.c);
    fill(k.x, k.h * k.w * k.c, 6);
    fill(k.wt, 9 * k.c, 7);
    fill(k.bias, k.c, 8);
    double fl = 2.0 * k.h * k.w * k.c * 9;
    double bytes = 4.0 * (2 * k.h * k.w * k.c + 10 * k.c);
    double t[2];
    for (int ti = 0; ti < 2; ++ti) {
      tfcc_rt_set_current_pool(pools[ti]);
      quiet();
      t[ti] = best_time(dw_call, &k, reps, min_s);
    }
    tfcc_rt_set_current_pool(NULL);
    char name[96];
    snprintf(name, sizeof name, "depthwise 3x3 %lldx%lldx%lld", (long long)k.h,
             (long long)k.w, (long long)k.c);
    print_row(name, fl, bytes, t[0], t[1]);
    free(k.x);
    free(k.wt);
    free(k.y);
    free(k.bias);
  }
  tfcc_rt_pool_destroy(pools[0]);
  tfcc_rt_pool_destroy(pools[1]);
}

/* --pointwise: MobileNetV2's 1x1 convolutions at 224x224 as GEMMs (M pixels,
 * K input channels, N output channels; B pre-packed for tfcc, with bias and
 * ReLU6 as the model fuses them) against dnnl_sgemm on the same operands:
 * calling-thread CPU time, best of reps, 1 thread. */
typedef struct {
  gemm_case g;
  float* bias;
} pw_case;
static void pw_tfcc(void* ctx) {
  pw_case* k = (pw_case*)ctx;
  tfcc_rt_sgemm(1, k->g.M, k->g.N, k->g.K, k->g.A, k->g.K, 0, 0, k->g.Bp, 0, 0,
                0, 1, k->g.C, k->g.N, 0, k->bias, NULL, TFCC_ACT_CLIP, 0.f, 6.f);
}
static void pw_dnnl(void* ctx) {
  pw_case* k = (pw_case*)ctx;
  dnnl_sgemm('N', 'N', k->g.M, k->g.N, k->g.K, 1.f, k->g.A, k->g.K, k->g.B,
             k->g.N, 0.f, k->g.C2, k->g.N);
}
static void run_pointwise(int reps, double min_s) {
  /* M, K, N, layers of that shape */
  const int64_t pws[][4] = {
      {12544, 32, 16, 1}, {12544, 16, 96, 1}, {3136, 96, 24, 1},
      {3136, 24, 144, 2}, {3136, 144, 24, 1}, {784, 144, 32, 1},
      {784, 32, 192, 3},  {784, 192, 32, 2},  {196, 192, 64, 1},
      {196, 64, 384, 4},  {196, 384, 64, 3},  {196, 384, 96, 1},
      {196, 96, 576, 3},  {196, 576, 96, 2},  {49, 576, 160, 1},
      {49, 160, 960, 3},  {49, 960, 160, 2},  {49, 960, 320, 1},
      {49, 320, 1280, 1}};
  tfcc_rt_pool* pool = tfcc_rt_pool_create(1);
  tfcc_rt_set_current_pool(pool);
  omp_set_num_threads(1);
  printf("MobileNetV2 pointwise GEMMs (bias + ReLU6 for tfcc), 1 thread, "
         "calling-thread CPU time, best of %d\n", reps);
  printf("%-22s %9s %8s %9s %8s %7s\n", "MxKxN (layers)", "tfcc us", "GFLOP/s",
         "oneDNN us", "GFLOP/s", "ratio");
  double tot[2] = {0, 0};
  for (size_t i = 0; i < sizeof(pws) / sizeof(pws[0]); ++i) {
    pw_case k;
    k.g.M = pws[i][0], k.g.K = pws[i][1], k.g.N = pws[i][2];
    k.g.A = falloc(k.g.M * k.g.K);
    k.g.B = falloc(k.g.K * k.g.N);
    k.g.Bp = falloc(tfcc_rt_sgemm_packed_b_size(k.g.K, k.g.N));
    k.g.C = falloc(k.g.M * k.g.N);
    k.g.C2 = falloc(k.g.M * k.g.N);
    k.bias = falloc(k.g.N);
    fill(k.g.A, k.g.M * k.g.K, 1);
    fill(k.g.B, k.g.K * k.g.N, 2);
    fill(k.bias, k.g.N, 3);
    tfcc_rt_sgemm_pack_b(k.g.K, k.g.N, k.g.B, k.g.N, 0, k.g.Bp);
    const double t0 = best_time(pw_tfcc, &k, reps, min_s);
    const double t1 = best_time(pw_dnnl, &k, reps, min_s);
    tot[0] += t0 * pws[i][3];
    tot[1] += t1 * pws[i][3];
    const double fl = 2.0 * k.g.M * k.g.N * k.g.K;
    char name[64];
    snprintf(name, sizeof name, "%lldx%lldx%lld (%lld)", (long long)k.g.M,
             (long long)k.g.K, (long long)k.g.N, (long long)pws[i][3]);
    printf("%-22s %9.1f %8.1f %9.1f %8.1f %6.2fx\n", name, t0 * 1e6,
           fl / t0 * 1e-9, t1 * 1e6, fl / t1 * 1e-9, t0 / t1);
    free(k.g.A);
    free(k.g.B);
    free(k.g.Bp);
    free(k.g.C);
    free(k.g.C2);
    free(k.bias);
  }
  printf("%-22s %9.1f %8s %9.1f %8s %6.2fx\n", "total (x layers)", tot[0] * 1e6,
         "", tot[1] * 1e6, "", tot[0] / tot[1]);
  tfcc_rt_set_current_pool(NULL);
  tfcc_rt_pool_destroy(pool);
}

/* ---- int8 GEMM (--int8) ---------------------------------------------------
 * u8 x s8 -> s32: tfcc_rt_qgemm_u8s8_f32 (B pre-packed with its column sums,
 * A's zero point subtracted, the float epilogue scale * acc) against
 * oneDNN's dnnl_gemm_u8s8s32 on the same operands (row-major, A's zero point
 * as ao, int32 output). Interleaved repeats, median, wall time; the results
 * are checked equal (tfcc's scale 1 makes its float output the exact int32
 * sum while |sum| < 2^24). */
typedef struct {
  int64_t M, N, K;
  uint8_t* A;
  int8_t *B, *Bp;
  float* scales;
  float* C;
  int32_t* C2;
} qgemm_case;
static void qgemm_tfcc(void* ctx) {
  qgemm_case* g = (qgemm_case*)ctx;
  tfcc_rt_qgemm_u8s8_f32(g->M, g->N, g->K, g->A, g->K, 3, g->Bp, g->scales,
                         NULL, NULL, TFCC_ACT_NONE, 0.f, 0.f, g->C);
}
static void qgemm_dnnl(void* ctx) {
  qgemm_case* g = (qgemm_case*)ctx;
  int32_t co = 0;
  dnnl_gemm_u8s8s32('N', 'N', 'F', g->M, g->N, g->K, 1.f, g->A, g->K, 3, g->B,
                    g->N, 0, 0.f, g->C2, g->N, &co);
}
static double wall_time(call_fn fn, void* ctx, double min_s) {
  int iters = 0;
  double t0 = now(), t;
  do {
    fn(ctx);
    ++iters;
  } while ((t = now() - t0) < min_s);
  return t / iters;
}
static void run_int8(int reps, double min_s) {
  /* M, N, K: squares, then the int8 layers of the benchmark models at batch
   * 1 (ResNet-18 3x3 convolutions as im2col GEMMs, 1x1 projections, the
   * classifier; MobileNetV2 pointwise). */
  const int64_t shapes[][3] = {
      {256, 256, 256},  {512, 512, 512},   {1024, 1024, 1024},
      {2048, 2048, 2048}, {3136, 64, 576}, {784, 128, 1152},
      {196, 256, 2304}, {49, 512, 4608},   {3136, 24, 144},
      {196, 576, 96},   {49, 1280, 320},   {1, 1000, 512}};
  const int threads[2] = {1, 2};
  printf("int8 GEMM u8s8s32 MxNxK (B pre-packed for tfcc), GOP/s, median of "
         "%d\n", reps);
  printf("%-16s %3s %9s %9s %7s %8s\n", "shape", "thr", "tfcc", "oneDNN",
         "ratio", "maxdiff");
  for (int ti = 0; ti < 2; ++ti) {
    int T = threads[ti];
    tfcc_rt_pool* pool = tfcc_rt_pool_create(T);
    tfcc_rt_set_current_pool(pool);
    omp_set_num_threads(T);
    for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); ++si) {
      qgemm_case g;
      g.M = shapes[si][0];
      g.N = shapes[si][1];
      g.K = shapes[si][2];
      g.A = (uint8_t*)malloc(g.M * g.K);
      g.B = (int8_t*)malloc(g.K * g.N);
      g.Bp = (int8_t*)malloc(tfcc_rt_qgemm_packed_b_size(g.K, g.N));
      g.scales = falloc(g.N);
      g.C = falloc(g.M * g.N);
      g.C2 = (int32_t*)malloc(g.M * g.N * sizeof(int32_t));
      unsigned r = 7;
      for (int64_t i = 0; i < g.M * g.K; ++i)
        g.A[i] = (uint8_t)((r = r * 1103515245u + 12345u) >> 24);
      for (int64_t i = 0; i < g.K * g.N; ++i)
        g.B[i] = (int8_t)(((r = r * 1103515245u + 12345u) >> 24) % 64 - 32);
      for (int64_t i = 0; i < g.N; ++i)
        g.scales[i] = 1.0f;
      tfcc_rt_qgemm_pack_b(g.K, g.N, g.B, g.Bp);
      qgemm_tfcc(&g);
      qgemm_dnnl(&g);
      double maxd = 0;
      for (int64_t i = 0; i < g.M * g.N; ++i)
        maxd = fmax(maxd, fabs(g.C[i] - (double)g.C2[i]));
      double tt[64], td[64];
      int n = reps > 64 ? 64 : reps;
      for (int k = 0; k < n; ++k) {
        quiet();
        tt[k] = wall_time(qgemm_tfcc, &g, min_s);
        quiet();
        td[k] = wall_time(qgemm_dnnl, &g, min_s);
      }
      double ops = 2.0 * g.M * g.N * g.K;
      double gt = ops / median(tt, n) * 1e-9, gd = ops / median(td, n) * 1e-9;
      char shape[64];
      snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)g.M,
               (long long)g.N, (long long)g.K);
      printf("%-16s %3d %9.1f %9.1f %6.1f%% %8.0f\n", shape, T, gt, gd,
             100.0 * gt / gd, maxd);
      fflush(stdout);
      free(g.A);
      free(g.B);
      free(g.Bp);
      free(g.scales);
      free(g.C);
      free(g.C2);
    }
    tfcc_rt_set_current_pool(NULL);
    tfcc_rt_pool_destroy(pool);
  }
}

/* ---- bf16 GEMM (--bf16) ----------------------------------------------------
 * What a --precision=mixed_bf16 matmul runs: tfcc_rt_sgemm on bf16 values
 * held in f32 (B pre-packed, TFCC_ACT_BF16_OPERANDS: vdpbf16ps where the CPU
 * has AVX512_BF16), accumulating in f32, the result rounded to bf16 in the
 * epilogue (TFCC_ACT_ROUND_BF16); against tfcc's float32 GEMM of the same
 * operands and oneDNN's matmul primitive
 * with bf16 source, weights and destination (row-major, weights as given),
 * whose implementation name is printed (on CPUs without AVX512_BF16 or
 * AVX512_CORE oneDNN 2.6 has no jit bf16 matmul). Interleaved repeats, median,
 * wall time; the largest difference of the two bf16 results. */
static uint16_t bf16_bits(float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static float bf16_value(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float v;
  memcpy(&v, &u, 4);
  return v;
}
typedef struct {
  gemm_case g;
  uint16_t *A16, *B16, *C16;
  dnnl_primitive_t prim;
  dnnl_stream_t stream;
  dnnl_exec_arg_t args[3];
} bf16_case;
static void bf16_tfcc(void* ctx) {
  gemm_case* g = &((bf16_case*)ctx)->g;
  tfcc_rt_sgemm(1, g->M, g->N, g->K, g->A, g->K, 0, 0, g->Bp, g->N, 0, 0, 1,
                g->C, g->N, 0, NULL, NULL,
                TFCC_ACT_ROUND_BF16 | TFCC_ACT_BF16_OPERANDS, 0.f, 0.f);
}
/* tfcc's float32 GEMM of the same shape (the float32 build's matmul). */
static void bf16_tfcc_f32(void* ctx) {
  gemm_case* g = &((bf16_case*)ctx)->g;
  tfcc_rt_sgemm(1, g->M, g->N, g->K, g->A, g->K, 0, 0, g->Bp, g->N, 0, 0, 1,
                g->C2, g->N, 0, NULL, NULL, TFCC_ACT_NONE, 0.f, 0.f);
}
static void bf16_dnnl(void* ctx) {
  bf16_case* b = (bf16_case*)ctx;
  dnnl_primitive_execute(b->prim, b->stream, 3, b->args);
  dnnl_stream_wait(b->stream);
}
static void run_bf16(int reps, double min_s) {
  const int64_t sizes[] = {256, 512, 1024, 2048};
  dnnl_engine_t engine;
  if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success)
    abort();
  printf("bf16 GEMM MxNxK (bf16 operands, f32 accumulation, bf16 result), "
         "GFLOP/s, median of %d\n", reps);
  printf("%-16s %3s %9s %9s %9s %7s %8s %9s  %s\n", "shape", "thr", "tfcc",
         "tfcc f32", "oneDNN", "ratio", "vs f32", "maxdiff",
         "oneDNN implementation");
  for (int T = 1; T <= 2; ++T) {
    tfcc_rt_pool* pool = tfcc_rt_pool_create(T);
    tfcc_rt_set_current_pool(pool);
    omp_set_num_threads(T);
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); ++si) {
      bf16_case b;
      gemm_case* g = &b.g;
      g->M = g->N = g->K = sizes[si];
      g->A = falloc(g->M * g->K);
      g->B = falloc(g->K * g->N);
      g->Bp = falloc(tfcc_rt_sgemm_packed_b_size(g->K, g->N));
      g->C = falloc(g->M * g->N);
      g->C2 = falloc(g->M * g->N);
      fill(g->A, g->M * g->K, 1);
      fill(g->B, g->K * g->N, 2);
      b.A16 = (uint16_t*)malloc(g->M * g->K * 2);
      b.B16 = (uint16_t*)malloc(g->K * g->N * 2);
      b.C16 = (uint16_t*)malloc(g->M * g->N * 2);
      for (int64_t i = 0; i < g->M * g->K; ++i)
        g->A[i] = bf16_value(b.A16[i] = bf16_bits(g->A[i]));
      for (int64_t i = 0; i < g->K * g->N; ++i)
        g->B[i] = bf16_value(b.B16[i] = bf16_bits(g->B[i]));
      tfcc_rt_sgemm_pack_b(g->K, g->N, g->B, g->N, 0, g->Bp);
      dnnl_memory_desc_t amd, bmd, cmd;
      dnnl_dims_t ad = {g->M, g->K}, bd = {g->K, g->N}, cd = {g->M, g->N};
      dnnl_memory_desc_init_by_tag(&amd, 2, ad, dnnl_bf16, dnnl_ab);
      dnnl_memory_desc_init_by_tag(&bmd, 2, bd, dnnl_bf16, dnnl_ab);
      dnnl_memory_desc_init_by_tag(&cmd, 2, cd, dnnl_bf16, dnnl_ab);
      dnnl_matmul_desc_t md;
      dnnl_primitive_desc_t pd = NULL;
      const char* impl = "unimplemented";
      int have = dnnl_matmul_desc_init(&md, &amd, &bmd, NULL, &cmd) ==
                     dnnl_success &&
                 dnnl_primitive_desc_create(&pd, &md, NULL, engine, NULL) ==
                     dnnl_success;
      dnnl_memory_t am = NULL, bm = NULL, cm = NULL;
      if (have) {
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
        have = dnnl_primitive_create(&b.prim, pd) == dnnl_success &&
               dnnl_stream_create(&b.stream, engine,
                                  dnnl_stream_default_flags) == dnnl_success &&
               dnnl_memory_create(&am, &amd, engine, b.A16) == dnnl_success &&
               dnnl_memory_create(&bm, &bmd, engine, b.B16) == dnnl_success &&
               dnnl_memory_create(&cm, &cmd, engine, b.C16) == dnnl_success;
        b.args[0].arg = DNNL_ARG_SRC;
        b.args[0].memory = am;
        b.args[1].arg = DNNL_ARG_WEIGHTS;
        b.args[1].memory = bm;
        b.args[2].arg = DNNL_ARG_DST;
        b.args[2].memory = cm;
      }
      bf16_tfcc(&b);
      double maxd = NAN;
      if (have) {
        bf16_dnnl(&b);
        maxd = 0;
        for (int64_t i = 0; i < g->M * g->N; ++i)
          maxd = fmax(maxd, fabs(g->C[i] - bf16_value(b.C16[i])));
      }
      double tt[64], tf[64], td[64];
      int n = reps > 64 ? 64 : reps;
      for (int k = 0; k < n; ++k) {
        quiet();
        tt[k] = wall_time(bf16_tfcc, &b, min_s);
        quiet();
        tf[k] = wall_time(bf16_tfcc_f32, &b, min_s);
        quiet();
        td[k] = have ? wall_time(bf16_dnnl, &b, min_s) : NAN;
      }
      double fl = 2.0 * g->M * g->N * g->K;
      double gt = fl / median(tt, n) * 1e-9;
      double gf = fl / median(tf, n) * 1e-9;
      double gd = have ? fl / median(td, n) * 1e-9 : NAN;
      char shape[64];
      snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)g->M,
               (long long)g->N, (long long)g->K);
      printf("%-16s %3d %9.1f %9.1f %9.1f %6.1f%% %7.2fx %9.2e  %s\n", shape,
             T, gt, gf, gd, 100.0 * gt / gd, gt / gf, maxd, impl);
      fflush(stdout);
      if (have) {
        dnnl_memory_destroy(am);
        dnnl_memory_destroy(bm);
        dnnl_memory_destroy(cm);
        dnnl_primitive_destroy(b.prim);
        dnnl_stream_destroy(b.stream);
      }
      if (pd)
        dnnl_primitive_desc_destroy(pd);
      free(g->A);
      free(g->B);
      free(g->Bp);
      free(g->C);
      free(g->C2);
      free(b.A16);
      free(b.B16);
      free(b.C16);
    }
    tfcc_rt_set_current_pool(NULL);
    tfcc_rt_pool_destroy(pool);
  }
  dnnl_engine_destroy(engine);
}

int main(int argc, char** argv) {
  int reps = 5;
  double min_s = 0.2;
  int only_gemm = 0, only_conv = 0, small = 0, dw = 0, pointwise = 0,
      int8 = 0, bf16 = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--min-time") && i + 1 < argc)
      min_s = atof(argv[++i]);
    else if (!strcmp(argv[i], "--gemm"))
      only_gemm = 1;
    else if (!strcmp(argv[i], "--conv"))
      only_conv = 1;
    else if (!strcmp(argv[i], "--small"))
      small = 1;
    else if (!strcmp(argv[i], "--dw"))
      dw = 1;
    else if (!strcmp(argv[i], "--pointwise"))
      pointwise = 1;
    else if (!strcmp(argv[i], "--int8"))
      int8 = 1;
    else if (!strcmp(argv[i], "--bf16"))
      bf16 = 1;
  }
  if (bf16) {
    run_bf16(reps, min_s);
    return 0;
  }
  if (int8) {
    run_int8(reps, min_s);
    return 0;
  }
  if (pointwise) {
    run_pointwise(reps, min_s);
    return 0;
  }
  if (dw) {
    run_dw(reps, min_s);
    return 0;
  }
  if (small) {
    run_small(reps, min_s);
    return 0;
  }
  const int threads[2] = {1, 2};
  if (!only_conv) {
    const int64_t sizes[] = {256, 512, 1024, 2048};
    printf("sgemm MxNxK (B pre-packed for tfcc), GFLOP/s, median of %d\n", reps);
    printf("%-16s %3s %9s %9s %7s %10s\n", "shape", "thr", "tfcc", "oneDNN",
           "ratio", "maxdiff");
    for (int ti = 0; ti < 2; ++ti) {
      int T = threads[ti];
      tfcc_rt_pool* pool = tfcc_rt_pool_create(T);
      tfcc_rt_set_current_pool(pool);
      omp_set_num_threads(T);
      for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); ++si) {
        gemm_case g;
        g.M = g.N = g.K = sizes[si];
        g.A = falloc(g.M * g.K);
        g.B = falloc(g.K * g.N);
        g.Bp = falloc(tfcc_rt_sgemm_packed_b_size(g.K, g.N));
        g.C = falloc(g.M * g.N);
        g.C2 = falloc(g.M * g.N);
        fill(g.A, g.M * g.K, 1);
        fill(g.B, g.K * g.N, 2);
        tfcc_rt_sgemm_pack_b(g.K, g.N, g.B, g.N, 0, g.Bp);
        time_tfcc(&g, 0.05);
        time_dnnl(&g, 0.05);
        double maxd = 0;
        for (int64_t i = 0; i < g.M * g.N; ++i)
          maxd = fmax(maxd, fabs(g.C[i] - g.C2[i]));
        double tt[64], td[64];
        int r = reps > 64 ? 64 : reps;
        for (int k = 0; k < r; ++k) {
          quiet();
          tt[k] = time_tfcc(&g, min_s);
          quiet();
          td[k] = time_dnnl(&g, min_s);
        }
        double fl = 2.0 * g.M * g.N * g.K;
        double gt = fl / median(tt, r) * 1e-9, gd = fl / median(td, r) * 1e-9;
        char shape[64];
        snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)g.M,
                 (long long)g.N, (long long)g.K);
        printf("%-16s %3d %9.1f %9.1f %6.1f%% %10.2e\n", shape, T, gt, gd,
               100.0 * gt / gd, maxd);
        fflush(stdout);
        free(g.A);
        free(g.B);
        free(g.Bp);
        free(g.C);
        free(g.C2);
      }
      tfcc_rt_set_current_pool(NULL);
      tfcc_rt_pool_destroy(pool);
    }
  }
  if (!only_gemm) {
    /* h, w, c, oc, k, stride, pad */
    const int64_t convs[][7] = {
        {56, 56, 64, 64, 3, 1, 1},   {28, 28, 128, 128, 3, 1, 1},
        {14, 14, 256, 256, 3, 1, 1}, {7, 7, 512, 512, 3, 1, 1},
        {224, 224, 3, 64, 7, 2, 3},  {56, 56, 64, 128, 1, 2, 0},
        {56, 56, 64, 256, 1, 1, 0},
    };
    /* h, w, c, stride */
    const int64_t dws[][4] = {{112, 112, 32, 1}, {112, 112, 96, 2},
                              {56, 56, 144, 1},  {28, 28, 192, 1},
                              {14, 14, 384, 1},  {14, 14, 576, 1},
                              {7, 7, 960, 1}};
    printf("\nconv2d NHWC (batch 1), GFLOP/s, median of %d\n", reps);
    printf("%-28s %9s %9s\n", "shape", "1 thr", "2 thr");
    for (size_t ci = 0; ci < sizeof(convs) / sizeof(convs[0]); ++ci) {
      const int64_t* s = convs[ci];
      int64_t h = s[0], w = s[1], c = s[2], oc = s[3], k = s[4], st = s[5],
              pad = s[6];
      int64_t oh = (h + 2 * pad - k) / st + 1, ow = (w + 2 * pad - k) / st + 1;
      float* x = falloc(h * w * c);
      float* wt = falloc(k * k * c * oc);
      float* wp = falloc(tfcc_rt_sgemm_packed_b_size(k * k * c, oc));
      float* y = falloc(oh * ow * oc);
      float* bias = falloc(oc);
      fill(x, h * w * c, 3);
      fill(wt, k * k * c * oc, 4);
      fill(bias, oc, 5);
      tfcc_rt_sgemm_pack_b(k * k * c, oc, wt, oc, 0, wp);
      double fl = 2.0 * oh * ow * oc * k * k * c;
      double g[2];
      for (int ti = 0; ti < 2; ++ti) {
        tfcc_rt_pool* pool = tfcc_rt_pool_create(threads[ti]);
        tfcc_rt_set_current_pool(pool);
        double tt[64];
        int r = reps > 64 ? 64 : reps;
        for (int q = 0; q < r; ++q) {
          quiet();
          int iters = 0;
          double t0 = now(), t;
          do {
            tfcc_rt_conv2d_f32(x, 1, h, w, c, wp, oc, k, k, st, st, 1, 1, pad,
                               pad, oh, ow, bias, NULL, TFCC_ACT_RELU, 0, 0, y);
            ++iters;
          } while ((t = now() - t0) < min_s / 2);
          tt[q] = t / iters;
        }
        g[ti] = fl / median(tt, r) * 1e-9;
        tfcc_rt_set_current_pool(NULL);
        tfcc_rt_pool_destroy(pool);
      }
      char shape[64];
      snprintf(shape, sizeof shape, "%lldx%lldx%lld->%lld k%lld s%lld",
               (long long)h, (long long)w, (long long)c, (long long)oc,
               (long long)k, (long long)st);
      printf("%-28s %9.1f %9.1f\n", shape, g[0], g[1]);
      fflush(stdout);
      free(x);
      free(wt);
      free(wp);
      free(y);
      free(bias);
    }
    printf("\ndepthwise 3x3 NHWC (batch 1, pad 1, m 1), GFLOP/s and GB/s "
           "(in+out), median of %d\n",
           reps);
    printf("%-22s %9s %9s %9s %9s\n", "shape", "1 thr", "GB/s", "2 thr", "GB/s");
    for (size_t di = 0; di < sizeof(dws) / sizeof(dws[0]); ++di) {
      const int64_t* s = dws[di];
      int64_t h = s[0], w = s[1], c = s[2], st = s[3];
      int64_t oh = (h + 2 - 3) / st + 1, ow = (w + 2 - 3) / st + 1;
      float* x = falloc(h * w * c);
      float* wt = falloc(9 * c);
      float* y = falloc(oh * ow * c);
      float* bias = falloc(c);
      fill(x, h * w * c, 6);
      fill(wt, 9 * c, 7);
      fill(bias, c, 8);
      double fl = 2.0 * oh * ow * c * 9;
      double bytes = 4.0 * (h * w * c + oh * ow * c);
      double g[2], bw[2];
      for (int ti = 0; ti < 2; ++ti) {
        tfcc_rt_pool* pool = tfcc_rt_pool_create(threads[ti]);
        tfcc_rt_set_current_pool(pool);
        double tt[64];
        int r = reps > 64 ? 64 : reps;
        for (int q = 0; q < r; ++q) {
          quiet();
          int iters = 0;
          double t0 = now(), t;
          do {
            tfcc_rt_depthwise_conv2d_f32(x, 1, h, w, c, wt, 1, 3, 3, st, st, 1,
                                         1, 1, 1, oh, ow, bias, NULL,
                                         TFCC_ACT_CLIP, 0.f, 6.f, y);
            ++iters;
          } while ((t = now() - t0) < min_s / 4);
          tt[q] = t / iters;
        }
        double med = median(tt, r);
        g[ti] = fl / med * 1e-9;
        bw[ti] = bytes / med * 1e-9;
        tfcc_rt_set_current_pool(NULL);
        tfcc_rt_pool_destroy(pool);
      }
      char shape[64];
      snprintf(shape, sizeof shape, "%lldx%lldx%lld s%lld", (long long)h,
               (long long)w, (long long)c, (long long)st);
      printf("%-22s %9.1f %9.1f %9.1f %9.1f\n", shape, g[0], bw[0], g[1], bw[1]);
      fflush(stdout);
      free(x);
      free(wt);
      free(y);
      free(bias);
    }
  }
  return 0;
}
