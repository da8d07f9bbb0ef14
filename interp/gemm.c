/*
 * gemm.c - the float matrix product of conv, deconv and matmul
 * (interp_sgemm), on the interpreter's threads, with micro-kernels for
 * processors with AVX-512, or AVX2 and FMA; elsewhere, and with --plain,
 * CBLAS's sgemm.
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
 * result does not depend on the number of threads. When A is not
 * transposed the micro-kernels read its rows in place. A product of
 * fewer rows than a tile (a classifier on one image) is computed a row
 * of C at a time instead, bound by reading B.
 */
#include "interp/interp_internal.h"

#include <assert.h>
#include <cblas.h>
#include <stdatomic.h>
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
 * columns), each item's product one running sum in k order; then, with
 * bias, bias[r] added to row r where it is not 0. A masked kernel
 * computes and writes only the first `cols` columns (the others are
 * left alone); the others take cols == nr. */
typedef void (*MicroFn)(int64_t kc, const float *a, int64_t lda,
			const float *b, float *c, int64_t ldc, bool add, const float *bias,
			int64_t cols);

typedef struct Micro {
	int64_t mr, nr;
	MicroFn fn;             /* A packed */
	MicroFn rows;           /* A's rows as they are */
	/* masked kernels (or NULL): any cols up to nr, and up to nr / 2
	 * with half the products (a last panel of few columns) */
	MicroFn fn_masked, rows_masked, fn_half, rows_half;
	/* masked kernels of r < mr rows reading A's rows (or NULL): full
	 * and half width */
	MicroFn part_rows[MR_MAX][2];
} Micro;

/* A part's rectangle of C. */
typedef struct GemmPart {
	int64_t m0, m1, n0, n1;
} GemmPart;

/* Floats of the scratch a thread packs into: MC x KC, then KC x NC. */
#define GEMM_SCRATCH ((size_t)MC * KC + (size_t)KC * NC)

typedef struct Gemm {
	Micro k;
	bool ta, tb;
	int64_t M, N, K;
	const float *A, *B;
	int64_t lda, ldb, ldc;
	float *C;
	GemmPart *parts;
	float *scratch;         /* a thread slot's at scratch + slot per */
	size_t per;             /* 0: one thread, the one scratch whatever its slot */
	/* gemm_rows_part: N rounded up to panels, the rows a unit, the
	 * slab of depth [k0, k1), the next unit of rows not taken */
	int64_t ncp, unit, k0, k1;
	atomic_int next_unit;
	const float *bias;      /* or NULL: added to C's rows at the end */
	const GemmSource *src;  /* or NULL: B read from B */
} Gemm;

/* bias[i] added to rows [i0, i0 + rows) of C, columns [j0, j0 + cols),
 * where it is not 0 (so that a sum of -0 stays -0, as add_bias keeps it). */
static void add_row_bias(const Gemm *g, int64_t i0, int64_t rows, int64_t j0, int64_t cols)
{
	for (int64_t i = i0; g->bias && i < i0 + rows; i++) {
		float b = g->bias[i], *c = g->C + i * g->ldc + j0;
		if (b != 0)
			for (int64_t j = 0; j < cols; j++)
				c[j] += b;
	}
}

#ifdef GEMM_AVX2
/* Rows [i0, i0 + mc) by depth [k0, k0 + kc) of op(A), in panels of MR
 * rows (the last padded with zeros): panel p holds, for each k, its MR
 * rows' items. */
static void pack_a(const Gemm *g, float *dst, int64_t i0, int64_t mc,
		   int64_t k0, int64_t kc)
{
	int64_t MR = g->k.mr;
	for (int64_t p = 0; p < mc; p += MR, dst += MR * kc) {
		int64_t rows = mc - p < MR ? mc - p : MR;
		if (rows < MR)
			memset(dst, 0, (size_t)(MR * kc) * sizeof(float));
		if (g->ta) /* A is K x M: row k holds the panel's items */
			for (int64_t k = 0; k < kc; k++) {
				const float *src = g->A + (k0 + k) * g->lda + i0 + p;
				for (int64_t r = 0; r < rows; r++)
					dst[k * MR + r] = src[r];
			}
		else
			for (int64_t r = 0; r < rows; r++) {
				const float *src = g->A + (i0 + p + r) * g->lda + k0;
				for (int64_t k = 0; k < kc; k++)
					dst[k * MR + r] = src[k];
			}
	}
}

