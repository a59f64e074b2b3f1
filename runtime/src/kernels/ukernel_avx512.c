/* ukernel_avx512.c - AVX-512 micro-kernels (selected at run time).
 *
 * Every function here carries a target attribute, so the file builds with the
 * baseline flags and the code only runs after tfcc_kernels_isa() saw AVX-512.
 *
 * GEMM micro-kernel: MR x 32 register tile (MR <= 14: 28 zmm accumulators),
 * per k two 16-float loads of the packed B panel and MR broadcast-FMAs from
 * the A rows (broadcasts fold into the FMA's memory operand). Columns past nr
 * are masked on the loads/stores of C, the residual and the bias (packed B is
 * zero padded, so the extra lanes just compute zeros). */
#include "kernels_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "avx512_common.h"
#include <math.h>
#include <string.h>

/* ---- GEMM micro-kernel -------------------------------------------------- */

/* k rows ahead (of 128 bytes) at which the micro-kernel prefetches its
 * panel of B into L1; 0: none. A tile over a long K streams the panel from
 * L2, and Intel's hardware prefetchers did not keep up with it
 * (docs/performance.md). */
#ifndef TFCC_B_PREFETCH
#define TFCC_B_PREFETCH 16
#endif

/* NH: 16-float halves of the panel computed (1 when nr <= 16), or 3: 24
 * columns, the second half 8 wide (16 < nr <= 24, e.g. MobileNetV2's
 * 24-channel projections): on cores that split 512-bit FMAs into two
 * 256-bit halves (Zen 4) a 256-bit FMA costs half, so the 8 columns cost 8,
 * not 16. AK: A is k-major, element (i, k) at a[k * lda + i] (a transposed
 * operand read in place, one tap) instead of a[i * lda + k]. */
INL void uk_body(const int MR, const int NH, const int AK,
                 const tfcc_uk_args* p) {
  __m512 c0[TFCC_UK_MR], c1[TFCC_UK_MR];
  __m256 c2[TFCC_UK_MR]; /* NH == 3: columns 16..23 */
  const int64_t lda = p->lda, kt = p->kt, ntaps = p->ntaps;
  const uk_tile tile = uk_prologue(MR, NH, p);

#pragma unroll
  for (int i = 0; i < MR; ++i) {
    c0[i] = _mm512_setzero_ps();
    c1[i] = _mm512_setzero_ps();
    c2[i] = _mm256_setzero_ps();
  }

  const float* b = p->b;
  for (int64_t t = 0; t < ntaps; ++t) {
    const float* a = p->a + (p->toff ? p->toff[t] : 0);
    const float* bt = b + t * p->b_tap_stride;
    if (AK) {
      /* The MR values of one k are adjacent: broadcasts at constant
       * displacements from one pointer that steps by lda. */
      const float* ak = a;
      for (int64_t k = 0; k < kt; ++k) {
        __m512 b0 = _mm512_loadu_ps(bt);
        __m512 b1 = NH == 2 ? _mm512_loadu_ps(bt + 16) : b0;
        bt += 32;
#pragma unroll
        for (int i = 0; i < MR; ++i) {
          __m512 av = _mm512_set1_ps(ak[i]);
          c0[i] = _mm512_fmadd_ps(av, b0, c0[i]);
          if (NH == 2)
            c1[i] = _mm512_fmadd_ps(av, b1, c1[i]);
        }
        ak += lda;
      }
      continue;
    }
    if (MR == 1 && NH != 3) {
      /* One row: split k over two accumulator sets to hide FMA latency. */
      __m512 d0 = _mm512_setzero_ps(), d1 = _mm512_setzero_ps();
      int64_t k = 0;
      for (; k + 2 <= kt; k += 2) {
        __m512 a0 = _mm512_set1_ps(a[k]), a1 = _mm512_set1_ps(a[k + 1]);
        _mm_prefetch((const char*)(bt + k * 32 + 1024), _MM_HINT_T0);
        _mm_prefetch((const char*)(bt + k * 32 + 1024 + 32), _MM_HINT_T0);
        c0[0] = _mm512_fmadd_ps(a0, _mm512_loadu_ps(bt + k * 32), c0[0]);
        d0 = _mm512_fmadd_ps(a1, _mm512_loadu_ps(bt + k * 32 + 32), d0);
        if (NH == 2) {
          c1[0] = _mm512_fmadd_ps(a0, _mm512_loadu_ps(bt + k * 32 + 16), c1[0]);
          d1 = _mm512_fmadd_ps(a1, _mm512_loadu_ps(bt + k * 32 + 48), d1);
        }
      }
      if (k < kt) {
        __m512 a0 = _mm512_set1_ps(a[k]);
        c0[0] = _mm512_fmadd_ps(a0, _mm512_loadu_ps(bt + k * 32), c0[0]);
        if (NH == 2)
          c1[0] = _mm512_fmadd_ps(a0, _mm512_loadu_ps(bt + k * 32 + 16), c1[0]);
      }
      c0[0] = _mm512_add_ps(c0[0], d0);
      if (NH == 2)
        c1[0] = _mm512_add_ps(c1[0], d1);
      continue;
    }
    /* Two row bases keep the addressing to base + index*scale forms. */
    const float* pa = a;
    const float* pb = a + 7 * lda;
    for (int64_t k = 0; k < kt; ++k) {
      __m512 b0 = _mm512_loadu_ps(bt);
      __m512 b1 = NH == 2 ? _mm512_loadu_ps(bt + 16) : b0;
      __m256 b2 = NH == 3 ? _mm256_loadu_ps(bt + 16) : _mm256_setzero_ps();
      if (TFCC_B_PREFETCH > 0) { /* past the panel's end: harmless */
        _mm_prefetch((const char*)(bt + 32 * TFCC_B_PREFETCH), _MM_HINT_T0);
        _mm_prefetch((const char*)(bt + 32 * TFCC_B_PREFETCH + 16),
                     _MM_HINT_T0);
      }
      bt += 32;
#pragma unroll
      for (int i = 0; i < MR; ++i) {
        const float* row = i < 7 ? pa + i * lda : pb + (i - 7) * lda;
        __m512 av = _mm512_set1_ps(row[k]);
        c0[i] = _mm512_fmadd_ps(av, b0, c0[i]);
        if (NH == 2)
          c1[i] = _mm512_fmadd_ps(av, b1, c1[i]);
        /* its own broadcast load: deriving it from av made the compiler
         * broadcast to ymm and then shuffle to zmm, a shuffle per row */
        if (NH == 3)
          c2[i] = _mm256_fmadd_ps(_mm256_broadcast_ss(&row[k]), b2, c2[i]);
      }
    }
  }

  uk_epilogue(MR, NH, c0, c1, c2, &tile, p);
}

