/*
 * shapes.c - the table of primitives, shape_infer, the helpers every op
 * family shares, and the shape functions of the tensor-introducing
 * operations (spec 4.1), the element-wise operations (4.2) and the reduce
 * operations (4.4).
 */
#include "shapes/shapes_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- the table ---------------------------------------------------------- */

enum { MAX_PARAMS = 16 };
_Static_assert(SF_SYMP(MAX_PARAMS - 1) != 0, "a parameter of every row has its SF_SYMP bit");

static const struct {
	const char *name;
	ShapeFn fn;
	uint64_t flags;
	const char *params[MAX_PARAMS]; /* in declaration order */
} prims[] = {
#define SHAPE_PRIM(id, name, fn, flags, ...) \
	{ name, fn, flags, { __VA_ARGS__ } },
#include "shapes/primitives.def"
#undef SHAPE_PRIM
};

_Static_assert(UTIL_ARRAY_LEN(prims) == SHAPE_OP_COUNT,
	       "primitives.def and the op enum disagree");

const char *shape_op_name(ShapeOp op)
{
	return op < SHAPE_OP_COUNT ? prims[op].name : "?";
}

uint64_t shape_op_flags(ShapeOp op)
{
	return op < SHAPE_OP_COUNT ? prims[op].flags : 0;
}

size_t shape_op_nparams(ShapeOp op)
{
	size_t n = 0;
	while (op < SHAPE_OP_COUNT && n < MAX_PARAMS && prims[op].params[n])
		n++;
	return n;
}

const char *shape_op_param(ShapeOp op, size_t i)
{
	return i < shape_op_nparams(op) ? prims[op].params[i] : "?";
}

ShapeOp shape_op_lookup(const char *name)
{
	for (size_t op = 0; op < SHAPE_OP_COUNT; op++)
		if (strcmp(prims[op].name, name) == 0)
			return (ShapeOp)op;
	return SHAPE_OP_NONE;
}

/* ---- shapes ---------------------------------------------------------- */

bool shape_volume(const Shape *s, int64_t *out)
{
	int64_t v = 1;
	for (uint32_t i = 0; i < s->rank; i++)
		if (dim_is_symbolic(s->dims[i]) ||
		    __builtin_mul_overflow(v, s->dims[i], &v))
			return false;
	*out = v;
	return true;
}

