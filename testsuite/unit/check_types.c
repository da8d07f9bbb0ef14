/*
 * check_types.c - the type system of spec 3.3.1: interning, attribute
 * types, every implicit cast rule and the casts it disallows, common
 * types, generic binding and printing.
 */
#include "sema/types.h"
#include "testutil.h"

#include <string.h>

typedef struct T {
	Arena arena;
	TypeTable tt;
	const Type *i, *s, *l, *str, *g;   /* integer scalar logical string ? */
	const Type *ti, *ts, *tl, *tg, *tu; /* tensor<integer> ... tensor<> */
	const Type *e;                      /* the type of [] */
} T;

static void t_init(T *t)
{
	arena_init(&t->arena);
	ty_init(&t->tt, &t->arena);
	t->i = ty_prim(&t->tt, TY_INTEGER);
	t->s = ty_prim(&t->tt, TY_SCALAR);
	t->l = ty_prim(&t->tt, TY_LOGICAL);
	t->str = ty_prim(&t->tt, TY_STRING);
	t->g = ty_prim(&t->tt, TY_GENERIC);
	t->ti = ty_tensor(&t->tt, t->i);
	t->ts = ty_tensor(&t->tt, t->s);
	t->tl = ty_tensor(&t->tt, t->l);
	t->tg = ty_tensor(&t->tt, t->g);
	t->tu = ty_tensor(&t->tt, NULL);
	t->e = t->tt.empty_array;
}

static void t_free(T *t)
{
	ty_free(&t->tt);
	arena_free(&t->arena);
}

static const Type *pair(T *t, const Type *a, const Type *b)
{
	const Type *items[2] = { a, b };
	return ty_tuple(&t->tt, items, 2);
}

static bool cast(const Type *from, const Type *to)
{
	return ty_castable(from, to, NULL, NULL);
}

static const char *str(T *t, const Type *ty)
{
	return ty_str(&t->arena, ty);
}

START_TEST(interning)
{
	T t;
	t_init(&t);
	ck_assert_ptr_eq(ty_tensor(&t.tt, t.s), t.ts);
	ck_assert_ptr_eq(ty_array(&t.tt, t.ts), ty_array(&t.tt, t.ts));
	ck_assert_ptr_ne(ty_array(&t.tt, t.ts), ty_array(&t.tt, t.ti));
	ck_assert_ptr_eq(pair(&t, t.i, t.s), pair(&t, t.i, t.s));
	ck_assert_ptr_ne(pair(&t, t.i, t.s), pair(&t, t.s, t.i));
	/* many distinct types: the table grows and keeps identities */
	const Type *nested = t.i;
	const Type *kept[200];
	for (int k = 0; k < 200; k++)
		kept[k] = nested = ty_array(&t.tt, nested);
	nested = t.i;
	for (int k = 0; k < 200; k++) {
		nested = ty_array(&t.tt, nested);
		ck_assert_ptr_eq(nested, kept[k]);
	}
	t_free(&t);
}
END_TEST

START_TEST(printing)
{
	T t;
	t_init(&t);
	ck_assert_str_eq(str(&t, t.ts), "tensor<scalar>");
	ck_assert_str_eq(str(&t, t.tu), "tensor<>");
	ck_assert_str_eq(str(&t, t.tg), "tensor<?>");
	ck_assert_str_eq(str(&t, ty_array(&t.tt, ty_array(&t.tt, t.s))),
			 "scalar[][]");
	ck_assert_str_eq(str(&t, ty_array(&t.tt, pair(&t, t.i, t.i))),
			 "(integer, integer)[]");
	ck_assert_str_eq(str(&t, t.e), "[]");
	t_free(&t);
}
END_TEST

/* "A type is said to be an attribute type if it does not contain tensor
 * types." */
