/*
 * known.c - what tract's dialect knows of tensors when the graph is built
 * (sema/tract/TRACT-NOTES.md B.3, B.4): the datum type of every tensor,
 * and the values of the tensors computed from constants.
 *
 * tract evaluates, as it loads a model, every operation whose inputs are
 * all constant: tract_core_shape_of gives the (maybe symbolic) extents of
 * a tensor, and slices, squeezes and arithmetic of them give integers that
 * the document then passes where attributes are expected (repeats =
 * [d0, d1], shape = [d0, -1, 2]). The flattener does the same for the
 * operations that compute such values, on small tensors (FOLD_MAX items):
 * items are Values (VAL_INT, VAL_SYMBOL for a TDim known only when the
 * model runs, VAL_SCALAR, VAL_BOOL, VAL_STR), in row-major order.
 * Variables are known when the model is loaded, not to the check: what is
 * computed from them only is marked so (items NULL).
 */
#include "flatten/flatten_internal.h"

#include <assert.h>
#include <math.h>
#include <string.h>

enum { FOLD_MAX = 1 << 16, FOLD_RANK = 16, FOLD_PARAMS = 16 };

/* ---- datum types ---------------------------------------------------------- */

DType flat_value_datum(const Value *v)
{
	switch (v->kind) {
	case VAL_INT:
	case VAL_SYMBOL:
		return DT_TDIM; /* tract: an integer literal is a TDim */
	case VAL_SCALAR:
		return DT_F32;
	case VAL_BOOL:
		return DT_BOOL;
	case VAL_STR:
		return DT_STRING;
	case VAL_TENSOR:
		return (DType)v->u.t->datum;
	case VAL_ARRAY:
		return v->n ? flat_value_datum(v->u.items[0]) : DT_F32;
	case VAL_TUPLE:
		return DT_NONE;
	}
	return DT_NONE;
}

DType flat_kind_datum(TypeKind k)
{
	switch (k) {
	case TY_INTEGER:
		return DT_I64;
	case TY_SCALAR:
		return DT_F32;
	case TY_LOGICAL:
		return DT_BOOL;
	case TY_STRING:
		return DT_STRING;
	case TY_GENERIC:
	case TY_TENSOR:
	case TY_ARRAY:
	case TY_TUPLE:
	case TY_EMPTY_ARRAY:
		return DT_NONE;
	}
	return DT_NONE;
}

/* The common super type of two datum types, as tract's
 * DatumType::common_super_type: floats widen to the larger float,
 * signed integers to the larger signed integer or tdim, unsigned to the
 * larger unsigned; DT_NONE when there is none. */
static DType super_type(DType a, DType b)
{
	if (a == b)
		return a;
	if (a == DT_NONE || b == DT_NONE)
		return DT_NONE;
	DTypeClass ca = dtype_class(a), cb = dtype_class(b);
	if (ca == DTC_FLOAT && cb == DTC_FLOAT)
		return dtype_bits(a) >= dtype_bits(b) ? a : b;
	if (ca == DTC_UNSIGNED && cb == DTC_UNSIGNED)
		return dtype_bits(a) >= dtype_bits(b) ? a : b;
	bool sa = ca == DTC_SIGNED || ca == DTC_DIM;
	bool sb = cb == DTC_SIGNED || cb == DTC_DIM;
	if (sa && sb) {
		if (ca == DTC_DIM || cb == DTC_DIM)
			return DT_TDIM;
		return dtype_bits(a) >= dtype_bits(b) ? a : b;
	}
	return DT_NONE;
}

/* Whether v is a constant of one item: a literal, or a tensor whose value
 * is known and of volume 1 (tract does not trust the datum type of such
 * "inline scalars", B.7). */
static bool inline_scalar(const Flattener *F, const Value *v)
{
	if (v->kind != VAL_TENSOR)
		return true;
	const FlatKnown *k = flat_known(F, v);
	return k && k->items && k->n == 1;
}

/* The operating datum type of a binary operation (B.7). */
static DType operating(const Flattener *F, const Value *a, const Value *b)
{
	DType x = flat_value_datum(a), y = flat_value_datum(b);
	if (x == y)
		return x;
	if (x == DT_TDIM || y == DT_TDIM)
		return super_type(x, y);
	if (inline_scalar(F, a))
		return y;
	if (inline_scalar(F, b))
		return x;
	return super_type(x, y);
}

/* The datum type of the results of op by the rule of its flags, where its
 * shape function left none (c->dtypes). */
static DType rule_datum(Flattener *F, const FlatOp *op)
{
	const Value *const *args = flat_op_args(op);
	uint64_t flags = shape_op_flags((ShapeOp)op->prim);
	const Type *g = flat_op_generic(op, F->tt);
	/* the operations with a rule of their own (the others: their flags') */
	ShapeOp p = (ShapeOp)op->prim;
	if (p == SHAPE_OP_CONSTANT && g && g->kind == TY_INTEGER)
		return DT_TDIM; /* a literal: tract's integers are TDims */
	if (p == SHAPE_OP_CONSTANT || p == SHAPE_OP_EXTERNAL || p == SHAPE_OP_CAST)
		return g ? flat_kind_datum(g->kind) : DT_F32;
	if (p == SHAPE_OP_VARIABLE)
		return flat_variable_datum(F, op);
	if (p == SHAPE_OP_ARGMAX_REDUCE || p == SHAPE_OP_ARGMIN_REDUCE)
		return DT_I64;
	if (p == SHAPE_OP_SELECT)
		return operating(F, args[1], args[2]);
	if (flags & SF_COMPARE)
		return DT_BOOL;
	if (flags & SF_BINARY)
		return operating(F, args[0], args[1]);
	/* the first tensor argument's (an array's first item's) */
	for (size_t i = 0; i < op->frag->nparams; i++)
		if (!ty_is_attribute(op->frag->params[i].type))
			return flat_value_datum(args[i]);
	return DT_NONE;
}