/* NR floats from src to dst, NR a constant of the loop. */
#define COPY_ROW(NRC)                                   \
	for (int64_t k = 0; k < kc; k++) {              \
		const float *src = row0 + k * g->ldb;   \
		for (int64_t c = 0; c < (NRC); c++)     \
			dst[k * (NRC) + c] = src[c];    \
	}

/* Depth [k0, k0 + kc) by columns [j0, j0 + nc) of op(B), in panels of
 * NR columns (the last padded with zeros). */
VECTOR_CLONES static void pack_b(const Gemm *g, float *dst, int64_t k0, int64_t kc,
		   int64_t j0, int64_t nc)
{
	int64_t NR = g->k.nr;
	for (int64_t p = 0; p < nc; p += NR, dst += NR * kc) {
		int64_t cols = nc - p < NR ? nc - p : NR;
		if (g->src) {
			if (cols < NR)
				memset(dst, 0, (size_t)(NR * kc) * sizeof(float));
			g->src->panel(g->src->ctx, dst, k0, kc, j0 + p, cols, NR);
			continue;
		}
		const float *row0 = g->B + k0 * g->ldb + j0 + p;
		if (!g->tb && cols == 32 && NR == 32) {
			COPY_ROW(32)
			continue;
		}
		if (!g->tb && cols == 16 && NR == 16) {
			COPY_ROW(16)
			continue;
		}
		if (cols < NR)
			memset(dst, 0, (size_t)(NR * kc) * sizeof(float));
		if (g->tb) /* B is N x K: row j holds a column's items */
			for (int64_t c = 0; c < cols; c++) {
				const float *src = g->B + (j0 + p + c) * g->ldb + k0;
				for (int64_t k = 0; k < kc; k++)
					dst[k * NR + c] = src[k];
			}
		else
			for (int64_t k = 0; k < kc; k++)
				for (int64_t c = 0; c < cols; c++)
					dst[k * NR + c] = row0[k * g->ldb + c];
	}
}
#undef COPY_ROW

/* The micro-kernels, each in two forms: reading A from a packed panel
 * (item (r, k) at a[k * MR + r]) or from the rows of A itself (at
 * a[r * lda + k]), which spares packing A when it is not transposed. */
#define PACKED_A(r) a[(r)]
#define PACKED_NEXT a += MR_
#define ROWS_A(r) a[(r) * lda]
#define ROWS_NEXT a++

/* 6 x 16, in 12 of AVX2's 16 registers. */
#define MICRO_AVX2(NAME, A_AT, A_NEXT)                                                         \
	__attribute__((target("avx2,fma"))) static void NAME(                                  \
		int64_t kc, const float *a, int64_t lda, const float *b, float *c,             \
		int64_t ldc, bool add, const float *bias, int64_t cols)                        \
	{                                                                                      \
		enum { MR_ = 6 };                                                              \
		(void)lda, (void)cols;                                                                     \
		__m256 acc[6][2];                                                              \
		for (int r = 0; r < 6; r++)                                                    \
			acc[r][0] = acc[r][1] = _mm256_setzero_ps();                           \
		for (int64_t k = 0; k < kc; k++, A_NEXT, b += 16) {                            \
			__m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);           \
			_Pragma("GCC unroll 6") for (int r = 0; r < 6; r++)                    \
			{                                                                      \
				__m256 x = _mm256_broadcast_ss(&A_AT(r));                      \
				acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);                 \
				acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);                 \
			}                                                                      \
		}                                                                              \
		for (int r = 0; r < 6; r++)                                                    \
			for (int h = 0; h < 2; h++) {                                          \
				float *o = c + r * ldc + 8 * h;                                \
				__m256 v = add ? _mm256_add_ps(_mm256_loadu_ps(o), acc[r][h]) : acc[r][h]; \
				if (bias && bias[r] != 0)                                      \
					v = _mm256_add_ps(v, _mm256_set1_ps(bias[r]));         \
				_mm256_storeu_ps(o, v);                                        \
			}                                                                      \
	}

