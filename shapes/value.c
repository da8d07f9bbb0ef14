/*
 * value.c - compile-time values (spec 3.3.3): deep equality and what a
 * value holds. Printing them is flatten's (flatten/print.c): it names
 * tensors.
 */
#include "shapes/value.h"

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
