/*
 * k_conv.c - the GEMM-shaped kernels (compiled for float and double,
 * interp/real.h): conv and deconv (spec 4.3.1) and matmul (4.7). The
 * products go through MATMUL (interp/real.h: our GEMM for floats, CBLAS
 * for doubles and under --plain).
 *
 * conv takes the first of these that applies (--plain: the last):
 * - by Winograd's F(2x2, 3x3) (interp/winograd.c): float 3x3 convs of
 *   stride 1 with enough channels and positions;
 * - by planes (conv_by_planes): 2-D convs of small groups, depthwise
 *   ones included, summed in registers 16 outputs of two rows at a time;
 * - tap by tap (conv_group_taps): other depthwise convs (1-D, 3-D);
 * - as GEMMs, per batch item and group: output[cg x xvol] = W[cg x Kg] *
 * cols[Kg x xvol], where cols (im2col) holds, for each filter tap (input
 * channel, window offset), the input value each output position reads,
 * 0 outside the input (border 'constant'). The other border modes first
 * extend the input by the border (interp_pad_items), then run with no padding.
 * cols is built for a few output lines at a time, so its size stays
 * bounded; a 1x1 filter with stride 1 and no padding needs none.
 *
 * deconv, per batch item and group: cols[Kg x xvol] = W^T * input, then
 * each column's taps are added to the output positions they reach
 * (col2im): output[i * s + j * d - p] += input[i] * filter[j] is the
 * spec's sum over j of input[(o + p - j * d) / s] * filter[j].
 */
#include "interp/interp_internal.h"
#include "interp/real.h"

#include <assert.h>
#include <limits.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Output items from which a bias is added on the threads. */
#define BIAS_PARALLEL_ITEMS 65536

/* Elements of im2col scratch per chunk, at most (about 8 MiB of floats). */
#define COLS_BUDGET ((size_t)2 << 20)

/* The geometry shared by conv and deconv: m spatial dimensions from 2. */
typedef struct Geo {
	size_t m;              /* spatial dimensions */
	int64_t fvol;          /* filter taps per channel */
	int64_t line_len;      /* the down-scaled side's last spatial extent */
	int64_t lines;         /* its positions / line_len */
} Geo;

/* Columns follow the down-scaled side: conv's output, deconv's input. */
static void geo_init(Geo *g, const Win *w)
{
	g->m = w->rank - 2;
	g->fvol = 1;
	g->lines = 1;
	g->line_len = 1;
	for (size_t k = 0; k < g->m; k++) {
		g->fvol *= w->f[2 + k];
		if (k + 1 == g->m)
			g->line_len = w->x[2 + k];
		else
			g->lines *= w->x[2 + k];
	}
}

/* Window offset jj (row-major over the filter's spatial extents) as
 * per-dimension offsets j[0..m). */
static void split_tap(const Win *w, size_t m, int64_t jj, int64_t *j)
{
	for (size_t k = m; k-- > 0;) {
		j[k] = jj % w->f[2 + k];
		jj /= w->f[2 + k];
	}
}

/* Line L (row-major over all spatial dimensions but the last, extents
 * `ext`) as coordinates c[0..m-1). */
static void split_line(const int64_t *ext, size_t m, int64_t L,
			      int64_t *c)
{
	for (size_t k = m - 1; k-- > 0;) {
		c[k] = L % ext[k];
		L /= ext[k];
	}
}

/* The range [lo, hi) of positions i in [0, n) whose index i * s + off
 * lies in [0, X). */
static void valid_range(int64_t off, int64_t s, int64_t X, int64_t n,
			       int64_t *lo, int64_t *hi)
{
	/* i * s + off >= 0  <=>  i >= ceil(-off / s) */
	int64_t a = off >= 0 ? 0 : (-off + s - 1) / s;
	/* i * s + off <= X - 1  <=>  i <= floor((X - 1 - off) / s) */
	int64_t top = X - 1 - off;
	int64_t b = top < 0 ? 0 : top / s + 1;
	*lo = a < n ? a : n;
	*hi = b < n ? b : n;
	if (*hi < *lo)
		*hi = *lo;
}

/* ---- conv ------------------------------------------------------------------------- */

/* Output positions [a, b) of a line of cols into dst[0, b - a): the
 * input row's item row[i * s + o] for i in [lo, hi), 0 elsewhere. */
static inline __attribute__((always_inline)) void
line_items(real *dst, const real *row, int64_t a, int64_t b, int64_t lo, int64_t hi,
	   int64_t s, int64_t o)
{
	int64_t l = a > lo ? a : lo, h = b < hi ? b : hi;
	h = h > l ? h : l;
	for (int64_t i = a; i < l; i++)
		dst[i - a] = 0;
	if (s == 2) /* a constant stride, which vectorizes */
		for (int64_t i = l; i < h; i++)
			dst[i - a] = row[i * 2 + o];
	else if (s != 1)
		for (int64_t i = l; i < h; i++)
			dst[i - a] = row[i * s + o];
	else if (h > l) /* only then is row + l + o inside */
		memcpy(dst + l - a, row + l + o, (size_t)(h - l) * sizeof(real));
	for (int64_t i = h; i < b; i++)
		dst[i - a] = 0;
}

/* cols[Kg x (nlines * line_len)] for output lines [line0, line0 +
 * nlines) of one group's input in, its channels [c0, c1) (of Cg, each
 * of X spatial extents). */