#define UK(MR)                                                                 \
  static TGT __attribute__((noinline)) void uk_##MR(const tfcc_uk_args* p) {   \
    uk_body(MR, 2, 0, p);                                                      \
  }                                                                            \
  static TGT __attribute__((noinline)) void uk_##MR##h(const tfcc_uk_args* p) { \
    uk_body(MR, 1, 0, p);                                                      \
  }                                                                            \
  static TGT __attribute__((noinline)) void uk_##MR##q(const tfcc_uk_args* p) { \
    uk_body(MR, 3, 0, p);                                                      \
  }
TFCC_UK_ROW_COUNTS(UK)

#define UKT(MR)                                                                \
  static TGT __attribute__((noinline)) void ukt_##MR(const tfcc_uk_args* p) {  \
    uk_body(MR, 2, 1, p);                                                      \
  }
TFCC_UK_ROW_COUNTS(UKT)

#define UK_FULL(MR) uk_##MR,
#define UK_HALF(MR) uk_##MR##h,
#define UK_Q24(MR) uk_##MR##q,
#define UKT_FULL(MR) ukt_##MR,

TGT void tfcc_uk_avx512_kmajor(const tfcc_uk_args* p) {
  static const tfcc_uk_fn full[TFCC_UK_MR] = {TFCC_UK_ROW_COUNTS(UKT_FULL)};
  full[p->mr - 1](p);
}

TGT void tfcc_uk_avx512(const tfcc_uk_args* p) {
  static const tfcc_uk_fn full[TFCC_UK_MR] = {TFCC_UK_ROW_COUNTS(UK_FULL)};
  static const tfcc_uk_fn half[TFCC_UK_MR] = {TFCC_UK_ROW_COUNTS(UK_HALF)};
  static const tfcc_uk_fn q24[TFCC_UK_MR] = {TFCC_UK_ROW_COUNTS(UK_Q24)};
  (p->nr <= 16 ? half : p->nr <= 24 ? q24 : full)[p->mr - 1](p);
}

