/*
 * check_dim.c - the symbolic integers of shapes/dim.c (tract's TDim): the
 * canonical form (equal expressions are one pointer, printed one way),
 * the arithmetic and its overflow, floor, ceiling and exact division,
 * minimum and maximum decided from the bounds of symbols (each at least
 * 0), the extents that encode expressions, and evaluation.
 */
#include "shapes/shapes.h"
#include "testutil.h"

#include <stdint.h>
#include <string.h>

static DimTable *t;

static void setup(void)
{
	t = dim_table_new();
}

static void teardown(void)
{
	dim_table_free(t);
	t = NULL;
}

static const DimExpr *K(int64_t v)
{
	return dim_const(t, v);
}

static const DimExpr *S(void)
{
	return dim_symbol(t, "S");
}

static const DimExpr *P(void)
{
	return dim_symbol(t, "P");
}

static const DimExpr *add(const DimExpr *a, const DimExpr *b)
{
	return dim_add(t, a, b);
}

static const DimExpr *sub(const DimExpr *a, const DimExpr *b)
{
	return dim_sub(t, a, b);
}

static const DimExpr *mul(const DimExpr *a, const DimExpr *b)
{
	return dim_mul(t, a, b);
}

#define ck_text(e, want) ck_assert_str_eq(dim_text(t, (e)), (want))

START_TEST(canonical_form)
{
	/* like terms combined, terms sorted: one pointer per value */
	ck_assert_ptr_eq(add(S(), P()), add(P(), S()));
	ck_assert_ptr_eq(sub(mul(K(2), S()), S()), S());
	ck_assert_ptr_eq(sub(S(), S()), K(0));
	ck_assert_ptr_eq(mul(add(S(), K(1)), add(S(), K(1))),
			 add(add(mul(S(), S()), mul(K(2), S())), K(1)));
	ck_text(add(add(mul(K(2), S()), P()), K(-1)), "P+2*S-1");
	ck_text(mul(S(), P()), "P*S");
	ck_text(sub(K(3), S()), "-S+3");
	int64_t v;
	ck_assert(dim_is_const(sub(add(S(), K(5)), S()), &v) && v == 5);
	ck_assert(!dim_is_const(S(), &v));
	ck_assert_str_eq(dim_symbol_name(S()), "S");
	ck_assert_ptr_null(dim_symbol_name(add(S(), K(1))));
	/* spaced: as an NNEF expression */
	StrBuf b;
	sb_init(&b);
	dim_print(&b, add(mul(K(2), S()), K(-1)), true);
	ck_assert_str_eq(sb_str(&b), "2 * S - 1");
	sb_free(&b);
}
END_TEST

START_TEST(division)
{
	/* floor division by a constant takes out what divides exactly */
	ck_assert_ptr_eq(dim_div(t, mul(K(4), S()), 2), mul(K(2), S()));
	ck_text(dim_div(t, add(S(), K(1)), 2), "(S+1)/2");
	ck_text(dim_ceil_div(t, S(), 8), "(S+7)/8");
	ck_assert_ptr_eq(dim_div(t, K(7), 2), K(3));
	ck_assert_ptr_eq(dim_div(t, K(-7), 2), K(-4)); /* floor */
	ck_assert_ptr_eq(dim_ceil_div(t, K(7), 2), K(4));
	/* exact division of expressions */
	ck_assert_ptr_eq(dim_exact_div(t, mul(K(8), S()), S()), K(8));
	ck_assert_ptr_eq(dim_exact_div(t, add(mul(K(2), S()), K(2)), add(S(), K(1))), K(2));
	ck_assert_ptr_eq(dim_exact_div(t, add(P(), S()), add(S(), P())), K(1));
	ck_assert_ptr_null(dim_exact_div(t, add(S(), K(1)), S()));
	ck_assert_ptr_null(dim_exact_div(t, K(2), add(S(), P())));
}
END_TEST

