/*
 * tract_nn.c - shapes of the operations of tract's registry tract_core
 * that contract, convolve, recur or resample (sema/tract/TRACT-NOTES.md
 * C.1): einsum and einsum_q (tract's axes-mapping expressions), the legacy
 * matmul and qmatmul, qconv, gru_epilogue, gru_seq, lstm_epilogue,
 * resize (and tract_onnx_resize, C.3), grid_sample (and
 * tract_onnx_grid_sample), vptq_gemm.
 */
#include "shapes/tract_internal.h"

#include <math.h>
#include <string.h>

/* ---- einsum ------------------------------------------------------------------ */

/* An expression of tract's axes mappings (core/src/axes/mapping.rs):
 * spaces ignored; comma-separated letter strings, one per input; then
 * "->" and the output's letters. Without "->", the output holds the
 * letters that occur once in all the inputs, in alphabetical order. A
 * letter repeated across inputs is one axis (contracted when the output
 * lacks it); its extents agree or are 1 (which broadcasts). */
typedef struct Einsum {
	size_t nin;
	const char **in;  /* nin letter strings */
	size_t *inlen;
	const char *out;  /* the output's letters */
	size_t outlen;
} Einsum;

/* The slots of einsum_q's expression tract writes: A and B, then its
 * seven quantization inputs (bias, a0, a_scale, b0, b_scale, c0,
 * c_scale), each empty or the letter of the one axis it is given along. */
enum { EINSUM_Q_SLOTS = 9 };

/* Fails (E0941 at expr) on a malformed expression. */
static bool einsum_bad(ShapeCall *c, const char *expr, const char *why)
{
	shape_fail(c, DIAG_E0941, 1, "the einsum expression '%s' %s", expr, why);
	shape_hint(c, "write one string of letters per input, then '->' and the output's letters, as in 'mk,kn->mn'");
	return false;
}

static bool einsum_parse(ShapeCall *c, Einsum *e, bool quant)
{
	const Value *v = c->args[1];
	size_t n = v->n > 200 ? 200 : v->n;
	const char *shown = arena_strndup(c->arena, v->u.str, n);
	char *s = ARENA_ARRAY(c->arena, char, v->n + 1);
	size_t len = 0;
	for (size_t i = 0; i < v->n; i++)
		if (v->u.str[i] != ' ')
			s[len++] = v->u.str[i];
	s[len] = '\0';
	char *arrow = strstr(s, "->");
	if (arrow)
		*arrow = '\0';
	const char *outs = arrow ? arrow + 2 : NULL;
	e->nin = 1;
	for (const char *p = s; *p; p++)
		e->nin += *p == ',';
	e->in = ARENA_ARRAY(c->arena, const char *, e->nin);
	e->inlen = ARENA_ARRAY(c->arena, size_t, e->nin);
	char *p = s;
	for (size_t i = 0; i < e->nin; i++) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		e->in[i] = p;
		e->inlen[i] = strlen(p);
		p = comma ? comma + 1 : p + strlen(p);
	}
	if (outs && strchr(outs, ',')) {
		size_t nonempty = 0;
		for (const char *q = outs; *q; q++)
			nonempty += *q != ',' && (q[1] == ',' || q[1] == '\0');
		if (nonempty > 1)
			return einsum_bad(c, shown, "names several outputs; einsum has one");
		char *o = arena_strdup(c->arena, outs), *w = o;
		for (const char *q = outs; *q; q++)
			if (*q != ',')
				*w++ = *q;
		*w = '\0';
		outs = o;
	}
	for (size_t i = 0; i < e->nin; i++)
		for (size_t k = 0; k < e->inlen[i]; k++) {
			unsigned char ch = (unsigned char)e->in[i][k];
			if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) {
				char what[48];
				snprintf(what, sizeof(what), ch >= 0x21 && ch < 0x7f ? "'%c'" : "byte 0x%02x", ch);
				return einsum_bad(c, shown, arena_printf(c->arena, "has %s where the letters of an input are expected (axes are named by single letters)", what));
			}
		}
	if (!outs) {
		/* the letters occurring once in all, in alphabetical order */
		unsigned count[128] = { 0 };
		for (size_t i = 0; i < e->nin; i++)
			for (size_t k = 0; k < e->inlen[i]; k++)
				count[(unsigned char)e->in[i][k]]++;
		char *o = ARENA_ARRAY(c->arena, char, 128), *w = o;
		for (int ch = 0; ch < 128; ch++)
			if (count[ch] == 1)
				*w++ = (char)ch;
		*w = '\0';
		outs = o;
	}
	e->out = outs;
	e->outlen = strlen(outs);
	bool seen[128] = { false };
	for (size_t k = 0; k < e->outlen; k++) {
		unsigned char ch = (unsigned char)outs[k];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) {
			char what[48];
			snprintf(what, sizeof(what), ch >= 0x21 && ch < 0x7f ? "'%c'" : "byte 0x%02x", ch);
			return einsum_bad(c, shown, arena_printf(c->arena, "has %s where the output's letters are expected", what));
		}
		if (seen[ch])
			return einsum_bad(c, shown, arena_printf(c->arena, "names the output's axis '%c' twice", ch));
		seen[ch] = true;
	}
	if (quant && e->nin == EINSUM_Q_SLOTS) {
		for (size_t i = 2; i < e->nin; i++)
			if (e->inlen[i] > 1)
				return einsum_bad(c, shown, arena_printf(c->arena, "gives quantization input %zu the letters '%s'; each is given along one axis at most", i - 2, e->in[i]));
		e->nin = 2; /* the products: A and B */
	}
	if (e->nin != c->in[0].n) {
		shape_fail(c, DIAG_E0941, 1, "the einsum expression '%s' has letters for %zu input%s, but 'inputs' holds %zu tensor%s", shown, e->nin, e->nin == 1 ? "" : "s", c->in[0].n, c->in[0].n == 1 ? "" : "s");
		shape_hint(c, "separate the inputs' letters with commas, one string per tensor of 'inputs'");
		return false;
	}
	return true;
}