void shape_print(StrBuf *out, const Shape *s)
{
	if (!s->known) {
		sb_puts(out, "[?]");
		return;
	}
	/* by hand: listings of a million shapes print a few million
	 * extents */
	char buf[24];
	sb_putc(out, '[');
	for (uint32_t i = 0; i < s->rank; i++) {
		if (i)
			sb_putc(out, ',');
		if (dim_is_symbolic(s->dims[i])) {
			dim_print(out, dim_expr_of(s->dims[i]), false);
			continue;
		}
		uint64_t v = (uint64_t)s->dims[i];
		size_t k = sizeof(buf);
		do {
			buf[--k] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		sb_putn(out, buf + k, sizeof(buf) - k);
	}
	sb_putc(out, ']');
}

bool shape_equal(const Shape *a, const Shape *b)
{
	if (a->known != b->known || a->rank != b->rank)
		return false;
	for (uint32_t i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return false;
	return true;
}

/* ---- shape_infer ------------------------------------------------------ */

bool shape_infer(ShapeCall *c)
{
	assert(c->op < SHAPE_OP_COUNT);
	c->known = true;
	size_t np = shape_op_nparams(c->op);
	for (size_t p = 0; p < np; p++)
		for (size_t k = 0; k < c->in[p].n; k++)
			if (!c->in[p].items[k].known)
				c->known = false;
	c->out.dims = NULL;
	c->out.rank = 0;
	c->out.known = false;
	c->outs = NULL;
	c->nouts = 0;
	c->code = DIAG_CODE_COUNT;
	c->param = -1;
	c->named = 0;
	for (size_t k = 0; k < SHAPE_MAX_RESULTS; k++)
		c->dtypes[k] = DT_NONE;
	c->data_dependent = false;
	return prims[c->op].fn(c);
}

/* ---- helpers ----------------------------------------------------------- */

bool shape_fail(ShapeCall *c, DiagCode code, int param, const char *fmt, ...)
{
	c->code = code;
	c->param = param;
	sb_clear(c->msg);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(c->msg, fmt, ap);
	va_end(ap);
	return false;
}

void shape_hint(ShapeCall *c, const char *fmt, ...)
{
	sb_clear(c->hint);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(c->hint, fmt, ap);
	va_end(ap);
}

/* The name the caller gives the argument of p, or NULL. */
static const char *arg_name(const ShapeCall *c, int p)
{
	return c->arg_name && p >= 0 ? c->arg_name(c->arg_ctx, p) : NULL;
}

const char *shape_pname(ShapeCall *c, int p)
{
	const char *n = arg_name(c, p);
	if (p >= 0 && p < 32)
		c->named |= (uint32_t)1 << p;
	return n ? n : shape_op_param(c->op, (size_t)p);
}

const char *shape_role(ShapeCall *c, int p, const char *role)
{
	const char *n = arg_name(c, p);
	if (!n || strcmp(n, shape_op_param(c->op, (size_t)p)) == 0)
		return role; /* not "the input 'input'" */
	return arena_printf(c->arena, "%s '%s'", role, n);
}

const char *shape_shape_str(ShapeCall *c, const Shape *s)
{
	StrBuf b;
	sb_init(&b);
	shape_print(&b, s);
	const char *r = arena_strdup(c->arena, sb_str(&b));
	sb_free(&b);
	return r;
}

const char *shape_sum3(ShapeCall *c, int64_t a, int64_t b, int64_t d)
{
	unsigned long long mb = b < 0 ? -(uint64_t)b : (uint64_t)b;
	unsigned long long md = d < 0 ? -(uint64_t)d : (uint64_t)d;
	return arena_printf(c->arena, "%lld %c %llu %c %llu", (long long)a,
			    b < 0 ? '-' : '+', mb, d < 0 ? '-' : '+', md);
}

void shape_put_shape(ShapeCall *c, const Shape *s)
{
	shape_print(c->msg, s);
}

bool shape_str_is(const Value *v, const char *s)
{
	assert(v->kind == VAL_STR);
	size_t n = strlen(s);
	return v->n == n && memcmp(v->u.str, s, n) == 0;
}

bool shape_check_enum(ShapeCall *c, int p, const char *const *allowed)
{
	const Value *v = c->args[p];
	for (size_t i = 0; allowed[i]; i++)
		if (shape_str_is(v, allowed[i]))
			return true;
	StrBuf b;
	sb_init(&b);
	sb_put_escaped(&b, v->u.str, v->n > 40 ? 40 : v->n);
	shape_fail(c, DIAG_E0909, p, "%s '%s' is not one of ", shape_pname(c, p),
		sb_str(&b));
	for (size_t i = 0; allowed[i]; i++)
		sb_printf(c->msg, "%s'%s'", i == 0 ? "" : allowed[i + 1] ? ", "
								       : " or ",
			  allowed[i]);
	sb_printf(c->msg, ", which %s accepts", shape_op_name(c->op));
	sb_free(&b);
	return false;
}

bool shape_check_items_min(ShapeCall *c, int p, int64_t min, DiagCode code)
{
	const Value *v = c->args[p];
	for (size_t i = 0; i < shape_len(v); i++)
		if (!shape_item_symbolic(v, i) && shape_item(v, i) < min)
			return shape_fail(c, code, p,
				       "item %zu of '%s' is %lld; it must be %s",
				       i, shape_pname(c, p), (long long)shape_item(v, i),
				       min > 0 ? "positive" : "non-negative");
	return true;
}

bool shape_check_len(ShapeCall *c, int p, size_t want, bool empty_ok,
		  const char *what)
{
	size_t n = shape_len(c->args[p]);
	if (n == want || (empty_ok && n == 0))
		return true;
	return shape_fail(c, DIAG_E0907, p, "'%s' has %zu item%s; it needs %zu (%s)%s",
		       shape_pname(c, p), n, n == 1 ? "" : "s", want, what,
		       empty_ok ? " or none" : "");
}

const bool *shape_check_axes(ShapeCall *c, int p, size_t limit, int of,
			  const char *what)
{
	const Value *v = c->args[p];
	size_t n = shape_len(v);
	bool *marked = ARENA_ARRAY(c->arena, bool, limit ? limit : 1);
	for (size_t i = 0; i < n; i++) {
		int64_t a = shape_item(v, i);
		if (a < 0 || (uint64_t)a >= limit) {
			shape_fail(c, DIAG_E0910, p, "axis %lld in '%s' is out of range: %s has %zu dimension%s", (long long)a, shape_pname(c, p), of >= 0 ? shape_role(c, of, what) : what, limit, limit == 1 ? "" : "s");
			return NULL;
		}
		if (marked[a]) {
			shape_fail(c, DIAG_E0911, p, "axis %lld is listed twice in '%s'", (long long)a, shape_pname(c, p));
			return NULL;
		}
		marked[a] = true;
	}
	return marked;
}

int64_t *shape_dims(ShapeCall *c, size_t rank)
{
	return ARENA_ARRAY(c->arena, int64_t, rank ? rank : 1);
}

bool shape_check_volume(ShapeCall *c, int p, const int64_t *dims, size_t rank)
{
	Shape s = { dims, (uint32_t)rank, true };
	int64_t v = 1;
	bool fits = true;
	/* the known extents: a symbolic one is checked when the model runs */
	for (size_t i = 0; i < rank && fits; i++)
		fits = dim_is_symbolic(dims[i]) ||
		       !__builtin_mul_overflow(v, dims[i], &v);
	if (fits)
		return true;
	shape_fail(c, DIAG_E0929, p, "the volume of the shape ");
	shape_put_shape(c, &s);
	sb_puts(c->msg, " exceeds 2^63 - 1");
	return false;
}

bool shape_result(ShapeCall *c, const int64_t *dims, size_t rank)
{
	if (!shape_check_volume(c, -1, dims, rank))
		return false;
	c->out.dims = dims;
	c->out.rank = (uint32_t)rank;
	c->out.known = true;
	return true;
}

bool shape_result_as(ShapeCall *c, const Shape *s)
{
	c->out = *s;
	return true;
}

bool shape_unknown(ShapeCall *c)
{
	c->out.known = false;
	c->out.rank = 0;
	c->out.dims = NULL;
	return true;
}

bool shape_add(ShapeCall *c, int p, int64_t a, int64_t b, int64_t *out)
{
	if (!__builtin_add_overflow(a, b, out))
		return true;
	return shape_fail(c, DIAG_E0929, p,
		       "%lld + %lld exceeds 2^63 - 1", (long long)a,
		       (long long)b);
}

bool shape_mul(ShapeCall *c, int p, int64_t a, int64_t b, int64_t *out)
{
	if (!__builtin_mul_overflow(a, b, out))
		return true;
	return shape_fail(c, DIAG_E0929, p,
		       "%lld * %lld exceeds 2^63 - 1", (long long)a,
		       (long long)b);
}

/* ---- symbolic extents ---------------------------------------------------- */

const char *shape_dim_text(ShapeCall *c, int64_t d)
{
	if (!dim_is_symbolic(d))
		return arena_printf(c->arena, "%lld", (long long)d);
	StrBuf b;
	sb_init(&b);
	dim_print(&b, dim_expr_of(d), false);
	const char *r = arena_strdup(c->arena, sb_str(&b));
	sb_free(&b);
	return r;
}

bool shape_is_symbolic(const Shape *s)
{
	for (uint32_t i = 0; i < s->rank; i++)
		if (dim_is_symbolic(s->dims[i]))
			return true;
	return false;
}

/* The extent of expression e, or a failure (E0929) when it is NULL (an
 * overflow) or a negative constant (an extent below 0). */
static bool dim_out(ShapeCall *c, int p, const DimExpr *e, int64_t *out)
{
	int64_t v;
	if (!e)
		return shape_fail(c, DIAG_E0929, p, "an extent known only when the model runs has a coefficient beyond 2^63 - 1");
	if (dim_is_const(e, &v) && v < 0)
		return shape_fail(c, DIAG_E0915, p, "an extent would be %lld", (long long)v);
	*out = dim_encode(e);
	return true;
}

bool shape_dim_add(ShapeCall *c, int p, int64_t a, int64_t b, int64_t *out)
{
	if (!dim_is_symbolic(a) && !dim_is_symbolic(b))
		return shape_add(c, p, a, b, out);
	return dim_out(c, p, dim_add(c->dims, dim_decode(c->dims, a), dim_decode(c->dims, b)), out);
}

bool shape_dim_offset(ShapeCall *c, int p, int64_t d, int64_t k, int64_t *out)
{
	if (!dim_is_symbolic(d)) {
		if (!shape_add(c, p, d, k, out))
			return false;
		if (*out < 0)
			return shape_fail(c, DIAG_E0915, p, "an extent would be %lld", (long long)*out);
		return true;
	}
	return dim_out(c, p, dim_add(c->dims, dim_expr_of(d), dim_const(c->dims, k)), out);
}

bool shape_dim_sub(ShapeCall *c, int p, int64_t a, int64_t b, int64_t *out)
{
	if (!dim_is_symbolic(a) && !dim_is_symbolic(b)) {
		*out = a - b; /* extents: no overflow */
		return true;
	}
	return dim_out(c, p, dim_sub(c->dims, dim_decode(c->dims, a), dim_decode(c->dims, b)), out);
}

bool shape_dim_mul(ShapeCall *c, int p, int64_t a, int64_t b, int64_t *out)
{
	if (!dim_is_symbolic(a) && !dim_is_symbolic(b))
		return shape_mul(c, p, a, b, out);
	return dim_out(c, p, dim_mul(c->dims, dim_decode(c->dims, a), dim_decode(c->dims, b)), out);
}

bool shape_dim_div(ShapeCall *c, int p, int64_t a, int64_t k, int64_t *out)
{
	assert(k > 0);
	if (!dim_is_symbolic(a)) {
		*out = shape_floordiv(a, k);
		return true;
	}
	return dim_out(c, p, dim_div(c->dims, dim_expr_of(a), k), out);
}

bool shape_dim_ceil_div(ShapeCall *c, int p, int64_t a, int64_t k, int64_t *out)
{
	assert(k > 0);
	if (!dim_is_symbolic(a)) {
		*out = shape_ceildiv(a, k);
		return true;
	}
	return dim_out(c, p, dim_ceil_div(c->dims, dim_expr_of(a), k), out);
}

bool shape_dim_exact_div(ShapeCall *c, int64_t a, int64_t b, int64_t *out)
{
	if (!dim_is_symbolic(a) && !dim_is_symbolic(b)) {
		if (b == 0 || a % b != 0)
			return false;
		*out = a / b;
		return true;
	}
	const DimExpr *q = dim_exact_div(c->dims, dim_decode(c->dims, a),
					 dim_decode(c->dims, b));
	int64_t v;
	if (!q || (dim_is_const(q, &v) && v < 0))
		return false;
	*out = dim_encode(q);
	return true;
}

/* ---- 4.1 Tensor Introducing Operations ---------------------------------- */

/* "Items in shape must be strictly positive"; the result has that shape
 * (parameter 0 of external, constant and variable is `shape`). */
static bool intro_shape(ShapeCall *c)
{
	const Value *shape = c->args[0];
	if (!shape_check_items_min(c, 0, 1, DIAG_E0901))
		return false;
	size_t n = shape_len(shape);
	int64_t *dims = shape_dims(c, n);
	for (size_t i = 0; i < n; i++)
		dims[i] = shape_item_dim(shape, i);
	if (!shape_check_volume(c, 0, dims, n))
		return false;
	return shape_result(c, dims, n);
}

/* 4.1.1 External Data Sources */
bool shape_external(ShapeCall *c)
{
	return intro_shape(c);
}

/* 4.1.2 Constants: "The length of value must equal the volume implied by
 * shape or must be 1." */
bool shape_constant(ShapeCall *c)
{
	if (!intro_shape(c))
		return false;
	int64_t volume = 0;
	shape_volume(&c->out, &volume);
	size_t n = shape_len(c->args[1]);
	if (n == 1 || (uint64_t)volume == n)
		return true;
	shape_fail(c, DIAG_E0902, 1, "'value' has %zu item%s; a constant of shape ", n, n == 1 ? "" : "s");
	shape_put_shape(c, &c->out);
	if (volume == 1)
		sb_puts(c->msg, " needs 1");
	else
		sb_printf(c->msg, " needs 1 or %lld", (long long)volume);
	return false;
}

/* 5.1 Container Organization: the label is the path of the variable's
 * tensor file in the model ("a variable with label 'conv1/filter' is
 * placed into the folder 'conv1' under the name 'filter.dat'"), so each
 * part between slashes names a folder or a file inside the model: not
 * empty (a leading, trailing or doubled '/'), not '.' or '..'. The
 * characters of 4.1.3 alone would allow 'a//w' or '../w'. */
static bool label_names_a_file(ShapeCall *c, const char *p, size_t n)
{
	for (size_t start = 0; start <= n;) {
		size_t end = start;
		while (end < n && p[end] != '/')
			end++;
		size_t len = end - start;
		if (len == 0 || (len == 1 && p[start] == '.') ||
		    (len == 2 && p[start] == '.' && p[start + 1] == '.')) {
			if (len == 0)
				shape_fail(c, DIAG_E0903, 1, "the label has an empty part (at offset %zu): it is the path of the variable's tensor file in the model (spec 5.1)", start);
			else
				shape_fail(c, DIAG_E0903, 1, "the label has a part '%.*s' (at offset %zu): it is the path of the variable's tensor file in the model, and cannot leave it or name a folder (spec 5.1)", (int)len, p + start, start);
			shape_hint(c, "write the label as folder names and a file name separated by single '/', as in 'conv1/filter'");
			return false;
		}
		start = end + 1;
	}
	return true;
}

/* 4.1.3 Variables: "label must not be empty. Labels must only contain the
 * following characters: [a-z], [A-Z], [0-9], _, -, ., /, \." (Whether
 * variables sharing a label agree in shape is a rule across operations:
 * the flattener checks it.) */
bool shape_variable(ShapeCall *c)
{
	if (!intro_shape(c))
		return false;
	const Value *label = c->args[1];
	if (label->n == 0)
		return shape_fail(c, DIAG_E0903, 1, "the label is empty");
	for (size_t i = 0; i < label->n; i++) {
		unsigned char ch = (unsigned char)label->u.str[i];
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || (ch && strchr("_-./\\", ch)))
			continue;
		char shown[8];
		if (ch == '\'')
			snprintf(shown, sizeof(shown), "\"'\"");
		else if (ch >= 0x20 && ch < 0x7f)
			snprintf(shown, sizeof(shown), "'%c'", ch);
		else
			snprintf(shown, sizeof(shown), "\\x%02x", ch);
		shape_fail(c, DIAG_E0903, 1, "the label contains %s (at offset %zu), which labels may not contain", shown, i);
		shape_hint(c, "labels may contain letters, digits, '_', '-', '.', '/' and '\\'");
		return false;
	}
	return label_names_a_file(c, label->u.str, label->n);
}

/* ---- 4.2 Element-wise Operations ---------------------------------------- */

/* 4.2.1 Unary Operations: "The shape of y is equal to that of x." (and
 * 4.5.8 cast: the same shape as the input) */
bool shape_unary(ShapeCall *c)
{
	if (!c->known)
		return shape_unknown(c);
	return shape_result_as(c, shape_in(c, 0));
}

/* The broadcast of the shapes of parameters ps[0..n) (spec 4.2.2, 4.2.3):
 * per dimension, the extents are equal or singular, trailing dimensions
 * being singleton (spec 2.2). The result shares the extents of an input
 * it equals. */
static bool broadcast(ShapeCall *c, const int *ps, size_t n)
{
	uint32_t rank = 0;
	for (size_t k = 0; k < n; k++)
		if (shape_in(c, ps[k])->rank > rank)
			rank = shape_in(c, ps[k])->rank;
	for (uint32_t d = 0; d < rank; d++) {
		int64_t e = 1;
		size_t from = 0;
		for (size_t k = 0; k < n; k++) {
			int64_t x = shape_extent(shape_in(c, ps[k]), d);
			if (x == 1 || x == e)
				continue;
			if (e == 1) {
				e = x;
				from = k;
				continue;
			}
			shape_fail(c, DIAG_E0905, ps[k], "the shapes of '%s' ",
				shape_pname(c, ps[from]));
			shape_put_shape(c, shape_in(c, ps[from]));
			sb_printf(c->msg, " and '%s' ", shape_pname(c, ps[k]));
			shape_put_shape(c, shape_in(c, ps[k]));
			sb_printf(c->msg,
				  " do not broadcast: dimension %u is %s in one and %s in the other",
				  d, shape_dim_text(c, e), shape_dim_text(c, x));
			shape_hint(c, "along each dimension the extents must be equal, or one of them 1");
			return false;
		}
	}
	/* an input of full rank holding every non-singular extent is the
	 * result */
	for (size_t k = 0; k < n; k++) {
		const Shape *s = shape_in(c, ps[k]);
		if (s->rank != rank)
			continue;
		bool same = true;
		for (size_t j = 0; j < n && same; j++)
			for (uint32_t d = 0; d < rank && same; d++) {
				int64_t x = shape_extent(shape_in(c, ps[j]), d);
				same = x == 1 || x == s->dims[d];
			}
		if (same)
			return shape_result_as(c, s);
	}
	int64_t *dims = shape_dims(c, rank);
	for (uint32_t d = 0; d < rank; d++) {
		dims[d] = 1;
		for (size_t k = 0; k < n; k++)
			if (shape_extent(shape_in(c, ps[k]), d) != 1)
				dims[d] = shape_extent(shape_in(c, ps[k]), d);
	}
	return shape_result(c, dims, rank);
}

/* 4.2.2 Binary Operations */
bool shape_binary(ShapeCall *c)
{
	static const int ps[] = { 0, 1 };
	if (!c->known)
		return shape_unknown(c);
	return broadcast(c, ps, 2);
}

/* 4.2.3 Select Operation: three-way broadcasting. */
bool shape_select(ShapeCall *c)
{
	static const int ps[] = { 0, 1, 2 };
	if (!c->known)
		return shape_unknown(c);
	return broadcast(c, ps, 3);
}

/* ---- 4.4 Reduce Operations ---------------------------------------------- */

/* "Items in axes must be unique, non-negative and less than the rank of
 * input." The output is singleton along axes. */
bool shape_reduce(ShapeCall *c)
{
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	const bool *reduced = shape_check_axes(c, 1, in->rank, 0, "the input");
	if (!reduced)
		return false;
	if (shape_len(c->args[1]) == 0)
		return shape_result_as(c, in);
	int64_t *dims = shape_dims(c, in->rank);
	for (uint32_t d = 0; d < in->rank; d++)
		dims[d] = reduced[d] ? 1 : in->dims[d];
	return shape_result(c, dims, in->rank);
}