START_TEST(bounds_of_symbols)
{
	DimBounds b;
	dim_bounds(add(S(), K(-1)), &b); /* S - 1 >= -1 */
	ck_assert(b.has_lo && b.lo == -1 && !b.has_hi);
	dim_bounds(sub(K(0), add(S(), P())), &b); /* -S - P <= 0 */
	ck_assert(!b.has_lo && b.has_hi && b.hi == 0);
	dim_bounds(sub(S(), P()), &b); /* either sign */
	ck_assert(!b.has_lo && !b.has_hi);
	dim_bounds(K(4), &b);
	ck_assert(b.has_lo && b.has_hi && b.lo == 4 && b.hi == 4);
	/* a floor division or a minimum of what is at least 0 is so too */
	dim_bounds(add(dim_div(t, S(), 2), K(1)), &b);
	ck_assert(b.has_lo && b.lo == 1);
	dim_bounds(dim_min(t, S(), P()), &b);
	ck_assert(b.has_lo && b.lo == 0);
}
END_TEST

START_TEST(min_max)
{
	/* decided when the bounds of the difference decide it */
	ck_assert_ptr_eq(dim_min(t, K(0), add(P(), S())), K(0));
	ck_assert_ptr_eq(dim_max(t, S(), add(S(), K(1))), add(S(), K(1)));
	ck_assert_ptr_eq(dim_min(t, S(), add(S(), P())), S());
	ck_assert_ptr_eq(dim_max(t, K(3), K(5)), K(5));
	/* else kept, its arguments in one order */
	ck_assert_ptr_eq(dim_min(t, S(), P()), dim_min(t, P(), S()));
	ck_text(dim_max(t, K(1), S()), "max(S,1)");
	ck_text(dim_min(t, add(S(), P()), K(1)), "min(P+S,1)");
}
END_TEST

START_TEST(overflow)
{
	const DimExpr *big = mul(K(INT64_MAX / 2 + 1), S());
	ck_assert_ptr_nonnull(big);
	ck_assert_ptr_null(add(big, big));
	ck_assert_ptr_null(mul(big, K(2)));
	ck_assert_ptr_null(mul(K(INT64_MIN), K(-1)));
}
END_TEST

/* the value of each symbol: S = 10, P = 3, others unknown */
static bool values(void *ctx, const char *name, int64_t *out)
{
	(void)ctx;
	if (strcmp(name, "S") == 0)
		*out = 10;
	else if (strcmp(name, "P") == 0)
		*out = 3;
	else
		return false;
	return true;
}

START_TEST(encode_and_eval)
{
	const DimExpr *e = add(dim_ceil_div(t, add(S(), P()), 4), dim_min(t, S(), mul(K(2), P())));
	int64_t d = dim_encode(e), v;
	ck_assert(dim_is_symbolic(d));
	ck_assert_ptr_eq(dim_expr_of(d), e);
	ck_assert_ptr_eq(dim_decode(t, d), e);
	ck_assert_int_eq(dim_encode(K(7)), 7); /* a known extent is itself */
	ck_assert_ptr_eq(dim_decode(t, 7), K(7));
	ck_assert(dim_eval(e, values, NULL, &v));
	ck_assert_int_eq(v, 4 + 6); /* ceil(13 / 4) + min(10, 6) */
	ck_assert(!dim_eval(add(S(), dim_symbol(t, "Q")), values, NULL, &v));
	/* an expression of another table, made in this one */
	DimTable *u = dim_table_new();
	const DimExpr *f = dim_add(u, dim_symbol(u, "S"), dim_const(u, 1));
	ck_assert_ptr_eq(dim_import(t, f), add(S(), K(1)));
	dim_table_free(u);
}
END_TEST

Suite *dim_suite(void)
{
	Suite *s = suite_create("dim");
	TCase *tc = tcase_create("dim");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, canonical_form);
	tcase_add_test(tc, division);
	tcase_add_test(tc, bounds_of_symbols);
	tcase_add_test(tc, min_max);
	tcase_add_test(tc, overflow);
	tcase_add_test(tc, encode_and_eval);
	suite_add_tcase(s, tc);
	return s;
}