void flat_set_datums(Flattener *F, FlatOp *op, const ShapeCall *c)
{
	for (size_t k = 0; k < op->frag->nresults; k++) {
		DType d = k < SHAPE_MAX_RESULTS && c ? c->dtypes[k] : DT_NONE;
		if (d == DT_NONE && c && (shape_op_flags(c->op) & SF_ARRAY_RESULT))
			d = c->dtypes[0];
		if (d == DT_NONE && k == 0)
			d = rule_datum(F, op);
		const Value *r = op->results[k];
		if (r && r->kind == VAL_TENSOR)
			r->u.t->datum = (uint8_t)d;
		for (size_t i = 0; r && r->kind == VAL_ARRAY && i < r->n; i++)
			if (r->u.items[i]->kind == VAL_TENSOR)
				r->u.items[i]->u.t->datum = (uint8_t)d;
	}
}

/* ---- known values ------------------------------------------------------------- */

const FlatKnown *flat_known(const Flattener *F, const Value *v)
{
	if (v->kind == VAL_TENSOR) {
		bool found;
		return pmap_get(&F->known, v->u.t, &found);
	}
	if (v->kind == VAL_ARRAY || v->kind == VAL_TUPLE)
		return NULL;
	/* a literal: one item, itself (made once per literal) */
	FlatKnown *k = ARENA_NEW(F->arena, FlatKnown);
	k->items = v;
	k->n = 1;
	return k;
}

static void flat_set_known(Flattener *F, const FlatTensor *t, const Value *items,
		    uint32_t n)
{
	FlatKnown *k = ARENA_NEW(F->arena, FlatKnown);
	k->items = items;
	k->n = n;
	k->ramp = NULL;
	pmap_put(&F->known, t, k);
}

/* t is the ramp start + i * step (integer items). */
static void set_ramp(Flattener *F, const FlatTensor *t, Value start,
		     Value step)
{
	Value *ramp = ARENA_ARRAY(F->arena, Value, 2);
	ramp[0] = start;
	ramp[1] = step;
	FlatKnown *k = ARENA_NEW(F->arena, FlatKnown);
	k->items = NULL;
	k->n = 0;
	k->ramp = ramp;
	pmap_put(&F->known, t, k);
}

/* ---- items ---------------------------------------------------------------------- */

static Value item_int(int64_t i)
{
	Value v = { .kind = VAL_INT };
	v.u.i = i;
	return v;
}

static Value item_real(double d)
{
	Value v = { .kind = VAL_SCALAR };
	v.u.s = d;
	return v;
}

static Value item_bool(bool b)
{
	Value v = { .kind = VAL_BOOL };
	v.u.b = b;
	return v;
}

/* An integer result of dim arithmetic (NULL: overflow) as an item. */
static bool item_dim(Flattener *F, const DimExpr *e, Value *out)
{
	if (!e)
		return false;
	int64_t c;
	if (dim_is_const(e, &c)) {
		*out = item_int(c);
		return true;
	}
	dim_text(flat_dims(F), e);
	out->kind = VAL_SYMBOL;
	out->n = 0;
	out->u.dim = e;
	return true;
}

static bool is_int_item(const Value *v)
{
	return v->kind == VAL_INT || v->kind == VAL_SYMBOL;
}

static double item_as_real(const Value *v)
{
	return v->kind == VAL_SCALAR ? v->u.s
	       : v->kind == VAL_BOOL ? (v->u.b ? 1.0 : 0.0)
				     : (double)v->u.i;
}

/* Item v converted to datum type to (tract's casts: Rust's `as` between
 * numbers, truncating floats and wrapping integers to their width; 0 and
 * 1 for logicals); false when it cannot be done now (a symbolic integer
 * to a non-integer type, strings). */
bool flat_item_cast(Flattener *F, const Value *v, DType to, Value *out)
{
	(void)F;
	if (v->kind == VAL_STR || to == DT_STRING || to == DT_NONE)
		return false;
	DTypeClass c = dtype_class(to);
	if (v->kind == VAL_SYMBOL) {
		*out = *v; /* still the same integer */
		return c == DTC_SIGNED || c == DTC_DIM || c == DTC_UNSIGNED;
	}
	switch (c) {
	case DTC_FLOAT:
		*out = item_real(dtype_round(to, item_as_real(v)));
		return true;
	case DTC_BOOL:
		*out = item_bool(v->kind == VAL_SCALAR ? v->u.s != 0.0
				 : v->kind == VAL_BOOL ? v->u.b : v->u.i != 0);
		return true;
	case DTC_SIGNED:
	case DTC_UNSIGNED:
	case DTC_DIM:
	case DTC_QUANTIZED: {
		int64_t i = v->kind == VAL_SCALAR ? dtype_real_to_int(v->u.s)
			  : v->kind == VAL_BOOL ? v->u.b : v->u.i;
		*out = item_int(dtype_wrap(to, i));
		return true;
	}
	case DTC_STRING:
		return false;
	}
	return false;
}

/* ---- folding ---------------------------------------------------------------- */

/* One operation being folded: its arguments' known items and shapes. */
typedef struct Fold {
	Flattener *F;
	const FlatOp *op;
	const Value *const *args;
	const FlatKnown *in[FOLD_PARAMS]; /* per tensor parameter */
	Shape shape[FOLD_PARAMS];
	const FlatTensor *out;  /* the (single) result */
	Shape oshape;
	uint64_t n;             /* items of the result */
	Value *items;           /* the result's items, to fill */
	DType dt;               /* the result's datum type */
} Fold;

typedef bool (*FoldFn)(Fold *x);

/* The row-major index into a tensor of shape s of the result coordinate
 * coord (of the result's rank), broadcast: singleton dimensions and
 * missing trailing ones read index 0. */
static uint64_t bindex(const Shape *s, const int64_t *coord, uint32_t rank)
{
	uint64_t idx = 0;
	for (uint32_t d = 0; d < s->rank; d++) {
		int64_t c = d < rank && s->dims[d] != 1 ? coord[d] : 0;
		idx = idx * (uint64_t)s->dims[d] + (uint64_t)c;
	}
	return idx;
}

