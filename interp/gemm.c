/*
 * gemm.c - the float matrix product of conv, deconv and matmul
 * (interp_sgemm), on the interpreter's threads, with a kernel for
 * processors with AVX2 and FMA; elsewhere, and with --plain, CBLAS's
 * sgemm.
 *
 * Why our own: a BLAS picks its kernels by the processor's model, and a
 * model it does not know gets its oldest ones (Debian's OpenBLAS 0.3.21
 * runs SSE3 kernels on processors newer than it, at a quarter of what
 * their AVX2 units give), while what the kernel needs is only the
 * instruction set, which the processor says.
 *
 * The product is blocked as usual: for each block of NC columns and KC
 * depth, B's block is packed in panels of NR columns; for each block of
 * MC rows, A's block in panels of MR rows; the micro-kernel computes an
 * MR x NR tile of C from two panels, in registers. Threads take
 * rectangles of C (columns, or rows when C is narrow). Each item of C
 * is the sum, in order, of its partial sums over the blocks of KC, each
 * a running sum in k order (blocked summation: the rounding error grows
 * with KC + K / KC rather than with K), computed by one thread: the
 * result does not depend on the number of threads.
 */
#include "interp/interp_internal.h"

#include <cblas.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GEMM_AVX2 1
#endif

/* The widest micro-kernel's tile. */
#define MR_MAX 12
#define NR_MAX 32
#define KC 256
#define MC 96
#define NC 1024

/* A micro-kernel: c[mr x nr] (row stride ldc) = (add ? c : 0) + the
 * product of an A panel (kc times mr rows) and a B panel (kc times nr
 * columns), each item's product one running sum in k order. */
typedef void (*MicroFn)(int64_t kc, const float *a, const float *b,
			float *c, int64_t ldc, bool add);

typedef struct Micro {
	int64_t mr, nr;
	MicroFn fn;
} Micro;

/* One thread's rectangle of C, and the scratch it packs into. */
typedef struct GemmPart {
	int64_t m0, m1, n0, n1;
	float *pa, *pb;         /* MC x KC, KC x NC */
} GemmPart;

typedef struct Gemm {
	Micro k;
	bool ta, tb;
	int64_t M, N, K;
	const float *A, *B;
	int64_t lda, ldb, ldc;
	float *C;
	GemmPart *parts;
} Gemm;

/* Rows [i0, i0 + mc) by depth [k0, k0 + kc) of op(A), in panels of MR
 * rows (the last padded with zeros): panel p holds, for each k, its MR
 * rows' items. */
static void pack_a(const Gemm *g, float *dst, int64_t i0, int64_t mc,
		   int64_t k0, int64_t kc)
{
	int64_t MR = g->k.mr;
	for (int64_t p = 0; p < mc; p += MR) {
		int64_t rows = mc - p < MR ? mc - p : MR;
		for (int64_t k = 0; k < kc; k++, dst += MR) {
			for (int64_t r = 0; r < rows; r++) {
				int64_t i = i0 + p + r, kk = k0 + k;
				dst[r] = g->ta ? g->A[kk * g->lda + i] : g->A[i * g->lda + kk];
			}
			for (int64_t r = rows; r < MR; r++)
				dst[r] = 0;
		}
	}
}

/* Depth [k0, k0 + kc) by columns [j0, j0 + nc) of op(B), in panels of
 * NR columns (the last padded with zeros). */
static void pack_b(const Gemm *g, float *dst, int64_t k0, int64_t kc,
		   int64_t j0, int64_t nc)
{
	int64_t NR = g->k.nr;
	for (int64_t p = 0; p < nc; p += NR) {
		int64_t cols = nc - p < NR ? nc - p : NR;
		for (int64_t k = 0; k < kc; k++, dst += NR) {
			int64_t kk = k0 + k, j = j0 + p;
			if (!g->tb && cols == NR)
				memcpy(dst, g->B + kk * g->ldb + j, (size_t)NR * sizeof(float));
			else {
				for (int64_t c = 0; c < cols; c++)
					dst[c] = g->tb ? g->B[(j + c) * g->ldb + kk] : g->B[kk * g->ldb + j + c];
				for (int64_t c = cols; c < NR; c++)
					dst[c] = 0;
			}
		}
	}
}