/* The result of an einsum of the tensors of parameter 0: per output
 * letter the first extent other than 1 it has in the inputs (1 if none);
 * extents of a letter known to differ (neither 1) fail with E0924. */
static bool einsum_shape(ShapeCall *c, const Einsum *e)
{
	const ShapeIn *v = &c->in[0];
	int64_t ext[128];
	size_t from_in[128], from_ax[128];
	for (int ch = 0; ch < 128; ch++)
		ext[ch] = 1;
	for (size_t i = 0; i < e->nin; i++) {
		const Shape *s = &v->items[i];
		if (s->rank != e->inlen[i])
			return shape_fail(c, DIAG_E0906, 0, "inputs[%zu] has shape %s, of rank %u, but the einsum expression gives it %zu letter%s ('%s')", i, shape_shape_str(c, s), s->rank, e->inlen[i], e->inlen[i] == 1 ? "" : "s", e->in[i]);
		for (size_t k = 0; k < e->inlen[i]; k++) {
			int ch = (unsigned char)e->in[i][k];
			int64_t x = s->dims[k];
			if (x == 1 || x == ext[ch])
				continue;
			if (ext[ch] == 1) {
				ext[ch] = x;
				from_in[ch] = i;
				from_ax[ch] = k;
			} else if (shape_clash(ext[ch], x)) {
				return shape_fail(c, DIAG_E0924, 0, "axis '%c' is %s in inputs[%zu] (axis %zu) and %s in inputs[%zu] (axis %zu); the extents of one letter must agree or be 1", ch, shape_dim_text(c, ext[ch]), from_in[ch], from_ax[ch], shape_dim_text(c, x), i, k);
			}
		}
	}
	int64_t *dims = shape_dims(c, e->outlen);
	for (size_t k = 0; k < e->outlen; k++)
		dims[k] = ext[(unsigned char)e->out[k]];
	return shape_result(c, dims, e->outlen);
}

/* einsum(inputs, expr, acc, output): the result has datum type acc. */
bool shape_tract_einsum(ShapeCall *c)
{
	Einsum e;
	if (!shape_tract_dtype(c, 2, &c->dtypes[0]) || !einsum_parse(c, &e, false))
		return false;
	if (!c->known)
		return shape_unknown(c);
	return einsum_shape(c, &e);
}