/* Advances a row-major coordinate within shape s. */
static void next_coord(int64_t *coord, const Shape *s)
{
	for (uint32_t d = s->rank; d-- > 0;) {
		if (++coord[d] < s->dims[d])
			return;
		coord[d] = 0;
	}
}

static bool fold_copy(Fold *x)
{
	for (uint64_t i = 0; i < x->n; i++)
		x->items[i] = x->in[0]->items[x->in[0]->n == 1 ? 0 : i];
	return true;
}

/* ---- element-wise operations -------------------------------------------------- */

/* What an element-wise operation computes, for folding: the table maps
 * the operations folded item by item (ew_fn) and each switch below names
 * every function, so the compiler checks that none is forgotten. */
typedef enum EwFn {
	EF_NONE,
	EF_COPY, EF_NEG, EF_RCP, EF_EXP, EF_LOG, EF_SIN, EF_COS, EF_ABS,
	EF_SIGN, EF_NOT, EF_FLOOR, EF_CEIL, EF_ROUND,
	EF_ADD, EF_SUB, EF_MUL, EF_DIV, EF_POW,
	EF_LT, EF_GT, EF_LE, EF_GE, EF_EQ, EF_NE,
	EF_AND, EF_OR,
} EwFn;

/* the case labels of a group, for the switches that fold another */
#define EF_UNARY_CASES case EF_COPY: case EF_NEG: case EF_RCP: case EF_EXP: \
	case EF_LOG: case EF_SIN: case EF_COS: case EF_ABS: case EF_SIGN:  \
	case EF_NOT: case EF_FLOOR: case EF_CEIL: case EF_ROUND
#define EF_ARITH_CASES case EF_ADD: case EF_SUB: case EF_MUL: case EF_DIV: case EF_POW
#define EF_COMPARE_CASES case EF_LT: case EF_GT: case EF_LE: case EF_GE: case EF_EQ: case EF_NE
#define EF_LOGIC_CASES case EF_AND: case EF_OR

static const uint8_t ew_fn[SHAPE_OP_COUNT] = {
	[SHAPE_OP_COPY] = EF_COPY, [SHAPE_OP_NEG] = EF_NEG, [SHAPE_OP_RCP] = EF_RCP,
	[SHAPE_OP_EXP] = EF_EXP, [SHAPE_OP_LOG] = EF_LOG, [SHAPE_OP_SIN] = EF_SIN,
	[SHAPE_OP_COS] = EF_COS, [SHAPE_OP_ABS] = EF_ABS, [SHAPE_OP_SIGN] = EF_SIGN,
	[SHAPE_OP_NOT] = EF_NOT, [SHAPE_OP_FLOOR] = EF_FLOOR, [SHAPE_OP_CEIL] = EF_CEIL,
	[SHAPE_OP_ROUND] = EF_ROUND, [SHAPE_OP_ADD] = EF_ADD, [SHAPE_OP_SUB] = EF_SUB,
	[SHAPE_OP_MUL] = EF_MUL, [SHAPE_OP_DIV] = EF_DIV, [SHAPE_OP_POW] = EF_POW,
	[SHAPE_OP_LT] = EF_LT, [SHAPE_OP_GT] = EF_GT, [SHAPE_OP_LE] = EF_LE,
	[SHAPE_OP_GE] = EF_GE, [SHAPE_OP_EQ] = EF_EQ, [SHAPE_OP_NE] = EF_NE,
	[SHAPE_OP_AND] = EF_AND, [SHAPE_OP_OR] = EF_OR,
};

static bool unary_item(Fold *x, EwFn fn, const Value *a, Value *out)
{
	if (is_int_item(a) && fn != EF_NOT) {
		DimTable *t = flat_dims(x->F);
		const DimExpr *e = flat_dim_of(x->F, a);
		int64_t c;
		bool known = dim_is_const(e, &c);
		switch (fn) {
		case EF_COPY:
		case EF_FLOOR:
		case EF_CEIL:
		case EF_ROUND:
			*out = *a;
			return true;
		case EF_NEG:
			return item_dim(x->F, dim_sub(t, dim_const(t, 0), e), out);
		case EF_ABS:
			if (!known)
				return false;
			*out = item_int(c < 0 ? -c : c);
			return true;
		case EF_SIGN:
			if (!known)
				return false;
			*out = item_int((c > 0) - (c < 0));
			return true;
		case EF_NONE: case EF_RCP: case EF_EXP: case EF_LOG: case EF_SIN:
		case EF_COS: case EF_NOT:
		EF_ARITH_CASES: EF_COMPARE_CASES: EF_LOGIC_CASES:
			return false;
		}
	}
	if (a->kind == VAL_BOOL) {
		if (fn != EF_NOT && fn != EF_COPY)
			return false;
		*out = item_bool(fn == EF_NOT ? !a->u.b : a->u.b);
		return true;
	}
	if (a->kind != VAL_SCALAR)
		return false;
	double v = a->u.s, r = 0.0;
	switch (fn) {
	case EF_COPY: r = v; break;
	case EF_NEG: r = -v; break;
	case EF_RCP: r = 1.0 / v; break;
	case EF_EXP: r = exp(v); break;
	case EF_LOG: r = log(v); break;
	case EF_SIN: r = sin(v); break;
	case EF_COS: r = cos(v); break;
	case EF_ABS: r = fabs(v); break;
	case EF_SIGN: r = (v > 0) - (v < 0); break;
	case EF_FLOOR: r = floor(v); break;
	case EF_CEIL: r = ceil(v); break;
	case EF_ROUND: r = round(v); break;
	case EF_NONE: case EF_NOT:
	EF_ARITH_CASES: EF_COMPARE_CASES: EF_LOGIC_CASES:
		return false;
	}
	*out = item_real(dtype_round(x->dt, r));
	return true;
}