VECTOR_CLONES static void im2col(real *cols, const real *in, int64_t c0, int64_t c1,
			  const Win *w, const Geo *g, int64_t line0,
			  int64_t nlines)
{
	size_t m = g->m;
	int64_t ncol = nlines * g->line_len, Xvol = 1;
	int64_t xext[INTERP_MAX_RANK], ist[INTERP_MAX_RANK];
	for (size_t k = 0; k < m; k++)
		xext[k] = w->x[2 + k];
	for (size_t k = m; k-- > 0;) {
		ist[k] = Xvol;
		Xvol *= w->X[2 + k];
	}
	size_t last = 2 + m - 1;
	for (int64_t c = c0; c < c1; c++)
		for (int64_t jj = 0; jj < g->fvol; jj++) {
			int64_t j[INTERP_MAX_RANK], lc[INTERP_MAX_RANK];
			split_tap(w, m, jj, j);
			real *dst = cols + (c * g->fvol + jj) * ncol;
			const real *src = in + c * Xvol;
			int64_t s = w->s[last];
			int64_t o = j[m - 1] * w->d[last] - w->p[last], lo, hi;
			valid_range(o, s, w->X[last], g->line_len, &lo, &hi);
			/* the line's coordinates, counted on from line0's (a
			 * division a line cost more than copying its items) */
			split_line(xext, m, line0, lc);
			for (int64_t L = 0; L < nlines; L++, dst += g->line_len) {
				if (L > 0)
					for (size_t k = m - 1; k-- > 0;) {
						if (++lc[k] < xext[k])
							break;
						lc[k] = 0;
					}
				int64_t off = 0;
				bool inside = true;
				for (size_t k = 0; k + 1 < m; k++) {
					size_t d = 2 + k;
					int64_t y = lc[k] * w->s[d] + j[k] * w->d[d] - w->p[d];
					inside &= y >= 0 && y < w->X[d];
					off += y * ist[k];
				}
				if (!inside) {
					memset(dst, 0, (size_t)g->line_len * sizeof(real));
					continue;
				}
				line_items(dst, src + off, 0, g->line_len, lo, hi, s, o);
			}
		}
}

/* The bias (one value, or one per channel) added to out (B, C, vol),
 * split among threads by planes. */
typedef struct BiasJob {
	real *o;
	const real *b;
	int64_t C, vol, planes;
	bool one;
} BiasJob;

static void bias_part(void *ctx, int part, int parts)
{
	const BiasJob *j = ctx;
	for (int64_t p = j->planes * part / parts; p < j->planes * (part + 1) / parts; p++) {
		real v = j->b[j->one ? 0 : p % j->C], *o = j->o + p * j->vol;
		if (v != 0)
			for (int64_t i = 0; i < j->vol; i++)
				o[i] += v;
	}
}

static void add_bias(Interp *it, ITensor *out, const ITensor *bias)
{
	int64_t B = out->dims[0], C = out->dims[1];
	BiasJob j = { out->data, bias->data, C, (int64_t)out->count / (B * C), B * C,
		      bias->count == 1 };
	int parts = out->count >= BIAS_PARALLEL_ITEMS ? interp_threads(it) : 1;
	interp_parallel(it, parts < j.planes ? parts : (int)j.planes, bias_part, &j);
}

/* A border other than 'constant' becomes data: *ext receives the input
 * extended by the border so that every position a window reads lies in
 * it (its data is new scratch memory), and w's padding and up-scaled
 * extents are changed to match. lo[d] is the extension before. */
static bool extend(Interp *it, const Step *s, const ITensor *in,
			  Win *w, const int64_t *lo, const int64_t *ext_dims,
			  ITensor *ext, int64_t *dims_store)
{
	*ext = *in;
	ext->dims = dims_store;
	ext->count = 1;
	for (size_t d = 0; d < in->rank; d++) {
		dims_store[d] = ext_dims[d];
		ext->count *= (size_t)ext_dims[d];
	}
	ext->data = interp_scratch(it, s, ext->count, sizeof(real));
	if (!ext->data)
		return false;
	real zero = 0;
	interp_pad_items(in, ext, lo, w->border, &zero, sizeof(real));
	return true;
}

/* How many output lines one im2col (or col2im) buffer of COLS_BUDGET
 * items holds, Kg values per position: at least 1, at most all. */
static int64_t chunk_lines(int64_t Kg, const Geo *g)
{
	int64_t per = (int64_t)(COLS_BUDGET / (size_t)(Kg * g->line_len));
	return per < 1 ? 1 : per > g->lines ? g->lines : per;
}

/* im2col of a group's channels, split among threads by channels. */
typedef struct Im2col {
	real *cols;
	const real *in;
	int64_t Cg, line0, nlines;
	const Win *w;
	const Geo *g;
} Im2col;

static void im2col_part(void *ctx, int part, int parts)
{
	const Im2col *j = ctx;
	im2col(j->cols, j->in, j->Cg * part / parts, j->Cg * (part + 1) / parts,
	       j->w, j->g, j->line0, j->nlines);
}

/* Items of cols from which im2col is split among threads, and in how
 * many parts a thread (finer parts let a thread the host slows take
 * fewer). */
#define IM2COL_PARALLEL_ITEMS 65536
#define IM2COL_PARTS 4

/* out[M x N] (row stride ldc) = W[M x K] x B[K x N] (row stride ldb),
 * then bias[i] added to row i when bias is not NULL (floats only: our
 * GEMM adds it while the rows are in the cache). */
static bool gemm_biased(Interp *it, const Step *s, int64_t M, int64_t N, int64_t K,
			const real *W, const real *B, int64_t ldb, real *out, int64_t ldc,
			const real *bias)
{
#if INTERP_REAL == 32
	return interp_sgemm_bias(it, s, false, false, M, N, K, W, K, B, ldb, out, ldc, bias);
#else
	assert(!bias);
	(void)it, (void)s;
	return MATMUL(it, s, false, false, M, N, K, W, K, B, ldb, out, ldc);
#endif
}