/* einsum_q(inputs, expr, acc, output, bias, a0, a_scale, b0, b_scale,
 * c0, c_scale): two inputs, accumulated in acc, requantized to the datum
 * type `output`, which must be given; the expression has the letters of
 * A and B, or as tract writes it, of its nine inputs. */
bool shape_tract_einsum_q(ShapeCall *c)
{
	DType acc;
	if (!shape_tract_dtype(c, 2, &acc))
		return false;
	if (c->args[3]->n == 0)
		return shape_fail(c, DIAG_E0943, 3, "einsum_q needs the datum type of its result in 'output' (tract: \"Expected an output type\")");
	if (!shape_tract_dtype(c, 3, &c->dtypes[0]))
		return false;
	if (c->in[0].n != 2)
		return shape_fail(c, DIAG_E0907, 0, "'inputs' holds %zu tensor%s; einsum_q multiplies two (A and B)", c->in[0].n, c->in[0].n == 1 ? "" : "s");
	Einsum e;
	if (!einsum_parse(c, &e, true))
		return false;
	if (!c->known)
		return shape_unknown(c);
	return einsum_shape(c, &e);
}

/* ---- matmul, qmatmul (legacy axes) ----------------------------------------------- */

/* tract_core_matmul(A, B, axes) and qmatmul(A, B, bias, axes, ...): axes
 * = [a_m, a_k, b_k, b_n, c_m, c_n], the axes of A, B and the result
 * holding m, k and n; the other axes of A and B are batch axes, matched
 * in order and broadcast, filling the result's other axes in order. A
 * and B have the same rank, which is the result's. */
static bool legacy_matmul(ShapeCall *c, int p_axes)
{
	const Value *axes = c->args[p_axes];
	if (shape_len(axes) != 6)
		return shape_fail(c, DIAG_E0907, p_axes, "'axes' has %u items; it needs 6: [a_m, a_k, b_k, b_n, c_m, c_n] (tract: \"Invalid axes specification\")", axes->n);
	if (!shape_check_items_min(c, p_axes, 0, DIAG_E0910))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *a = shape_in(c, 0), *b = shape_in(c, 1);
	uint32_t r = a->rank;
	if (b->rank != r || r < 2)
		return shape_fail(c, DIAG_E0906, 1, "A has shape %s and B %s; %s needs ranks equal and at least 2", shape_shape_str(c, a), shape_shape_str(c, b), shape_op_name(c->op));
	int64_t ax[6];
	for (size_t i = 0; i < 6; i++) {
		ax[i] = shape_item(axes, i);
		if ((uint64_t)ax[i] >= r)
			return shape_fail(c, DIAG_E0910, p_axes, "axis %lld (item %zu of 'axes') is out of range: the operands have rank %u", (long long)ax[i], i, r);
	}
	for (size_t i = 0; i < 6; i += 2)
		if (ax[i] == ax[i + 1])
			return shape_fail(c, DIAG_E0911, p_axes, "'axes' names axis %lld of %s twice", (long long)ax[i], i == 0 ? "A" : i == 2 ? "B" : "the result");
	int64_t k_a = a->dims[ax[1]], k_b = b->dims[ax[2]];
	if (shape_clash(k_a, k_b))
		return shape_fail(c, DIAG_E0924, 1, "A %s has %s along its k axis %lld, B %s has %s along its k axis %lld; they must agree", shape_shape_str(c, a), shape_dim_text(c, k_a), (long long)ax[1], shape_shape_str(c, b), shape_dim_text(c, k_b), (long long)ax[2]);
	int64_t *dims = shape_dims(c, r);
	dims[ax[4]] = a->dims[ax[0]];
	dims[ax[5]] = b->dims[ax[3]];
	for (uint32_t ia = 0, ib = 0, io = 0; ia < r; ia++) {
		if (ia == ax[0] || ia == ax[1])
			continue;
		while (ib == ax[2] || ib == ax[3])
			ib++;
		while (io == ax[4] || io == ax[5])
			io++;
		int64_t x = a->dims[ia], y = b->dims[ib];
		if (shape_clash(x, y) && x != 1 && y != 1)
			return shape_fail(c, DIAG_E0905, 1, "the batch axes of A %s and B %s do not broadcast: axis %u of A is %s, axis %u of B is %s", shape_shape_str(c, a), shape_shape_str(c, b), ia, shape_dim_text(c, x), ib, shape_dim_text(c, y));
		dims[io] = x == 1 ? y : x;
		ib++;
		io++;
	}
	return shape_result(c, dims, r);
}

