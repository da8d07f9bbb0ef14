/*
 * broadcast_window.c - what kernels of several families share:
 * broadcasting walks (spec 4.2.2), border modes and the geometry of
 * sliding windows (4.3).
 */
#include "interp/interp_internal.h"

#include <string.h>

/* ---- broadcasting ------------------------------------------------------------- */

void interp_bcast_init(Bcast *b, const ITensor *out, const ITensor *const *ops,
		       size_t nops)
{
	int64_t st[3][INTERP_MAX_RANK];
	int64_t mdims[INTERP_MAX_RANK], mst[3][INTERP_MAX_RANK];
	size_t R = out->rank, n = 0;
	memset(b, 0, sizeof(*b));
	b->nops = nops;
	for (size_t k = 0; k < nops; k++) {
		int64_t acc = 1;
		for (size_t d = R; d-- > 0;) {
			int64_t e = d < ops[k]->rank ? ops[k]->dims[d] : 1;
			st[k][d] = e == 1 ? 0 : acc;
			acc *= e;
		}
	}
	/* merge from the innermost dimension outwards */
	for (size_t d = R; d-- > 0;) {
		int64_t D = out->dims[d];
		if (D == 1)
			continue;
		bool merge = n > 0;
		for (size_t k = 0; k < nops && merge; k++)
			merge = st[k][d] == mst[k][n - 1] * mdims[n - 1];
		if (merge) {
			mdims[n - 1] *= D;
			continue;
		}
		mdims[n] = D;
		for (size_t k = 0; k < nops; k++)
			mst[k][n] = st[k][d];
		n++;
	}
	b->inner = n ? mdims[0] : 1;
	for (size_t k = 0; k < nops; k++)
		b->st[k] = n ? mst[k][0] : 0;
	b->rank = n ? n - 1 : 0;
	b->rows = 1;
	for (size_t i = 0; i < b->rank; i++) {
		b->dims[i] = mdims[n - 1 - i];
		for (size_t k = 0; k < nops; k++)
			b->strides[k][i] = mst[k][n - 1 - i];
		b->rows *= b->dims[i];
	}
}

void interp_bcast_next(Bcast *b)
{
	for (size_t d = b->rank; d-- > 0;) {
		for (size_t k = 0; k < b->nops; k++)
			b->off[k] += b->strides[k][d];
		if (++b->idx[d] < b->dims[d])
			return;
		for (size_t k = 0; k < b->nops; k++)
			b->off[k] -= b->strides[k][d] * b->dims[d];
		b->idx[d] = 0;
	}
}

int64_t interp_bcast_offset(const Bcast *b, size_t k, int64_t row)
{
	int64_t off = 0;
	for (size_t d = b->rank; d-- > 0;) {
		off += row % b->dims[d] * b->strides[k][d];
		row /= b->dims[d];
	}
	return off;
}

void interp_bcast_seek(Bcast *b, int64_t row)
{
	for (size_t d = b->rank; d-- > 0;) {
		b->idx[d] = row % b->dims[d];
		row /= b->dims[d];
		for (size_t k = 0; k < b->nops; k++)
			b->off[k] += b->idx[d] * b->strides[k][d];
	}
}

/* ---- sliding windows ---------------------------------------------------------------- */

Border interp_border_of(const Step *s, size_t p)
{
	static const char *const names[] = { "ignore", "constant", "replicate",
					     "reflect", "reflect-even" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (interp_karg_is(s, p, names[i]))
			return (Border)i;
	return BORDER_CONSTANT;
}

void interp_win_setup(Win *w, const Step *s, size_t first, const int64_t *size,
		      int p_border, int p_padding, int p_stride, int p_dilation,
		      const ITensor *up, const ITensor *down)
{
	w->rank = up->rank;
	w->border = p_border >= 0 ? interp_border_of(s, (size_t)p_border) : BORDER_CONSTANT;
	for (size_t d = 0; d < w->rank; d++) {
		w->X[d] = up->dims[d];
		w->x[d] = down->dims[d];
		w->f[d] = w->s[d] = w->d[d] = 1;
		w->p[d] = 0;
		if (d < first)
			continue;
		size_t i = d - first;
		w->f[d] = size[i];
		if (p_stride >= 0 && karg_len(s, (size_t)p_stride))
			w->s[d] = karg_item(s, (size_t)p_stride, i);
		if (p_dilation >= 0 && karg_len(s, (size_t)p_dilation))
			w->d[d] = karg_item(s, (size_t)p_dilation, i);
		const Value *pad = karg(s, (size_t)p_padding);
		if (pad->n) {
			w->p[d] = pad->u.items[i]->u.items[0]->u.i;
		} else {
			/* spec 4.3 "Automatic Padding Calculation" */
			int64_t fd = (w->f[d] - 1) * w->d[d] + 1;
			int64_t x = (w->X[d] + w->s[d] - 1) / w->s[d];
			int64_t t = (x - 1) * w->s[d] + fd - w->X[d];
			w->p[d] = t > 0 ? t / 2 : 0;
		}
	}
}
