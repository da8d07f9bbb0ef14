/*
 * check_sema.c - semantic analysis (spec 3.3): the embedded standard
 * library, what sema records for later stages (types, callee, generic
 * binding, argument per parameter), generic deduction, --lenient.
 * The rules' diagnostics are covered by testsuite/golden/sema/.
 */
#include "model/model.h"
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#define HEADER                                                                \
	"version 1.0;\n"                                                      \
	"extension KHR_enable_fragment_definitions "                          \
	"KHR_enable_operator_expressions;\n"

/* Checked whole: these tests read the annotations of the graph body's
 * syntax tree, which a check in one pass does not keep. */
static void check_text(Model *m, const char *text, bool lenient)
{
	ModelOptions opt = { .max_errors = 50, .lenient = lenient, .whole = true };
	model_check_text(m, "t.nnef", text, strlen(text), &opt);
}

static const char *rendered(const Model *m)
{
	static char buf[4000];
	StrBuf b;
	sb_init(&b);
	model_render_diags(m, "test", &b, false, true);
	snprintf(buf, sizeof(buf), "%s", sb_str(&b));
	sb_free(&b);
	return buf;
}

static size_t count(const Model *m, DiagCode code)
{
	size_t n = 0;
	for (size_t i = 0; i < m->diags.len; i++)
		n += m->diags.items[i]->code == code;
	return n;
}

/* The statement i of the graph body. */
static const AstAssign *stmt(const Model *m, size_t i)
{
	return &m->parse.doc->graph->body->stmts[i];
}

static const char *type_of(Model *m, const AstExpr *e)
{
	ck_assert_ptr_nonnull(e->type);
	return ty_str(&m->arena, e->type);
}

/* The standard library parses and type-checks without a single
 * diagnostic, and holds the operations of spec 1.0.2 chapter 4 and those
 * added by 1.0.3 - 1.0.5. */
START_TEST(stdlib_is_clean_and_complete)
{
	Model m;
	check_text(&m, HEADER "graph G( x ) -> ( y ) { x = external(shape = [1]); y = copy(x); }",
		   false);
	ck_assert_msg(m.diags.len == 0, "%s", rendered(&m));
	ck_assert(m.checked);
	size_t prims = 0, compounds = 0;
	for (size_t i = 0; i < m.prog.nfrags; i++) {
		ck_assert(m.prog.frags[i]->is_std);
		if (m.prog.frags[i]->def->body)
			compounds++;
		else
			prims++;
	}
	ck_assert_uint_eq(prims, 73);
	ck_assert_uint_eq(compounds, 45);
	static const char *names[] = {
		"external", "constant", "variable", "copy", "neg", "rcp", "exp",
		"log", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin",
		"acos", "atan", "asinh", "acosh", "atanh", "abs", "sign", "not",
		"floor", "ceil", "round", "add", "sub", "mul", "div", "pow", "lt",
		"gt", "le", "ge", "eq", "ne", "and", "or", "select", "sqr",
		"sqrt", "rsqr", "rsqrt", "log2", "min", "max", "clamp", "conv",
		"deconv", "box", "debox", "argmax_pool", "sample", "desample",
		"nearest_downsample", "area_downsample", "nearest_upsample",
		"multilinear_upsample", "sum_reduce", "max_reduce", "min_reduce",
		"argmax_reduce", "argmin_reduce", "all_reduce", "any_reduce",
		"mean_reduce", "reshape", "squeeze", "unsqueeze", "transpose",
		"split", "concat", "stack", "unstack", "slice", "pad", "tile",
		"gather", "cast", "avg_roi_pool", "max_roi_pool", "roi_resample",
		"avg_roi_align", "max_roi_align", "matmul", "update", "sigmoid",
		"relu", "prelu", "leaky_relu", "elu", "selu", "gelu", "silu",
		"softmax", "softplus", "linear", "separable_conv",
		"separable_deconv", "max_pool_with_index", "max_pool",
		"avg_pool", "rms_pool", "local_response_normalization",
		"local_mean_normalization", "local_variance_normalization",
		"local_contrast_normalization", "l1_normalization",
		"l2_normalization", "batch_normalization",
		"min_max_linear_quantize", "zero_point_linear_quantize",
		"linear_quantize", "logarithmic_quantize", "copy_n", "add_n",
		"moments",
	};
	ck_assert_uint_eq(sizeof(names) / sizeof(names[0]), 118);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		ck_assert_msg(sema_lookup(&m.prog, intern_cstr(&m.interner,
							       names[i])),
			      "'%s' missing", names[i]);
	model_free(&m);
}
END_TEST