/* tract_core_matmul(A, B, axes): A's datum type. */
bool shape_tract_matmul(ShapeCall *c)
{
	return legacy_matmul(c, 2);
}

/* qmatmul(A, B, bias, axes, a0, a_scale, b0, b_scale, c0, c_scale,
 * output_type): the result has datum type output_type (or graph.quant's,
 * which wins). */
bool shape_tract_qmatmul(ShapeCall *c)
{
	const Value *ot = c->args[10];
	if (ot->kind == VAL_STR && ot->n && !shape_tract_dtype(c, 10, &c->dtypes[0]))
		return false;
	return legacy_matmul(c, 3);
}

/* ---- qconv ------------------------------------------------------------------------ */

/* Items of an optional integer array p (one per spatial axis), or 1. */
static int64_t item_or_one(const ShapeCall *c, int p, size_t i)
{
	return shape_len(c->args[p]) ? shape_item(c->args[p], i) : 1;
}

/* One spatial extent of a convolution: input x, filter f, stride s,
 * dilation d; padding (p, q), or tract's automatic padding (SAME_UPPER:
 * ceil(x / s)). */
static bool conv_extent(ShapeCall *c, int64_t x, int64_t f, int64_t s,
			int64_t d, const Value *pad, size_t i, int64_t *out)
{
	int64_t fd;
	if (!shape_mul(c, 4, f - 1, d, &fd))
		return false;
	fd += 1;
	if (shape_len(pad) == 0)
		return shape_dim_ceil_div(c, 5, x, s, out);
	int64_t pq = shape_pair(pad, i, 0) + shape_pair(pad, i, 1), t;
	if (!dim_is_symbolic(x) && x + pq < fd)
		return shape_fail(c, DIAG_E0915, 6, "in spatial axis %zu the window (%lld wide after dilation) is larger than the padded input (%lld)", i, (long long)fd, (long long)(x + pq));
	return shape_dim_offset(c, 6, x, pq - fd, &t) && shape_dim_div(c, 5, t, s, &t) &&
	       shape_dim_add(c, 5, t, 1, out);
}

/* qconv(input, filter, bias, group, dilation, stride, padding, border,
 * a0, a_scale, b0, b_scale, c0, c_scale): NCHW input and OIHW filter of
 * one rank (tract: "Convolution input expected as NCHW, filter as
 * OIHW"), a filter of known extents, input channels = filter I * group
 * (group 0: one group per output channel); the result is (N, O,
 * spatial...) of the input's datum type. */