START_TEST(attribute_types)
{
	T t;
	t_init(&t);
	ck_assert(ty_is_attribute(t.i));
	ck_assert(ty_is_attribute(ty_array(&t.tt, pair(&t, t.i, t.s))));
	ck_assert(!ty_is_attribute(t.ts));
	ck_assert(!ty_is_attribute(ty_array(&t.tt, t.ts)));
	ck_assert(!ty_is_attribute(pair(&t, t.ts, t.ti)));
	ck_assert(ty_all_tensors(ty_array(&t.tt, pair(&t, t.ts, t.ti))));
	ck_assert(!ty_all_tensors(ty_array(&t.tt, t.i)));
	/* tuples must not mix tensor and non-tensor items */
	ck_assert_ptr_null(ty_mixed_tuple(pair(&t, t.ts, t.ti)));
	const Type *mixed = pair(&t, t.ts, t.i);
	ck_assert_ptr_eq(ty_mixed_tuple(ty_array(&t.tt, mixed)), mixed);
	ck_assert(ty_has_unbound_tensor(ty_array(&t.tt, t.tu)));
	ck_assert(!ty_has_unbound_tensor(t.ts));
	t_free(&t);
}
END_TEST

/* "Primitive types can be cast to the tensor types of the corresponding
 * data-type." */
START_TEST(cast_primitive_to_tensor)
{
	T t;
	t_init(&t);
	ck_assert(cast(t.s, t.ts));
	ck_assert(cast(t.i, t.ti));
	ck_assert(cast(t.l, t.tl));
	ck_assert(!cast(t.i, t.ts)); /* no integer to scalar, even in tensors */
	ck_assert(!cast(t.s, t.ti));
	ck_assert(!cast(t.ts, t.s)); /* never back */
	ck_assert(!cast(t.i, t.s));
	ck_assert(!cast(t.s, t.i));
	ck_assert(!cast(t.l, t.i));
	ck_assert(!cast(t.str, t.l));
	t_free(&t);
}
END_TEST

/* "Any primitive can be cast to the generic type ?, and any (bound) tensor
 * type can be cast to the generic type tensor<?>." */
START_TEST(cast_to_generic)
{
	T t;
	t_init(&t);
	const Type *b = NULL;
	ck_assert(ty_castable(t.s, t.g, &b, NULL));
	ck_assert_ptr_eq(b, t.s);
	b = NULL;
	ck_assert(ty_castable(t.ti, t.tg, &b, NULL));
	ck_assert_ptr_eq(b, t.i);
	b = NULL;
	ck_assert(ty_castable(t.l, t.tg, &b, NULL)); /* via tensor<logical> */
	ck_assert_ptr_eq(b, t.l);
	/* a binding, once made, must agree */
	b = t.s;
	const Type *conflict = NULL;
	ck_assert(!ty_castable(t.ti, t.tg, &b, &conflict));
	ck_assert_ptr_eq(conflict, t.i);
	ck_assert_ptr_eq(b, t.s);
	/* unbound tensors and compound values do not cast to ? */
	b = NULL;
	ck_assert(!ty_castable(t.tu, t.tg, &b, NULL));
	ck_assert(!ty_castable(ty_array(&t.tt, t.i), t.g, &b, NULL));
	/* without a parameter to bind, ? accepts only ? (inside a generic
	 * fragment, the fragment's own type) */
	ck_assert(cast(t.g, t.g));
	ck_assert(!cast(t.s, t.g));
	ck_assert(cast(t.tg, t.tg));
	ck_assert(!cast(t.tg, t.ts));
	ck_assert(!cast(t.ts, t.tg));
	t_free(&t);
}
END_TEST

/* "Any tensor type can be cast to the unbound tensor type tensor<>." */
START_TEST(cast_to_unbound)
{
	T t;
	t_init(&t);
	ck_assert(cast(t.ts, t.tu));
	ck_assert(cast(t.ti, t.tu));
	ck_assert(cast(t.tg, t.tu));
	ck_assert(cast(t.tu, t.tu));
	ck_assert(cast(t.s, t.tu));
	ck_assert(!cast(t.tu, t.ts));
	ck_assert(!cast(ty_array(&t.tt, t.ts), t.tu));
	t_free(&t);
}
END_TEST

/* "An array type can be cast to another array type if its item type can
 * be cast. The empty-array-type can be cast to any other array type, but
 * no other array type can be cast to the empty-array-type." */