#if INTERP_REAL == 32
/* im2col's rows for a 2-D conv a panel at a time, for the GEMM to pack
 * (GemmSource): no cols buffer written then read. */
/* Segments (output rows) of a panel at most: a panel has at most 32
 * columns (NR), each segment one or more. */
#define PANEL_SEGMENTS 32
/* The widest filter whose rows are made so. */
#define PANEL_MAX_FW 64

typedef struct Im2colSource {
	const real *in;         /* the group's input */
	const Win *w;
	const Geo *g;
	/* for each filter column kx, the output columns [lo, hi) that read
	 * inside the input (valid_range) */
	int64_t lo[PANEL_MAX_FW], hi[PANEL_MAX_FW];
} Im2colSource;

/* Rows [k0, k0 + kc) of cols (channel k / taps, tap k % taps), columns
 * [j0, j0 + cols) (output positions), to dst (row k at dst + (k - k0)
 * nr): the items im2col puts there. The columns are split by output row
 * (segments) once; the taps are counted on row by row. */
VECTOR_CLONES static void im2col_panel(const void *ctx, float *dst, int64_t k0, int64_t kc,
				       int64_t j0, int64_t cols, int64_t nr)
{
	const Im2colSource *src = ctx;
	const Win *w = src->w;
	int64_t len = src->g->line_len, fh = w->f[2], fw = w->f[3];
	int64_t oy[PANEL_SEGMENTS], a[PANEL_SEGMENTS], b[PANEL_SEGMENTS], nseg = 0;
	assert(cols <= PANEL_SEGMENTS);
	for (int64_t j = j0; j < j0 + cols; nseg++) {
		oy[nseg] = j / len;
		a[nseg] = j % len;
		b[nseg] = a[nseg] + (j0 + cols - j) < len ? a[nseg] + (j0 + cols - j) : len;
		j += b[nseg] - a[nseg];
	}
	int64_t c = k0 / (fh * fw), t = k0 % (fh * fw), ky = t / fw, kx = t % fw;
	int64_t sy = w->s[2], sx = w->s[3];
	for (int64_t k = 0; k < kc; k++, dst += nr) {
		const real *plane = src->in + c * w->X[2] * w->X[3];
		int64_t o = kx * w->d[3] - w->p[3], lo = src->lo[kx], hi = src->hi[kx];
		float *d = dst;
		for (int64_t q = 0; q < nseg; d += b[q] - a[q], q++) {
			int64_t y = oy[q] * sy + ky * w->d[2] - w->p[2];
			if (y < 0 || y >= w->X[2])
				memset(d, 0, (size_t)(b[q] - a[q]) * sizeof(float));
			else
				line_items(d, plane + y * w->X[3], a[q], b[q], lo, hi, sx, o);
		}
		if (++kx == fw) {
			kx = 0;
			if (++ky == fh) {
				ky = 0;
				c++;
			}
		}
	}
}
#endif

/* One group's conv by GEMMs, bias[i] (or NULL) added to output channel i. */
static bool conv_group(Interp *it, const Step *s, const real *in,
			      const real *W, real *out, int64_t Cg,
			      int64_t cg, const Win *w, const Geo *g,
			      bool direct, const real *bias)
{
	int64_t Kg = Cg * g->fvol, xvol = g->lines * g->line_len;
	if (direct)
		return gemm_biased(it, s, cg, xvol, Kg, W, in, xvol, out, xvol, bias);
#if INTERP_REAL == 32
	/* 2-D: the GEMM packs its panels of cols from the input itself,
	 * when it packs (the same items: the same results) */
	if (g->m == 2 && Kg > 0 && w->f[3] <= PANEL_MAX_FW && interp_sgemm_by_source(it, cg, xvol)) {
		Im2colSource src = { in, w, g, { 0 }, { 0 } };
		for (int64_t kx = 0; kx < w->f[3]; kx++)
			valid_range(kx * w->d[3] - w->p[3], w->s[3], w->X[3], g->line_len,
				    &src.lo[kx], &src.hi[kx]);
		GemmSource gs = { im2col_panel, &src };
		return interp_sgemm_source(it, s, cg, xvol, Kg, W, Kg, &gs, out, xvol, bias);
	}
#endif
	int64_t per = chunk_lines(Kg, g);
	real *cols = interp_scratch(it, s, (size_t)(Kg * per * g->line_len), sizeof(real));
	if (!cols)
		return false;
	bool ok = true;
	for (int64_t L = 0; L < g->lines && ok; L += per) {
		int64_t nl = g->lines - L < per ? g->lines - L : per;
		int64_t ncol = nl * g->line_len;
		Im2col j = { cols, in, Cg, L, nl, w, g };
		int64_t parts = Kg * ncol >= IM2COL_PARALLEL_ITEMS ? interp_threads(it) * IM2COL_PARTS : 1;
		interp_parallel(it, (int)(parts < Cg ? parts : Cg), im2col_part, &j);
		ok = gemm_biased(it, s, cg, ncol, Kg, W, cols, ncol, out + L * g->line_len, xvol, bias);
	}
	interp_release(it, cols);
	return ok;
}

/* Whether a group runs tap by tap (conv_group_taps) rather than as a
 * GEMM: when it has one input channel (depthwise), where the GEMM would
 * be a product of one filter row, as thin as GEMMs get, after an im2col
 * that costs as much. Grouped convolutions of several channels a group
 * (regnet's 8) are faster as GEMMs on this machine's measure. */
static bool by_taps(int64_t Cg, const Geo *g)
{
	return Cg == 1 && g->fvol > 1;
}

