/*
 * real.h - the scalar type of a kernel file compiled twice: with
 * INTERP_REAL=32 its kernels compute in float and are named NAME_f32, with
 * INTERP_REAL=64 in double and named NAME_f64. GEMM is CBLAS's sgemm or
 * dgemm.
 */
#ifndef NNEF_INTERP_REAL_H
#define NNEF_INTERP_REAL_H

#include <cblas.h>

#if INTERP_REAL == 32
typedef float real;
#define KNAME(n) n##_f32
#define GEMM cblas_sgemm
#define R(x) x##f
#elif INTERP_REAL == 64
typedef double real;
#define KNAME(n) n##_f64
#define GEMM cblas_dgemm
#define R(x) x
#else
#error "compile with -DINTERP_REAL=32 or -DINTERP_REAL=64"
#endif

#endif