/* R x 32, R = 12 in 24 of AVX-512's 32 registers (H = 2 halves of 16
 * columns), or R x 16 (H = 1); C's columns from `cols` on neither read
 * nor written (masks). Fewer rows (R = 4, 8: a last panel of rows, when
 * A's rows are read in place) spare packing and computing padding. */
#define MICRO_AVX512(NAME, A_AT, A_NEXT, H, R)                                                 \
	__attribute__((target("avx512f"))) static void NAME(                                   \
		int64_t kc, const float *a, int64_t lda, const float *b, float *c,             \
		int64_t ldc, bool add, const float *bias, int64_t cols)                        \
	{                                                                                      \
		enum { MR_ = 12 };                                                             \
		(void)lda;                                                                     \
		__m512 acc[R][H];                                                              \
		for (int r = 0; r < (R); r++)                                                   \
			for (int h = 0; h < (H); h++)                                          \
				acc[r][h] = _mm512_setzero_ps();                               \
		for (int64_t k = 0; k < kc; k++, A_NEXT, b += 32) {                            \
			__m512 bv[H];                                                          \
			for (int h = 0; h < (H); h++)                                          \
				bv[h] = _mm512_loadu_ps(b + 16 * h);                           \
			_Pragma("GCC unroll 12") for (int r = 0; r < (R); r++)                  \
			{                                                                      \
				__m512 x = _mm512_set1_ps(A_AT(r));                            \
				for (int h = 0; h < (H); h++)                                  \
					acc[r][h] = _mm512_fmadd_ps(x, bv[h], acc[r][h]);      \
			}                                                                      \
		}                                                                              \
		__mmask16 m[H];                                                                \
		for (int h = 0; h < (H); h++) {                                                \
			int64_t n = cols - 16 * h;                                             \
			m[h] = n >= 16 ? (__mmask16)0xFFFF : n > 0 ? (__mmask16)((1u << n) - 1) : 0; \
		}                                                                              \
		for (int r = 0; r < (R); r++)                                                   \
			for (int h = 0; h < (H); h++) {                                        \
				float *o = c + r * ldc + 16 * h;                               \
				__m512 v = add ? _mm512_add_ps(_mm512_maskz_loadu_ps(m[h], o), acc[r][h]) : acc[r][h]; \
				if (bias && bias[r] != 0)                                      \
					v = _mm512_add_ps(v, _mm512_set1_ps(bias[r]));         \
				_mm512_mask_storeu_ps(o, m[h], v);                             \
			}                                                                      \
	}

MICRO_AVX2(micro_avx2, PACKED_A, PACKED_NEXT)
MICRO_AVX2(micro_avx2_rows, ROWS_A, ROWS_NEXT)
MICRO_AVX512(micro_avx512, PACKED_A, PACKED_NEXT, 2, 12)
MICRO_AVX512(micro_avx512_rows, ROWS_A, ROWS_NEXT, 2, 12)
MICRO_AVX512(micro_avx512_half, PACKED_A, PACKED_NEXT, 1, 12)
MICRO_AVX512(micro_avx512_rows_half, ROWS_A, ROWS_NEXT, 1, 12)
MICRO_AVX512(micro_avx512_rows8, ROWS_A, ROWS_NEXT, 2, 8)
MICRO_AVX512(micro_avx512_rows8_half, ROWS_A, ROWS_NEXT, 1, 8)
MICRO_AVX512(micro_avx512_rows4, ROWS_A, ROWS_NEXT, 2, 4)
MICRO_AVX512(micro_avx512_rows4_half, ROWS_A, ROWS_NEXT, 1, 4)

/* A tile of mr x nr items of C at c, A packed (lda 0) or its rows, with
 * bias[0..mr) or none: the micro-kernel, through a full tile on the
 * stack when C's is partial. */
