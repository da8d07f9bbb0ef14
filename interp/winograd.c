/*
 * winograd.c - float 3x3 convolutions of stride 1 by Winograd's minimal
 * filtering F(2x2, 3x3) (Lavin and Gray, "Fast Algorithms for
 * Convolutional Neural Networks", 2015), for conv (k_conv.c).
 *
 * Each 2x2 block of output positions (a tile) is computed from the 4x4
 * input positions it reads: with the filter g of one (output, input)
 * channel pair and the input tile d,
 *
 *   y = A^T [ (G g G^T) * (B^T d B) ] A        (* item by item)
 *
 * B^T = | 1  0 -1  0 |   G = |  1    0    0  |   A^T = | 1  1  1  0 |
 *       | 0  1  1  0 |       | 1/2  1/2  1/2 |         | 0  1 -1 -1 |
 *       | 0 -1  1  0 |       | 1/2 -1/2  1/2 |
 *       | 0  1  0 -1 |       |  0    0    1  |
 *
 * so that the sum over input channels becomes, for each of the 16
 * positions of the transformed tile, a product of matrices: U[xi] (output
 * by input channels) times V[xi] (input channels by tiles). That is 16
 * multiplications a tile and channel pair where the direct sum takes 36:
 * the GEMMs do 2.25 times less work, for transforms that only add.
 * Results differ from the direct sum by rounding only (the transforms'
 * factors are 1 and 1/2); --plain keeps the direct sum.
 *
 * Tiles are taken a few tile rows at a time, so that the transformed
 * input and products of a chunk (WINO_BUDGET floats) stay in cache.
 */
#include "interp/interp_internal.h"

#include <string.h>

/* Floats of V and M (the transformed input and products) a chunk. */
#define WINO_BUDGET ((int64_t)1 << 19)

/* The least channels (input and output) and tiles of a conv run so:
 * below, the transforms cost more than the GEMMs save. The filters'
 * transform costs the same whatever the extents, and a product of few
 * tiles is mostly padding (to 32 columns): with 256 channels, 14 x 14
 * outputs (49 tiles) ran 25-30% faster this way, 12 x 12 (36) even,
 * 8 x 8 (16) 1.5 times slower. */
#define WINO_MIN_CHANNELS 16
#define WINO_MIN_TILES 40
/* The most floats of transformed filters (U: 16 for each pair of output
 * and input channels, whose filter has 9; 4 MiB, 65536 pairs, 256 x 256
 * channels): beyond, the GEMM path. Twice as many grew alexnet's peak
 * memory by 2 MiB (its 13 x 13 convs of 384 and 256 channels), four
 * times vgg11's by 10 MiB. */
#define WINO_MAX_U ((int64_t)1 << 20)

/* Items a part transforms at least, when a transform is split. */
#define WINO_PARALLEL_ITEMS 16384

typedef struct Wino {
	const float *x, *f;     /* a group's input (Cg planes) and filters */
	float *y;               /* its output (cg planes) */
	const float *bias;      /* a value per output plane added, or NULL */
	int64_t Cg, cg;
	int64_t X0, X1, p0, p1; /* input extents, padding before */
	int64_t o0, o1;         /* output extents */
	int64_t tw;             /* tiles a row */
	float *U, *V, *M;       /* 16 x cg x Cg, 16 x Cg x nt, 16 x cg x nt */
	int64_t ty0, nty, nt;   /* the chunk: tile rows [ty0, ty0 + nty) */
	float *rows;            /* per part, rows_per_part floats (transforms) */
	int64_t rows_per_part;  /* 10 (nty + 1) (tw + 1) for the largest chunk */
	float *gbuf;            /* per part, 21 rows of Cg (filters) */
	float *pack;            /* per thread slot, interp_sgemm_serial's scratch */
} Wino;

