/*
 * port_report.c - the tables of the targets, the conditions of their
 * rows (the vocabulary of `checks` in port.h) tested on an operation of
 * the flat graph (flatten/flatten.h): its parameters, argument values and
 * the shapes of its tensors, read in place; and a report, each operation
 * of a graph looked up in a target's table and counted.
 */
#include "port/port.h"
#include "util/util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW(op, since, kind, target, cite, checks, note) \
	{ #op, since, PORT_##kind, target, cite, checks, note },

static const PortRow openvx_rows[] = {
#include "port/openvx.def"
};
static const PortRow openvino_rows[] = {
#include "port/openvino.def"
};
static const PortRow coreml_rows[] = {
#include "port/coreml.def"
};
static const PortRow onnx_rows[] = {
#include "port/onnx.def"
};
#undef ROW

#define TABLE(rows) rows, sizeof(rows) / sizeof(rows[0])
const PortTarget port_targets[] = {
	{ "openvx", "OpenVX Neural Network Extension 1.3", false, 0, 0, TABLE(openvx_rows) },
	{ "openvino", "OpenVINO opset1", false, 0, 0, TABLE(openvino_rows) },
	{ "coreml", "CoreML NeuralNetwork layers", false, 0, 0, TABLE(coreml_rows) },
	{ "onnx", "ONNX operator set", true, 1, PORT_ONNX_MAX, TABLE(onnx_rows) },
};
const size_t port_ntargets = sizeof(port_targets) / sizeof(port_targets[0]);

const PortTarget *port_target_find(const char *name, unsigned *version)
{
	*version = 0;
	for (size_t i = 0; i < port_ntargets; i++) {
		const PortTarget *t = &port_targets[i];
		size_t n = strlen(t->name);
		if (strncmp(name, t->name, n) != 0)
			continue;
		if (!t->versioned)
			return name[n] ? NULL : t;
		if (name[n] != ':' || name[n + 1] < '0' || name[n + 1] > '9')
			return NULL;
		char *end;
		unsigned long v = strtoul(name + n + 1, &end, 10);
		if (*end || v < t->min_version || v > t->max_version)
			return NULL;
		*version = (unsigned)v;
		return t;
	}
	return NULL;
}

const PortRow *port_row(const PortTarget *t, unsigned version,
			const char *op, unsigned *earliest)
{
	const PortRow *best = NULL;
	unsigned first = 0;
	for (size_t i = 0; i < t->nrows; i++) {
		const PortRow *r = &t->rows[i];
		if (strcmp(r->op, op) != 0)
			continue;
		if (!first || r->since < first)
			first = r->since ? r->since : 1;
		if (r->since <= version && (!best || r->since > best->since))
			best = r;
	}
	if (earliest)
		*earliest = first;
	return best;
}

/* ---- the flat graph, as the conditions read it ------------------------------ */

/* One condition of a `checks` string: KIND:NAME=VALUES, parts optional. */
typedef struct Cond {
	const char *tok, *kind, *name, *vals;
	size_t ntok, nkind, nname, nvals;
} Cond;

typedef struct Ctx {
	const FlatOp *op;
	const char *target;
	char *buf;
	size_t size;
} Ctx;

UTIL_PRINTF(2, 3)
static bool fail(Ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->buf, c->size, fmt, ap);
	va_end(ap);
	return true;
}

/* The argument of op's parameter named name (n bytes), NULL when op has
 * no such parameter. */
static const Value *arg(const FlatOp *op, const char *name, size_t n)
{
	const SemaFrag *f = op->frag;
	for (size_t i = 0; i < f->nparams; i++) {
		const char *a = f->params[i].name;
		if (strlen(a) == n && memcmp(a, name, n) == 0)
			return flat_op_args(op)[i];
	}
	return NULL;
}

/* The number of items of an array or a tuple; 0 for any other value. */
static size_t item_count(const Value *v)
{
	return v->kind == VAL_ARRAY || v->kind == VAL_TUPLE ? v->n : 0;
}