static bool fold_unary(Fold *x)
{
	EwFn fn = ew_fn[x->op->prim];
	for (uint64_t i = 0; i < x->n; i++)
		if (!unary_item(x, fn, &x->in[0]->items[x->in[0]->n == 1 ? 0 : i],
				&x->items[i]))
			return false;
	return true;
}

/* A comparison of two numbers of known difference d (or reals a, b). */
static bool compare(EwFn fn, int sign)
{
	switch (fn) {
	case EF_LT: return sign < 0;
	case EF_GT: return sign > 0;
	case EF_LE: return sign <= 0;
	case EF_GE: return sign >= 0;
	case EF_EQ: return sign == 0;
	case EF_NE: return sign != 0;
	case EF_NONE: EF_UNARY_CASES: EF_ARITH_CASES: EF_LOGIC_CASES:
		return false;
	}
	return false; /* not reached: every function is a case */
}

/* The comparison op of p and q, d = p - q: 1 true, 0 false, -1 when
 * the signs d may have (symbols being at least 0: 0 < S + 1) do not give
 * one answer. */
static int decide(EwFn fn, const DimExpr *d)
{
	DimBounds r;
	dim_bounds(d, &r);
	int lo = r.has_lo ? (r.lo > 0) - (r.lo < 0) : -1;
	int hi = r.has_hi ? (r.hi > 0) - (r.hi < 0) : 1;
	for (int s = lo + 1; s <= hi; s++)
		if (compare(fn, s) != compare(fn, lo))
			return -1;
	return compare(fn, lo);
}

static bool int_binary(Fold *x, EwFn fn, const Value *a, const Value *b,
		       Value *out)
{
	DimTable *t = flat_dims(x->F);
	const DimExpr *p = flat_dim_of(x->F, a), *q = flat_dim_of(x->F, b);
	int64_t k;
	switch (fn) {
	case EF_ADD: return item_dim(x->F, dim_add(t, p, q), out);
	case EF_SUB: return item_dim(x->F, dim_sub(t, p, q), out);
	case EF_MUL: return item_dim(x->F, dim_mul(t, p, q), out);
	case EF_DIV: {
		int64_t n;
		if (!dim_is_const(q, &k)) /* exact: (P+S) / (P+S) is 1 */
			return item_dim(x->F, dim_exact_div(t, p, q), out);
		if (k == 0)
			return false;
		if (dim_is_const(p, &n)) { /* i64: truncated, as Rust's / */
			if (n == INT64_MIN && k == -1)
				return false;
			*out = item_int(n / k);
			return true;
		}
		return k > 0 && item_dim(x->F, dim_div(t, p, k), out);
	}
	case EF_POW: {
		int64_t n;
		if (!dim_is_const(p, &n) || !dim_is_const(q, &k) || k < 0)
			return false;
		int64_t r = 1;
		for (int64_t i = 0; i < k; i++)
			if (__builtin_mul_overflow(r, n, &r))
				return false;
		*out = item_int(r);
		return true;
	}
	case EF_LT: case EF_GT: case EF_LE:
	case EF_GE: case EF_EQ: case EF_NE: {
		const DimExpr *d = dim_sub(t, p, q);
		int r = d ? decide(fn, d) : -1;
		if (r < 0)
			return false;
		*out = item_bool(r);
		return true;
	}
	case EF_NONE: EF_UNARY_CASES: EF_LOGIC_CASES:
		return false;
	}
	return false; /* not reached: every function is a case */
}

static bool binary_item(Fold *x, EwFn fn, DType operate, const Value *a,
			const Value *b, Value *out)
{
	Value ca, cb;
	if (operate != DT_NONE && (!flat_item_cast(x->F, a, operate, &ca) ||
				   !flat_item_cast(x->F, b, operate, &cb)))
		return false;
	if (operate == DT_NONE) {
		ca = *a;
		cb = *b;
	}
	if (fn == EF_AND || fn == EF_OR) {
		if (ca.kind != VAL_BOOL || cb.kind != VAL_BOOL)
			return false;
		*out = item_bool(fn == EF_AND ? ca.u.b && cb.u.b
						    : ca.u.b || cb.u.b);
		return true;
	}
	if (is_int_item(&ca) && is_int_item(&cb))
		return int_binary(x, fn, &ca, &cb, out);
	if (ca.kind == VAL_BOOL && cb.kind == VAL_BOOL &&
	    (fn == EF_EQ || fn == EF_NE)) {
		*out = item_bool((ca.u.b == cb.u.b) == (fn == EF_EQ));
		return true;
	}
	if (ca.kind == VAL_SYMBOL || cb.kind == VAL_SYMBOL ||
	    ca.kind == VAL_STR || cb.kind == VAL_STR)
		return false;
	double p = item_as_real(&ca), q = item_as_real(&cb), r = 0.0;
	switch (fn) {
	case EF_ADD: r = p + q; break;
	case EF_SUB: r = p - q; break;
	case EF_MUL: r = p * q; break;
	case EF_DIV: r = p / q; break;
	case EF_POW: r = pow(p, q); break;
	EF_COMPARE_CASES:
		*out = item_bool(compare(fn, (p > q) - (p < q)));
		return true;
	case EF_NONE: EF_UNARY_CASES: EF_LOGIC_CASES:
		return false;
	}
	*out = item_real(dtype_round(x->dt, r));
	return true;
}

static bool fold_binary(Fold *x)
{
	ShapeOp op = (ShapeOp)x->op->prim;
	EwFn fn = ew_fn[op];
	DType operate = shape_op_flags(op) & SF_COMPARE
				? super_type(flat_value_datum(x->args[0]),
					     flat_value_datum(x->args[1]))
				: x->dt;
	if (fn == EF_AND || fn == EF_OR)
		operate = DT_BOOL;
	int64_t coord[FOLD_RANK] = { 0 };
	for (uint64_t i = 0; i < x->n; i++) {
		const Value *a = &x->in[0]->items[bindex(&x->shape[0], coord, x->oshape.rank)];
		const Value *b = &x->in[1]->items[bindex(&x->shape[1], coord, x->oshape.rank)];
		if (!binary_item(x, fn, operate, a, b, &x->items[i]))
			return false;
		next_coord(coord, &x->oshape);
	}
	return true;
}