#ifdef GEMM_AVX2
/* 6 x 16, in 12 of AVX2's 16 registers. */
__attribute__((target("avx2,fma")))
static void micro_avx2(int64_t kc, const float *a, const float *b,
		       float *c, int64_t ldc, bool add)
{
	__m256 c0a, c0b, c1a, c1b, c2a, c2b, c3a, c3b, c4a, c4b, c5a, c5b;
	c0a = c0b = c1a = c1b = c2a = c2b = _mm256_setzero_ps();
	c3a = c3b = c4a = c4b = c5a = c5b = _mm256_setzero_ps();
	for (int64_t k = 0; k < kc; k++, a += 6, b += 16) {
		__m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8), x;
#define ROW(r) x = _mm256_broadcast_ss(a + (r)); c##r##a = _mm256_fmadd_ps(x, b0, c##r##a); c##r##b = _mm256_fmadd_ps(x, b1, c##r##b)
		ROW(0); ROW(1); ROW(2); ROW(3); ROW(4); ROW(5);
#undef ROW
	}
	if (add) {
#define ADD(r) c##r##a = _mm256_add_ps(_mm256_loadu_ps(c + (r) * ldc), c##r##a); c##r##b = _mm256_add_ps(_mm256_loadu_ps(c + (r) * ldc + 8), c##r##b)
		ADD(0); ADD(1); ADD(2); ADD(3); ADD(4); ADD(5);
#undef ADD
	}
#define STORE(r) _mm256_storeu_ps(c + (r) * ldc, c##r##a); _mm256_storeu_ps(c + (r) * ldc + 8, c##r##b)
	STORE(0); STORE(1); STORE(2); STORE(3); STORE(4); STORE(5);
#undef STORE
}

/* 12 x 32, in 24 of AVX-512's 32 registers. */
__attribute__((target("avx512f")))
static void micro_avx512(int64_t kc, const float *a, const float *b,
			 float *c, int64_t ldc, bool add)
{
	__m512 acc[12][2];
	for (int r = 0; r < 12; r++)
		for (int h = 0; h < 2; h++)
			acc[r][h] = _mm512_setzero_ps();
	for (int64_t k = 0; k < kc; k++, a += 12, b += 32) {
		__m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 12
		for (int r = 0; r < 12; r++) {
			__m512 x = _mm512_set1_ps(a[r]);
			acc[r][0] = _mm512_fmadd_ps(x, b0, acc[r][0]);
			acc[r][1] = _mm512_fmadd_ps(x, b1, acc[r][1]);
		}
	}
	for (int r = 0; r < 12; r++)
		for (int h = 0; h < 2; h++) {
			float *o = c + r * ldc + 16 * h;
			_mm512_storeu_ps(o, add ? _mm512_add_ps(_mm512_loadu_ps(o), acc[r][h]) : acc[r][h]);
		}
}

/* A tile of mr x nr items of C at c: the micro-kernel, through a full
 * tile on the stack when C's is partial. */
static void tile(const Micro *k, int64_t kc, const float *a,
		 const float *b, float *c, int64_t ldc, bool add, int64_t mr,
		 int64_t nr)
{
	if (mr == k->mr && nr == k->nr) {
		k->fn(kc, a, b, c, ldc, add);
		return;
	}
	float t[MR_MAX * NR_MAX] = { 0 };
	for (int64_t r = 0; add && r < mr; r++)
		memcpy(t + r * k->nr, c + r * ldc, (size_t)nr * sizeof(float));
	k->fn(kc, a, b, t, k->nr, add);
	for (int64_t r = 0; r < mr; r++)
		memcpy(c + r * ldc, t + r * k->nr, (size_t)nr * sizeof(float));
}