bool shape_tract_qconv(ShapeCall *c)
{
	int64_t group;
	if (!shape_plain_min(c, 3, 0, &group) || !shape_check_items_min(c, 4, 1, DIAG_E0908) ||
	    !shape_check_items_min(c, 5, 1, DIAG_E0908))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0), *fl = shape_in(c, 1);
	if (in->rank < 3 || fl->rank != in->rank)
		return shape_fail(c, DIAG_E0906, in->rank < 3 ? 0 : 1, "the input has shape %s and the filter %s; qconv needs an NCHW input and an OIHW filter of one rank, 3 at least", shape_shape_str(c, in), shape_shape_str(c, fl));
	for (uint32_t d = 0; d < fl->rank; d++)
		if (!shape_plain_dim(c, 1, fl->dims[d], "an extent of the filter"))
			return false;
	if (!shape_plain_dim(c, 0, in->dims[1], "the input's channel extent"))
		return false;
	size_t n = in->rank - 2;
	if (!shape_check_len(c, 4, n, true, "the number of spatial axes") ||
	    !shape_check_len(c, 5, n, true, "the number of spatial axes") ||
	    !shape_check_len(c, 6, n, true, "the number of spatial axes"))
		return false;
	for (size_t i = 0; i < shape_len(c->args[6]); i++)
		if (c->args[6]->u.items[i]->n != 2)
			return shape_fail(c, DIAG_E0907, 6, "padding %zu has %u items; each is a pair (before, after)", i, (unsigned)c->args[6]->u.items[i]->n);
	int64_t G = group ? group : fl->dims[0];
	if (G == 0 || fl->dims[0] % G != 0)
		return shape_fail(c, DIAG_E0912, 3, "group = %lld does not divide the filter's output channels %lld", (long long)G, (long long)fl->dims[0]);
	int64_t inc;
	if (!shape_mul(c, 1, fl->dims[1], G, &inc))
		return false;
	if (inc != in->dims[1])
		return shape_fail(c, DIAG_E0913, 1, "the filter's input channels %lld times %lld group%s is %lld, but the input has %lld channels", (long long)fl->dims[1], (long long)G, G == 1 ? "" : "s", (long long)inc, (long long)in->dims[1]);
	int64_t *dims = shape_dims(c, in->rank);
	dims[0] = in->dims[0];
	dims[1] = fl->dims[0];
	for (size_t i = 0; i < n; i++)
		if (!conv_extent(c, in->dims[2 + i], fl->dims[2 + i], item_or_one(c, 5, i), item_or_one(c, 4, i), c->args[6], i, &dims[2 + i]))
			return false;
	c->dtypes[0] = c->in_dtypes ? c->in_dtypes[0] : DT_NONE;
	return shape_result(c, dims, in->rank);
}

/* ---- recurrent cells ----------------------------------------------------------------- */

/* The volume of tensor parameter p, or -1 when an extent is not a
 * number. */
static int64_t volume_of(const ShapeCall *c, int p)
{
	int64_t v;
	return shape_volume(shape_in(c, p), &v) ? v : -1;
}

/* Tensor p holds `want` items (when both are known), else E0942. */
static bool check_volume(ShapeCall *c, int p, int64_t want, const char *why)
{
	int64_t v = volume_of(c, p);
	if (v < 0 || want < 0 || v == want)
		return true;
	return shape_fail(c, DIAG_E0942, p, "'%s' %s holds %lld items; %s needs %lld (%s)", shape_pname(c, p), shape_shape_str(c, shape_in(c, p)), (long long)v, shape_op_name(c->op), (long long)want, why);
}

/* The number of rows of a cell: |state| / hidden (-1 when not known). */
static bool cell_rows(ShapeCall *c, int p_state, int64_t hidden, int64_t *rows)
{
	int64_t v = volume_of(c, p_state);
	*rows = -1;
	if (v < 0)
		return true;
	if (v % hidden != 0)
		return shape_fail(c, DIAG_E0942, p_state, "'%s' %s holds %lld items, not a multiple of hidden = %lld", shape_pname(c, p_state), shape_shape_str(c, shape_in(c, p_state)), (long long)v, (long long)hidden);
	*rows = v / hidden;
	return true;
}

/* gru_epilogue(xh, rh, h_prev, hidden): h_prev's shape and type; xh and
 * h_prev of one datum type; xh and rh hold 3 * hidden items per row. */
bool shape_tract_gru_epilogue(ShapeCall *c)
{
	int64_t hidden, rows;
	if (!shape_plain_min(c, 3, 1, &hidden) || !shape_same_dtype(c, 2, 0))
		return false;
	if (!c->known)
		return shape_unknown(c);
	int64_t want = -1;
	if (!cell_rows(c, 2, hidden, &rows) || (rows >= 0 && !shape_mul(c, 3, rows * hidden, 3, &want)))
		return false;
	if (!check_volume(c, 0, want, "3 * hidden per row of h_prev: the z, r and n gates") ||
	    !check_volume(c, 1, want, "3 * hidden per row of h_prev: the z, r and n gates"))
		return false;
	return shape_result_as(c, shape_in(c, 2));
}