static bool fold_select(Fold *x)
{
	int64_t coord[FOLD_RANK] = { 0 };
	for (uint64_t i = 0; i < x->n; i++) {
		const Value *c = &x->in[0]->items[bindex(&x->shape[0], coord, x->oshape.rank)];
		int k = c->kind == VAL_BOOL ? (c->u.b ? 1 : 2) : 0;
		if (!k)
			return false;
		const Value *v = &x->in[k]->items[bindex(&x->shape[k], coord, x->oshape.rank)];
		if (!flat_item_cast(x->F, v, x->dt, &x->items[i]))
			return false;
		next_coord(coord, &x->oshape);
	}
	return true;
}

static bool fold_cast(Fold *x)
{
	for (uint64_t i = 0; i < x->n; i++)
		if (!flat_item_cast(x->F, &x->in[0]->items[x->in[0]->n == 1 ? 0 : i],
				    x->dt, &x->items[i]))
			return false;
	return true;
}

static bool fold_transpose(Fold *x)
{
	const Value *axes = x->args[1];
	const Shape *in = &x->shape[0];
	int64_t coord[FOLD_RANK] = { 0 }, from[FOLD_RANK];
	for (uint64_t i = 0; i < x->n; i++) {
		for (uint32_t d = 0; d < in->rank; d++)
			from[d < axes->n ? axes->u.items[d]->u.i : d] = coord[d];
		x->items[i] = x->in[0]->items[bindex(in, from, in->rank)];
		next_coord(coord, &x->oshape);
	}
	return true;
}

/* The shape of a value given for a tensor (a literal: rank 0). */
static Shape value_shape(const Value *v)
{
	if (v->kind == VAL_TENSOR)
		return flat_tensor_shape(v->u.t);
	return (Shape){ NULL, 0, true };
}

static bool fold_concat(Fold *x)
{
	const Value *vals = x->args[0];
	int64_t axis = x->args[1]->u.i;
	int64_t coord[FOLD_RANK] = { 0 };
	for (uint64_t i = 0; i < x->n; i++) {
		int64_t at = coord[axis];
		for (size_t k = 0; k < vals->n; k++) {
			Shape ks = value_shape(vals->u.items[k]);
			int64_t ext = ks.rank ? ks.dims[axis] : 1;
			if (at >= ext) {
				at -= ext;
				continue;
			}
			const FlatKnown *kn = flat_known(x->F, vals->u.items[k]);
			int64_t from[FOLD_RANK];
			memcpy(from, coord, sizeof(from));
			from[axis] = at;
			if (!flat_item_cast(x->F, &kn->items[bindex(&ks, from, x->oshape.rank)], x->dt, &x->items[i]))
				return false;
			break;
		}
		next_coord(coord, &x->oshape);
	}
	return true;
}

/* slice: result coordinate c reads the input at begin + c * stride on the
 * sliced axes. The first index along each axis is the one the shape
 * function counted from: a clamped begin (spec 1.0.5 4.5.4; tract's
 * reading of negative and 0 bounds, D). */
static bool fold_slice(Fold *x)
{
	const Shape *in = &x->shape[0];
	const Value *axes = x->args[1], *begin = x->args[2], *stride = x->args[4];
	int64_t first[FOLD_RANK] = { 0 }, step[FOLD_RANK];
	for (uint32_t d = 0; d < in->rank; d++)
		step[d] = 1;
	for (size_t i = 0; i < axes->n; i++) {
		int64_t a = axes->u.items[i]->u.i, X = in->dims[a];
		if (begin->u.items[i]->kind != VAL_INT)
			return false;
		int64_t b = begin->u.items[i]->u.i;
		int64_t st = stride->n ? stride->u.items[i]->u.i : 1;
		if (b < 0)
			b += X;
		int64_t lo = st > 0 ? 0 : -1, hi = st > 0 ? X : X - 1;
		first[a] = b < lo ? lo : b > hi ? hi : b;
		step[a] = st;
	}
	int64_t coord[FOLD_RANK] = { 0 }, from[FOLD_RANK];
	for (uint64_t i = 0; i < x->n; i++) {
		for (uint32_t d = 0; d < in->rank; d++)
			from[d] = first[d] + coord[d] * step[d];
		x->items[i] = x->in[0]->items[bindex(in, from, in->rank)];
		next_coord(coord, &x->oshape);
	}
	return true;
}

static bool fold_tile(Fold *x)
{
	const Shape *in = &x->shape[0];
	int64_t coord[FOLD_RANK] = { 0 }, from[FOLD_RANK];
	for (uint64_t i = 0; i < x->n; i++) {
		for (uint32_t d = 0; d < in->rank; d++)
			from[d] = coord[d] % in->dims[d];
		x->items[i] = x->in[0]->items[bindex(in, from, in->rank)];
		next_coord(coord, &x->oshape);
	}
	return true;
}

/* gather (and tract_core_gather): out[i, j, k] = input[i, idx(j), k],
 * negative indices counted from the end. */