/* Declarations from 1.0.3 - 1.0.5 (spec README table). */
START_TEST(stdlib_later_revisions)
{
	Model m;
	check_text(&m, HEADER "graph G( x ) -> ( y ) { x = external(shape = [1]); y = copy(x); }",
		   false);
	const SemaFrag *slice = sema_lookup(&m.prog, intern_cstr(&m.interner, "slice"));
	ck_assert_uint_eq(slice->nparams, 5);
	ck_assert_str_eq(slice->params[4].name, "stride");
	ck_assert_str_eq(ty_str(&m.arena, slice->params[4].type), "integer[]");
	const SemaFrag *elu = sema_lookup(&m.prog, intern_cstr(&m.interner, "elu"));
	ck_assert_str_eq(elu->params[1].name, "alpha");
	ck_assert_ptr_nonnull(elu->params[1].def);
	const SemaFrag *tanh_ = sema_lookup(&m.prog, intern_cstr(&m.interner, "tanh"));
	ck_assert_ptr_null(tanh_->def->body); /* a primitive since 1.0.4 */
	const SemaFrag *cast = sema_lookup(&m.prog, intern_cstr(&m.interner, "cast"));
	ck_assert(cast->is_generic);
	ck_assert_ptr_null(cast->generic_default);
	ck_assert_str_eq(ty_str(&m.arena, cast->params[0].type), "tensor<>");
	const SemaFrag *gather = sema_lookup(&m.prog, intern_cstr(&m.interner, "gather"));
	ck_assert_str_eq(ty_str(&m.arena, gather->params[1].type),
			 "tensor<integer>");
	const SemaFrag *zp = sema_lookup(&m.prog,
					 intern_cstr(&m.interner,
						     "zero_point_linear_quantize"));
	ck_assert_str_eq(zp->params[1].name, "zero_point");
	ck_assert_str_eq(ty_str(&m.arena, zp->params[1].type), "tensor<integer>");
	model_free(&m);
}
END_TEST

/* What sema records for flattening: each expression's type; for each
 * invocation the callee, the generic binding and the argument of each
 * parameter (NULL where the default applies). */
START_TEST(annotations)
{
	Model m;
	check_text(&m,
		   HEADER
		   "graph G( x ) -> ( y )\n{\n"
		   "  x = external(shape = [1, 8, 4, 4]);\n"
		   "  w = variable<scalar>(shape = [8, 8, 3, 3], label = 'w');\n"
		   "  c = conv(x, w, stride = [1, 1]);\n"
		   "  s = select(c > 0.0, c, 0.0);\n"
		   "  y = s * 2.0 + c;\n"
		   "}\n",
		   false);
	ck_assert_msg(m.diags.len == 0, "%s", rendered(&m));
	const AstExpr *ext = stmt(&m, 0)->rhs;
	const SemaCall *call = ext->u.inv.call;
	ck_assert_str_eq(call->callee->name, "external");
	ck_assert_str_eq(ty_str(&m.arena, call->generic), "scalar"); /* default */
	ck_assert_str_eq(type_of(&m, ext), "tensor<scalar>");

	const AstExpr *conv = stmt(&m, 2)->rhs;
	call = conv->u.inv.call;
	ck_assert_str_eq(call->callee->name, "conv");
	ck_assert_ptr_null(call->generic);
	ck_assert_uint_eq(call->callee->nparams, 8);
	ck_assert_ptr_eq(call->args[0], conv->u.inv.args[0].value);
	ck_assert_ptr_eq(call->args[1], conv->u.inv.args[1].value);
	ck_assert_ptr_null(call->args[2]); /* bias: default */
	ck_assert_ptr_eq(call->args[5], conv->u.inv.args[2].value); /* stride */

	const AstExpr *sel = stmt(&m, 3)->rhs;
	call = sel->u.inv.call;
	ck_assert_str_eq(ty_str(&m.arena, call->generic), "scalar"); /* deduced */
	ck_assert_str_eq(type_of(&m, sel->u.inv.args[0].value),
			 "tensor<logical>");
	ck_assert_str_eq(type_of(&m, sel->u.inv.args[2].value), "scalar");

	const AstExpr *y = stmt(&m, 4)->rhs;
	ck_assert_str_eq(type_of(&m, y), "tensor<scalar>");
	ck_assert_str_eq(type_of(&m, y->u.bin.a->u.bin.b), "scalar");
	model_free(&m);
}
END_TEST

