/*
 * value.c - compile-time values (spec 3.3.3): deep equality and printing
 * as NNEF literals.
 */
#include "flatten/flatten.h"
#include "lexer/lexer.h"

#include <string.h>

bool value_equal(const Value *a, const Value *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case VAL_INT:
		return a->u.i == b->u.i;
	case VAL_SCALAR:
		return a->u.s == b->u.s;
	case VAL_BOOL:
		return a->u.b == b->u.b;
	case VAL_STR:
		return a->n == b->n &&
		       memcmp(a->u.str, b->u.str, a->n) == 0;
	case VAL_ARRAY:
	case VAL_TUPLE:
		if (a->n != b->n)
			return false;
		for (size_t i = 0; i < a->n; i++)
			if (!value_equal(a->u.items[i], b->u.items[i]))
				return false;
		return true;
	case VAL_TENSOR:
		return a->u.t == b->u.t;
	case VAL_SYMBOL:
		return a->u.dim == b->u.dim; /* made once each */
	}
	return false;
}

void value_print_name(StrBuf *out, const char *name)
{
	if (lex_is_plain_identifier(name)) {
		sb_puts(out, name);
		return;
	}
	sb_puts(out, "i\"");
	for (const char *p = name; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_putc(out, '\\');
		sb_putc(out, *p);
	}
	sb_putc(out, '"');
}

void value_print(StrBuf *out, const Value *v)
{
	char buf[32];
	switch (v->kind) {
	case VAL_SYMBOL:
		dim_print(out, v->u.dim, true);
		return;
	case VAL_INT:
		sb_printf(out, "%lld", (long long)v->u.i);
		return;
	case VAL_SCALAR:
		util_format_real(buf, v->u.s);
		sb_puts(out, buf);
		return;
	case VAL_BOOL:
		sb_puts(out, v->u.b ? "true" : "false");
		return;
	case VAL_STR:
		sb_putc(out, '\'');
		for (size_t i = 0; i < v->n; i++) {
			char c = v->u.str[i];
			if (c == '\'' || c == '\\')
				sb_putc(out, '\\');
			sb_putc(out, c);
		}
		sb_putc(out, '\'');
		return;
	case VAL_ARRAY:
	case VAL_TUPLE:
		sb_putc(out, v->kind == VAL_ARRAY ? '[' : '(');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				sb_puts(out, ", ");
			value_print(out, v->u.items[i]);
		}
		sb_putc(out, v->kind == VAL_ARRAY ? ']' : ')');
		return;
	case VAL_TENSOR:
		if (v->u.t->name)
			value_print_name(out, v->u.t->name);
		else
			sb_putc(out, '?');
		return;
	}
}

bool value_holds(const Value *v, ValKind kind)
{
	if (v->kind == kind)
		return true;
	if (v->kind == VAL_ARRAY || v->kind == VAL_TUPLE)
		for (size_t i = 0; i < v->n; i++)
			if (value_holds(v->u.items[i], kind))
				return true;
	return false;
}