static bool fold_gather(Fold *x)
{
	const Shape *in = &x->shape[0], *ix = &x->shape[1];
	int64_t axis = x->args[2]->u.i;
	int64_t coord[FOLD_RANK] = { 0 }, from[FOLD_RANK];
	for (uint64_t i = 0; i < x->n; i++) {
		uint64_t j = 0;
		for (uint32_t d = 0; d < ix->rank; d++)
			j = j * (uint64_t)ix->dims[d] + (uint64_t)coord[axis + d];
		const Value *v = &x->in[1]->items[x->in[1]->n == 1 ? 0 : j];
		if (v->kind != VAL_INT)
			return false;
		int64_t at = v->u.i < 0 ? v->u.i + in->dims[axis] : v->u.i;
		if (at < 0 || at >= in->dims[axis])
			return false; /* an error when the model runs */
		for (int64_t d = 0; d < axis; d++)
			from[d] = coord[d];
		from[axis] = at;
		for (uint32_t d = (uint32_t)axis + 1; d < in->rank; d++)
			from[d] = coord[d - 1 + ix->rank];
		x->items[i] = x->in[0]->items[bindex(in, from, in->rank)];
		next_coord(coord, &x->oshape);
	}
	return true;
}

/* Reductions of integers and logicals (the extents computed from shapes,
 * mostly): sum, min, max, all, any over the axes. */
static bool fold_reduce(Fold *x)
{
	ShapeOp op = (ShapeOp)x->op->prim;
	const Shape *in = &x->shape[0];
	for (uint64_t i = 0; i < x->n; i++)
		x->items[i].kind = VAL_TUPLE; /* not set yet */
	int64_t coord[FOLD_RANK] = { 0 }, to[FOLD_RANK];
	DimTable *t = flat_dims(x->F);
	for (uint64_t i = 0; i < x->in[0]->n; i++) {
		for (uint32_t d = 0; d < in->rank; d++)
			to[d] = x->oshape.dims[d] == 1 ? 0 : coord[d];
		Value *acc = &x->items[bindex(&x->oshape, to, in->rank)];
		const Value *v = &x->in[0]->items[i];
		next_coord(coord, in);
		if (acc->kind == VAL_TUPLE) {
			*acc = *v;
			continue;
		}
		if (op == SHAPE_OP_ALL_REDUCE || op == SHAPE_OP_ANY_REDUCE) {
			if (v->kind != VAL_BOOL)
				return false;
			acc->u.b = op == SHAPE_OP_ALL_REDUCE ? acc->u.b && v->u.b
							     : acc->u.b || v->u.b;
			continue;
		}
		if (!is_int_item(v) || !is_int_item(acc))
			return false;
		const DimExpr *a = flat_dim_of(x->F, acc), *b = flat_dim_of(x->F, v);
		const DimExpr *r = op == SHAPE_OP_SUM_REDUCE ? dim_add(t, a, b)
				 : op == SHAPE_OP_MAX_REDUCE ? dim_max(t, a, b)
							     : dim_min(t, a, b);
		if (!item_dim(x->F, r, acc))
			return false;
	}
	return op != SHAPE_OP_SUM_REDUCE || !x->args[2]->u.b;
}

static bool fold_constant(Fold *x)
{
	const Value *value = x->args[1];
	for (uint64_t i = 0; i < x->n; i++)
		if (!flat_item_cast(x->F, value->u.items[value->n == 1 ? 0 : i],
				    x->dt, &x->items[i]))
			return false;
	return true;
}

/* tract_core_shape_of: the input's extents, symbolic ones as TDims. */
static bool fold_shape_of(Fold *x)
{
	const Shape *in = &x->shape[0];
	for (uint32_t d = 0; d < in->rank; d++)
		if (!item_dim(x->F, dim_decode(flat_dims(x->F), in->dims[d]), &x->items[d]))
			return false;
	return true;
}

/* The folders, by operation; NULL: not folded. */
static const FoldFn folders[SHAPE_OP_COUNT] = {
	[SHAPE_OP_CONSTANT] = fold_constant,
	[SHAPE_OP_COPY] = fold_unary, [SHAPE_OP_NEG] = fold_unary,
	[SHAPE_OP_RCP] = fold_unary, [SHAPE_OP_EXP] = fold_unary,
	[SHAPE_OP_LOG] = fold_unary, [SHAPE_OP_SIN] = fold_unary,
	[SHAPE_OP_COS] = fold_unary, [SHAPE_OP_ABS] = fold_unary,
	[SHAPE_OP_SIGN] = fold_unary, [SHAPE_OP_NOT] = fold_unary,
	[SHAPE_OP_FLOOR] = fold_unary, [SHAPE_OP_CEIL] = fold_unary,
	[SHAPE_OP_ROUND] = fold_unary,
	[SHAPE_OP_ADD] = fold_binary, [SHAPE_OP_SUB] = fold_binary,
	[SHAPE_OP_MUL] = fold_binary, [SHAPE_OP_DIV] = fold_binary,
	[SHAPE_OP_POW] = fold_binary, [SHAPE_OP_LT] = fold_binary,
	[SHAPE_OP_GT] = fold_binary, [SHAPE_OP_LE] = fold_binary,
	[SHAPE_OP_GE] = fold_binary, [SHAPE_OP_EQ] = fold_binary,
	[SHAPE_OP_NE] = fold_binary, [SHAPE_OP_AND] = fold_binary,
	[SHAPE_OP_OR] = fold_binary,
	[SHAPE_OP_SELECT] = fold_select,
	[SHAPE_OP_SUM_REDUCE] = fold_reduce, [SHAPE_OP_MAX_REDUCE] = fold_reduce,
	[SHAPE_OP_MIN_REDUCE] = fold_reduce, [SHAPE_OP_ALL_REDUCE] = fold_reduce,
	[SHAPE_OP_ANY_REDUCE] = fold_reduce,
	[SHAPE_OP_RESHAPE] = fold_copy, [SHAPE_OP_SQUEEZE] = fold_copy,
	[SHAPE_OP_UNSQUEEZE] = fold_copy, [SHAPE_OP_TRANSPOSE] = fold_transpose,
	[SHAPE_OP_CONCAT] = fold_concat, [SHAPE_OP_SLICE] = fold_slice,
	[SHAPE_OP_TILE] = fold_tile, [SHAPE_OP_GATHER] = fold_gather,
	[SHAPE_OP_CAST] = fold_cast,
	[SHAPE_OP_TRACT_CORE_SHAPE_OF] = fold_shape_of,
	[SHAPE_OP_TRACT_CORE_CAST] = fold_cast,
};