/* Generic types: explicit, default, deduced, and propagated with <?>
 * (spec 3.3.1 Generic Types, 3.3.2 Invocations). */
START_TEST(generic_binding)
{
	Model m;
	check_text(&m,
		   HEADER
		   "fragment pass<?>( x: tensor<?> ) -> ( y: tensor<?> )\n"
		   "{\n  y = copy<?>(x);\n}\n"
		   "fragment make<? = scalar>( n: integer ) -> ( y: tensor<?> )\n"
		   "{\n  y = cast<?>(constant(shape = [n], value = [0.0]));\n}\n"
		   "graph G( x ) -> ( y, z )\n{\n"
		   "  x = external<integer>(shape = [2]);\n"
		   "  y = pass(x);\n"
		   "  z = make(n = 2);\n"
		   "}\n",
		   false);
	ck_assert_msg(m.diags.len == 0, "%s", rendered(&m));
	ck_assert_str_eq(type_of(&m, stmt(&m, 0)->rhs), "tensor<integer>");
	const AstExpr *y = stmt(&m, 1)->rhs;
	ck_assert_str_eq(ty_str(&m.arena, y->u.inv.call->generic), "integer");
	ck_assert_str_eq(type_of(&m, y), "tensor<integer>");
	const AstExpr *z = stmt(&m, 2)->rhs;
	ck_assert_str_eq(ty_str(&m.arena, z->u.inv.call->generic), "scalar");
	/* inside pass, copy<?> binds copy's ? to pass's own ? */
	const SemaFrag *pass = sema_lookup(&m.prog, intern_cstr(&m.interner, "pass"));
	const AstExpr *inner = pass->def->body->stmts[0].rhs;
	ck_assert_str_eq(ty_str(&m.arena, inner->u.inv.call->generic), "?");
	ck_assert_str_eq(type_of(&m, inner), "tensor<?>");
	model_free(&m);
}
END_TEST

/* --lenient: comma-separated extensions and a redefinition of a standard
 * operation with the standard signature become warnings; the document's
 * body replaces the standard one. */
START_TEST(lenient_mode)
{
	static const char *doc =
		"version 1.0;\n"
		"extension KHR_enable_fragment_definitions, "
		"KHR_enable_operator_expressions;\n"
		"fragment gelu( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n"
		"{\n  y = x * sigmoid(1.5 * x);\n}\n"
		"graph G( x ) -> ( y ) { x = external(shape = [1]); y = gelu(x); }\n";
	Model m;
	check_text(&m, doc, false);
	ck_assert_int_eq(m.status, MODEL_INVALID);
	ck_assert_uint_eq(count(&m, DIAG_E0215), 1);
	ck_assert_uint_eq(count(&m, DIAG_E0502), 1);
	ck_assert_uint_eq(m.diags.nerrors, 2);
	model_free(&m);

	check_text(&m, doc, true);
	ck_assert_msg(m.status == MODEL_VALID, "%s", rendered(&m));
	ck_assert_uint_eq(m.diags.nwarnings, 2);
	ck_assert(strstr(rendered(&m), "without it this is an error"));
	const SemaFrag *gelu = sema_lookup(&m.prog, intern_cstr(&m.interner, "gelu"));
	ck_assert(!gelu->is_std);
	/* the graph's call resolves to the document's definition */
	ck_assert_ptr_eq(stmt(&m, 1)->rhs->u.inv.call->callee, gelu);
	model_free(&m);

	/* a different signature stays an error */
	check_text(&m,
		   HEADER
		   "fragment relu( x: tensor<scalar>, a: scalar ) -> ( y: tensor<scalar> );\n"
		   "graph G( x ) -> ( y ) { x = external(shape = [1]); y = relu(x, a = 1.0); }\n",
		   true);
	ck_assert_uint_eq(count(&m, DIAG_E0502), 1);
	ck_assert_int_eq(m.status, MODEL_INVALID);
	model_free(&m);
}
END_TEST