bool interp_conv_by_winograd(const Interp *it, const Step *s)
{
	if (it->opt.plain || it->opt.precision == INTERP_DOUBLE || s->dynamic ||
	    s->op->prim != SHAPE_OP_CONV || !s->run || !interp_sgemm_serial_floats(1))
		return false;
	const ITensor *in = s->in[0].t, *filter = s->in[1].t, *out = s->out[0];
	if (!in || !filter || in->rank != 4 || filter->rank != 4 || out->rank != 4)
		return false;
	if (filter->dims[2] != 3 || filter->dims[3] != 3)
		return false;
	Win w;
	interp_win_setup(&w, s, 2, filter->dims + 2, 3, 4, 5, 6, in, out);
	int64_t G = karg_int(s, 7) ? karg_int(s, 7) : in->dims[1];
	int64_t Cg = in->dims[1] / G, cg = out->dims[1] / G;
	int64_t tiles = (w.x[2] + 1) / 2 * ((w.x[3] + 1) / 2);
	return w.s[2] == 1 && w.s[3] == 1 && w.d[2] == 1 && w.d[3] == 1 &&
	       Cg >= WINO_MIN_CHANNELS && cg >= WINO_MIN_CHANNELS && tiles >= WINO_MIN_TILES &&
	       16 * Cg * cg <= WINO_MAX_U;
}

/* A row of G g (or of (G g) G^T) over n channels, from the rows a, b,
 * e of g's (or G g's) 3: a, (a + b + e) / 2, (a - b + e) / 2, e. */
static inline __attribute__((always_inline)) void
times_g(float *restrict t0, float *restrict t1, float *restrict t2, float *restrict t3,
	const float *restrict a, const float *restrict b, const float *restrict e, int64_t n)
{
	for (int64_t c = 0; c < n; c++) {
		t0[c] = a[c];
		t1[c] = (a[c] + b[c] + e[c]) * 0.5f;
		t2[c] = (a[c] - b[c] + e[c]) * 0.5f;
		t3[c] = e[c];
	}
}

/* U[xi][k][c] = (G g G^T)[xi] for output channels [k0, k1), a channel
 * at a time: its filters' 9 taps first gathered into 9 rows of Cg
 * (g), then every row of the transform computed over the Cg of them. */
VECTOR_CLONES static void filter_rows(const Wino *j, float *g, int64_t k0, int64_t k1)
{
	int64_t Cg = j->Cg, plane = j->cg * Cg;
	float *t = g + 9 * Cg; /* G g: 4 x 3 rows of Cg */
	for (int64_t k = k0; k < k1; k++) {
		const float *f = j->f + k * Cg * 9;
		for (int i = 0; i < 9; i++)
			for (int64_t c = 0; c < Cg; c++)
				g[i * Cg + c] = f[c * 9 + i];
		for (int col = 0; col < 3; col++)
			times_g(t + col * Cg, t + (3 + col) * Cg, t + (6 + col) * Cg,
				t + (9 + col) * Cg, g + col * Cg, g + (3 + col) * Cg,
				g + (6 + col) * Cg, Cg);
		for (int r = 0; r < 4; r++) {
			float *u = j->U + (r * 4) * plane + k * Cg;
			const float *a = t + (r * 3) * Cg;
			times_g(u, u + plane, u + 2 * plane, u + 3 * plane, a, a + Cg, a + 2 * Cg, Cg);
		}
	}
}

static void filter_part(void *ctx, int part, int parts)
{
	const Wino *j = ctx;
	filter_rows(j, j->gbuf + (int64_t)part * 21 * j->Cg, j->cg * part / parts,
		    j->cg * (part + 1) / parts);
}

/* Input row y of plane c, zero-padded, split into its even and odd
 * positions from x = -p1: ev[i] = row[2 i - p1], od[i] = row[2 i + 1 - p1],
 * for i in [0, tw + 1). */