static void tile(const Micro *k, int64_t kc, const float *a, int64_t lda,
		 const float *b, float *c, int64_t ldc, bool add, int64_t mr,
		 int64_t nr, const float *bias)
{
	MicroFn fn = lda ? k->rows : k->fn;
	if (mr == k->mr && nr == k->nr) {
		fn(kc, a, lda, b, c, ldc, add, bias, nr);
		return;
	}
	if (mr < k->mr && lda && k->part_rows[mr][0]) { /* a last panel of fewer rows */
		k->part_rows[mr][nr <= k->nr / 2](kc, a, lda, b, c, ldc, add, bias, nr);
		return;
	}
	if (mr == k->mr && k->fn_masked) { /* a last panel of fewer columns */
		if (nr <= k->nr / 2)
			fn = lda ? k->rows_half : k->fn_half;
		else
			fn = lda ? k->rows_masked : k->fn_masked;
		fn(kc, a, lda, b, c, ldc, add, bias, nr);
		return;
	}
	float t[MR_MAX * NR_MAX] = { 0 }, bt[MR_MAX] = { 0 };
	for (int64_t r = 0; add && r < mr; r++)
		memcpy(t + r * k->nr, c + r * ldc, (size_t)nr * sizeof(float));
	if (bias)
		memcpy(bt, bias, (size_t)mr * sizeof(float));
	fn(kc, a, lda, b, t, k->nr, add, bias ? bt : NULL, k->nr);
	for (int64_t r = 0; r < mr; r++)
		memcpy(c + r * ldc, t + r * k->nr, (size_t)nr * sizeof(float));
}

/* Rows [ic, ic + mc) (mc at most MC) by columns [jc, jc + nc) of C, depth
 * [pc, pc + kc), B's block packed at pb: A not transposed, its panels
 * read from its rows, but a last partial one no kernel of as many rows
 * reads (packed into pa, padded with zero rows). */
static void block(const Gemm *g, float *pa, const float *pb, int64_t ic, int64_t mc,
		  int64_t pc, int64_t kc, int64_t jc, int64_t nc)
{
	int64_t MR = g->k.mr, NR = g->k.nr;
	int64_t full = g->ta ? 0 : mc / MR * MR;
	if (!g->ta && full < mc && g->k.part_rows[mc - full][0])
		full = mc; /* the last panel's rows read in place too */
	if (full < mc)
		pack_a(g, pa, ic + full, mc - full, pc, kc);
	for (int64_t jr = 0; jr < nc; jr += NR)
		for (int64_t ir = 0; ir < mc; ir += MR) {
			const float *a = ir < full ? g->A + (ic + ir) * g->lda + pc : pa + (ir - full) * kc;
			/* the bias with the tile's last block */
			const float *bias = g->bias && pc + kc == g->K ? g->bias + ic + ir : NULL;
			tile(&g->k, kc, a, ir < full ? g->lda : 0, pb + jr * kc,
			     g->C + (ic + ir) * g->ldc + jc + jr, g->ldc, pc > 0,
			     mc - ir < MR ? mc - ir : MR, nc - jr < NR ? nc - jr : NR, bias);
		}
}

/* The rectangle of part p, block by block. */
static void gemm_part(void *ctx, int part, int parts)
{
	(void)parts;
	const Gemm *g = ctx;
	const GemmPart *p = &g->parts[part];
	float *pa = g->scratch + (size_t)interp_slot() * g->per;
	float *pb = pa + (size_t)MC * KC;
	for (int64_t jc = p->n0; jc < p->n1; jc += NC) {
		int64_t nc = p->n1 - jc < NC ? p->n1 - jc : NC;
		for (int64_t pc = 0; pc < g->K; pc += KC) {
			int64_t kc = g->K - pc < KC ? g->K - pc : KC;
			pack_b(g, pb, pc, kc, jc, nc);
			for (int64_t ic = p->m0; ic < p->m1; ic += MC)
				block(g, pa, pb, ic, p->m1 - ic < MC ? p->m1 - ic : MC, pc, kc, jc, nc);
		}
	}
}

/* Parts a thread when C is split by columns: each part packs only its
 * own columns of B, so that finer parts cost nothing, and let a thread
 * the host slows take fewer. Split by rows, each part would pack all of
 * B again: instead each thread packs a slab of B's depth once
 * (gemm_rows) and takes rows ROWS_UNIT panels at a time (B packed once
 * for all the threads to share was slower: each thread then read most
 * of it from the other's cache); with more than NC columns, one part a
 * thread. */