/* Errors in fragments and the graph come out in source order, and the
 * error limit holds. */
START_TEST(errors_in_source_order)
{
	Model m;
	check_text(&m,
		   HEADER
		   "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n"
		   "{\n  y = x + 1;\n}\n"
		   "graph G( x ) -> ( y )\n{\n"
		   "  x = external(shape = [1]);\n"
		   "  a = foo(x);\n"
		   "  y = relu(b);\n"
		   "}\n",
		   false);
	ck_assert_uint_eq(m.diags.nerrors, 3);
	ck_assert_int_eq(m.diags.items[0]->code, DIAG_E0401);
	ck_assert_int_eq(m.diags.items[1]->code, DIAG_E0601);
	ck_assert_int_eq(m.diags.items[2]->code, DIAG_E0702);
	model_free(&m);

	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "version 1.0;\ngraph G( x ) -> ( y )\n{\n"
		    "  x = external(shape = [1]);\n");
	for (int i = 0; i < 100; i++)
		sb_printf(&b, "  a%d = unknown_op(x);\n", i);
	sb_puts(&b, "  y = copy(x);\n}\n");
	/* every error is collected; --max-errors limits what is shown */
	ModelOptions opt = { .max_errors = 7 };
	model_check_text(&m, "t.nnef", sb_str(&b), b.len, &opt);
	ck_assert_uint_eq(m.diags.nerrors, 100);
	ck_assert_uint_eq(model_shown_errors(&m), 7);
	ck_assert(model_errors_hidden(&m));
	StrBuf r;
	sb_init(&r);
	model_render_diags(&m, "nnef-check", &r, false, true);
	ck_assert_msg(strstr(sb_str(&r), "t.nnef:11:8:") &&
			      !strstr(sb_str(&r), "t.nnef:12:8:"),
		      "%s", sb_str(&r));
	ck_assert_msg(strstr(sb_str(&r), "nnef-check: 93 more errors not shown (raise the limit with --max-errors)\n"), "%s", sb_str(&r));
	sb_free(&r);
	model_free(&m);
	sb_free(&b);
}
END_TEST

/* Large documents are checked in one pass: identifier tables grow. */
START_TEST(many_identifiers)
{
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "version 1.0;\ngraph G( x ) -> ( y )\n{\n"
		    "  x = external(shape = [1]);\n  t0 = copy(x);\n");
	for (int i = 1; i < 20000; i++)
		sb_printf(&b, "  t%d = add(t%d, x);\n", i, i - 1);
	sb_puts(&b, "  y = copy(t19999);\n}\n");
	Model m;
	ModelOptions opt = { .max_errors = 20 };
	model_check_text(&m, "t.nnef", sb_str(&b), b.len, &opt);
	ck_assert_msg(m.diags.len == 0, "%s", rendered(&m));
	model_free(&m);
	sb_free(&b);
}
END_TEST

Suite *sema_suite(void)
{
	Suite *s = suite_create("sema");
	TCase *tc = tcase_create("stdlib");
	tcase_add_test(tc, stdlib_is_clean_and_complete);
	tcase_add_test(tc, stdlib_later_revisions);
	suite_add_tcase(s, tc);
	tc = tcase_create("analysis");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, annotations);
	tcase_add_test(tc, generic_binding);
	tcase_add_test(tc, lenient_mode);
	tcase_add_test(tc, errors_in_source_order);
	tcase_add_test(tc, many_identifiers);
	suite_add_tcase(s, tc);
	return s;
}