/* ---- depthwise ---------------------------------------------------------- */

/* Loads the 16 input values output channels [o, o+16) read (masked by `mo`,
 * the valid output lanes): x[ci] with ci = (o + lane) / m. */
INL __m512 dw_in(const float* px, int64_t o, int64_t m, __m512i idx,
                 __mmask16 mi, __mmask16 mo) {
  if (m == 1)
    return _mm512_maskz_loadu_ps(mo, px + o);
  __m512 v = _mm512_maskz_loadu_ps(mi, px + o / m);
  return _mm512_maskz_permutexvar_ps(mo, idx, v);
}

static TGT __attribute__((noinline)) void act_row(float* y, int64_t n,
                                                   int32_t act, float al,
                                                   float be) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(y + i, v_act(_mm512_loadu_ps(y + i), act, al, be));
  if (i < n) {
    __mmask16 mk = (__mmask16)((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, mk,
                          v_act(_mm512_maskz_loadu_ps(mk, y + i), act, al, be));
  }
}

/* One pixel at s with the tap range clipped to the image (any position). */
INL void dw_pixel(const tfcc_dw_args* p, const float* xb, int64_t y0,
                  int64_t i0, int64_t i1, int64_t s, int64_t o, __m512 bias,
                  __m512i idx, __mmask16 mi, __mmask16 mo, const float* rrow,
                  float* yrow) {
  const int64_t w = p->w, c = p->c, m = p->m, kw = p->kw, dw = p->dw;
  const int64_t C = c * m;
  const int64_t x0 = s * p->sw - p->pl;
  int64_t j0 = 0, j1 = kw;
  while (j0 < kw && x0 + j0 * dw < 0)
    ++j0;
  while (j1 > j0 && x0 + (j1 - 1) * dw >= w)
    --j1;
  __m512 a0 = bias;
  for (int64_t i = i0; i < i1; ++i) {
    const float* xr = xb + ((y0 + i * p->dh) * w + x0) * c;
    const float* wr = p->wt + i * kw * C + o;
    for (int64_t j = j0; j < j1; ++j)
      a0 = _mm512_fmadd_ps(dw_in(xr + j * dw * c, o, m, idx, mi, mo),
                           _mm512_maskz_loadu_ps(mo, wr + j * C), a0);
  }
  if (rrow)
    a0 = _mm512_add_ps(a0, _mm512_maskz_loadu_ps(mo, rrow + s * C + o));
  _mm512_mask_storeu_ps(yrow + s * C + o, mo, a0);
}

/* NP interior pixels from s (multiplier 1): the taps in a table, the pixels
 * unrolled at stride st from two base pointers. */
INL void dw_group(const int NP, const float* px, int64_t st, int64_t nt,
                  const int64_t* toff, const float* wo, const int64_t* wofs,
                  __m512 bias, __mmask16 mo, const float* ro, float* yo,
                  int64_t C) {
  __m512 acc[8];
#pragma unroll
  for (int q = 0; q < NP; ++q)
    acc[q] = bias;
  for (int64_t t = 0; t < nt; ++t) {
    const float* pa = px + toff[t];
    const float* pb = pa + 4 * st;
    const __m512 wv = _mm512_maskz_loadu_ps(mo, wo + wofs[t]);
#pragma unroll
    for (int q = 0; q < NP; ++q) {
      const float* a = q < 4 ? pa + q * st : pb + (q - 4) * st;
      acc[q] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mo, a), wv, acc[q]);
    }
  }
#pragma unroll
  for (int q = 0; q < NP; ++q) {
    __m512 v = acc[q];
    if (ro)
      v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mo, ro + q * C));
    _mm512_mask_storeu_ps(yo + q * C, mo, v);
  }
}

#define TFCC_DW_MAX_TAPS 64