#define GEMM_COL_PARTS 4
#define ROWS_UNIT 2
#define ROWS_SLAB ((int64_t)KC * NC / 4)

/* C split by rows, depth [k0, k1) of B packed by each thread (a part a
 * thread): the thread packs that slab of B (block pc at (pc - k0) ncp),
 * then takes units of rows, the next not yet taken, until none is left,
 * each with all the slab's depth. */
static void gemm_rows_part(void *ctx, int part, int parts)
{
	(void)part, (void)parts;
	Gemm *g = ctx;
	float *pa = g->scratch + (size_t)interp_slot() * g->per;
	float *pb = pa + (size_t)MC * KC;
	for (int64_t pc = g->k0; pc < g->k1; pc += KC)
		pack_b(g, pb + (pc - g->k0) * g->ncp, pc, g->k1 - pc < KC ? g->k1 - pc : KC, 0, g->N);
	for (int64_t m0; (m0 = (int64_t)atomic_fetch_add(&g->next_unit, 1) * g->unit) < g->M;) {
		int64_t mc = g->M - m0 < g->unit ? g->M - m0 : g->unit;
		for (int64_t pc = g->k0; pc < g->k1; pc += KC)
			block(g, pa, pb + (pc - g->k0) * g->ncp, m0, mc, pc,
			      g->k1 - pc < KC ? g->k1 - pc : KC, 0, g->N);
	}
}

/* C split by rows (N at most NC): slab by slab of B's depth, each slab
 * a job of gemm_rows_part, of at most ROWS_SLAB floats packed (or one
 * block of KC): in the cache, and no more of the scratch touched than
 * before (a slab as large as the scratch grew alexnet's peak by 2 MiB). */
static void gemm_rows(Interp *it, Gemm *g, int threads)
{
	int64_t depth = ROWS_SLAB / g->ncp / KC * KC;
	depth = depth > KC ? depth : KC;
	for (g->k0 = 0; g->k0 < g->K; g->k0 = g->k1) {
		g->k1 = g->K - g->k0 < depth ? g->K : g->k0 + depth;
		atomic_store(&g->next_unit, 0);
		interp_parallel(it, threads, gemm_rows_part, g);
	}
}

/* Splits C among `threads` threads: by columns (multiples of NR) when C
 * has as many columns as rows, else by rows (multiples of MR). Returns
 * the parts made (fewer when C is small). */