static inline __attribute__((always_inline)) void
split_row(const Wino *j, const float *plane, int64_t y, float *ev, float *od)
{
	int64_t n = j->tw + 1;
	for (int64_t i = 0; i < n; i++) /* a loop: a call costs more for so few */
		ev[i] = od[i] = 0;
	if (y < 0 || y >= j->X0)
		return;
	const float *row = plane + y * j->X1;
	/* x = 2 i + h - p1 inside [0, X1) for i in [lo, hi) */
	for (int h = 0; h < 2; h++) {
		float *dst = h ? od : ev;
		int64_t q = h - j->p1;
		int64_t lo = q >= 0 ? 0 : (-q + 1) / 2;
		int64_t hi = j->X1 - q > 0 ? (j->X1 - q + 1) / 2 : 0;
		hi = hi < n ? hi : n;
		for (int64_t i = lo; i < hi; i++)
			dst[i] = row[2 * i + q];
	}
}

/* rows rows of len items from src (row stride n) to dst (row stride len):
 * the tiles of a chunk without the one computed past each row's last. */
static inline __attribute__((always_inline)) void
compact(float *restrict dst, const float *restrict src, int64_t rows, int64_t len, int64_t n)
{
	for (int64_t y = 0; y < rows; y++)
		for (int64_t x = 0; x < len; x++)
			dst[y * len + x] = src[y * n + x];
}

/* A row of B^T d over n items, its even (e) and odd (o) positions:
 * the rows a and b of the tile added or subtracted. */
static inline __attribute__((always_inline)) void
rows_b(float *restrict e, float *restrict o, const float *restrict ae,
       const float *restrict ao, const float *restrict be, const float *restrict bo,
       int64_t n, bool add)
{
	if (add)
		for (int64_t i = 0; i < n; i++) {
			e[i] = ae[i] + be[i];
			o[i] = ao[i] + bo[i];
		}
	else
		for (int64_t i = 0; i < n; i++) {
			e[i] = ae[i] - be[i];
			o[i] = ao[i] - bo[i];
		}
}

/* A row of B^T d times B, tile i from e[i], o[i], e[i + 1], o[i + 1]:
 * c0 - c2, c1 + c2, c2 - c1, c1 - c3 (ci the tile's columns). */
static inline __attribute__((always_inline)) void
times_b(float *restrict t0, float *restrict t1, float *restrict t2, float *restrict t3,
	const float *restrict e, const float *restrict o, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		t0[i] = e[i] - e[i + 1];
		t1[i] = o[i] + e[i + 1];
		t2[i] = e[i + 1] - o[i];
		t3[i] = o[i] - o[i + 1];
	}
}

/* V[xi][c][t] = (B^T d B)[xi] for the chunk's tiles of input channels
 * [c0, c1). The chunk's input rows are split first, by the parity of
 * the row and of the position: sp[h][q] holds, n = tw + 1 items a row,
 * the positions of parity q of the rows 2 k + h (k in [0, nty]) from
 * the chunk's first, so that tile row ty's 4 rows are sp[0] and sp[1]
 * at k = ty and ty + 1. Every loop then runs over the whole chunk,
 * tile rows one after the other (the item past a tile row's last tile
 * computed and dropped): a row's 7 to 30 tiles are too few for vectors
 * to pay. rows: 10 (nty + 1) n floats. */
VECTOR_CLONES static void input_part_rows(const Wino *j, float *rows, int64_t c0,
					  int64_t c1)
{
	int64_t tw = j->tw, n = tw + 1, plane = j->Cg * j->nt, span = (j->nty + 1) * n;
	int64_t len = j->nty * n;
	float *sp[2][2] = { { rows, rows + span }, { rows + 2 * span, rows + 3 * span } };
	float *e = rows + 4 * span, *o = e + len, *t[4] = { o + len, o + 2 * len, o + 3 * len,
							    o + 4 * len };
	/* row r of B^T d: d0 - d2, d1 + d2, d2 - d1, d1 - d3, as (row parity,
	 * k offset) of its two terms, and whether they are added */
	static const int terms[4][4] = { { 0, 0, 0, 1 }, { 1, 0, 0, 1 }, { 0, 1, 1, 0 },
					 { 1, 0, 1, 1 } };
	for (int64_t c = c0; c < c1; c++) {
		const float *in = j->x + c * j->X0 * j->X1;
		for (int64_t R = 0; R < 2 * j->nty + 2; R++)
			split_row(j, in, 2 * j->ty0 - j->p0 + R, sp[R & 1][0] + (R >> 1) * n,
				  sp[R & 1][1] + (R >> 1) * n);
		float *v = j->V + c * j->nt;
		for (int r = 0; r < 4; r++) {
			const int *m = terms[r];
			rows_b(e, o, sp[m[0]][0] + m[1] * n, sp[m[0]][1] + m[1] * n,
			       sp[m[2]][0] + m[3] * n, sp[m[2]][1] + m[3] * n, len, r == 1);
			times_b(t[0], t[1], t[2], t[3], e, o, len - 1);
			for (int q = 0; q < 4; q++)
				compact(v + (r * 4 + q) * plane, t[q], j->nty, tw, n);
		}
	}
}