TGT void tfcc_dw_row_avx512(const tfcc_dw_args* p, int64_t b, int64_t r) {
  const int64_t h = p->h, w = p->w, c = p->c, m = p->m, kh = p->kh,
                kw = p->kw, sw = p->sw, dh = p->dh, dw = p->dw, pl = p->pl,
                ow = p->ow;
  const int64_t C = c * m;
  const int64_t y0 = r * p->sh - p->pt;
  /* taps rows i with 0 <= y0 + i*dh < h */
  int64_t i0 = 0, i1 = kh;
  while (i0 < kh && y0 + i0 * dh < 0)
    ++i0;
  while (i1 > i0 && y0 + (i1 - 1) * dh >= h)
    --i1;
  /* interior columns [s_lo, s_hi): all taps in [0, w) */
  int64_t s_lo = pl > 0 ? (pl + sw - 1) / sw : 0;
  int64_t s_hi = (w - 1 - (kw - 1) * dw + pl); /* s*sw <= this */
  s_hi = s_hi < 0 ? 0 : s_hi / sw + 1;
  if (s_hi > ow)
    s_hi = ow;
  if (s_lo > ow)
    s_lo = ow;
  if (s_hi < s_lo)
    s_hi = s_lo;
  const float* xb = p->x + b * h * w * c;
  const int64_t orow = (b * p->oh + r) * ow;
  float* yrow = p->y + orow * C;
  const float* rrow = p->res ? p->res + orow * C : NULL;
  /* tap table of this row (multiplier 1, interior pixels) */
  int64_t toff[TFCC_DW_MAX_TAPS], wofs[TFCC_DW_MAX_TAPS];
  int64_t nt = 0;
  const int table = m == 1 && (i1 - i0) * kw <= TFCC_DW_MAX_TAPS;
  if (table)
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = 0; j < kw; ++j, ++nt) {
        toff[nt] = (i * dh * w + j * dw) * c;
        wofs[nt] = (i * kw + j) * C;
      }
  const int64_t st = sw * c;

  for (int64_t o = 0; o < C; o += 16) {
    const int64_t lanes = C - o < 16 ? C - o : 16;
    const __mmask16 mo = (__mmask16)((1u << lanes) - 1);
    __m512i idx = _mm512_setzero_si512();
    __mmask16 mi = 0;
    if (m > 1) {
      int32_t id[16];
      int64_t cbase = o / m;
      for (int l = 0; l < 16; ++l)
        id[l] = (int32_t)((o + l) / m - cbase);
      idx = _mm512_loadu_si512(id);
      int64_t span = (o + lanes - 1) / m - cbase + 1;
      mi = (__mmask16)((1u << span) - 1);
    }
    const __m512 bias =
        p->bias ? _mm512_maskz_loadu_ps(mo, p->bias + o) : _mm512_setzero_ps();
    int64_t s = 0;
    for (; s < s_lo; ++s)
      dw_pixel(p, xb, y0, i0, i1, s, o, bias, idx, mi, mo, rrow, yrow);
    if (table) {
      const float* px0 = xb + (y0 * w - pl) * c + o;
      for (; s + 8 <= s_hi; s += 8)
        dw_group(8, px0 + s * st, st, nt, toff, p->wt + o, wofs, bias, mo,
                 rrow ? rrow + s * C + o : NULL, yrow + s * C + o, C);
      if (s + 4 <= s_hi) {
        dw_group(4, px0 + s * st, st, nt, toff, p->wt + o, wofs, bias, mo,
                 rrow ? rrow + s * C + o : NULL, yrow + s * C + o, C);
        s += 4;
      }
      for (; s < s_hi; ++s)
        dw_group(1, px0 + s * st, st, nt, toff, p->wt + o, wofs, bias, mo,
                 rrow ? rrow + s * C + o : NULL, yrow + s * C + o, C);
    }
    for (; s < ow; ++s)
      dw_pixel(p, xb, y0, i0, i1, s, o, bias, idx, mi, mo, rrow, yrow);
  }
  /* The activation, over the whole output row (still in L1/L2), keeps the
   * hot loops free of it. */
  if (p->act != TFCC_ACT_NONE)
    act_row(yrow, ow * C, p->act, p->alpha, p->beta);
}

/* ---- one input channel, few output channels ---------------------------- */

/* Lane l of output vector e (16 floats of the NHWC output from pixel 0 of a
 * 16-pixel block) is pixel (16e + l) / OC, channel (16e + l) % OC: taken
 * from accumulator pair q = channel / 2 by permutex2var index idx[e][q]. */