START_TEST(cast_arrays)
{
	T t;
	t_init(&t);
	const Type *ai = ty_array(&t.tt, t.i), *as = ty_array(&t.tt, t.s);
	const Type *ats = ty_array(&t.tt, t.ts);
	ck_assert(cast(as, ats));
	ck_assert(!cast(ai, as));
	ck_assert(!cast(ats, as));
	ck_assert(cast(t.e, ai));
	ck_assert(cast(t.e, ty_array(&t.tt, ty_array(&t.tt, pair(&t, t.i, t.i)))));
	ck_assert(cast(t.e, t.e));
	ck_assert(!cast(ai, t.e));
	ck_assert(!cast(t.e, t.i));
	ck_assert(!cast(t.i, ai)); /* no item to array */
	const Type *b = NULL;
	ck_assert(ty_castable(ai, ty_array(&t.tt, t.g), &b, NULL));
	ck_assert_ptr_eq(b, t.i);
	b = NULL;
	ck_assert(ty_castable(t.e, ty_array(&t.tt, t.g), &b, NULL));
	ck_assert_ptr_null(b); /* [] binds nothing */
	t_free(&t);
}
END_TEST

/* "A tuple type can be cast to another tuple type if they have the same
 * number of items and the corresponding item types can be cast." */
START_TEST(cast_tuples)
{
	T t;
	t_init(&t);
	ck_assert(cast(pair(&t, t.s, t.s), pair(&t, t.ts, t.ts)));
	ck_assert(!cast(pair(&t, t.i, t.s), pair(&t, t.s, t.s)));
	const Type *three[3] = { t.i, t.i, t.i };
	ck_assert(!cast(ty_tuple(&t.tt, three, 3), pair(&t, t.i, t.i)));
	ck_assert(!cast(ty_array(&t.tt, t.i), pair(&t, t.i, t.i)));
	t_free(&t);
}
END_TEST

/* "Two types have a common type if either of the two can be cast to the
 * other one." */
START_TEST(common_types)
{
	T t;
	t_init(&t);
	ck_assert_ptr_eq(ty_common(t.s, t.ts), t.ts);
	ck_assert_ptr_eq(ty_common(t.ts, t.s), t.ts);
	ck_assert_ptr_eq(ty_common(t.e, ty_array(&t.tt, t.i)),
			 ty_array(&t.tt, t.i));
	ck_assert_ptr_eq(ty_common(t.ts, t.tu), t.tu);
	ck_assert_ptr_null(ty_common(t.i, t.s));
	ck_assert_ptr_null(ty_common(t.ti, t.ts));
	ck_assert_ptr_null(ty_common(t.str, t.l));
	t_free(&t);
}
END_TEST

START_TEST(binding_substitutes)
{
	T t;
	t_init(&t);
	const Type *sig = pair(&t, t.tg, ty_array(&t.tt, t.tg));
	const Type *bound = ty_bind(&t.tt, sig, t.i);
	ck_assert_ptr_eq(bound, pair(&t, t.ti, ty_array(&t.tt, t.ti)));
	ck_assert_ptr_eq(ty_bind(&t.tt, t.ts, t.i), t.ts);
	ck_assert_ptr_eq(ty_bind(&t.tt, t.tg, t.g), t.tg);
	ck_assert_ptr_eq(ty_bind(&t.tt, t.tg, NULL), t.tg);
	t_free(&t);
}
END_TEST

Suite *types_suite(void)
{
	Suite *s = suite_create("types");
	TCase *tc = tcase_create("types");
	tcase_add_test(tc, interning);
	tcase_add_test(tc, printing);
	tcase_add_test(tc, attribute_types);
	tcase_add_test(tc, common_types);
	tcase_add_test(tc, binding_substitutes);
	suite_add_tcase(s, tc);
	tc = tcase_create("casts");
	tcase_add_test(tc, cast_primitive_to_tensor);
	tcase_add_test(tc, cast_to_generic);
	tcase_add_test(tc, cast_to_unbound);
	tcase_add_test(tc, cast_arrays);
	tcase_add_test(tc, cast_tuples);
	suite_add_tcase(s, tc);
	return s;
}