/* A filter tap as conv_group_taps uses it: its offsets in the spatial
 * dimensions but the last, and the range [lo, hi) of an output line
 * whose input it reads at o + i * s (inside the input). */
typedef struct Tap {
	int64_t j[INTERP_MAX_RANK];
	int64_t o, lo, hi;
} Tap;

static void taps_init(Tap *taps, const Win *w, const Geo *g)
{
	size_t m = g->m, last = 2 + m - 1;
	for (int64_t jj = 0; jj < g->fvol; jj++) {
		Tap *t = &taps[jj];
		int64_t j[INTERP_MAX_RANK];
		split_tap(w, m, jj, j);
		for (size_t k = 0; k + 1 < m; k++)
			t->j[k] = j[k] * w->d[2 + k] - w->p[2 + k];
		t->o = j[m - 1] * w->d[last] - w->p[last];
		valid_range(t->o, w->s[last], w->X[last], g->line_len, &t->lo, &t->hi);
	}
}

/* dst[i] += wt * src[i * s] for i in [0, n). */
static inline void add_scaled(real *restrict dst, const real *restrict src,
			      real wt, int64_t n, int64_t s)
{
	if (s == 1)
		for (int64_t i = 0; i < n; i++)
			dst[i] += wt * src[i];
	else
		for (int64_t i = 0; i < n; i++)
			dst[i] += wt * src[i * s];
}

/* One group, line by line: each filter tap adds its weight times the
 * input line it reads to the output line, which stays in cache over
 * the taps. Each output item sums its taps in one order (input channel,
 * then window offset) whatever the lines, so results do not depend on
 * how the work is split. */
VECTOR_CLONES static void conv_group_taps(const real *in, const real *W,
					  real *out, int64_t Cg, int64_t cg,
					  const Win *w, const Geo *g,
					  const Tap *taps)
{
	size_t m = g->m;
	int64_t xext[INTERP_MAX_RANK], ist[INTERP_MAX_RANK], Xvol = 1;
	for (size_t k = 0; k < m; k++)
		xext[k] = w->x[2 + k];
	for (size_t k = m; k-- > 0;) {
		ist[k] = Xvol;
		Xvol *= w->X[2 + k];
	}
	int64_t s = w->s[2 + m - 1], xvol = g->lines * g->line_len;
	memset(out, 0, (size_t)(cg * xvol) * sizeof(real));
	for (int64_t L = 0; L < g->lines; L++) {
		int64_t lc[INTERP_MAX_RANK];
		split_line(xext, m, L, lc);
		for (int64_t jj = 0; jj < g->fvol; jj++) {
			const Tap *t = &taps[jj];
			int64_t off = t->o + t->lo * s;
			bool inside = t->hi > t->lo;
			for (size_t k = 0; k + 1 < m; k++) {
				int64_t y = lc[k] * w->s[2 + k] + t->j[k];
				inside &= y >= 0 && y < w->X[2 + k];
				off += y * ist[k];
			}
			if (!inside)
				continue;
			for (int64_t oc = 0; oc < cg; oc++) {
				real *dst = out + oc * xvol + L * g->line_len + t->lo;
				const real *wo = W + oc * Cg * g->fvol + jj;
				for (int64_t c = 0; c < Cg; c++)
					add_scaled(dst, in + c * Xvol + off, wo[c * g->fvol], t->hi - t->lo, s);
			}
		}
	}
}

/* Output items from which a depthwise conv is split among threads. */
#define TAPS_PARALLEL_ITEMS 16384

/* A depthwise conv split by groups (batch item and group, in order). */
typedef struct TapsJob {
	const real *x, *f;
	real *y;
	int64_t G, C, c, Cg, cg, Xvol, xvol;
	const Win *w;
	const Geo *g;
	const Tap *taps;
	int64_t units;            /* B * G */
} TapsJob;

static void taps_part(void *ctx, int part, int parts)
{
	const TapsJob *j = ctx;
	for (int64_t u = j->units * part / parts; u < j->units * (part + 1) / parts; u++) {
		int64_t b = u / j->G, gi = u % j->G;
		conv_group_taps(j->x + (b * j->C + gi * j->Cg) * j->Xvol,
				j->f + gi * j->cg * j->Cg * j->g->fvol,
				j->y + (b * j->c + gi * j->cg) * j->xvol, j->Cg,
				j->cg, j->w, j->g, j->taps);
	}
}

/* A conv's operands and shapes, for the paths that take it whole. */
typedef struct ConvJob {
	const real *x, *f;
	real *y;
	const Win *w;
	const Geo *g;
	int64_t B, C, c, G, Cg, cg, Xvol, xvol;
	const real *bias;       /* a bias per output channel the path adds, or NULL */
} ConvJob;

/* ---- depthwise and small-group 2-D convolutions, a plane at a time ------------------------ */

/* Output items of a row computed together, in registers. */
#define DW_BLOCK 16
/* The widest filter run by planes. */
#define DW_MAX_KW 16
/* The most input and output channels a group run by planes (unless it
 * has one input channel): beyond, a group's GEMM (output channels by
 * taps) is large enough to be faster. */
#define DW_MAX_CG 16

/* A 2-D conv of small groups split by groups (batch item, group). Each
 * input plane of the group is first copied, zero-padded, into sw phases
 * (phase r holds the padded columns r, r + sw, r + 2 sw, ...), so that
 * every tap reads consecutive items whatever the stride. */
typedef struct DwJob {
	const real *x, *f;
	real *y;
	const Win *w;
	int64_t C, c, G;         /* input and output channels; groups */
	int64_t Cg, cg;          /* input and output channels a group */
	int64_t units;           /* B * G */
	int64_t qh, qw;          /* rows of a phase; items of a phase row */
	int64_t qvol;            /* sw * qh * qw: the phases of a plane */
	real *scratch;           /* per part, the phases of Cg planes */
} DwJob;

