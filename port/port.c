/*
 * port.c - the tables of the targets, and the conditions of their rows
 * (the vocabulary of `checks` in port.h) tested on an operation of a flat
 * graph through the public interface of nnef.h.
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

/* ---- conditions --------------------------------------------------------------- */

/* One condition of a `checks` string: KIND:NAME=VALUES, parts optional. */
typedef struct Cond {
	const char *tok, *kind, *name, *vals;
	size_t ntok, nkind, nname, nvals;
} Cond;

typedef struct Ctx {
	const nnef_op *op;
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

static const nnef_value *arg(const nnef_op *op, const char *name, size_t n)
{
	for (size_t i = 0; i < nnef_op_arg_count(op); i++) {
		const char *a = nnef_op_arg_name(op, i);
		if (strlen(a) == n && memcmp(a, name, n) == 0)
			return nnef_op_arg(op, i);
	}
	return NULL;
}

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

/* The first tensor of v (through arrays), NULL when none. */
static const nnef_tensor_info *first_tensor(const nnef_value *v)
{
	if (nnef_value_kind_of(v) == NNEF_VALUE_TENSOR)
		return nnef_value_tensor(v);
	for (size_t i = 0; i < nnef_value_item_count(v); i++) {
		const nnef_tensor_info *t = first_tensor(nnef_value_item(v, i));
		if (t)
			return t;
	}
	return NULL;
}

/* The first tensor among the n values get gives of op. */
static const nnef_tensor_info *first_of(const nnef_op *op, size_t n,
					const nnef_value *(*get)(const nnef_op *, size_t))
{
	for (size_t i = 0; i < n; i++) {
		const nnef_tensor_info *t = first_tensor(get(op, i));
		if (t)
			return t;
	}
	return NULL;
}

static const nnef_tensor_info *input_tensor(const nnef_op *op)
{
	return first_of(op, nnef_op_arg_count(op), nnef_op_arg);
}

static const nnef_tensor_info *output_tensor(const nnef_op *op)
{
	return first_of(op, nnef_op_result_count(op), nnef_op_result);
}

static const char *const dtype_names[] = { "scalar", "integer", "logical" };

/* The first tensor of v whose type is not in the list, NULL when none. */
static const nnef_tensor_info *bad_dtype(const nnef_value *v, const Cond *d)
{
	if (nnef_value_kind_of(v) == NNEF_VALUE_TENSOR) {
		const nnef_tensor_info *t = nnef_value_tensor(v);
		const char *name = dtype_names[nnef_tensor_info_dtype(t)];
		return in_list(d->vals, d->nvals, name, strlen(name)) ? NULL : t;
	}
	for (size_t i = 0; i < nnef_value_item_count(v); i++) {
		const nnef_tensor_info *t = bad_dtype(nnef_value_item(v, i), d);
		if (t)
			return t;
	}
	return NULL;
}

static bool check_dtype(Ctx *c, const Cond *d)
{
	const nnef_tensor_info *t = NULL;
	for (size_t i = 0; !t && i < nnef_op_arg_count(c->op); i++)
		t = bad_dtype(nnef_op_arg(c->op, i), d);
	for (size_t i = 0; !t && i < nnef_op_result_count(c->op); i++)
		t = bad_dtype(nnef_op_result(c->op, i), d);
	if (!t)
		return false;
	return fail(c, "tensors of type %s are not supported (%.*s only)", dtype_names[nnef_tensor_info_dtype(t)], (int)d->nvals, d->vals);
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
	const nnef_tensor_info *ts[2] = { input_tensor(c->op), output_tensor(c->op) };
	for (size_t i = 0; i < 2; i++) {
		if (!ts[i] || !nnef_tensor_info_shape_known(ts[i]))
			continue;
		size_t r = nnef_tensor_info_rank(ts[i]);
		if (!rank_ok(d, r))
			return fail(c, "tensors of rank %zu are not supported (rank %.*s)", r, (int)d->nvals, d->vals);
	}
	return false;
}

/* Whether the neutral items of a window: 1, or a (0, 0) pair. */
static bool neutral(const nnef_value *v)
{
	switch (nnef_value_kind_of(v)) {
	case NNEF_VALUE_INTEGER:
		return nnef_value_integer(v) == 1;
	case NNEF_VALUE_TUPLE:
		for (size_t i = 0; i < nnef_value_item_count(v); i++)
			if (nnef_value_integer(nnef_value_item(v, i)) != 0)
				return false;
		return true;
	default:
		return true;
	}
}

/* Item i of the integer array v, dflt past its end. */
static int64_t item_or(const nnef_value *v, size_t i, int64_t dflt)
{
	return v && i < nnef_value_item_count(v) ? nnef_value_integer(nnef_value_item(v, i)) : dflt;
}

#define MAX_AXES 16

/* The (before, after) padding of op's axes: as given, or as computed for
 * padding = [] (spec 4.3.1: the total max(0, (ceil(x / s) - 1) * s +
 * (f - 1) * d + 1 - x), its smaller half before) for a window over every
 * axis (an operation with a size) or a conv's spatial axes. False when it
 * is not known. */
static bool padding_pairs(const nnef_op *op, int64_t pairs[][2], size_t *n)
{
	const nnef_value *p = arg(op, "padding", 7), *size = arg(op, "size", 4);
	*n = 0;
	if (p && nnef_value_item_count(p)) {
		for (size_t i = 0; i < nnef_value_item_count(p) && i < MAX_AXES; i++, (*n)++)
			for (size_t k = 0; k < 2; k++)
				pairs[i][k] = item_or(nnef_value_item(p, i), k, 0);
		return true;
	}
	const nnef_tensor_info *t = input_tensor(op);
	const nnef_value *fv = arg(op, "filter", 6);
	const nnef_tensor_info *f = fv ? first_tensor(fv) : NULL;
	bool conv = f && strcmp(nnef_op_name(op), "conv") == 0;
	if (!p || !t || !nnef_tensor_info_shape_known(t) || (!size && !(conv && nnef_tensor_info_shape_known(f))))
		return false;
	const nnef_value *stride = arg(op, "stride", 6), *dil = arg(op, "dilation", 8);
	size_t skip = size ? 0 : 2, rank = nnef_tensor_info_rank(t);
	for (size_t i = 0; i + skip < rank && i < MAX_AXES; i++, (*n)++) {
		int64_t x = nnef_tensor_info_dim(t, i + skip), s = item_or(stride, i, 1), d = item_or(dil, i, 1);
		int64_t k = size ? item_or(size, i, 1) : nnef_tensor_info_dim(f, i + skip);
		int64_t total = s > 0 ? ((x + s - 1) / s - 1) * s + (k - 1) * d + 1 - x : 0;
		total = total > 0 ? total : 0;
		pairs[i][0] = total / 2;
		pairs[i][1] = total - total / 2;
	}
	return true;
}

/* Whether padding is zero on every axis: given so, or computed so. */
static bool zero_padding(const nnef_op *op)
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
static bool bad_item(const nnef_value *v, const Cond *d, char *out, size_t n)
{
	switch (nnef_value_kind_of(v)) {
	case NNEF_VALUE_ARRAY:
	case NNEF_VALUE_TUPLE:
		for (size_t i = 0; i < nnef_value_item_count(v); i++)
			if (bad_item(nnef_value_item(v, i), d, out, n))
				return true;
		return false;
	case NNEF_VALUE_STRING: {
		size_t len;
		const char *s = nnef_value_string(v, &len);
		if (in_list(d->vals, d->nvals, s, len))
			return false;
		snprintf(out, n, "'%.*s'", (int)(len > 40 ? 40 : len), s);
		return true;
	}
	case NNEF_VALUE_LOGICAL: {
		const char *s = nnef_value_logical(v) ? "true" : "false";
		if (in_list(d->vals, d->nvals, s, strlen(s)))
			return false;
		snprintf(out, n, "%s", s);
		return true;
	}
	case NNEF_VALUE_INTEGER:
		if (in_numbers(d->vals, d->nvals, (double)nnef_value_integer(v)))
			return false;
		snprintf(out, n, "%" PRId64, nnef_value_integer(v));
		return true;
	case NNEF_VALUE_SCALAR:
		if (in_numbers(d->vals, d->nvals, nnef_value_scalar(v)))
			return false;
		snprintf(out, n, "%g", nnef_value_scalar(v));
		return true;
	default:
		return false; /* a tensor: its values are not known here */
	}
}

static bool check_values(Ctx *c, const Cond *d, const nnef_value *v)
{
	if (d->nname == 6 && memcmp(d->name, "border", 6) == 0 && zero_padding(c->op))
		return false;
	char item[64];
	if (!bad_item(v, d, item, sizeof(item)))
		return false;
	return fail(c, "%.*s = %s is not expressible (%.*s only)", (int)d->nname, d->name, item, (int)d->nvals, d->vals);
}

static bool check_count(Ctx *c, const Cond *d, const nnef_value *v)
{
	size_t n = nnef_value_item_count(v);
	if (in_numbers(d->vals, d->nvals, (double)n))
		return false;
	return fail(c, "%.*s of %zu items is not expressible (%.*s only)", (int)d->nname, d->name, n, (int)d->nvals, d->vals);
}

/* sym:padding, on the padding given or computed (padding_pairs). */
static bool check_sym(Ctx *c, const Cond *d, const nnef_value *v)
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

static bool check_spatial(Ctx *c, const Cond *d, const nnef_value *v)
{
	size_t n = nnef_value_item_count(v);
	for (size_t i = 0; i < 2 && i < n; i++)
		if (!neutral(nnef_value_item(v, i)))
			return fail(c, "a %.*s over the batch or channel axis is not expressible (spatial axes only)", (int)d->nname, d->name);
	return false;
}

/* Whether v's items, all but item `keep`, are neutral. */
static bool check_axis1(Ctx *c, const Cond *d, const nnef_value *v)
{
	for (size_t i = 0; i < nnef_value_item_count(v); i++)
		if (i != 1 && !neutral(nnef_value_item(v, i)))
			return fail(c, "a %.*s beyond the channel axis is not expressible (across channels only)", (int)d->nname, d->name);
	return false;
}

static bool check_trailing(Ctx *c, const Cond *d, const nnef_value *v)
{
	const nnef_tensor_info *t = input_tensor(c->op);
	if (!t || !nnef_tensor_info_shape_known(t))
		return false;
	size_t rank = nnef_tensor_info_rank(t), n = nnef_value_item_count(v);
	bool ok = n > 0 && n <= rank;
	for (size_t i = 0; ok && i < n; i++)
		ok = nnef_value_integer(nnef_value_item(v, i)) == (int64_t)(rank - n + i);
	if (ok)
		return false;
	return fail(c, "%.*s other than the last axes is not expressible", (int)d->nname, d->name);
}

static bool check_swap2(Ctx *c, const Cond *d, const nnef_value *v)
{
	size_t moved = 0;
	for (size_t i = 0; i < nnef_value_item_count(v); i++)
		moved += nnef_value_integer(nnef_value_item(v, i)) != (int64_t)i;
	if (moved <= 2)
		return false;
	return fail(c, "a permutation of more than two axes is not expressible (%.*s swaps two)", (int)d->nname, d->name);
}

static bool check_const(Ctx *c, const Cond *d, const nnef_value *v)
{
	const nnef_tensor_info *t = first_tensor(v);
	if (!t)
		return false;
	const nnef_op *p = nnef_tensor_info_producer(t);
	const char *name = p ? nnef_op_name(p) : "";
	if (strcmp(name, "constant") == 0 || strcmp(name, "variable") == 0)
		return false;
	return fail(c, "%.*s computed by the graph is not expressible (a constant only)", (int)d->nname, d->name);
}

static bool same_shape(const nnef_tensor_info *a, const nnef_tensor_info *b)
{
	size_t r = nnef_tensor_info_rank(a);
	if (r != nnef_tensor_info_rank(b))
		return false;
	for (size_t i = 0; i < r; i++)
		if (nnef_tensor_info_dim(a, i) != nnef_tensor_info_dim(b, i))
			return false;
	return true;
}

static bool one_item(const nnef_tensor_info *t)
{
	for (size_t i = 0; i < nnef_tensor_info_rank(t); i++)
		if (nnef_tensor_info_dim(t, i) != 1)
			return false;
	return true;
}

/* bcast=none|numpy|unidir over the tensor arguments of known shape. */
static bool check_bcast(Ctx *c, const Cond *d)
{
	const nnef_tensor_info *out = output_tensor(c->op), *first = NULL;
	if (!out || !nnef_tensor_info_shape_known(out))
		return false;
	bool none = in_list(d->vals, d->nvals, "none", 4);
	bool unidir = in_list(d->vals, d->nvals, "unidir", 6);
	for (size_t i = 0; i < nnef_op_arg_count(c->op); i++) {
		const nnef_value *v = nnef_op_arg(c->op, i);
		if (nnef_value_kind_of(v) != NNEF_VALUE_TENSOR)
			continue;
		const nnef_tensor_info *t = nnef_value_tensor(v);
		if (!nnef_tensor_info_shape_known(t))
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
		size_t r = nnef_tensor_info_rank(t), ro = nnef_tensor_info_rank(out);
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

typedef bool (*ArgCheck)(Ctx *c, const Cond *d, const nnef_value *v);

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
	default:
		return fail(c, "table: condition '%.*s' is not known", (int)d->ntok, d->tok);
	}
	const nnef_value *v = arg(c->op, d->name, d->nname);
	if (!v)
		return fail(c, "table: '%s' has no parameter '%.*s'", nnef_op_name(c->op), (int)d->nname, d->name);
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

bool port_check(const char *checks, const nnef_op *op, const char *target,
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