/* lstm_epilogue(preact, c_prev, hidden): (ht, ct), both c_prev's shape
 * and type; preact holds 4 * hidden items per row. */
bool shape_tract_lstm_epilogue(ShapeCall *c)
{
	int64_t hidden, rows;
	if (!shape_plain_min(c, 2, 1, &hidden))
		return false;
	DType t = c->in_dtypes ? c->in_dtypes[1] : DT_NONE;
	c->dtypes[0] = c->dtypes[1] = t;
	if (!c->known)
		return shape_unknown_n(c, 2);
	int64_t want = -1;
	if (!cell_rows(c, 1, hidden, &rows) || (rows >= 0 && !shape_mul(c, 2, rows * hidden, 4, &want)) ||
	    !check_volume(c, 0, want, "4 * hidden per row of c_prev: the i, o, f and c gates"))
		return false;
	const Shape *s = shape_in(c, 1);
	shape_outs(c, 2);
	return shape_out(c, 0, s->dims, s->rank) && shape_out(c, 1, s->dims, s->rank);
}

/* Fails (E0942 at p) when extent x of p's axis ax clashes with want. */
static bool want_extent(ShapeCall *c, int p, size_t ax, int64_t want,
			const char *what)
{
	const Shape *s = shape_in(c, p);
	if (!shape_clash(s->dims[ax], want))
		return true;
	return shape_fail(c, DIAG_E0942, p, "'%s' has shape %s; its axis %zu must be %s (%s)", shape_pname(c, p), shape_shape_str(c, s), ax, shape_dim_text(c, want), what);
}

/* gru_seq(x, w, r, b, initial_h, hidden, chunk, has_bias,
 * reset_every_turn): a whole GRU over x [batch, T, in] with w [3h, in],
 * r [3h, h], b (when has_bias) of 6h items, initial_h of batch * h: y
 * [batch, T, h] and y_h [batch, 1, h], both f32. */
bool shape_tract_gru_seq(ShapeCall *c)
{
	int64_t h, chunk, has_bias, reset;
	if (!shape_plain_min(c, 5, 1, &h) || !shape_plain_int(c, 6, &chunk) ||
	    !shape_plain_int(c, 7, &has_bias) || !shape_plain_int(c, 8, &reset))
		return false;
	if (chunk == 0)
		return shape_fail(c, DIAG_E0908, 6, "'chunk' is 0; it is 1 (forward) or -1 (backward)");
	if (h > INT64_MAX / 6)
		return shape_fail(c, DIAG_E0929, 5, "'hidden' is too large: 6 * hidden exceeds 2^63 - 1");
	c->dtypes[0] = c->dtypes[1] = DT_F32;
	if (!c->known)
		return shape_unknown_n(c, 2);
	const Shape *x = shape_in(c, 0);
	if (!shape_need_rank(c, 0, 3) || !shape_need_rank(c, 1, 2) || !shape_need_rank(c, 2, 2) ||
	    !want_extent(c, 1, 0, 3 * h, "3 * hidden: the z, r and n gates") ||
	    !want_extent(c, 1, 1, x->dims[2], "the input's features, x's last extent") ||
	    !want_extent(c, 2, 0, 3 * h, "3 * hidden: the z, r and n gates") ||
	    !want_extent(c, 2, 1, h, "hidden"))
		return false;
	if (has_bias && !check_volume(c, 3, 6 * h, "6 * hidden: the input and recurrent biases"))
		return false;
	int64_t batch = x->dims[0], bh;
	if (!dim_is_symbolic(batch) && (!shape_mul(c, 4, batch, h, &bh) || !check_volume(c, 4, bh, "batch * hidden")))
		return false;
	int64_t *y = shape_dims(c, 3), *yh = shape_dims(c, 3);
	y[0] = yh[0] = batch;
	y[1] = x->dims[1];
	yh[1] = 1;
	y[2] = yh[2] = h;
	shape_outs(c, 2);
	return shape_out(c, 0, y, 3) && shape_out(c, 1, yh, 3);
}

/* ---- resize --------------------------------------------------------------------------- */