/* Whether conv runs as dw_part: two spatial dimensions; groups of one
 * input channel, or of at most DW_MAX_CG input and output channels; a
 * filter of more than one tap, at most DW_MAX_KW wide; a zero border
 * (the other borders are extended first). On this machine's measure,
 * regnet_y_400mf's groups of 8 run 2.5 times faster so, and a first conv
 * of 3 input channels and 64 output ones 1.4 times slower. */
static bool by_planes(int64_t Cg, int64_t cg, const Geo *g, const Win *w)
{
	return (Cg == 1 || (Cg <= DW_MAX_CG && cg <= DW_MAX_CG)) && g->m == 2 && g->fvol > 1 &&
	       w->f[3] <= DW_MAX_KW;
}

/* The padded plane src (X0 x X1) as j->w->s[3] phases into q. */
static void dw_phases(const DwJob *j, const real *src, real *q)
{
	const Win *w = j->w;
	int64_t sw = w->s[3], X0 = w->X[2], X1 = w->X[3], p = w->p[3];
	for (int64_t r = 0; r < sw; r++) {
		/* the items i of a phase row inside the input: 0 <= i sw + r - p < X1 */
		int64_t lo = p - r > 0 ? (p - r + sw - 1) / sw : 0;
		int64_t hi = X1 + p - r > 0 ? (X1 + p - r + sw - 1) / sw : 0;
		lo = lo < j->qw ? lo : j->qw;
		hi = hi < j->qw ? hi : j->qw;
		hi = hi > lo ? hi : lo;
		for (int64_t row = 0; row < j->qh; row++) {
			real *dst = q + (r * j->qh + row) * j->qw;
			int64_t iy = row - w->p[2];
			if (iy < 0 || iy >= X0) {
				memset(dst, 0, (size_t)j->qw * sizeof(real));
				continue;
			}
			const real *line = src + iy * X1 + r - p;
			memset(dst, 0, (size_t)lo * sizeof(real));
			if (sw == 1)
				memcpy(dst + lo, line + lo, (size_t)(hi - lo) * sizeof(real));
			else
				for (int64_t i = lo; i < hi; i++)
					dst[i] = line[i * sw];
			memset(dst + hi, 0, (size_t)(j->qw - hi) * sizeof(real));
		}
	}
}

/* Output rows oy to oy + rows - 1 (rows 1 or 2: two rows make two
 * independent sums) from ox, DW_BLOCK items each, into acc: the sums
 * over the group's input channels (phases q, filter wt), then taps. */
static inline __attribute__((always_inline)) void
dw_block(const DwJob *j, const real *q, const real *wt, const int64_t *xo, int64_t oy,
	 int rows, int64_t ox, real acc[2][DW_BLOCK])
{
	const Win *w = j->w;
	int64_t kh = w->f[2], kw = w->f[3], sh = w->s[2], dh = w->d[2];
	for (int r = 0; r < rows; r++)
		for (int i = 0; i < DW_BLOCK; i++)
			acc[r][i] = 0;
	for (int64_t ci = 0; ci < j->Cg; ci++, q += j->qvol, wt += kh * kw)
		for (int64_t ky = 0; ky < kh; ky++) {
			const real *v = wt + ky * kw;
			for (int64_t kx = 0; kx < kw; kx++)
				for (int r = 0; r < rows; r++) {
					const real *src = q + ((oy + r) * sh + ky * dh) * j->qw + ox + xo[kx];
					for (int i = 0; i < DW_BLOCK; i++)
						acc[r][i] += v[kx] * src[i];
				}
		}
}

/* One output plane: each item sums its taps in order (input channel,
 * window offset), from 0, as conv_group_taps does; the taps outside the
 * input read the padding's zeros. A row's last block is computed whole
 * (a phase row has room for it) and stored in part. */
VECTOR_CLONES static void dw_plane(const DwJob *j, const real *q, const real *wt, real *out)
{
	const Win *w = j->w;
	int64_t kw = w->f[3], sw = w->s[3], oh = w->x[2], ow = w->x[3];
	int64_t xo[DW_MAX_KW];
	for (int64_t kx = 0; kx < kw; kx++) {
		int64_t off = kx * w->d[3];
		xo[kx] = off % sw * j->qh * j->qw + off / sw;
	}
	for (int64_t oy = 0; oy < oh; oy += 2) {
		int rows = oh - oy >= 2 ? 2 : 1;
		for (int64_t ox = 0; ox < ow; ox += DW_BLOCK) {
			real acc[2][DW_BLOCK];
			if (rows == 2)
				dw_block(j, q, wt, xo, oy, 2, ox, acc);
			else
				dw_block(j, q, wt, xo, oy, 1, ox, acc);
			int64_t n = ow - ox < DW_BLOCK ? ow - ox : DW_BLOCK;
			for (int r = 0; r < rows; r++)
				for (int64_t i = 0; i < n; i++)
					out[(oy + r) * ow + ox + i] = acc[r][i];
		}
	}
}

static void dw_part(void *ctx, int part, int parts)
{
	const DwJob *j = ctx;
	const Win *w = j->w;
	real *q = j->scratch + (int64_t)part * j->Cg * j->qvol;
	int64_t fvol = w->f[2] * w->f[3], ivol = w->X[2] * w->X[3], ovol = w->x[2] * w->x[3];
	for (int64_t u = j->units * part / parts; u < j->units * (part + 1) / parts; u++) {
		int64_t b = u / j->G, gi = u % j->G;
		for (int64_t ci = 0; ci < j->Cg; ci++)
			dw_phases(j, j->x + (b * j->C + gi * j->Cg + ci) * ivol, q + ci * j->qvol);
		for (int64_t oc = 0; oc < j->cg; oc++) {
			int64_t k = gi * j->cg + oc;
			dw_plane(j, q, j->f + k * j->Cg * fvol, j->y + (b * j->c + k) * ovol);
		}
	}
}

