/*
 * shape_literals.c - the reader of the literals of the shape tests
 * (shape_literals.h): attribute values, shapes with symbolic extents,
 * datum types and known items of tensor arguments.
 */
#include "shape_literals.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static const Value tensor_value = { .kind = VAL_TENSOR };

static void skip_spaces(const char **p)
{
	while (**p == ' ')
		(*p)++;
}

static void expect_char(const char **p, char ch)
{
	skip_spaces(p);
	ck_assert_msg(**p == ch, "test literal: expected '%c' at \"%s\"", ch, *p);
	(*p)++;
}

static bool is_name_start(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

static bool is_name_char(char ch)
{
	return is_name_start(ch) || (ch >= '0' && ch <= '9');
}

int64_t lit_symbol(LitReader *L, const char *name)
{
	ck_assert_msg(L->dims != NULL, "test literal: symbol '%s' without a DimTable", name);
	const char *kept = NULL;
	for (size_t i = 0; i < L->nnames && !kept; i++)
		if (strcmp(L->names[i], name) == 0)
			kept = L->names[i];
	if (!kept) {
		ck_assert_uint_lt(L->nnames, LIT_MAX_ITEMS);
		kept = L->names[L->nnames++] = arena_strdup(L->arena, name);
	}
	return dim_encode(dim_symbol(L->dims, kept));
}

/* A name at *p (advancing), as a symbol's extent. */
static int64_t read_name(LitReader *L, const char **p)
{
	char name[32];
	size_t n = 0;
	while (is_name_char(**p)) {
		ck_assert_uint_lt(n, sizeof(name) - 1);
		name[n++] = *(*p)++;
	}
	name[n] = '\0';
	return lit_symbol(L, name);
}

/* One term of an extent: an integer, a name, or an integer times a
 * name. */
static int64_t read_term(LitReader *L, const char **p, bool *symbolic)
{
	if (is_name_start(**p)) {
		*symbolic = true;
		return read_name(L, p);
	}
	char *end;
	long long v = strtoll(*p, &end, 10);
	ck_assert_msg(end != *p, "test literal: no extent at \"%s\"", *p);
	*p = end;
	if (**p != '*')
		return v;
	(*p)++;
	*symbolic = true;
	int64_t s = read_name(L, p);
	return dim_encode(dim_mul(L->dims, dim_const(L->dims, v), dim_expr_of(s)));
}

/* An extent: terms joined by + and -. */
static int64_t read_extent(LitReader *L, const char **p, bool *symbolic)
{
	int64_t e = read_term(L, p, symbolic);
	while ((**p == '+' || **p == '-') && (is_name_start((*p)[1]) || ((*p)[1] >= '0' && (*p)[1] <= '9'))) {
		char op = *(*p)++;
		bool sym = false;
		int64_t t = read_term(L, p, &sym);
		if (!*symbolic && !sym) {
			e = op == '+' ? e + t : e - t;
			continue;
		}
		*symbolic = true;
		const DimExpr *a = dim_decode(L->dims, e), *b = dim_decode(L->dims, t);
		e = dim_encode(op == '+' ? dim_add(L->dims, a, b) : dim_sub(L->dims, a, b));
	}
	return e;
}

/* [items] or (items). */
static const Value *read_list(LitReader *L, const char **p)
{
	char open = **p, close = open == '[' ? ']' : ')';
	const Value *items[LIT_MAX_ITEMS];
	size_t n = 0;
	(*p)++;
	skip_spaces(p);
	if (**p != close) {
		for (;;) {
			ck_assert_uint_lt(n, LIT_MAX_ITEMS);
			items[n++] = lit_value(L, p);
			skip_spaces(p);
			if (**p != ',')
				break;
			(*p)++;
		}
	}
	expect_char(p, close);
	const Value **list = ARENA_ARRAY(L->arena, const Value *, n ? n : 1);
	for (size_t i = 0; i < n; i++)
		list[i] = items[i];
	Value *v = ARENA_NEW(L->arena, Value);
	v->kind = open == '[' ? VAL_ARRAY : VAL_TUPLE;
	v->u.items = list;
	v->n = (uint32_t)n;
	return v;
}

/* An integer, a scalar (with '.' or an exponent), true or false, a
 * 'string', an [array], a (tuple), or an extent of symbols. */
const Value *lit_value(LitReader *L, const char **p)
{
	skip_spaces(p);
	if (**p == '[' || **p == '(')
		return read_list(L, p);
	Value *v = ARENA_NEW(L->arena, Value);
	if (**p == '\'') {
		const char *end = strchr(*p + 1, '\'');
		ck_assert_ptr_nonnull(end);
		v->kind = VAL_STR;
		v->u.str = *p + 1;
		v->n = (uint32_t)(end - (*p + 1));
		*p = end + 1;
		return v;
	}
	if ((strncmp(*p, "true", 4) == 0 || strncmp(*p, "false", 5) == 0) &&
	    !is_name_char((*p)[**p == 't' ? 4 : 5])) {
		v->kind = VAL_BOOL;
		v->u.b = **p == 't';
		*p += v->u.b ? 4 : 5;
		return v;
	}
	if (!is_name_start(**p)) {
		char *end;
		strtoll(*p, &end, 10);
		ck_assert_msg(end != *p, "test literal: no value at \"%s\"", *p);
		if (*end == '.' || *end == 'e') {
			v->kind = VAL_SCALAR;
			v->u.s = strtod(*p, &end);
			*p = end;
			return v;
		}
	}
	bool symbolic = false;
	int64_t e = read_extent(L, p, &symbolic);
	if (!symbolic) {
		v->kind = VAL_INT;
		v->u.i = e;
		return v;
	}
	v->kind = VAL_SYMBOL;
	v->u.dim = dim_expr_of(e);
	dim_text(L->dims, v->u.dim);
	return v;
}

/* <d0,d1,...>, <> (rank 0) or <?> (not known). */
Shape lit_shape(LitReader *L, const char **p)
{
	Shape s = { NULL, 0, true };
	int64_t dims[LIT_MAX_ITEMS];
	expect_char(p, '<');
	skip_spaces(p);
	if (**p == '?') {
		(*p)++;
		s.known = false;
	} else if (**p != '>') {
		for (;;) {
			ck_assert_uint_lt(s.rank, LIT_MAX_ITEMS);
			skip_spaces(p);
			bool symbolic = false;
			dims[s.rank++] = read_extent(L, p, &symbolic);
			skip_spaces(p);
			if (**p != ',')
				break;
			(*p)++;
		}
	}
	expect_char(p, '>');
	if (s.rank) {
		int64_t *d = ARENA_ARRAY(L->arena, int64_t, s.rank);
		memcpy(d, dims, s.rank * sizeof(*d));
		s.dims = d;
	}
	return s;
}

/* Counts the leaves of v and copies them to out (when not NULL). */
static size_t flatten(const Value *v, Value *out)
{
	if (v->kind != VAL_ARRAY && v->kind != VAL_TUPLE) {
		if (out)
			*out = *v;
		return 1;
	}
	size_t n = 0;
	for (uint32_t i = 0; i < v->n; i++)
		n += flatten(v->u.items[i], out ? out + n : NULL);
	return n;
}

/* ":type" after a tensor's shape (DT_NONE when there is none). */
static DType read_dtype(const char **p)
{
	if (**p != ':')
		return DT_NONE;
	(*p)++;
	const char *start = *p;
	while (is_name_char(**p))
		(*p)++;
	DType t = dtype_parse(start, (size_t)(*p - start));
	ck_assert_msg(t != DT_NONE, "test literal: no datum type at \"%s\"", start);
	return t;
}

/* ":type" and "=items" after a tensor's shape. */
static void read_extras(LitReader *L, const char **p, LitArg *out)
{
	out->dtype = read_dtype(p);
	if (**p == '=') {
		(*p)++;
		const Value *v = lit_value(L, p);
		size_t n = flatten(v, NULL);
		Value *items = ARENA_ARRAY(L->arena, Value, n ? n : 1);
		flatten(v, items);
		out->known.items = items;
		out->known.n = (uint32_t)n;
	}
}

void lit_arg(LitReader *L, const char *text, LitArg *out)
{
	const char *p = text;
	memset(out, 0, sizeof(*out));
	out->dtype = DT_NONE;
	if (*p == '<') {
		Shape *s = ARENA_NEW(L->arena, Shape);
		*s = lit_shape(L, &p);
		out->in.items = s;
		out->in.n = 1;
		out->value = &tensor_value;
		read_extras(L, &p, out);
	} else if (*p == '{') {
		Shape shapes[LIT_MAX_ITEMS];
		const Value **items = ARENA_ARRAY(L->arena, const Value *, LIT_MAX_ITEMS);
		size_t n = 0;
		p++;
		skip_spaces(&p);
		while (*p == '<') {
			ck_assert_uint_lt(n, LIT_MAX_ITEMS);
			items[n] = &tensor_value;
			shapes[n++] = lit_shape(L, &p);
			/* an array's datum type is its first item's */
			DType t = read_dtype(&p);
			if (n == 1)
				out->dtype = t;
			skip_spaces(&p);
			if (*p == ',')
				p++;
			skip_spaces(&p);
		}
		expect_char(&p, '}');
		Shape *s = ARENA_ARRAY(L->arena, Shape, n ? n : 1);
		memcpy(s, shapes, n * sizeof(*s));
		Value *v = ARENA_NEW(L->arena, Value);
		v->kind = VAL_ARRAY;
		v->u.items = items;
		v->n = (uint32_t)n;
		out->in.items = s;
		out->in.n = n;
		out->value = v;
	} else {
		out->value = lit_value(L, &p);
	}
	skip_spaces(&p);
	ck_assert_msg(*p == '\0', "test literal: trailing \"%s\" in \"%s\"", p, text);
}