/* The integer v holds; 0 when it is not an integer. */
static int64_t integer(const Value *v)
{
	return v->kind == VAL_INT ? v->u.i : 0;
}

/* The rank of t; 0 when its shape is not known. */
static size_t rank_of(const FlatTensor *t)
{
	return t->known ? t->rank : 0;
}

/* Extent i of t: -1 when known only as the model runs, 0 when t's shape
 * is not known or i is past its rank. */
static int64_t dim_of(const FlatTensor *t, size_t i)
{
	if (!t->known || i >= t->rank)
		return 0;
	return dim_is_symbolic(t->dims[i]) ? -1 : t->dims[i];
}

/* The name of t's data type, as `dtype=` writes it. */
static const char *dtype_of(const FlatTensor *t)
{
	TypeKind k = flat_tensor_kind(t);
	return k == TY_INTEGER ? "integer" : k == TY_LOGICAL ? "logical" : "scalar";
}

/* ---- conditions --------------------------------------------------------------- */

static bool is(const char *s, size_t n, const char *word)
{
	return s && strlen(word) == n && memcmp(s, word, n) == 0;
}

/* Whether the comma-separated list vals (n bytes) holds word (len bytes). */
static bool in_list(const char *vals, size_t n, const char *word, size_t len)
{
	const char *p = vals, *end = vals + n;
	while (p <= end) {
		const char *q = memchr(p, ',', (size_t)(end - p));
		if (!q)
			q = end;
		if ((size_t)(q - p) == len && memcmp(p, word, len) == 0)
			return true;
		p = q + 1;
	}
	return false;
}

/* Whether the number x is in the comma-separated list vals. */
static bool in_numbers(const char *vals, size_t n, double x)
{
	const char *p = vals, *end = vals + n;
	while (p < end) {
		char *q;
		double v = strtod(p, &q);
		if (q != p && v == x)
			return true;
		p = memchr(p, ',', (size_t)(end - p));
		if (!p)
			break;
		p++;
	}
	return false;
}

/* The first tensor of v (through arrays and tuples), NULL when none. */
static const FlatTensor *first_tensor(const Value *v)
{
	if (v->kind == VAL_TENSOR)
		return v->u.t;
	for (size_t i = 0; i < item_count(v); i++) {
		const FlatTensor *t = first_tensor(v->u.items[i]);
		if (t)
			return t;
	}
	return NULL;
}

/* The first tensor among the n values vals. */
static const FlatTensor *first_of(const Value *const *vals, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const FlatTensor *t = first_tensor(vals[i]);
		if (t)
			return t;
	}
	return NULL;
}

static const FlatTensor *input_tensor(const FlatOp *op)
{
	return first_of(flat_op_args(op), op->frag->nparams);
}

static const FlatTensor *output_tensor(const FlatOp *op)
{
	return first_of(op->results, op->frag->nresults);
}

/* The first tensor of v whose type is not in the list, NULL when none. */
static const FlatTensor *bad_dtype(const Value *v, const Cond *d)
{
	if (v->kind == VAL_TENSOR) {
		const char *name = dtype_of(v->u.t);
		return in_list(d->vals, d->nvals, name, strlen(name)) ? NULL : v->u.t;
	}
	for (size_t i = 0; i < item_count(v); i++) {
		const FlatTensor *t = bad_dtype(v->u.items[i], d);
		if (t)
			return t;
	}
	return NULL;
}

static bool check_dtype(Ctx *c, const Cond *d)
{
	const FlatTensor *t = NULL;
	const Value **args = flat_op_args(c->op);
	for (size_t i = 0; !t && i < c->op->frag->nparams; i++)
		t = bad_dtype(args[i], d);
	for (size_t i = 0; !t && i < c->op->frag->nresults; i++)
		t = bad_dtype(c->op->results[i], d);
	if (!t)
		return false;
	return fail(c, "tensors of type %s are not supported (%.*s only)", dtype_of(t), (int)d->nvals, d->vals);
}