/* Runs a 2-D conv of small groups (by_planes); false if out of memory. */
static bool conv_by_planes(Interp *it, const Step *s, const ConvJob *cj)
{
	const Win *w = cj->w;
	int64_t sw = w->s[3];
	int64_t qh = (w->x[2] - 1) * w->s[2] + (w->f[2] - 1) * w->d[2] + 1;
	int64_t blocks = (w->x[3] + DW_BLOCK - 1) / DW_BLOCK;
	int64_t qw = blocks * DW_BLOCK + (w->f[3] - 1) * w->d[3] / sw + 1;
	DwJob j = { cj->x, cj->f, cj->y, w, cj->C, cj->c, cj->G, cj->Cg, cj->cg, cj->B * cj->G,
		    qh, qw, sw * qh * qw, NULL };
	int parts = j.units > 1 && cj->B * cj->c * cj->xvol >= TAPS_PARALLEL_ITEMS ? interp_threads(it) : 1;
	if (parts > j.units)
		parts = (int)j.units;
	j.scratch = interp_scratch(it, s, (size_t)(parts * j.Cg * j.qvol), sizeof(real));
	if (!j.scratch)
		return false;
	interp_parallel(it, parts, dw_part, &j);
	interp_release(it, j.scratch);
	return true;
}

/* Runs conv by Winograd, group by group (float only: interp_conv_by_winograd
 * is false in double); false if out of memory. */
static bool conv_by_winograd(Interp *it, const Step *s, const ConvJob *j)
{
	bool ok = true;
#if INTERP_REAL == 32
	for (int64_t u = 0; ok && u < j->B * j->G; u++) {
		int64_t b = u / j->G, gi = u % j->G;
		ok = interp_conv_winograd(it, s, j->x + (b * j->C + gi * j->Cg) * j->Xvol,
					  j->f + gi * j->cg * j->Cg * j->g->fvol,
					  j->y + (b * j->c + gi * j->cg) * j->xvol, j->w, j->Cg, j->cg,
					  j->bias ? j->bias + gi * j->cg : NULL);
	}
#else
	(void)it, (void)s, (void)j;
#endif
	return ok;
}

/* Runs a depthwise conv tap by tap; false if out of memory. */
static bool conv_by_taps(Interp *it, const Step *s, const ConvJob *j)
{
	Tap *taps = interp_scratch(it, s, (size_t)j->g->fvol, sizeof(Tap));
	if (!taps)
		return false;
	taps_init(taps, j->w, j->g);
	TapsJob t = { j->x, j->f, j->y, j->G, j->C, j->c, j->Cg, j->cg, j->Xvol, j->xvol,
		      j->w, j->g, taps, j->B * j->G };
	int parts = t.units > 1 && j->B * j->c * j->xvol >= TAPS_PARALLEL_ITEMS ? interp_threads(it) : 1;
	interp_parallel(it, parts, taps_part, &t);
	interp_release(it, taps);
	return true;
}

/* conv: input 0, filter 1, bias 2, border 3, padding 4, stride 5,
 * dilation 6, groups 7. */
bool TWIN(kern_conv_f32, kern_conv_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *filter = s->in[1].t;
	ITensor *out = s->out[0];
	/* shapes checked by the flattener (4.3.1): (N, C, ...) by (K, C/g, ...),
	 * with no spatial dimensions or more */
	assert(in->rank >= 2 && filter->rank == in->rank && out->rank == in->rank);
	Win w;
	interp_win_setup(&w, s, 2, filter->dims + 2, 3, 4, 5, 6, in, out);
	ITensor ext = *in;
	int64_t store[INTERP_MAX_RANK], lo[INTERP_MAX_RANK] = { 0 };
	int64_t edims[INTERP_MAX_RANK];
	if (w.border != BORDER_CONSTANT) {
		for (size_t d = 0; d < in->rank; d++) {
			edims[d] = in->dims[d];
			if (d < 2)
				continue;
			lo[d] = w.p[d];
			edims[d] = (w.x[d] - 1) * w.s[d] + (w.f[d] - 1) * w.d[d] + 1;
			w.p[d] = 0;
			w.X[d] = edims[d];
		}
		if (!extend(it, s, in, &w, lo, edims, &ext, store))
			return false;
	}
	Geo g;
	geo_init(&g, &w);
	bool direct = true;
	for (size_t d = 2; d < w.rank; d++)
		direct &= w.f[d] == 1 && w.s[d] == 1 && w.p[d] == 0 && w.X[d] == w.x[d];
	int64_t B = in->dims[0], C = in->dims[1], c = out->dims[1];
	int64_t G = karg_int(s, 7) ? karg_int(s, 7) : C;
	int64_t Cg = C / G, cg = c / G, Xvol = (int64_t)ext.count / (B * C);
	int64_t xvol = (int64_t)out->count / (B * c);
	const real *x = ext.data, *f = filter->data;
	real *y = out->data;
	/* a bias per channel is added by Winograd's and the GEMMs' last
	 * pass over each output block (floats, not --plain); else after */
	const ITensor *bias = s->in[2].t;
	const real *fused_bias = INTERP_REAL == 32 && !it->opt.plain &&
				 bias->count == (size_t)c ? bias->data : NULL;
	ConvJob cj = { x, f, y, &w, &g, B, C, c, G, Cg, cg, Xvol, xvol, fused_bias };
	bool ok;
	if (INTERP_REAL == 32 && interp_conv_by_winograd(it, s))
		ok = conv_by_winograd(it, s, &cj);
	else if (!it->opt.plain && by_planes(Cg, cg, &g, &w)) {
		cj.bias = NULL;
		ok = conv_by_planes(it, s, &cj);
	} else if (!it->opt.plain && by_taps(Cg, &g)) {
		cj.bias = NULL;
		ok = conv_by_taps(it, s, &cj);
	} else {
		ok = true;
		for (int64_t u = 0; u < B * G && ok; u++) {
			int64_t b = u / G, gi = u % G;
			ok = conv_group(it, s, x + (b * C + gi * Cg) * Xvol, f + gi * cg * Cg * g.fvol,
					y + (b * c + gi * cg) * xvol, Cg, cg, &w, &g, direct,
					cj.bias ? cj.bias + gi * cg : NULL);
		}
	}
	if (ext.data != in->data)
		interp_release(it, ext.data);
	if (ok && !cj.bias)
		add_bias(it, out, bias);
	return ok;
}