typedef struct c1_tr {
  int32_t idx[TFCC_C1_MAX_OC][TFCC_C1_MAX_OC / 2][16];
  __mmask16 mask[TFCC_C1_MAX_OC][TFCC_C1_MAX_OC / 2];
} c1_tr;

static void c1_tr_init(c1_tr* t, int oc) {
  memset(t, 0, sizeof *t);
  for (int e = 0; e < oc; ++e)
    for (int l = 0; l < 16; ++l) {
      const int f = e * 16 + l, px = f / oc, o = f % oc;
      t->idx[e][o / 2][l] = px + 16 * (o % 2);
      t->mask[e][o / 2] |= (__mmask16)(1u << l);
    }
}

/* Transposes acc[OC] (16 pixels each) into the NHWC output of np pixels,
 * adding the residual and applying the activation. */
INL void c1_store(const int OC, const __m512* acc, const c1_tr* t, int64_t np,
                  const float* res, float* y, int32_t act, float al,
                  float be) {
  const int64_t nf = np * OC;
#pragma unroll
  for (int e = 0; e < OC; ++e) {
    if (e * 16 >= nf)
      break;
    __m512 v = _mm512_setzero_ps();
#pragma unroll
    for (int q = 0; q < (OC + 1) / 2; ++q) {
      const __m512 hi = 2 * q + 1 < OC ? acc[2 * q + 1] : acc[2 * q];
      const __m512 pv = _mm512_permutex2var_ps(
          acc[2 * q], _mm512_loadu_si512(t->idx[e][q]), hi);
      v = q == 0 ? pv : _mm512_mask_mov_ps(v, t->mask[e][q], pv);
    }
    const int64_t left = nf - e * 16;
    const __mmask16 m =
        left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
    if (res)
      v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, res + e * 16));
    if (act != TFCC_ACT_NONE)
      v = v_act(v, act, al, be);
    _mm512_mask_storeu_ps(y + e * 16, m, v);
  }
}

/* Output row (b, r), pixels [s, s + np) with np <= 16 * PB. */
INL void c1_block(const int OC, const int PB, const tfcc_c1_args* p,
                  const c1_tr* t, const float* xb, int64_t y0, int64_t i0,
                  int64_t i1, int64_t s, int64_t np, float* yrow,
                  const float* rrow) {
  const int64_t w = p->w, kw = p->kw, dh = p->dh;
  __mmask16 mk[2][TFCC_C1_MAX_KW];
  /* lane l of block v at tap column j reads input column s+16v+l+j-pl */
  for (int64_t j = 0; j < kw; ++j)
    for (int v = 0; v < PB; ++v) {
      const int64_t c0 = s + 16 * v + j - p->pl;
      int64_t lo = -c0, hi = w - c0;
      const int64_t nl = np - 16 * v;
      lo = lo < 0 ? 0 : lo;
      hi = hi > nl ? nl : hi;
      hi = hi > 16 ? 16 : hi;
      mk[v][j] = hi <= lo ? 0
                          : (__mmask16)(((1u << hi) - 1) & ~((1u << lo) - 1));
    }
  __m512 acc[2][TFCC_C1_MAX_OC];
#pragma unroll
  for (int v = 0; v < PB; ++v)
#pragma unroll
    for (int o = 0; o < OC; ++o)
      acc[v][o] = _mm512_setzero_ps();
  for (int64_t i = i0; i < i1; ++i) {
    const float* xr = xb + (y0 + i * dh) * w + s - p->pl;
    const float* wk = p->wp + i * kw * 32;
    for (int64_t j = 0; j < kw; ++j, wk += 32) {
      __m512 xv[2];
#pragma unroll
      for (int v = 0; v < PB; ++v)
        xv[v] = _mm512_maskz_loadu_ps(mk[v][j], xr + j + 16 * v);
#pragma unroll
      for (int o = 0; o < OC; ++o) {
        const __m512 wv = _mm512_set1_ps(wk[o]);
#pragma unroll
        for (int v = 0; v < PB; ++v)
          acc[v][o] = _mm512_fmadd_ps(xv[v], wv, acc[v][o]);
      }
    }
  }
  if (p->bias)
#pragma unroll
    for (int o = 0; o < OC; ++o) {
      const __m512 bv = _mm512_set1_ps(p->bias[o]);
#pragma unroll
      for (int v = 0; v < PB; ++v)
        acc[v][o] = _mm512_add_ps(acc[v][o], bv);
    }
#pragma unroll
  for (int v = 0; v < PB; ++v) {
    const int64_t nv = np - 16 * v;
    if (nv <= 0)
      break;
    const int64_t off = (s + 16 * v) * OC;
    c1_store(OC, acc[v], t, nv > 16 ? 16 : nv, rrow ? rrow + off : NULL,
             yrow + off, p->act, p->alpha, p->beta);
  }
}