/* Whether rank r is in "A..B" or "A,B,...". */
static bool rank_ok(const Cond *d, size_t r)
{
	const char *dots = memchr(d->vals, '.', d->nvals);
	if (!dots)
		return in_numbers(d->vals, d->nvals, (double)r);
	return r >= strtoul(d->vals, NULL, 10) && r <= strtoul(dots + 2, NULL, 10);
}

static bool check_rank(Ctx *c, const Cond *d)
{
	const FlatTensor *ts[2] = { input_tensor(c->op), output_tensor(c->op) };
	for (size_t i = 0; i < 2; i++) {
		if (!ts[i] || !ts[i]->known)
			continue;
		size_t r = rank_of(ts[i]);
		if (!rank_ok(d, r))
			return fail(c, "tensors of rank %zu are not supported (rank %.*s)", r, (int)d->nvals, d->vals);
	}
	return false;
}

/* Whether an item of a window is neutral: 1, or a (0, 0) pair. */
static bool neutral(const Value *v)
{
	switch (v->kind) {
	case VAL_INT:
		return v->u.i == 1;
	case VAL_TUPLE:
		for (size_t i = 0; i < v->n; i++)
			if (integer(v->u.items[i]) != 0)
				return false;
		return true;
	case VAL_SCALAR:
	case VAL_BOOL:
	case VAL_STR:
	case VAL_ARRAY:
	case VAL_TENSOR:
	case VAL_SYMBOL:
		return true;
	}
	return true;
}

/* Item i of the integer array v, dflt past its end. */
static int64_t item_or(const Value *v, size_t i, int64_t dflt)
{
	return v && i < item_count(v) ? integer(v->u.items[i]) : dflt;
}

#define MAX_AXES 16

/* The (before, after) padding of op's axes: as given, or as computed for
 * padding = [] (spec 4.3.1: the total max(0, (ceil(x / s) - 1) * s +
 * (f - 1) * d + 1 - x), its smaller half before) for a window over every
 * axis (an operation with a size) or a conv's spatial axes. False when it
 * is not known. */
static bool padding_pairs(const FlatOp *op, int64_t pairs[][2], size_t *n)
{
	const Value *p = arg(op, "padding", 7), *size = arg(op, "size", 4);
	*n = 0;
	if (p && item_count(p)) {
		for (size_t i = 0; i < item_count(p) && i < MAX_AXES; i++, (*n)++)
			for (size_t k = 0; k < 2; k++)
				pairs[i][k] = item_or(p->u.items[i], k, 0);
		return true;
	}
	const FlatTensor *t = input_tensor(op);
	const Value *fv = arg(op, "filter", 6);
	const FlatTensor *f = fv ? first_tensor(fv) : NULL;
	bool conv = f && strcmp(op->frag->name, "conv") == 0;
	if (!p || !t || !t->known || (!size && !(conv && f->known)))
		return false;
	const Value *stride = arg(op, "stride", 6), *dil = arg(op, "dilation", 8);
	size_t skip = size ? 0 : 2, rank = rank_of(t);
	for (size_t i = 0; i + skip < rank && i < MAX_AXES; i++, (*n)++) {
		int64_t x = dim_of(t, i + skip), s = item_or(stride, i, 1), d = item_or(dil, i, 1);
		int64_t k = size ? item_or(size, i, 1) : dim_of(f, i + skip);
		int64_t total = s > 0 ? ((x + s - 1) / s - 1) * s + (k - 1) * d + 1 - x : 0;
		total = total > 0 ? total : 0;
		pairs[i][0] = total / 2;
		pairs[i][1] = total - total / 2;
	}
	return true;
}

