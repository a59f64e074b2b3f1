/* cpu_isa.c - which ISA level the kernels run at: the CPU's (CPUID and the
 * OS-enabled register state), capped by the archive's level and by the
 * TFCC_KERNELS_ISA environment variable; chosen once per process. Every
 * kernel dispatches on tfcc_kernels_isa(). */
/* Before kernels_internal.h, whose TFCC_INTERNAL macro names a status too. */
#include "tfcc/tfcc_runtime.h"
#include "qgemm_internal.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define TFCC_X86 1
#endif

/* The levels' names, indexed by TFCC_ISA_*: the values TFCC_KERNELS_ISA
 * takes and what tfcc_rt_kernels_isa returns. */
static const char* const kIsaNames[] = {"generic", "avx2", "avx512"};
_Static_assert(TFCC_ISA_GENERIC == 0 && TFCC_ISA_AVX2 == 1 &&
                   TFCC_ISA_AVX512 == 2,
               "kIsaNames is indexed by TFCC_ISA_*");

static int g_isa = -1;    /* detected */
static int g_forced = -1; /* testing hook */

static int detect_cpu_isa(void) {
#if TFCC_X86
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    return TFCC_ISA_GENERIC;
  /* OSXSAVE, AVX, FMA */
  if (!(c & (1u << 27)) || !(c & (1u << 28)) || !(c & (1u << 12)))
    return TFCC_ISA_GENERIC;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  (void)hi;
  if ((lo & 0x6) != 0x6) /* SSE and AVX state enabled by the OS */
    return TFCC_ISA_GENERIC;
  if (__get_cpuid_max(0, NULL) < 7)
    return TFCC_ISA_GENERIC;
  __cpuid_count(7, 0, a, b, c, d);
  if (!(b & (1u << 5))) /* AVX2 */
    return TFCC_ISA_GENERIC;
  const unsigned need = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);
  /* avx512f, avx512dq, avx512bw, avx512vl; opmask and ZMM state */
  if ((b & need) != need || (lo & 0xe6) != 0xe6)
    return TFCC_ISA_AVX2;
  return TFCC_ISA_AVX512;
#else
  return TFCC_ISA_GENERIC;
#endif
}

/* The CPU's level, capped by the archive's TFCC_KERNELS_MAX_ISA and by
 * TFCC_KERNELS_ISA (an unknown value is ignored:
 * the variable only ever lowers the level). */
static int detect_isa(void) {
  int isa = detect_cpu_isa();
  if (isa > TFCC_KERNELS_MAX_ISA) /* the archive carries no higher level */
    isa = TFCC_KERNELS_MAX_ISA;
#if TFCC_RT_FREESTANDING
  return isa; /* no environment on bare metal */
#else
  const char* cap = getenv("TFCC_KERNELS_ISA");
  if (!cap)
    return isa;
  int limit = isa;
  for (int level = TFCC_ISA_GENERIC; level <= TFCC_ISA_AVX512; ++level)
    if (strcmp(cap, kIsaNames[level]) == 0)
      limit = level;
  return limit < isa ? limit : isa;
#endif
}

int tfcc_kernels_isa(void) {
  int isa = __atomic_load_n(&g_isa, __ATOMIC_RELAXED);
  if (isa < 0) {
    isa = detect_isa();
    __atomic_store_n(&g_isa, isa, __ATOMIC_RELAXED);
  }
  int forced = __atomic_load_n(&g_forced, __ATOMIC_RELAXED);
  if (forced >= 0 && forced <= isa)
    return forced;
  return isa;
}

const char* tfcc_rt_kernels_isa(void) { return kIsaNames[tfcc_kernels_isa()]; }

void tfcc_rt_kernels_force_isa(int isa) {
  __atomic_store_n(&g_forced, isa, __ATOMIC_RELAXED);
}

/* Bit `bit` of register `reg` (0 EAX, 1 EBX, 2 ECX, 3 EDX) of CPUID leaf 7
 * sub-leaf `sub`; 0 where the CPU reports no such sub-leaf. */
static int cpuid7_bit(unsigned sub, int reg, int bit) {
#if TFCC_X86
  if (__get_cpuid_max(0, NULL) < 7)
    return 0;
  unsigned r[4];
  __cpuid_count(7, 0, r[0], r[1], r[2], r[3]);
  if (sub > r[0]) /* EAX of sub-leaf 0: the highest sub-leaf */
    return 0;
  __cpuid_count(7, sub, r[0], r[1], r[2], r[3]);
  return (r[reg] >> bit) & 1;
#else
  (void)sub;
  (void)reg;
  (void)bit;
  return 0;
#endif
}

