/* qgemm_avxvnni.c - the int8 GEMM micro-kernel for AVX2 CPUs with AVX-VNNI
 * (Alder Lake and later Intel cores, Zen 5; CMakeLists gives this file
 * -march=x86-64-v3 -mavxvnni): qgemm_pairs.inc with vpdpbusd on ymm, which
 * adds the 4 u8 x s8 products of each int32 lane without saturating, so it
 * is exact for any weights and one instruction where the vpmaddubsw form
 * takes three. Chosen at run time (tfcc_kernels_has_avx_vnni) at the AVX2
 * level; the epilogue is the AVX2 one (qgemm_avx2.c). */
#include "qgemm_internal.h"

#include <immintrin.h>
#include <string.h>

#define QP_SUFFIX(name) name##_avxvnni
#define QP_DOT(acc, x, b) _mm256_dpbusd_avx_epi32(acc, x, b)
#define QP_PAIR_PANELS
#include "qgemm_pairs.inc"
#undef QP_PAIR_PANELS
#undef QP_DOT
#undef QP_SUFFIX