/* Whether a shape holds only known extents, and its volume. */
static bool concrete(const Shape *s, uint64_t *volume)
{
	uint64_t v = 1;
	if (!s->known || s->rank > FOLD_RANK)
		return false;
	for (uint32_t d = 0; d < s->rank; d++) {
		if (dim_is_symbolic(s->dims[d]) || s->dims[d] > FOLD_MAX)
			return false;
		v *= (uint64_t)s->dims[d];
		if (v > FOLD_MAX)
			return false;
	}
	*volume = v;
	return true;
}

/* What is known of the tensor arguments of op: 1 all known (x->in
 * filled), 0 not all known, -1 some known only when the model is
 * loaded and none at run time only. */
static int gather_inputs(Fold *x)
{
	const SemaFrag *f = x->op->frag;
	int state = 1;
	for (size_t i = 0; i < f->nparams && i < FOLD_PARAMS; i++) {
		const Value *v = x->args[i];
		x->in[i] = NULL;
		if (ty_is_attribute(f->params[i].type))
			continue;
		if (v->kind == VAL_ARRAY) { /* concat: each item known */
			for (size_t k = 0; k < v->n; k++) {
				const FlatKnown *kn = flat_known(x->F, v->u.items[k]);
				uint64_t n;
				Shape s = value_shape(v->u.items[k]);
				if (!kn || !concrete(&s, &n))
					return 0;
				if (!kn->items)
					state = -1;
			}
			continue;
		}
		x->in[i] = flat_known(x->F, v);
		x->shape[i] = value_shape(v);
		uint64_t n;
		if (!x->in[i] || !concrete(&x->shape[i], &n))
			return x->in[i] && !x->in[i]->items ? -1 : 0;
		if (!x->in[i]->items)
			state = -1;
	}
	return state;
}

const Value *flat_dim_operator(Flattener *F, AstOp op, const Value *a,
			       const Value *b, Loc loc, const Frame *frame)
{
	DimTable *t = flat_dims(F);
	const DimExpr *x = flat_dim_of(F, a), *y = flat_dim_of(F, b), *r = NULL;
	int64_t k = 0;
	static const EwFn comparisons[] = {
		[AST_OP_LT] = EF_LT, [AST_OP_LE] = EF_LE,
		[AST_OP_GT] = EF_GT, [AST_OP_GE] = EF_GE,
		[AST_OP_EQ] = EF_EQ, [AST_OP_NE] = EF_NE,
	};
	switch (op) {
	case AST_OP_PLUS:
		r = dim_add(t, x, y);
		break;
	case AST_OP_MINUS:
		r = dim_sub(t, x, y);
		break;
	case AST_OP_MUL:
		r = dim_mul(t, x, y);
		break;
	case AST_OP_DIV:
		if (dim_is_const(y, &k) && k > 0) {
			r = dim_div(t, x, k);
			break;
		}
		if ((r = dim_exact_div(t, x, y)) != NULL)
			break; /* (2 * S) / S is 2 */
		flat_error(F, DIAG_E0815, loc, frame, "'%s / %s': an integer known only when the model runs is divided by a positive number only", dim_text(t, x), dim_text(t, y));
		return NULL;
	case AST_OP_POW:
		if (!dim_is_const(y, &k) || k < 0 || k > 64) {
			flat_error(F, DIAG_E0815, loc, frame, "'%s ^ %s': an integer known only when the model runs is raised to a power from 0 to 64 only", dim_text(t, x), dim_text(t, y));
			return NULL;
		}
		r = dim_const(t, 1);
		for (int64_t i = 0; i < k && r; i++)
			r = dim_mul(t, r, x);
		break;
	case AST_OP_LT:
	case AST_OP_LE:
	case AST_OP_GT:
	case AST_OP_GE:
	case AST_OP_EQ:
	case AST_OP_NE: {
		const DimExpr *d = dim_sub(t, x, y);
		int v = d ? decide(comparisons[op], d) : -1;
		if (v < 0) {
			flat_error(F, DIAG_E0815, loc, frame, "'%s %s %s' depends on values known only when the model runs", dim_text(t, x), ast_op_spelling(op), dim_text(t, y));
			return NULL;
		}
		return flat_val_bool(F, v == 1);
	}
	case AST_OP_AND:
	case AST_OP_OR:
	case AST_OP_NOT:
	case AST_OP_IN:
		break;
	}
	if (!r) {
		flat_error(F, DIAG_E0803, loc, frame, "integer overflow: a coefficient of the result does not fit in 64 bits");
		return NULL;
	}
	return flat_val_dim(F, r);
}

/* Whether f is the standard min (-1) or max (1), else 0: operations
 * tract computes as one, where the standard bodies compare. */
static int min_or_max(const SemaFrag *f)
{
	return strcmp(f->name, "max") == 0 ? 1 : strcmp(f->name, "min") == 0 ? -1 : 0;
}

/* The minimum (which < 0) or maximum of integer items x and y. */
static bool min_max_item(Flattener *F, int which, const Value *x,
			 const Value *y, Value *out)
{
	if (!is_int_item(x) || !is_int_item(y))
		return false;
	DimTable *t = flat_dims(F);
	const DimExpr *p = flat_dim_of(F, x), *q = flat_dim_of(F, y);
	return item_dim(F, which > 0 ? dim_max(t, p, q) : dim_min(t, p, q), out);
}

const Value *flat_fold_symbolic_call(Flattener *F, const SemaFrag *f,
				     const Value *const *args)
{
	int which = min_or_max(f);
	const Value *a = args[0], *b = args[1];
	Value r;
	if (!which || (a->kind != VAL_SYMBOL && b->kind != VAL_SYMBOL) ||
	    !min_max_item(F, which, a, b, &r))
		return NULL;
	return r.kind == VAL_INT ? flat_val_int(F, r.u.i) : flat_val_dim(F, r.u.dim);
}

