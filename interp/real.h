/*
 * real.h - the scalar type of a kernel file compiled twice: with
 * INTERP_REAL=32 its kernels compute in float, with INTERP_REAL=64 in
 * double. A kernel the table calls is defined under both of its names,
 * spelled out so that grep and ctags find them:
 *
 *     bool TWIN(kern_conv_f32, kern_conv_f64)(Interp *it, const Step *s)
 *
 * is kern_conv_f32 in the float object and kern_conv_f64 in the double
 * one. Static helpers need no twin names: each object has its own. GEMM
 * is CBLAS's sgemm or dgemm.
 */
#ifndef NNEF_INTERP_REAL_H
#define NNEF_INTERP_REAL_H

#include <cblas.h>

#if INTERP_REAL == 32
typedef float real;
#define TWIN(f32, f64) f32
#define GEMM cblas_sgemm
#define R(x) x##f
#elif INTERP_REAL == 64
typedef double real;
#define TWIN(f32, f64) f64
#define GEMM cblas_dgemm
#define R(x) x
#else
#error "compile with -DINTERP_REAL=32 or -DINTERP_REAL=64"
#endif

/* C[M x N] = op(A) x op(B) (row-major, op the transpose where ta, tb),
 * false after reporting (interp_sgemm's scratch). Floats go through
 * interp_sgemm (interp/gemm.c), doubles through CBLAS. */
#if INTERP_REAL == 32
#define MATMUL(it, s, ta, tb, M, N, K, A, lda, B, ldb, C, ldc) \
	interp_sgemm(it, s, ta, tb, M, N, K, A, lda, B, ldb, C, ldc)
#else
#define MATMUL(it, s, ta, tb, M, N, K, A, lda, B, ldb, C, ldc) \
	(cblas_dgemm(CblasRowMajor, (ta) ? CblasTrans : CblasNoTrans, \
		     (tb) ? CblasTrans : CblasNoTrans, (int)(M), (int)(N), \
		     (int)(K), 1.0, A, (int)(lda), B, (int)(ldb), 0.0, C, \
		     (int)(ldc)), true)
#endif

#endif