/* The transposition tables, built once per channel count. */
static c1_tr g_c1_tr[TFCC_C1_MAX_OC];
static int g_c1_state[TFCC_C1_MAX_OC]; /* 0 none, 1 being built, 2 ready */

INL void c1_rows(const int OC, const tfcc_c1_args* p, int64_t R0, int64_t R1) {
  c1_tr local;
  const c1_tr* tp = &g_c1_tr[OC - 1];
  if (__atomic_load_n(&g_c1_state[OC - 1], __ATOMIC_ACQUIRE) != 2) {
    int expect = 0;
    if (__atomic_compare_exchange_n(&g_c1_state[OC - 1], &expect, 1, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      c1_tr_init(&g_c1_tr[OC - 1], OC);
      __atomic_store_n(&g_c1_state[OC - 1], 2, __ATOMIC_RELEASE);
    } else {
      c1_tr_init(&local, OC); /* another thread is building it */
      tp = &local;
    }
  }
  const c1_tr* const t = tp;
  const int64_t h = p->h, w = p->w, kh = p->kh, dh = p->dh, ow = p->ow;
  for (int64_t R = R0; R < R1; ++R) {
    const int64_t b = R / p->oh, r = R % p->oh;
    const int64_t y0 = r * p->sh - p->pt;
    int64_t i0 = 0, i1 = kh;
    while (i0 < kh && y0 + i0 * dh < 0)
      ++i0;
    while (i1 > i0 && y0 + (i1 - 1) * dh >= h)
      --i1;
    const float* xb = p->x + b * h * w;
    float* yrow = p->y + R * ow * OC;
    const float* rrow = p->res ? p->res + R * ow * OC : NULL;
    int64_t s = 0;
    for (; s + 16 < ow; s += 32)
      c1_block(OC, 2, p, t, xb, y0, i0, i1, s, TFCC_MIN(32, ow - s), yrow,
               rrow);
    if (s < ow)
      c1_block(OC, 1, p, t, xb, y0, i0, i1, s, ow - s, yrow, rrow);
  }
}

#define C1(OC)                                                                 \
  static TGT __attribute__((noinline)) void c1_##OC(const tfcc_c1_args* p,     \
                                                    int64_t R0, int64_t R1) {  \
    c1_rows(OC, p, R0, R1);                                                    \
  }
C1(1)
C1(2)
C1(3)
C1(4)
C1(5)
C1(6)
C1(7)
C1(8)

TGT void tfcc_conv_c1_rows_avx512(const tfcc_c1_args* p, int64_t R0,
                                  int64_t R1) {
  static void (*const fns[TFCC_C1_MAX_OC])(const tfcc_c1_args*, int64_t,
                                           int64_t) = {c1_1, c1_2, c1_3, c1_4,
                                                       c1_5, c1_6, c1_7, c1_8};
  fns[p->oc - 1](p, R0, R1);
}

/* ---- row-wise: softmax and layer normalization ------------------------- */