/* The result of resizing `in` by known scales (one per axis): d * s for
 * a whole s (symbolic d allowed), else floor(d * s) computed in f32 as
 * tract does (d a number). */
static bool resize_by_scales(ShapeCall *c, const Shape *in, const double *s,
			     size_t n)
{
	if (n != in->rank)
		return shape_fail(c, DIAG_E0907, 1, "'scales' has %zu item%s; it needs one per axis of the input (%u)", n, n == 1 ? "" : "s", in->rank);
	int64_t *dims = shape_dims(c, in->rank);
	for (size_t i = 0; i < n; i++) {
		float f = (float)s[i];
		if (!isfinite(f) || f <= 0)
			return shape_fail(c, DIAG_E0908, 1, "scale %zu is %g; scales must be positive", i, s[i]);
		if (f == roundf(f)) {
			if (!shape_dim_mul(c, 1, in->dims[i], (int64_t)f, &dims[i]))
				return false;
			continue;
		}
		if (!shape_plain_dim(c, 0, in->dims[i], "the extent of an axis resized by a fractional scale"))
			return false;
		float x = (float)in->dims[i] * f;
		if (!(x < 9e18f))
			return shape_fail(c, DIAG_E0929, 1, "axis %zu resized by %g exceeds 2^63 - 1", i, s[i]);
		dims[i] = (int64_t)x;
	}
	return shape_result(c, dims, in->rank);
}

/* The result of resizing `in` to known sizes (one per axis, maybe
 * symbolic). */
static bool resize_to_sizes(ShapeCall *c, int p, const Shape *in,
			    const ShInt *s, size_t n)
{
	if (n != in->rank)
		return shape_fail(c, DIAG_E0907, p, "'sizes' has %zu item%s; it needs one per axis of the input (%u)", n, n == 1 ? "" : "s", in->rank);
	int64_t *dims = shape_dims(c, n);
	for (size_t i = 0; i < n; i++) {
		if (!s[i].sym && s[i].v < 0)
			return shape_fail(c, DIAG_E0908, p, "size %zu is %lld; sizes must be non-negative", i, (long long)s[i].v);
		dims[i] = s[i].v;
	}
	return shape_result(c, dims, n);
}

/* The string attributes of resize: coord_transformer, interpolator,
 * nearest_mode at p, p + 1, p + 2. */
static bool resize_modes(ShapeCall *c, int p, bool cubic)
{
	static const char *const coords[] = { "half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", NULL };
	static const char *const interp[] = { "linear", "nearest", NULL };
	static const char *const interp_onnx[] = { "linear", "nearest", "cubic", NULL };
	static const char *const nearest[] = { "floor", "ceil", "round_prefer_floor", "round_prefer_ceil", NULL };
	return shape_check_enum(c, p, coords) &&
	       shape_check_enum(c, p + 1, cubic ? interp_onnx : interp) &&
	       shape_check_enum(c, p + 2, nearest);
}

/* resize(input, scales, sizes, coord_transformer, interpolator,
 * nearest_mode) and tract_onnx_resize(input, scales, coord_transformer,
 * interpolator, nearest_mode, cubic_coeff_a, exclude_outside): exactly one
 * of scales and sizes; the result depends on their values. */
bool shape_tract_resize(ShapeCall *c)
{
	bool onnx = c->op == SHAPE_OP_TRACT_ONNX_RESIZE;
	if (!resize_modes(c, onnx ? 2 : 3, onnx))
		return false;
	bool has_scales = !shape_absent(c, 1), has_sizes = !onnx && !shape_absent(c, 2);
	if (has_scales == has_sizes)
		return shape_fail(c, DIAG_E0943, has_scales ? 2 : 1, has_scales ? "resize takes 'scales' or 'sizes', not both" : "resize needs 'scales' or 'sizes'");
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	int p = has_scales ? 1 : 2;
	if (has_scales) {
		const double *s;
		size_t n = 0;
		ShKnown k = shape_known_reals(c, 1, &s, &n, c->arena);
		if (k == SH_KNOWN_OK)
			return resize_by_scales(c, in, s, n);
		if (k == SH_KNOWN_OTHER)
			return shape_fail(c, DIAG_E0908, 1, "'scales' must hold numbers");
	} else {
		const ShInt *s;
		size_t n = 0;
		ShKnown k = shape_known_ints(c, 2, &s, &n, c->arena);
		if (k == SH_KNOWN_OK)
			return resize_to_sizes(c, 2, in, s, n);
		if (k == SH_KNOWN_OTHER)
			return shape_fail(c, DIAG_E0908, 2, "'sizes' must hold whole numbers");
	}
	return shape_data_dependent(c, 0, "the resized shape depends on the values of '%s', computed when the model runs", shape_pname(c, p));
}