void flat_fold_compound(Flattener *F, const SemaFrag *f,
			const Value *const *args, const Value *result)
{
	int which = min_or_max(f);
	if (!which || result->kind != VAL_TENSOR || F->dry)
		return;
	const FlatKnown *a = flat_known(F, args[0]), *b = flat_known(F, args[1]);
	if (!a || !b || !a->items || !b->items ||
	    (a->n != b->n && a->n != 1 && b->n != 1))
		return;
	uint32_t n = a->n > b->n ? a->n : b->n;
	Shape s = flat_tensor_shape(result->u.t);
	uint64_t volume;
	if (!concrete(&s, &volume) || volume != n)
		return; /* a broadcast beyond one item: left to the expansion */
	Value *items = ARENA_ARRAY(F->arena, Value, n ? n : 1);
	for (uint32_t i = 0; i < n; i++)
		if (!min_max_item(F, which, &a->items[a->n == 1 ? 0 : i],
				  &b->items[b->n == 1 ? 0 : i], &items[i]))
			return;
	flat_set_known(F, result->u.t, items, n);
}

/* ---- ramps: vectors of a symbolic length ------------------------------------ */

/* Item i of the ramp start + i * step, into *out; false on overflow. */
static bool ramp_item(Flattener *F, const Value *ramp, int64_t i, Value *out)
{
	DimTable *t = flat_dims(F);
	const DimExpr *k = dim_mul(t, flat_dim_of(F, &ramp[1]), dim_const(t, i));
	return k && item_dim(F, dim_add(t, flat_dim_of(F, &ramp[0]), k), out);
}

/* Vector out is the ramp start + i * step: its items when its length is
 * known, else the ramp. */
static void known_ramp(Flattener *F, const FlatTensor *out, Value start,
		       Value step)
{
	Shape s = flat_tensor_shape(out);
	uint64_t n;
	if (!s.known || s.rank != 1)
		return;
	if (!concrete(&s, &n)) {
		set_ramp(F, out, start, step);
		return;
	}
	Value ramp[2] = { start, step };
	Value *items = ARENA_ARRAY(F->arena, Value, n ? n : 1);
	for (uint64_t i = 0; i < n; i++)
		if (!ramp_item(F, ramp, (int64_t)i, &items[i]))
			return;
	flat_set_known(F, out, items, (uint32_t)n);
}

/* tract_core_range(start, end, step): item i is start + i * step, of a
 * count known (the items) or not (a ramp). Integers only: the reals of a
 * range are not folded. */
static void fold_range(Flattener *F, const FlatOp *op, const FlatTensor *out)
{
	const Value *const *args = flat_op_args(op);
	for (int i = 0; i < 3; i++)
		if (!is_int_item(args[i]))
			return;
	known_ramp(F, out, *args[0], *args[2]);
}

/* slice of a ramp (one axis, a begin of at least 0: the shape function
 * took it to lie within the axis): the items, or a ramp again. */
static void fold_ramp_slice(Flattener *F, const FlatOp *op,
			    const FlatTensor *out, const Value *ramp)
{
	const Value *const *args = flat_op_args(op);
	const Value *begin = args[2], *stride = args[4];
	if (args[1]->n != 1 || begin->u.items[0]->kind != VAL_INT ||
	    begin->u.items[0]->u.i < 0)
		return;
	int64_t b = begin->u.items[0]->u.i;
	int64_t st = stride->n ? stride->u.items[0]->u.i : 1;
	DimTable *t = flat_dims(F);
	Value from[2];
	if (!ramp_item(F, ramp, b, &from[0]) ||
	    !item_dim(F, dim_mul(t, flat_dim_of(F, &ramp[1]), dim_const(t, st)), &from[1]))
		return;
	known_ramp(F, out, from[0], from[1]);
}

void flat_fold(Flattener *F, const FlatOp *op)
{
	if (op->prim == SHAPE_OP_NONE || op->frag->nresults != 1 ||
	    op->results[0]->kind != VAL_TENSOR || F->dry)
		return;
	const FlatTensor *out = op->results[0]->u.t;
	if (op->prim == SHAPE_OP_VARIABLE) {
		flat_set_known(F, out, NULL, 0); /* its data, when loaded */
		return;
	}
	if (op->prim == SHAPE_OP_TRACT_CORE_RANGE) {
		fold_range(F, op, out);
		return;
	}
	const FlatKnown *k0 = op->prim == SHAPE_OP_SLICE ? flat_known(F, flat_op_args(op)[0]) : NULL;
	if (k0 && k0->ramp) {
		fold_ramp_slice(F, op, out, k0->ramp);
		return;
	}
	Fold x = { .F = F, .op = op, .args = flat_op_args(op), .out = out,
		   .dt = (DType)out->datum };
	x.oshape = flat_tensor_shape(out);
	bool shape_only = op->prim == SHAPE_OP_TRACT_CORE_SHAPE_OF;
	int state = shape_only ? 1 : gather_inputs(&x);
	if (shape_only)
		x.shape[0] = value_shape(x.args[0]);
	FoldFn fn = folders[op->prim];
	if (state == 0 || !fn || (shape_only && !x.shape[0].known))
		return;
	if (state < 0 || !concrete(&x.oshape, &x.n)) {
		if (state < 0)
			flat_set_known(F, out, NULL, 0);
		return;
	}
	/* within the budget of compile-time values, silently: beyond it the
	 * value is only not known */
	uint64_t max = F->opt->max_value_bytes ? F->opt->max_value_bytes : FLATTEN_DEFAULT_MAX_VALUE_BYTES;
	if (x.n * sizeof(Value) > max - (F->value_bytes < max ? F->value_bytes : max))
		return;
	F->value_bytes += x.n * sizeof(Value);
	x.items = ARENA_ARRAY(F->arena, Value, x.n ? x.n : 1);
	if (fn(&x))
		flat_set_known(F, out, x.items, (uint32_t)x.n);
}