/* ---- deconv ------------------------------------------------------------------------ */

/* Adds cols[Kg x (nlines * line_len)] (input lines [line0, ...)) to the
 * output of one group (Cg channels of X extents). */
static void col2im(const real *cols, real *out, int64_t Cg,
			  const Win *w, const Geo *g, int64_t line0,
			  int64_t nlines)
{
	size_t m = g->m;
	int64_t ncol = nlines * g->line_len, Xvol = 1;
	int64_t xext[INTERP_MAX_RANK], ost[INTERP_MAX_RANK];
	for (size_t k = 0; k < m; k++)
		xext[k] = w->x[2 + k];
	for (size_t k = m; k-- > 0;) {
		ost[k] = Xvol;
		Xvol *= w->X[2 + k];
	}
	size_t last = 2 + m - 1;
	for (int64_t c = 0; c < Cg; c++)
		for (int64_t jj = 0; jj < g->fvol; jj++) {
			int64_t j[INTERP_MAX_RANK], lc[INTERP_MAX_RANK];
			split_tap(w, m, jj, j);
			const real *src = cols + (c * g->fvol + jj) * ncol;
			real *dst = out + c * Xvol;
			for (int64_t L = 0; L < nlines; L++, src += g->line_len) {
				split_line(xext, m, line0 + L, lc);
				int64_t off = 0;
				bool inside = true;
				for (size_t k = 0; k + 1 < m; k++) {
					size_t d = 2 + k;
					int64_t y = lc[k] * w->s[d] + j[k] * w->d[d] - w->p[d];
					inside &= y >= 0 && y < w->X[d];
					off += y * ost[k];
				}
				if (!inside)
					continue;
				int64_t st = w->s[last];
				int64_t o = j[m - 1] * w->d[last] - w->p[last], lo, hi;
				valid_range(o, st, w->X[last], g->line_len, &lo, &hi);
				real *row = dst + off;
				for (int64_t i = lo; i < hi; i++)
					row[i * st + o] += src[i];
			}
		}
}

static bool deconv_group(Interp *it, const Step *s, const real *in,
				const real *W, real *out, int64_t cg,
				int64_t Cg, const Win *w, const Geo *g,
				bool direct)
{
	int64_t Kg = Cg * g->fvol, xvol = g->lines * g->line_len;
	if (direct)
		return MATMUL(it, s, true, false, Kg, xvol, cg, W, Kg, in, xvol, out, xvol);
	int64_t per = chunk_lines(Kg, g);
	real *cols = interp_scratch(it, s, (size_t)(Kg * per * g->line_len), sizeof(real));
	if (!cols)
		return false;
	bool ok = true;
	for (int64_t L = 0; L < g->lines && ok; L += per) {
		int64_t nl = g->lines - L < per ? g->lines - L : per;
		int64_t ncol = nl * g->line_len;
		ok = MATMUL(it, s, true, false, Kg, ncol, cg, W, Kg, in + L * g->line_len, xvol, cols, ncol);
		if (ok)
			col2im(cols, out, Cg, w, g, L, nl);
	}
	interp_release(it, cols);
	return ok;
}

/* The extension of a deconv input that holds every index
 * (o + p - j * d) / s the output reads: lo[d] before, edims[d] in all. */
static void deconv_extent(Win *w, const ITensor *in, int64_t *lo,
				 int64_t *edims)
{
	for (size_t d = 0; d < in->rank; d++) {
		edims[d] = in->dims[d];
		lo[d] = 0;
		if (d < 2)
			continue;
		int64_t first = w->p[d] - (w->f[d] - 1) * w->d[d];
		first = first >= 0 ? first / w->s[d]
				   : -((-first + w->s[d] - 1) / w->s[d]);
		int64_t final = (w->X[d] - 1 + w->p[d]) / w->s[d];
		lo[d] = first < 0 ? -first : 0;
		int64_t hi = final > w->x[d] - 1 ? final - (w->x[d] - 1) : 0;
		edims[d] = w->x[d] + lo[d] + hi;
		w->p[d] += lo[d] * w->s[d];
		w->x[d] = edims[d];
	}
}

/* deconv: input 0, filter 1, bias 2, border 3, padding 4, stride 5,
 * dilation 6, output_shape 7, groups 8. */