/* ---- grid_sample ------------------------------------------------------------------------ */

/* grid_sample(input, grid, mode, padding_mode, align_corners), in
 * tract_core and tract_onnx: input [N, C, D1..Dk], grid [N, O1..Ok, k];
 * the result [N, C, O1..Ok] of the input's datum type; bicubic for k = 2
 * only. */
bool shape_tract_grid_sample(ShapeCall *c)
{
	static const char *const modes[] = { "bilinear", "nearest", "bicubic", NULL };
	static const char *const paddings[] = { "zeros", "border", "reflection", NULL };
	if (!shape_check_enum(c, 2, modes) || !shape_check_enum(c, 3, paddings))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0), *g = shape_in(c, 1);
	if (in->rank < 3)
		return shape_fail(c, DIAG_E0906, 0, "the input has shape %s; grid_sample needs [N, C, D1...] with at least one spatial axis", shape_shape_str(c, in));
	size_t k = in->rank - 2;
	if (!shape_need_rank(c, 1, in->rank) ||
	    !want_extent(c, 1, in->rank - 1, (int64_t)k, "the coordinates of a point, one per spatial axis of the input") ||
	    !want_extent(c, 1, 0, in->dims[0], "the input's batch"))
		return false;
	if (k != 2 && shape_str_is(c->args[2], "bicubic"))
		return shape_fail(c, DIAG_E0909, 2, "mode 'bicubic' samples 2 spatial axes; the input has %zu", k);
	int64_t *dims = shape_dims(c, in->rank);
	dims[0] = in->dims[0];
	dims[1] = in->dims[1];
	shape_copy(dims + 2, g->dims + 1, k);
	return shape_result(c, dims, in->rank);
}

/* ---- vptq_gemm ---------------------------------------------------------------------------- */

/* vptq_gemm(input, indices, centroids, outlier_indices,
 * outlier_centroids, perm, weight_scale, weight_bias, bias, vector_len,
 * in_features, out_features): input [..., in_features] times the
 * rebuilt weight [out_features, in_features] transposed. */
bool shape_tract_vptq_gemm(ShapeCall *c)
{
	int64_t vlen;
	if (!shape_plain_min(c, 9, 1, &vlen))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	if (in->rank == 0)
		return shape_fail(c, DIAG_E0906, 0, "the input has rank 0; vptq_gemm multiplies its last axis by the weight");
	const ShInt *f;
	size_t n = 0;
	if (shape_known_ints(c, 10, &f, &n, c->arena) == SH_KNOWN_OK && n == 1 &&
	    !f[0].sym && shape_clash(in->dims[in->rank - 1], f[0].v))
		return shape_fail(c, DIAG_E0924, 10, "the input %s has %s features on its last axis, but in_features is %lld", shape_shape_str(c, in), shape_dim_text(c, in->dims[in->rank - 1]), (long long)f[0].v);
	ShKnown k = shape_known_ints(c, 11, &f, &n, c->arena);
	if (k == SH_KNOWN_NOT)
		return shape_data_dependent(c, 0, "the result's last extent is the value of 'out_features', not known when the graph is built");
	if (k == SH_KNOWN_OTHER || n != 1 || (!f[0].sym && f[0].v < 1))
		return shape_fail(c, DIAG_E0908, 11, "'out_features' must be one positive integer");
	int64_t *dims = shape_dims(c, in->rank);
	shape_copy(dims, in->dims, in->rank - 1);
	dims[in->rank - 1] = f[0].v;
	return shape_result(c, dims, in->rank);
}