/* Whether padding is zero on every axis: given so, or computed so. */
static bool zero_padding(const FlatOp *op)
{
	int64_t pairs[MAX_AXES][2];
	size_t n;
	if (!padding_pairs(op, pairs, &n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (pairs[i][0] || pairs[i][1])
			return false;
	return true;
}

/* The first item of v (through arrays and tuples) not in the list, as
 * text in out; false when every item is in it. */
static bool bad_item(const Value *v, const Cond *d, char *out, size_t n)
{
	switch (v->kind) {
	case VAL_ARRAY:
	case VAL_TUPLE:
		for (size_t i = 0; i < v->n; i++)
			if (bad_item(v->u.items[i], d, out, n))
				return true;
		return false;
	case VAL_STR:
		if (in_list(d->vals, d->nvals, v->u.str, v->n))
			return false;
		snprintf(out, n, "'%.*s'", (int)(v->n > 40 ? 40 : v->n), v->u.str);
		return true;
	case VAL_BOOL: {
		const char *s = v->u.b ? "true" : "false";
		if (in_list(d->vals, d->nvals, s, strlen(s)))
			return false;
		snprintf(out, n, "%s", s);
		return true;
	}
	case VAL_INT:
		if (in_numbers(d->vals, d->nvals, (double)v->u.i))
			return false;
		snprintf(out, n, "%" PRId64, v->u.i);
		return true;
	case VAL_SCALAR:
		if (in_numbers(d->vals, d->nvals, v->u.s))
			return false;
		snprintf(out, n, "%g", v->u.s);
		return true;
	case VAL_TENSOR:
	case VAL_SYMBOL:
		return false; /* its value is not known here */
	}
	return false;
}

static bool check_values(Ctx *c, const Cond *d, const Value *v)
{
	if (d->nname == 6 && memcmp(d->name, "border", 6) == 0 && zero_padding(c->op))
		return false;
	char item[64];
	if (!bad_item(v, d, item, sizeof(item)))
		return false;
	return fail(c, "%.*s = %s is not expressible (%.*s only)", (int)d->nname, d->name, item, (int)d->nvals, d->vals);
}

static bool check_count(Ctx *c, const Cond *d, const Value *v)
{
	size_t n = item_count(v);
	if (in_numbers(d->vals, d->nvals, (double)n))
		return false;
	return fail(c, "%.*s of %zu items is not expressible (%.*s only)", (int)d->nname, d->name, n, (int)d->nvals, d->vals);
}

/* sym:padding, on the padding given or computed (padding_pairs). */
static bool check_sym(Ctx *c, const Cond *d, const Value *v)
{
	(void)v;
	int64_t pairs[MAX_AXES][2];
	size_t n;
	if (!is(d->name, d->nname, "padding"))
		return fail(c, "table: sym: applies to padding only");
	if (!padding_pairs(c->op, pairs, &n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (pairs[i][0] != pairs[i][1])
			return fail(c, "asymmetric padding (%" PRId64 ", %" PRId64 ") is not expressible (one value per axis for both sides)", pairs[i][0], pairs[i][1]);
	return false;
}

static bool check_spatial(Ctx *c, const Cond *d, const Value *v)
{
	size_t n = item_count(v);
	for (size_t i = 0; i < 2 && i < n; i++)
		if (!neutral(v->u.items[i]))
			return fail(c, "a %.*s over the batch or channel axis is not expressible (spatial axes only)", (int)d->nname, d->name);
	return false;
}

/* Whether v's items, all but the second (the channel axis), are neutral. */
static bool check_axis1(Ctx *c, const Cond *d, const Value *v)
{
	for (size_t i = 0; i < item_count(v); i++)
		if (i != 1 && !neutral(v->u.items[i]))
			return fail(c, "a %.*s beyond the channel axis is not expressible (across channels only)", (int)d->nname, d->name);
	return false;
}

static bool check_trailing(Ctx *c, const Cond *d, const Value *v)
{
	const FlatTensor *t = input_tensor(c->op);
	if (!t || !t->known)
		return false;
	size_t rank = rank_of(t), n = item_count(v);
	bool ok = n > 0 && n <= rank;
	for (size_t i = 0; ok && i < n; i++)
		ok = integer(v->u.items[i]) == (int64_t)(rank - n + i);
	if (ok)
		return false;
	return fail(c, "%.*s other than the last axes is not expressible", (int)d->nname, d->name);
}

static bool check_swap2(Ctx *c, const Cond *d, const Value *v)
{
	size_t moved = 0;
	for (size_t i = 0; i < item_count(v); i++)
		moved += integer(v->u.items[i]) != (int64_t)i;
	if (moved <= 2)
		return false;
	return fail(c, "a permutation of more than two axes is not expressible (%.*s swaps two)", (int)d->nname, d->name);
}

static bool check_const(Ctx *c, const Cond *d, const Value *v)
{
	const FlatTensor *t = first_tensor(v);
	if (!t)
		return false;
	const FlatOp *p = t->producer;
	const char *name = p ? p->frag->name : "";
	if (strcmp(name, "constant") == 0 || strcmp(name, "variable") == 0)
		return false;
	return fail(c, "%.*s computed by the graph is not expressible (a constant only)", (int)d->nname, d->name);
}

static bool same_shape(const FlatTensor *a, const FlatTensor *b)
{
	size_t r = rank_of(a);
	if (r != rank_of(b))
		return false;
	for (size_t i = 0; i < r; i++)
		if (dim_of(a, i) != dim_of(b, i))
			return false;
	return true;
}

static bool one_item(const FlatTensor *t)
{
	for (size_t i = 0; i < rank_of(t); i++)
		if (dim_of(t, i) != 1)
			return false;
	return true;
}

/* bcast=none|numpy|unidir over the tensor arguments of known shape. */
static bool check_bcast(Ctx *c, const Cond *d)
{
	const FlatTensor *out = output_tensor(c->op), *first = NULL;
	if (!out || !out->known)
		return false;
	bool none = in_list(d->vals, d->nvals, "none", 4);
	bool unidir = in_list(d->vals, d->nvals, "unidir", 6);
	const Value **args = flat_op_args(c->op);
	for (size_t i = 0; i < c->op->frag->nparams; i++) {
		if (args[i]->kind != VAL_TENSOR)
			continue;
		const FlatTensor *t = args[i]->u.t;
		if (!t->known)
			continue;
		bool is_first = !first;
		if (is_first)
			first = t;
		if (same_shape(t, out))
			continue;
		if (none)
			return fail(c, "broadcasting is not expressible (operands of one shape only)");
		if (unidir && is_first)
			return fail(c, "broadcasting the first operand is not expressible (only later operands broadcast to it)");
		size_t r = rank_of(t), ro = rank_of(out);
		if (r != ro && !one_item(t))
			return fail(c, "broadcasting a rank-%zu operand to rank %zu is not expressible as written: NNEF aligns the first axes, %s the last (needs a reshape)", r, ro, c->target);
	}
	return false;
}

/* The parts of the condition at *p (advanced past it). */
static bool next_cond(const char **p, Cond *d)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	if (!*s)
		return false;
	const char *end = s + strcspn(s, " ");
	memset(d, 0, sizeof(*d));
	d->tok = s;
	d->ntok = (size_t)(end - s);
	const char *colon = memchr(s, ':', (size_t)(end - s));
	const char *eq = memchr(s, '=', (size_t)(end - s));
	const char *name = s;
	if (colon && (!eq || colon < eq)) {
		d->kind = s;
		d->nkind = (size_t)(colon - s);
		name = colon + 1;
	}
	d->name = name;
	d->nname = (size_t)((eq ? eq : end) - name);
	if (eq) {
		d->vals = eq + 1;
		d->nvals = (size_t)(end - eq - 1);
	}
	*p = end;
	return true;
}

typedef bool (*ArgCheck)(Ctx *c, const Cond *d, const Value *v);

static const struct {
	const char *kind;
	ArgCheck fn;
	bool values; /* takes =VALUES */
} arg_checks[] = {
	{ "count", check_count, true },
	{ "sym", check_sym, false },
	{ "spatial", check_spatial, false },
	{ "axis1", check_axis1, false },
	{ "trailing", check_trailing, false },
	{ "swap2", check_swap2, false },
	{ "const", check_const, false },
};

typedef enum CondClass { C_BAD, C_DTYPE, C_RANK, C_BCAST, C_ARG } CondClass;

/* Whether every item of the list vals is one of the words of set
 * (separated by spaces). */
static bool all_in(const char *vals, size_t n, const char *set)
{
	const char *p = vals, *end = vals + n;
	while (p < end) {
		const char *q = memchr(p, ',', (size_t)(end - p));
		q = q ? q : end;
		bool found = false;
		for (const char *w = set; *w && !found; w += strcspn(w, " "), w += *w == ' ')
			found = strcspn(w, " ") == (size_t)(q - p) && memcmp(w, p, (size_t)(q - p)) == 0;
		if (!found)
			return false;
		p = q + 1;
	}
	return n > 0;
}

/* What kind of condition d is (C_BAD when malformed); *fn for C_ARG (NULL:
 * NAME=VALUES). */
static CondClass classify(const Cond *d, ArgCheck *fn)
{
	*fn = NULL;
	if (!d->kind && is(d->name, d->nname, "dtype"))
		return all_in(d->vals, d->nvals, "scalar integer logical") ? C_DTYPE : C_BAD;
	if (!d->kind && is(d->name, d->nname, "rank"))
		return d->nvals && strspn(d->vals, "0123456789.,") >= d->nvals ? C_RANK : C_BAD;
	if (!d->kind && is(d->name, d->nname, "bcast"))
		return all_in(d->vals, d->nvals, "none numpy unidir") ? C_BCAST : C_BAD;
	if (!d->kind)
		return d->vals && d->nvals && d->nname ? C_ARG : C_BAD;
	for (size_t i = 0; i < sizeof(arg_checks) / sizeof(arg_checks[0]); i++)
		if (is(d->kind, d->nkind, arg_checks[i].kind)) {
			*fn = arg_checks[i].fn;
			bool values = arg_checks[i].values;
			bool ok = d->nname && (values ? d->vals && d->nvals : !d->vals);
			if (*fn == check_sym)
				ok = ok && is(d->name, d->nname, "padding");
			return ok ? C_ARG : C_BAD;
		}
	return C_BAD;
}

/* One condition: true (with the message) when op breaks it. */
static bool check_one(Ctx *c, const Cond *d)
{
	ArgCheck fn;
	switch (classify(d, &fn)) {
	case C_DTYPE:
		return check_dtype(c, d);
	case C_RANK:
		return check_rank(c, d);
	case C_BCAST:
		return check_bcast(c, d);
	case C_ARG:
		break;
	case C_BAD:
		return fail(c, "table: condition '%.*s' is not known", (int)d->ntok, d->tok);
	}
	const Value *v = arg(c->op, d->name, d->nname);
	if (!v)
		return fail(c, "table: '%s' has no parameter '%.*s'", c->op->frag->name, (int)d->nname, d->name);
	return fn ? fn(c, d, v) : check_values(c, d, v);
}

bool port_lint(const char *checks, const char *const *params, size_t n,
	       char *buf, size_t size)
{
	const char *p = checks ? checks : "";
	Cond d;
	while (next_cond(&p, &d)) {
		ArgCheck fn;
		CondClass k = classify(&d, &fn);
		bool known = k != C_ARG;
		for (size_t i = 0; !known && i < n; i++)
			known = is(d.name, d.nname, params[i]);
		if (k == C_BAD || !known) {
			snprintf(buf, size, "condition '%.*s' %s", (int)d.ntok, d.tok, k == C_BAD ? "is not known" : "names no parameter");
			return true;
		}
	}
	return false;
}

bool port_check(const char *checks, const FlatOp *op, const char *target,
		char *buf, size_t size)
{
	Ctx c = { op, target, buf, size };
	const char *p = checks ? checks : "";
	Cond d;
	while (next_cond(&p, &d))
		if (check_one(&c, &d))
			return true;
	return false;
}

/* ---- reports ------------------------------------------------------------------- */

const char **port_native_compounds(const PortTarget *t, unsigned v, size_t *n)
{
	const char **names = util_calloc(t->nrows + 1, sizeof(*names));
	*n = 0;
	for (size_t i = 0; i < t->nrows; i++) {
		const PortRow *r = port_row(t, v, t->rows[i].op, NULL);
		if (r == &t->rows[i] && r->kind == PORT_MAP && shape_op_lookup(r->op) == SHAPE_OP_NONE)
			names[(*n)++] = r->op;
	}
	return names;
}

/* Where op is written in the graph: the call of the graph whose
 * expansion made it, or op itself when written there. */
static Loc op_loc(const FlatOp *op)
{
	Loc l = flat_op_loc(op);
	for (const Frame *f = flat_op_frame(op); f; f = f->parent)
		if (!f->parent)
			l = f->loc;
	return l;
}

static PortLoc copy_loc(Loc l)
{
	PortLoc r = { 0 };
	if (!l.file)
		return r;
	r.file = util_strdup(l.file->path);
	source_linecol(l.file, l.off, &r.line, &r.column);
	source_linecol(l.file, (size_t)l.off + l.len, &r.end_line, &r.end_column);
	return r;
}

/* The use of (op, problem) in list, counted; a new one at location l. */
static PortUse *count_use(PortUse **list, size_t *n, const char *op,
			  const char *problem, Loc l)
{
	for (size_t i = 0; i < *n; i++) {
		PortUse *u = &(*list)[i];
		if (strcmp(u->op, op) == 0 && (problem ? u->problem && strcmp(u->problem, problem) == 0 : !u->problem)) {
			u->count++;
			return u;
		}
	}
	*list = util_realloc(*list, (*n + 1) * sizeof(**list));
	PortUse *u = &(*list)[(*n)++];
	*u = (PortUse){ util_strdup(op), NULL, 0, problem ? util_strdup(problem) : NULL, 1, copy_loc(l) };
	return u;
}

/* What stops op (of mapping m, its row) from being portable to r's
 * target, in buf; false when nothing. */
static bool op_problem(const PortReport *r, const FlatOp *op,
		       const PortUse *m, char *buf, size_t size)
{
	const PortRow *row = m->row;
	if (!row && m->earliest)
		snprintf(buf, size, "needs ONNX operator set %u or later", m->earliest);
	else if (!row)
		snprintf(buf, size, "not a standard operation: %s has no operation for it", r->t->name);
	else if (row->kind == PORT_NONE)
		snprintf(buf, size, "not expressible: %s", row->note);
	else if (row->kind == PORT_EXPAND)
		snprintf(buf, size, "table: a compound to expand reached the report");
	else
		return port_check(row->checks, op, r->t->name, buf, size);
	return true;
}

void port_survey(PortReport *r, const FlatGraph *g)
{
	char buf[256];
	for (size_t i = 0; i < g->nops; i++) {
		const FlatOp *op = g->ops[i];
		const char *name = op->frag->name;
		Loc l = op_loc(op);
		PortUse *m = count_use(&r->maps, &r->nmaps, name, NULL, l);
		if (m->count == 1) /* the row of a name is looked up once */
			m->row = port_row(r->t, r->version, name, &m->earliest);
		bool bad = op_problem(r, op, m, buf, sizeof(buf));
		if (bad)
			count_use(&r->probs, &r->nprobs, name, buf, l)->row = m->row;
		r->ops++;
		r->portable += !bad;
	}
}