static int split(Gemm *g, int threads)
{
	bool by_cols = g->N >= g->M;
	int parts = by_cols ? threads * GEMM_COL_PARTS : threads;
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
		*p = (GemmPart){ 0, g->M, 0, g->N };
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

/* ---- fewer rows than a tile ------------------------------------------------------- */

/* Columns of C one thread sums at a time, for up to THIN_ROWS rows at
 * once so that each row of B read serves them all (on its stack). */
#define THIN_COLS 512
#define THIN_ROWS 4

/* Columns [n0, n1) of rows [i0, i0 + rows) of C: op(B) not transposed,
 * the rows of B scaled by A's items and added, KC at a time into t,
 * then t added to C (the blocked summation of the tiled path). */
static void thin_axpy(const Gemm *g, int64_t i0, int64_t rows, int64_t n0,
		      int64_t n1)
{
	float t[THIN_ROWS][THIN_COLS];
	for (int64_t j0 = n0; j0 < n1; j0 += THIN_COLS) {
		int64_t w = n1 - j0 < THIN_COLS ? n1 - j0 : THIN_COLS;
		for (int64_t pc = 0; pc < g->K; pc += KC) {
			int64_t kc = g->K - pc < KC ? g->K - pc : KC;
			for (int64_t r = 0; r < rows; r++)
				memset(t[r], 0, (size_t)w * sizeof(float));
			for (int64_t k = pc; k < pc + kc; k++) {
				const float *b = g->B + k * g->ldb + j0;
				for (int64_t r = 0; r < rows; r++) {
					int64_t i = i0 + r;
					float av = g->ta ? g->A[k * g->lda + i] : g->A[i * g->lda + k];
					for (int64_t j = 0; j < w; j++)
						t[r][j] += av * b[j];
				}
			}
			for (int64_t r = 0; r < rows; r++) {
				float *c = g->C + (i0 + r) * g->ldc + j0;
				for (int64_t j = 0; j < w; j++)
					c[j] = pc ? c[j] + t[r][j] : t[r][j];
			}
		}
	}
}

/* Item (i, j) of C, op(B) transposed (B's row j): a dot product of two
 * contiguous rows (A's row i, or its gathered column), in 16 running
 * sums over the items k = l mod 16, added in order at the end. */
static float thin_dot(const Gemm *g, int64_t i, int64_t j)
{
	float acc[16] = { 0 };
	const float *b = g->B + j * g->ldb;
	int64_t k = 0;
	if (!g->ta) {
		const float *a = g->A + i * g->lda;
		for (; k + 16 <= g->K; k += 16)
			for (int l = 0; l < 16; l++)
				acc[l] += a[k + l] * b[k + l];
	}
	for (; k < g->K; k++)
		acc[k % 16] += (g->ta ? g->A[k * g->lda + i] : g->A[i * g->lda + k]) * b[k];
	float sum = 0;
	for (int l = 0; l < 16; l++)
		sum += acc[l];
	return sum;
}

static void thin_part(void *ctx, int part, int parts)
{
	const Gemm *g = ctx;
	int64_t n0 = g->N * part / parts, n1 = g->N * (part + 1) / parts;
	for (int64_t i = 0; i < g->M; i += THIN_ROWS) {
		int64_t rows = g->M - i < THIN_ROWS ? g->M - i : THIN_ROWS;
		if (!g->tb)
			thin_axpy(g, i, rows, n0, n1);
		else
			for (int64_t r = i; r < i + rows; r++)
				for (int64_t j = n0; j < n1; j++)
					g->C[r * g->ldc + j] = thin_dot(g, r, j);
	}
	add_row_bias(g, 0, g->M, n0, n1 - n0);
}

/* Columns of C from which a thin product is split among threads. */
#define THIN_PARALLEL_COLS 256
#endif

#ifdef GEMM_AVX2
/* The micro-kernel for this processor, or none (k.fn NULL). */
static Micro micro_here(void)
{
	if (__builtin_cpu_supports("avx512f"))
		return (Micro){ 12, 32, micro_avx512, micro_avx512_rows, micro_avx512,
				micro_avx512_rows, micro_avx512_half, micro_avx512_rows_half,
				{ [4] = { micro_avx512_rows4, micro_avx512_rows4_half },
				  [8] = { micro_avx512_rows8, micro_avx512_rows8_half } } };
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return (Micro){ 6, 16, micro_avx2, micro_avx2_rows, .part_rows = { { NULL } } };
	return (Micro){ 0, 0, NULL, NULL, .part_rows = { { NULL } } };
}
#endif

size_t interp_sgemm_serial_floats(int64_t N)
{
#ifdef GEMM_AVX2
	int64_t nc = (N + NR_MAX - 1) / NR_MAX * NR_MAX;
	if (micro_here().fn)
		return (size_t)MC * KC + (size_t)KC * (size_t)(nc < NC ? nc : NC);
#endif
	(void)N;
	return 0;
}

bool interp_sgemm_serial(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
			 const float *B, int64_t ldb, float *C, int64_t ldc, float *scratch)
{
#ifdef GEMM_AVX2
	Micro k = micro_here();
	if (k.fn && K > 0) {
		GemmPart part = { 0, M, 0, N };
		Gemm g = { .k = k, .M = M, .N = N, .K = K, .A = A, .B = B, .lda = lda, .ldb = ldb,
			   .ldc = ldc, .C = C, .parts = &part, .scratch = scratch };
		gemm_part(&g, 0, 1);
		return true;
	}
#endif
	(void)M, (void)N, (void)K, (void)A, (void)lda, (void)B, (void)ldb, (void)C, (void)ldc;
	(void)scratch;
	return false;
}

#ifdef GEMM_AVX2
/* The product g describes (its operands, C and bias) by tiles, on the
 * threads; false after reporting (scratch memory). */
static bool tiled(Interp *it, const Step *s, Gemm *g)
{
	GemmPart parts[64 * GEMM_COL_PARTS];
	int n = interp_threads(it);
	n = n < 64 ? n : 64;
	float *scratch = interp_scratch(it, s, (size_t)n * GEMM_SCRATCH, sizeof(float));
	if (!scratch)
		return false;
	g->parts = parts;
	g->scratch = scratch;
	g->per = GEMM_SCRATCH;
	g->ncp = (g->N + g->k.nr - 1) / g->k.nr * g->k.nr;
	g->unit = ROWS_UNIT * g->k.mr;
	if (n > 1 && g->N < g->M && g->N <= NC)
		gemm_rows(it, g, n);
	else
		interp_parallel(it, split(g, n), gemm_part, g);
	interp_release(it, scratch);
	return true;
}
#endif

bool interp_sgemm_by_source(const Interp *it, int64_t M, int64_t N)
{
#ifdef GEMM_AVX2
	/* split by rows, every thread would make all of B: a source's
	 * panels cost more than the copies of a matrix made once */
	Micro k = micro_here();
	return !it->opt.plain && k.fn && M >= k.mr && (N >= M || interp_threads(it) == 1);
#else
	(void)it, (void)M, (void)N;
	return false;
#endif
}

bool interp_sgemm_source(Interp *it, const Step *s, int64_t M, int64_t N, int64_t K,
			 const float *A, int64_t lda, const GemmSource *src, float *C,
			 int64_t ldc, const float *bias)
{
#ifdef GEMM_AVX2
	Gemm g = { .k = micro_here(), .M = M, .N = N, .K = K, .A = A, .lda = lda, .ldc = ldc,
		   .C = C, .bias = bias, .src = src };
	if (K > 0 && interp_sgemm_by_source(it, M, N))
		return tiled(it, s, &g);
#endif
	(void)it, (void)s, (void)M, (void)N, (void)K, (void)A, (void)lda, (void)src, (void)C;
	(void)ldc, (void)bias;
	assert(!"interp_sgemm_source where interp_sgemm_by_source is false");
	return false;
}

bool interp_sgemm(Interp *it, const Step *s, bool ta, bool tb, int64_t M,
		  int64_t N, int64_t K, const float *A, int64_t lda,
		  const float *B, int64_t ldb, float *C, int64_t ldc)
{
	return interp_sgemm_bias(it, s, ta, tb, M, N, K, A, lda, B, ldb, C, ldc, NULL);
}

bool interp_sgemm_bias(Interp *it, const Step *s, bool ta, bool tb, int64_t M,
		       int64_t N, int64_t K, const float *A, int64_t lda,
		       const float *B, int64_t ldb, float *C, int64_t ldc,
		       const float *bias)
{
#ifdef GEMM_AVX2
	Micro k = micro_here();
	/* fewer rows than a tile: a tile would be mostly padding; the
	 * product is bound by reading B, row by row */
	if (!it->opt.plain && K > 0 && k.fn && M < k.mr) {
		Gemm g = { .k = k, .ta = ta, .tb = tb, .M = M, .N = N, .K = K, .A = A, .B = B,
			   .lda = lda, .ldb = ldb, .ldc = ldc, .C = C, .bias = bias };
		interp_parallel(it, N >= THIN_PARALLEL_COLS ? interp_threads(it) : 1, thin_part, &g);
		return true;
	}
	if (!it->opt.plain && K > 0 && k.fn) {
		Gemm g = { .k = k, .ta = ta, .tb = tb, .M = M, .N = N, .K = K, .A = A, .B = B,
			   .lda = lda, .ldb = ldb, .ldc = ldc, .C = C, .bias = bias };
		return tiled(it, s, &g);
	}
#endif
	cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
		    tb ? CblasTrans : CblasNoTrans, (int)M, (int)N, (int)K, 1.0f,
		    A, (int)lda, B, (int)ldb, 0.0f, C, (int)ldc);
	Gemm g = { .M = M, .N = N, .ldc = ldc, .C = C, .bias = bias };
	add_row_bias(&g, 0, M, 0, N);
	return true;
}