/* cpuid7_bit, read once into *cache (-1 until then). */
static int cpuid7_bit_once(int* cache, unsigned sub, int reg, int bit) {
  int v = __atomic_load_n(cache, __ATOMIC_RELAXED);
  if (v < 0) {
    v = cpuid7_bit(sub, reg, bit);
    __atomic_store_n(cache, v, __ATOMIC_RELAXED);
  }
  return v;
}

/* A CPUID feature used on top of the AVX-512 level: only reported while the
 * kernels run at that level. */
static int avx512_extension(int* cache, unsigned sub, int reg, int bit) {
  return cpuid7_bit_once(cache, sub, reg, bit) &&
         tfcc_kernels_isa() == TFCC_ISA_AVX512;
}

/* AVX512_VNNI (leaf 7 ECX bit 11): the int8 GEMM's vpdpbusd kernel. */
int tfcc_kernels_has_avx512_vnni(void) {
  static int g_vnni = -1;
  return avx512_extension(&g_vnni, 0, 2, 11);
}

/* AVX-VNNI (leaf 7 sub-leaf 1 EAX bit 4): the int8 GEMM's vpdpbusd kernel
 * on ymm, at the AVX2 level (and above, where AVX512_VNNI is not there).
 * A CPU that reports it has the OS-enabled AVX state the level checked. */
static int g_avx_vnni_allowed = -1; /* testing hook */

int tfcc_kernels_has_avx_vnni(void) {
  static int g_avx_vnni = -1;
  return cpuid7_bit_once(&g_avx_vnni, 1, 0, 4) &&
         __atomic_load_n(&g_avx_vnni_allowed, __ATOMIC_RELAXED) != 0 &&
         tfcc_kernels_isa() >= TFCC_ISA_AVX2;
}

void tfcc_kernels_force_avx_vnni(int allow) {
  __atomic_store_n(&g_avx_vnni_allowed, allow, __ATOMIC_RELAXED);
}

/* AVX512_BF16 (leaf 7 sub-leaf 1 EAX bit 5): the GEMM's vdpbf16ps kernel for
 * bf16 operands. */
int tfcc_kernels_has_avx512_bf16(void) {
  static int g_bf16 = -1;
  return avx512_extension(&g_bf16, 1, 0, 5);
}

/* Whether the CPU's vendor string (leaf 0) is Intel's. */
static int cpu_is_intel(void) {
#if TFCC_X86
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d))
    return 0;
  return b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu;
#else
  return 0;
#endif
}

static int g_vdpbf16ps_forced = -1; /* testing hook */

/* bf16 operands take vdpbf16ps where it multiplies faster than the f32
 * FMA: on AMD's Zen 4 it issues as often as an FMA with twice the products,
 * on Intel's Emerald Rapids at a quarter of the FMA's rate, half the f32
 * peak (docs/mixed-precision.md). Intel's other AVX512_BF16 cores (Cooper
 * Lake; Sapphire Rapids, the same core as Emerald Rapids) are taken to be
 * alike, unmeasured. Elsewhere the f32 kernels compute the same exact
 * products. */
int tfcc_kernels_use_vdpbf16ps(void) {
  if (!tfcc_kernels_has_avx512_bf16())
    return 0;
  const int forced = __atomic_load_n(&g_vdpbf16ps_forced, __ATOMIC_RELAXED);
  if (forced >= 0)
    return forced;
  static int g_intel = -1;
  int intel = __atomic_load_n(&g_intel, __ATOMIC_RELAXED);
  if (intel < 0) {
    intel = cpu_is_intel();
    __atomic_store_n(&g_intel, intel, __ATOMIC_RELAXED);
  }
  return !intel;
}

void tfcc_kernels_force_vdpbf16ps(int use) {
  __atomic_store_n(&g_vdpbf16ps_forced, use, __ATOMIC_RELAXED);
}

/* The CPU's level-2 cache in bytes, read once: CPUID leaf 0x80000006, ECX
 * bits 31-16 in KiB (Intel and AMD both report it there); 0 where unknown
 * (not x86, or no such leaf). Blocks of packed weights are sized by it. */
int64_t tfcc_cpu_l2_bytes(void) {
  static int g_l2_kib = -1; /* an int: lock-free on 32-bit targets too */
  int kib = __atomic_load_n(&g_l2_kib, __ATOMIC_RELAXED);
  if (kib < 0) {
    kib = 0;
#if TFCC_X86
    unsigned a, b, c, d;
    if (__get_cpuid_max(0x80000000u, NULL) >= 0x80000006u) {
      __cpuid(0x80000006u, a, b, c, d);
      kib = (int)(c >> 16);
    }
#endif
    __atomic_store_n(&g_l2_kib, kib, __ATOMIC_RELAXED);
  }
  return (int64_t)kib * 1024;
}