static void input_part(void *ctx, int part, int parts)
{
	const Wino *j = ctx;
	input_part_rows(j, j->rows + (int64_t)part * j->rows_per_part, j->Cg * part / parts,
			j->Cg * (part + 1) / parts);
}

/* Row r of A^T m A for n tiles, the transform's rows mi at m + i plane:
 * (A^T m)'s row r, column q, is m0q + m1q + m2q (r 0) or m1q - m2q -
 * m3q (r 1), here from m = the first term's row; times A: c0 + c1 +
 * c2 (even outputs, ye), c1 - c2 - c3 (odd, yo). */
static inline __attribute__((always_inline)) void
times_a(float *restrict ye, float *restrict yo, const float *restrict m, int64_t plane,
	int64_t n, int r)
{
	const float *restrict m0 = m, *restrict m1 = m + 4 * plane, *restrict m2 = m + 8 * plane;
	if (r == 0)
		for (int64_t i = 0; i < n; i++) {
			float s0 = m0[i] + m1[i] + m2[i];
			float s1 = m0[plane + i] + m1[plane + i] + m2[plane + i];
			float s2 = m0[2 * plane + i] + m1[2 * plane + i] + m2[2 * plane + i];
			float s3 = m0[3 * plane + i] + m1[3 * plane + i] + m2[3 * plane + i];
			ye[i] = s0 + s1 + s2;
			yo[i] = s1 - s2 - s3;
		}
	else
		for (int64_t i = 0; i < n; i++) {
			float s0 = m0[i] - m1[i] - m2[i];
			float s1 = m0[plane + i] - m1[plane + i] - m2[plane + i];
			float s2 = m0[2 * plane + i] - m1[2 * plane + i] - m2[2 * plane + i];
			float s3 = m0[3 * plane + i] - m1[3 * plane + i] - m2[3 * plane + i];
			ye[i] = s0 + s1 + s2;
			yo[i] = s1 - s2 - s3;
		}
}

/* The chunk's outputs of channels [k0, k1): A^T m A of each tile, the
 * positions past the output's extents left out; for each of a tile's
 * two output rows, the even and odd output columns of all the chunk's
 * tiles at once (in ye, yo: nt each), then interleaved into the rows. */
VECTOR_CLONES static void output_rows(const Wino *j, float *restrict ye, float *restrict yo, int64_t k0,
				      int64_t k1)
{
	int64_t tw = j->tw, nt = j->nt, plane = j->cg * nt;
	for (int64_t k = k0; k < k1; k++)
		for (int r = 0; r < 2; r++) {
			times_a(ye, yo, j->M + k * nt + (r ? 4 * plane : 0), plane, nt, r);
			for (int64_t ty = 0; ty < j->nty && 2 * (j->ty0 + ty) + r < j->o0; ty++) {
				float *restrict out = j->y + (k * j->o0 + 2 * (j->ty0 + ty) + r) * j->o1;
				const float *restrict e = ye + ty * tw, *restrict o = yo + ty * tw;
				for (int64_t tx = 0; tx < j->o1 / 2; tx++) {
					out[2 * tx] = e[tx];
					out[2 * tx + 1] = o[tx];
				}
				if (j->o1 % 2)
					out[j->o1 - 1] = e[j->o1 / 2];
				/* the bias after the sum, as conv adds it */
				float b = j->bias ? j->bias[k] : 0;
				if (b != 0)
					for (int64_t x = 0; x < j->o1; x++)
						out[x] += b;
			}
		}
}