bool TWIN(kern_deconv_f32, kern_deconv_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *filter = s->in[1].t;
	ITensor *out = s->out[0];
	Win w;
	interp_win_setup(&w, s, 2, filter->dims + 2, 3, 4, 5, 6, out, in);
	ITensor ext = *in;
	int64_t store[INTERP_MAX_RANK], lo[INTERP_MAX_RANK], edims[INTERP_MAX_RANK];
	if (w.border != BORDER_CONSTANT) {
		deconv_extent(&w, in, lo, edims);
		if (!extend(it, s, in, &w, lo, edims, &ext, store))
			return false;
	}
	Geo g;
	geo_init(&g, &w);
	bool direct = true;
	for (size_t d = 2; d < w.rank; d++)
		direct &= w.f[d] == 1 && w.s[d] == 1 && w.p[d] == 0 && w.X[d] == w.x[d];
	int64_t B = in->dims[0], c = in->dims[1], C = out->dims[1];
	int64_t G = karg_int(s, 8) ? karg_int(s, 8) : c;
	int64_t cg = c / G, Cg = C / G;
	int64_t xvol = (int64_t)ext.count / (B * c), Xvol = (int64_t)out->count / (B * C);
	const real *x = ext.data, *f = filter->data;
	real *y = out->data;
	if (!direct)
		memset(y, 0, out->count * sizeof(real));
	bool ok = true;
	for (int64_t b = 0; b < B && ok; b++)
		for (int64_t gi = 0; gi < G && ok; gi++)
			ok = deconv_group(it, s, x + (b * c + gi * cg) * xvol,
						 f + gi * cg * Cg * g.fvol,
						 y + (b * C + gi * Cg) * Xvol,
						 cg, Cg, &w, &g, direct);
	if (ext.data != in->data)
		interp_release(it, ext.data);
	if (ok)
		add_bias(it, out, s->in[2].t);
	return ok;
}

/* ---- matmul ------------------------------------------------------------------------- */

/* 4.7: C = A' B' per batch item; the batch dimensions broadcast. */
bool TWIN(kern_matmul_f32, kern_matmul_f64)(Interp *it, const Step *s)
{
	(void)it;
	const ITensor *A = s->in[0].t, *B = s->in[1].t;
	ITensor *C = s->out[0];
	bool ta = karg_bool(s, 2), tb = karg_bool(s, 3);
	size_t r = C->rank;
	/* 4.7: operands of the result's rank (at least 2), inner extents equal */
	assert(r >= 2 && A->rank == r && B->rank == r);
	int64_t M = C->dims[r - 2], N = C->dims[r - 1];
	int64_t K = A->dims[r - (ta ? 2 : 1)];
	assert(K == B->dims[r - (tb ? 1 : 2)]);
	int64_t lda = A->dims[r - 1], ldb = B->dims[r - 1];
	int64_t asz = A->dims[r - 2] * lda, bsz = B->dims[r - 2] * ldb;
	/* the batch dimensions as a broadcast of two operands */
	ITensor ob = { .rank = (uint32_t)(r - 2), .dims = C->dims };
	ITensor ab = { .rank = (uint32_t)(r - 2), .dims = A->dims };
	ITensor bb = { .rank = (uint32_t)(r - 2), .dims = B->dims };
	const ITensor *ops[2] = { &ab, &bb };
	Bcast bc;
	interp_bcast_init(&bc, &ob, ops, 2);
	const real *a = A->data, *b = B->data;
	real *c = C->data;
	/* B the same matrix for every batch and A not transposed: A's
	 * matrices stacked are one of batch * M rows, and so are C's (both
	 * contiguous): one GEMM instead of one per batch (a transformer's
	 * [T, 1, D] x [1, D, E]) */
	int64_t batch = dims_volume(C->dims, r - 2);
	if (!it->opt.plain && !ta && batch > 1 && dims_volume(B->dims, r - 2) == 1 &&
	    dims_volume(A->dims, r - 2) == batch && batch * M <= INT_MAX) {
		return MATMUL(it, s, false, tb, batch * M, N, K, a, lda, b, ldb, c, N);
	}
	bool ok = true;
	for (int64_t row = 0; row < bc.rows && ok; row++, interp_bcast_next(&bc))
		for (int64_t i = 0; i < bc.inner && ok; i++, c += M * N)
			ok = MATMUL(it, s, ta, tb, M, N, K,
				    a + (bc.off[0] + i * bc.st[0]) * asz, lda,
				    b + (bc.off[1] + i * bc.st[1]) * bsz, ldb, c, N);
	return ok;
}

/* ---- warming up ------------------------------------------------------------------------ */

/* One CBLAS GEMM before the first run, when the graph has GEMM-shaped
 * operations: OpenBLAS touches its buffers and starts its threads while
 * loading, not in the first convolution. Not for float products on our
 * own GEMM (gemm.c), which start their threads and take their panels
 * when first used: warming it up cost inception_v3 8 MB of peak memory
 * (its panels' scratch kept apart from the im2col buffers) and gained
 * nothing measurable. */
void TWIN(interp_gemm_warm_up_f32, interp_gemm_warm_up_f64)(Interp *it)
{
#if INTERP_REAL == 32
	if (!it->opt.plain)
		return;
#endif
	bool any = false;
	for (size_t i = 0; i < it->nsteps && !any; i++) {
		ShapeOp p = it->steps[i].op->prim;
		any = p == SHAPE_OP_CONV || p == SHAPE_OP_DECONV || p == SHAPE_OP_MATMUL;
	}
	if (!any)
		return;
	enum { M = 64, N = 1024, K = 256 };
	real *a = util_try_calloc(M * K + K * N + M * N, sizeof(real));
	if (!a)
		return;
	GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, R(1.0), a, K,
	     a + M * K, N, R(0.0), a + M * K + K * N, N);
	util_free(a);
}