TGT void tfcc_softmax_row_avx512(const float* x, int64_t n,
                                 int32_t log_softmax, float* y) {
  const __m512 ninf = _mm512_set1_ps(-INFINITY);
  __m512 vm = ninf;
  int64_t k = 0;
  for (; k + 16 <= n; k += 16)
    vm = _mm512_max_ps(vm, _mm512_loadu_ps(x + k));
  if (k < n)
    vm = _mm512_max_ps(vm, _mm512_mask_loadu_ps(ninf, tail_mask(n - k), x + k));
  const float max = _mm512_reduce_max_ps(vm);
  const __m512 vmax = _mm512_set1_ps(max);
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  for (k = 0; k + 32 <= n; k += 32) {
    const __m512 e0 = v_exp(_mm512_sub_ps(_mm512_loadu_ps(x + k), vmax));
    const __m512 e1 = v_exp(_mm512_sub_ps(_mm512_loadu_ps(x + k + 16), vmax));
    s0 = _mm512_add_ps(s0, e0);
    s1 = _mm512_add_ps(s1, e1);
    if (!log_softmax) {
      _mm512_storeu_ps(y + k, e0);
      _mm512_storeu_ps(y + k + 16, e1);
    }
  }
  for (; k < n; k += 16) {
    const __mmask16 m = tail_mask(n - k);
    const __m512 e =
        v_exp(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + k), vmax));
    s0 = _mm512_mask_add_ps(s0, m, s0, e);
    if (!log_softmax)
      _mm512_mask_storeu_ps(y + k, m, e);
  }
  const float sum = _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
  if (log_softmax) {
    const __m512 shift = _mm512_set1_ps(max + logf(sum));
    for (k = 0; k < n; k += 16) {
      const __mmask16 m = tail_mask(n - k);
      _mm512_mask_storeu_ps(
          y + k, m, _mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + k), shift));
    }
  } else {
    const __m512 inv = _mm512_set1_ps(1.0f / sum);
    for (k = 0; k < n; k += 16) {
      const __mmask16 m = tail_mask(n - k);
      _mm512_mask_storeu_ps(
          y + k, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, y + k), inv));
    }
  }
}

TGT void tfcc_layer_norm_row_avx512(const float* x, int64_t n,
                                    const float* gamma, const float* beta,
                                    float epsilon, float* y) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  int64_t k = 0;
  for (; k + 32 <= n; k += 32) {
    s0 = _mm512_add_ps(s0, _mm512_loadu_ps(x + k));
    s1 = _mm512_add_ps(s1, _mm512_loadu_ps(x + k + 16));
  }
  for (; k < n; k += 16)
    s0 = _mm512_add_ps(s0, _mm512_maskz_loadu_ps(tail_mask(n - k), x + k));
  const float mean = _mm512_reduce_add_ps(_mm512_add_ps(s0, s1)) / (float)n;
  const __m512 vmean = _mm512_set1_ps(mean);
  s0 = _mm512_setzero_ps();
  s1 = _mm512_setzero_ps();
  for (k = 0; k + 32 <= n; k += 32) {
    const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(x + k), vmean);
    const __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(x + k + 16), vmean);
    s0 = _mm512_fmadd_ps(d0, d0, s0);
    s1 = _mm512_fmadd_ps(d1, d1, s1);
  }
  for (; k < n; k += 16) {
    const __mmask16 m = tail_mask(n - k);
    const __m512 d =
        _mm512_maskz_sub_ps(m, _mm512_maskz_loadu_ps(m, x + k), vmean);
    s0 = _mm512_fmadd_ps(d, d, s0);
  }
  const float sq = _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
  const __m512 inv = _mm512_set1_ps(1.0f / sqrtf(sq / (float)n + epsilon));
  for (k = 0; k < n; k += 16) {
    const __mmask16 m = tail_mask(n - k);
    __m512 v = _mm512_mul_ps(
        _mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + k), vmean), inv);
    if (gamma)
      v = _mm512_mul_ps(v, _mm512_maskz_loadu_ps(m, gamma + k));
    if (beta)
      v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, beta + k));
    _mm512_mask_storeu_ps(y + k, m, v);
  }
}

#else /* not x86-64: never selected */
void tfcc_uk_avx512(const tfcc_uk_args* p) { tfcc_uk_base(p); }
void tfcc_uk_avx512_kmajor(const tfcc_uk_args* p) { (void)p; }
void tfcc_dw_row_avx512(const tfcc_dw_args* p, int64_t b, int64_t r) {
  tfcc_dw_row_generic(p, b, r);
}
void tfcc_conv_c1_rows_avx512(const tfcc_c1_args* p, int64_t R0, int64_t R1) {
  (void)p;
  (void)R0;
  (void)R1;
}
void tfcc_softmax_row_avx512(const float* x, int64_t n, int32_t log_softmax,
                             float* y) {
  (void)x;
  (void)n;
  (void)log_softmax;
  (void)y;
}
void tfcc_layer_norm_row_avx512(const float* x, int64_t n, const float* gamma,
                                const float* beta, float epsilon, float* y) {
  (void)x;
  (void)n;
  (void)gamma;
  (void)beta;
  (void)epsilon;
  (void)y;
}
#endif