static void output_part(void *ctx, int part, int parts)
{
	const Wino *j = ctx;
	float *ye = j->rows + (int64_t)part * j->rows_per_part, *yo = ye + j->nt;
	output_rows(j, ye, yo, j->cg * part / parts, j->cg * (part + 1) / parts);
}

/* The products of the chunk, U[xi] x V[xi] into M[xi], a part each:
 * 16 whole products rather than halves of each, taken by the threads
 * as they come free. */
static void products_part(void *ctx, int part, int parts)
{
	(void)parts;
	const Wino *j = ctx;
	float *pack = j->pack + (size_t)interp_slot() * interp_sgemm_serial_floats(j->nt);
	int64_t xi = part;
	interp_sgemm_serial(j->cg, j->nt, j->Cg, j->U + xi * j->cg * j->Cg, j->Cg,
			    j->V + xi * j->Cg * j->nt, j->nt, j->M + xi * j->cg * j->nt, j->nt, pack);
}

/* Parts for a transform of n items over `units` channels. */
static int parts_for(Interp *it, int64_t n, int64_t units)
{
	int parts = n >= WINO_PARALLEL_ITEMS ? interp_threads(it) : 1;
	return parts > units ? (int)units : parts;
}

bool interp_conv_winograd(Interp *it, const Step *s, const float *x, const float *f,
			  float *y, const Win *w, int64_t Cg, int64_t cg, const float *bias)
{
	Wino j = { .x = x, .f = f, .y = y, .bias = bias, .Cg = Cg, .cg = cg, .X0 = w->X[2],
		   .X1 = w->X[3], .p0 = w->p[2], .p1 = w->p[3], .o0 = w->x[2],
		   .o1 = w->x[3], .tw = (w->x[3] + 1) / 2 };
	int64_t th = (w->x[2] + 1) / 2;
	int64_t per_row = 16 * (Cg + cg) * j.tw;
	int64_t rows_a_chunk = WINO_BUDGET / per_row < 1 ? 1 : WINO_BUDGET / per_row;
	if (rows_a_chunk > th)
		rows_a_chunk = th;
	int64_t ntmax = rows_a_chunk * j.tw;
	int threads = interp_threads(it);
	j.rows_per_part = 10 * (rows_a_chunk + 1) * (j.tw + 1);
	/* one block for all, so that it can be the block an earlier conv's
	 * im2col left (a block per buffer grew the peak by megabytes) */
	int64_t sizes[6] = { 16 * cg * Cg, 16 * Cg * ntmax, 16 * cg * ntmax,
			     threads * j.rows_per_part, threads * 21 * Cg,
			     threads * (int64_t)interp_sgemm_serial_floats(ntmax) };
	float **bufs[6] = { &j.U, &j.V, &j.M, &j.rows, &j.gbuf, &j.pack };
	int64_t total = 0;
	for (int i = 0; i < 6; i++)
		total += (sizes[i] + 15) / 16 * 16; /* 64-byte aligned each */
	float *block = interp_scratch(it, s, (size_t)total, sizeof(float));
	bool ok = block != NULL;
	for (int64_t i = 0, at = 0; ok && i < 6; at += (sizes[i] + 15) / 16 * 16, i++)
		*bufs[i] = block + at;
	if (ok)
		interp_parallel(it, parts_for(it, 9 * cg * Cg, cg), filter_part, &j);
	for (j.ty0 = 0; ok && j.ty0 < th; j.ty0 += j.nty) {
		j.nty = th - j.ty0 < rows_a_chunk ? th - j.ty0 : rows_a_chunk;
		j.nt = j.nty * j.tw;
		interp_parallel(it, parts_for(it, 16 * Cg * j.nt, Cg), input_part, &j);
		interp_parallel(it, 16, products_part, &j);
		interp_parallel(it, parts_for(it, 16 * cg * j.nt, cg), output_part, &j);
	}
	interp_release(it, block);
	return ok;
}
