/*
 * builtins.c - the built-in functions of compile-time expressions (spec
 * 3.3.3 "Built-in functions": shape_of, length_of, range_of, integer,
 * scalar, logical, string), evaluated by the flattener.
 */
#include "flatten/flatten_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- built-in functions ------------------------------------------------ */

/* A string holding a numeric literal of spec 3.1 (with an optional minus
 * sign), for integer() and scalar(). */
static bool parse_number(const char *p, size_t n, bool want_int,
			 int64_t *i, double *d)
{
	char buf[64];
	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	size_t k = buf[0] == '-' ? 1 : 0;
	size_t digits = 0;
	while (buf[k] >= '0' && buf[k] <= '9') {
		k++;
		digits++;
	}
	if (!digits)
		return false;
	bool is_int = buf[k] == '\0';
	if (!is_int) {
		if (want_int)
			return false;
		if (buf[k] == '.') {
			k++;
			size_t frac = 0;
			while (buf[k] >= '0' && buf[k] <= '9') {
				k++;
				frac++;
			}
			if (!frac)
				return false;
		}
		if (buf[k] == 'e' || buf[k] == 'E') {
			k++;
			if (buf[k] == '+' || buf[k] == '-')
				k++;
			size_t ex = 0;
			while (buf[k] >= '0' && buf[k] <= '9') {
				k++;
				ex++;
			}
			if (!ex)
				return false;
		}
		if (buf[k] != '\0')
			return false;
	}
	errno = 0;
	if (want_int) {
		long long v = strtoll(buf, NULL, 10);
		if (errno)
			return false;
		*i = v;
	} else {
		double v = strtod(buf, NULL);
		if (!isfinite(v))
			return false;
		*d = v;
	}
	return true;
}

static const Value *to_string(Flattener *F, const Value *v)
{
	if (v->kind == VAL_STR)
		return v;
	StrBuf b;
	sb_init(&b);
	flat_print_value(&b, v);
	const char *p = arena_strdup(F->arena, sb_str(&b));
	size_t n = b.len;
	sb_free(&b);
	return flat_val_str(F, p, n);
}

const Value *flat_eval_builtin(Flattener *F, const AstExpr *e, Scope *s,
				 const Target *t)
{
	Target anon = flat_anon_target(s, flat_target_hint(F, t));
	const Value *a = flat_eval_expr(F, e->u.bi.arg, s, &anon);
	if (!a)
		return NULL;
	switch ((AstBuiltin)e->u.bi.which) {
	case AST_BI_SHAPE_OF: {
		/* a non-tensor has the singleton shape of rank 0: [] */
		if (a->kind != VAL_TENSOR)
			return flat_val_list(F, VAL_ARRAY, NULL, 0);
		const FlatTensor *ft = a->u.t;
		const FlatOp *origin = flat_origin(F, ft);
		if (!ft->known) {
			if (!origin)
				return NULL; /* after an error */
			Diag *d = flat_value_error(
				F, DIAG_E0810, e->loc, s,
				"shape_of('%s'): the shape of this tensor is not known: it comes from the custom operation '%s'",
				ft->name, origin->frag->name);
			diag_note(F->diags, d, flat_op_loc(origin), true,
				  "custom operations (declared without a body) give results of unknown shape (spec chapter 6)");
			diag_hint(F->diags, d,
				  "shape_of is deprecated; pass the shape as an attribute");
			return NULL;
		}
		const Value **dims = ARENA_ARRAY(F->arena, const Value *,
						 ft->rank ? ft->rank : 1);
		for (size_t i = 0; i < ft->rank; i++)
			dims[i] = flat_val_int(F, ft->dims[i]);
		return flat_val_list(F, VAL_ARRAY, dims, ft->rank);
	}
	case AST_BI_LENGTH_OF:
		return flat_val_int(F, (int64_t)a->n);
	case AST_BI_RANGE_OF: {
		size_t n = a->n;
		if (!flat_spend_for(F, e, s, n * (sizeof(Value *) + sizeof(Value))))
			return NULL;
		const Value **items = ARENA_ARRAY(F->arena, const Value *,
						  n ? n : 1);
		for (size_t i = 0; i < n; i++)
			items[i] = flat_val_int(F, (int64_t)i);
		return flat_val_list(F, VAL_ARRAY, items, n);
	}
	case AST_BI_INTEGER:
		switch (a->kind) {
		case VAL_INT:
			return a;
		case VAL_BOOL:
			return flat_val_int(F, a->u.b);
		case VAL_SCALAR: {
			/* "truncated to the closest smaller integer" */
			double f = floor(a->u.s);
			if (!(f >= -9223372036854775808.0 &&
			      f < 9223372036854775808.0)) {
				char num[32];
				util_format_real(num, a->u.s);
				flat_value_error(F, DIAG_E0809, e->loc, s,
					    "integer(%s) does not fit in 64 bits",
					    num);
				return NULL;
			}
			return flat_val_int(F, (int64_t)f);
		}
		case VAL_STR: {
			int64_t i;
			if (parse_number(a->u.str, a->n, true, &i, NULL))
				return flat_val_int(F, i);
			flat_value_error(F, DIAG_E0804, e->loc, s,
				    "integer('%.*s'): not an integer literal",
				    (int)(a->n > 40 ? 40 : a->n),
				    a->u.str);
			return NULL;
		}
		case VAL_ARRAY:
		case VAL_TUPLE:
		case VAL_TENSOR:
		case VAL_SYMBOL:
			return NULL;
		}
		return NULL; /* not reached */
	case AST_BI_SCALAR:
		switch (a->kind) {
		case VAL_SCALAR:
			return a;
		case VAL_INT:
			return flat_val_scalar(F, (double)a->u.i);
		case VAL_BOOL:
			return flat_val_scalar(F, a->u.b ? 1.0 : 0.0);
		case VAL_STR: {
			double d;
			if (parse_number(a->u.str, a->n, false, NULL, &d))
				return flat_val_scalar(F, d);
			flat_value_error(F, DIAG_E0804, e->loc, s,
				    "scalar('%.*s'): not a numeric literal",
				    (int)(a->n > 40 ? 40 : a->n),
				    a->u.str);
			return NULL;
		}
		case VAL_ARRAY:
		case VAL_TUPLE:
		case VAL_TENSOR:
		case VAL_SYMBOL:
			return NULL;
		}
		return NULL; /* not reached */
	case AST_BI_LOGICAL:
		switch (a->kind) {
		case VAL_BOOL:
			return a;
		case VAL_INT:
			return flat_val_bool(F, a->u.i != 0);
		case VAL_SCALAR:
			return flat_val_bool(F, a->u.s != 0.0);
		case VAL_STR:
			return flat_val_bool(F, a->n != 0);
		case VAL_ARRAY:
		case VAL_TUPLE:
		case VAL_TENSOR:
		case VAL_SYMBOL:
			return NULL;
		}
		return NULL; /* not reached */
	case AST_BI_STRING:
		return to_string(F, a);
	}
	return NULL;
}