/* The rectangle of part p, block by block. */
static void gemm_part(void *ctx, int part, int parts)
{
	(void)parts;
	const Gemm *g = ctx;
	const GemmPart *p = &g->parts[part];
	int64_t MR = g->k.mr, NR = g->k.nr;
	for (int64_t jc = p->n0; jc < p->n1; jc += NC) {
		int64_t nc = p->n1 - jc < NC ? p->n1 - jc : NC;
		for (int64_t pc = 0; pc < g->K; pc += KC) {
			int64_t kc = g->K - pc < KC ? g->K - pc : KC;
			pack_b(g, p->pb, pc, kc, jc, nc);
			for (int64_t ic = p->m0; ic < p->m1; ic += MC) {
				int64_t mc = p->m1 - ic < MC ? p->m1 - ic : MC;
				pack_a(g, p->pa, ic, mc, pc, kc);
				for (int64_t jr = 0; jr < nc; jr += NR)
					for (int64_t ir = 0; ir < mc; ir += MR)
						tile(&g->k, kc, p->pa + ir * kc, p->pb + jr * kc,
						     g->C + (ic + ir) * g->ldc + jc + jr, g->ldc, pc > 0,
						     mc - ir < MR ? mc - ir : MR, nc - jr < NR ? nc - jr : NR);
			}
		}
	}
}

/* Splits C among `parts` threads: by columns (multiples of NR) when C
 * has as many columns as rows, else by rows (multiples of MR). Returns
 * the parts made (fewer when C is small). */
static int split(Gemm *g, int parts)
{
	bool by_cols = g->N >= g->M;
	int64_t n = by_cols ? g->N : g->M, unit = by_cols ? g->k.nr : g->k.mr;
	int64_t units = (n + unit - 1) / unit;
	if (parts > units)
		parts = (int)units;
	int64_t at = 0;
	for (int i = 0; i < parts; i++) {
		int64_t next = (units * (i + 1) / parts) * unit;
		if (next > n)
			next = n;
		GemmPart *p = &g->parts[i];
		*p = (GemmPart){ 0, g->M, 0, g->N, p->pa, p->pb };
		if (by_cols) {
			p->n0 = at;
			p->n1 = next;
		} else {
			p->m0 = at;
			p->m1 = next;
		}
		at = next;
	}
	return parts;
}
#endif

bool interp_sgemm(Interp *it, const Step *s, bool ta, bool tb, int64_t M,
		  int64_t N, int64_t K, const float *A, int64_t lda,
		  const float *B, int64_t ldb, float *C, int64_t ldc)
{
#ifdef GEMM_AVX2
	Micro k = { 0, 0, NULL };
	if (__builtin_cpu_supports("avx512f"))
		k = (Micro){ 12, 32, micro_avx512 };
	else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		k = (Micro){ 6, 16, micro_avx2 };
	/* fewer rows than a tile: mostly padding, and the product is
	 * bound by reading B, which CBLAS does as well */
	if (!it->opt.plain && K > 0 && k.fn && M >= k.mr) {
		Gemm g = { k, ta, tb, M, N, K, A, B, lda, ldb, ldc, C, NULL };
		GemmPart parts[64];
		int n = interp_threads(it);
		n = n < 64 ? n : 64;
		size_t per = (size_t)MC * KC + (size_t)KC * NC;
		float *scratch = interp_scratch(it, s, (size_t)n * per, sizeof(float));
		if (!scratch)
			return false;
		for (int i = 0; i < n; i++) {
			parts[i].pa = scratch + (size_t)i * per;
			parts[i].pb = parts[i].pa + (size_t)MC * KC;
		}
		g.parts = parts;
		n = split(&g, n);
		interp_parallel(it, n, gemm_part, &g);
		interp_release(it, scratch);
		return true;
	}
#endif
	cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
		    tb ? CblasTrans : CblasNoTrans, (int)M, (int)N, (int)K, 1.0f,
		    A, (int)lda, B, (int)ldb, 0.0f, C, (int)ldc);
	return true;
}
