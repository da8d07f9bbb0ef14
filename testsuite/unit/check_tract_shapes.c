/*
 * check_tract_shapes.c - the shape functions of the operations of tract's
 * registries (shapes/tract.def; sema/tract/TRACT-NOTES.md, parts B and
 * C): that every row matches its registry declaration, and for each
 * operation the result shapes of small hand-computed cases, the datum
 * types of the results, extents known only when the model runs flowing
 * through, results that depend on values not known when the graph is
 * built, and each validity rule (diagnostic code and parameter at fault).
 *
 * Arguments are written as in check_shapes.c (shape_literals.h), with
 * symbols in extents and values (<1,S,8>, P+S), a tensor's datum type
 * (<2,3>:f16) and its known items (<3>=[1.0,1.0,2.0]); `false` stands for
 * an absent optional argument. A call answers with the printed result,
 * the results of an operation with several joined by ';', "dd" when they
 * depend on values not known when the graph is built, or "E0940@2": the
 * code and the parameter at fault.
 */
#include "sema/sema.h"
#include "shapes/shapes.h"
#include "shape_literals.h"
#include "testutil.h"

#include <string.h>

/* The state of one test (a checked fixture). */
typedef struct Ctx {
	Arena arena;
	StrBuf msg, hint, text;
	DimTable *dims;
	LitReader lit;
	ShapeCall c;
} Ctx;

static Ctx cx;

static void setup(void)
{
	memset(&cx, 0, sizeof(cx));
	arena_init(&cx.arena);
	sb_init(&cx.msg);
	sb_init(&cx.hint);
	sb_init(&cx.text);
	cx.dims = dim_table_new();
	cx.lit = (LitReader){ .arena = &cx.arena, .dims = cx.dims };
}

static void teardown(void)
{
	sb_free(&cx.msg);
	sb_free(&cx.hint);
	sb_free(&cx.text);
	dim_table_free(cx.dims);
	arena_free(&cx.arena);
}

/* ---- running shape_infer ------------------------------------------------ */

static void print_result(StrBuf *o, const ShapeCall *c)
{
	if (c->data_dependent) {
		ck_assert_msg(sb_str(c->msg)[0] != '\0', "%s: data-dependent without saying on what", shape_op_name(c->op));
		ck_assert(!c->out.known);
		sb_puts(o, "dd");
		return;
	}
	if (!(shape_op_flags(c->op) & SF_TUPLE_RESULT)) {
		ck_assert_int_eq(c->out.known, c->known);
		shape_print(o, &c->out);
		return;
	}
	ck_assert_msg(c->outs != NULL && c->nouts >= 2, "%s: several results expected", shape_op_name(c->op));
	for (size_t k = 0; k < c->nouts; k++) {
		if (k)
			sb_putc(o, ';');
		ck_assert_int_eq(c->outs[k].known, c->known);
		shape_print(o, &c->outs[k]);
	}
}

/* Runs shape_infer for op with the arguments argv (NULL-terminated, one
 * per parameter), as the flattener of tract's dialect does; answers the
 * printed result, "dd" or "E09xx@param". */
static const char *run(ShapeOp op, const char *const *argv)
{
	size_t np = shape_op_nparams(op), n = 0;
	while (argv[n])
		n++;
	ck_assert_msg(n == np, "%s has %zu parameters; the test gives %zu", shape_op_name(op), np, n);
	const Value **args = ARENA_ARRAY(&cx.arena, const Value *, np);
	ShapeIn *in = ARENA_ARRAY(&cx.arena, ShapeIn, np);
	DType *dts = ARENA_ARRAY(&cx.arena, DType, np);
	ShapeKnown *known = ARENA_ARRAY(&cx.arena, ShapeKnown, np);
	for (size_t i = 0; i < np; i++) {
		LitArg a;
		lit_arg(&cx.lit, argv[i], &a);
		args[i] = a.value;
		in[i] = a.in;
		dts[i] = a.dtype;
		known[i] = a.known;
	}
	ShapeCall *c = &cx.c;
	memset(c, 0, sizeof(*c));
	c->op = op;
	c->args = args;
	c->in = in;
	c->arena = &cx.arena;
	c->msg = &cx.msg;
	c->hint = &cx.hint;
	c->tract_rules = true;
	c->dims = cx.dims;
	c->in_dtypes = dts;
	c->values = known;
	sb_clear(&cx.msg);
	sb_clear(&cx.hint);
	bool ok = shape_infer(c);
	sb_clear(&cx.text);
	if (ok) {
		print_result(&cx.text, c);
	} else {
		ck_assert_msg(sb_str(c->msg)[0] != '\0', "%s failed without a message", shape_op_name(op));
		ck_assert_msg(strchr(sb_str(c->msg), '\n') == NULL, "%s: a message on several lines", shape_op_name(op));
		ck_assert_int_ge(c->code, DIAG_E0901);
		ck_assert_int_le(c->code, DIAG_E0943);
		ck_assert_int_ge(c->param, -1);
		ck_assert_int_lt(c->param, (int)np);
		sb_printf(&cx.text, "%s@%d", diag_code_name(c->code), c->param);
	}
	return arena_strdup(&cx.arena, sb_str(&cx.text));
}

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })
/* EXPECT("[2,4]", TRACT_CORE_MATMUL, "<2,3>", ...): the answer of
 * SHAPE_OP_TRACT_CORE_MATMUL for those arguments. */
#define EXPECT(want, op, ...) \
	ck_assert_str_eq(run(SHAPE_OP_##op, ARGV(__VA_ARGS__)), (want))
/* The datum type of result k of the last call. */
#define DTYPE(k, want) ck_assert_str_eq(dtype_name(cx.c.dtypes[k]), dtype_name(want))

/* ---- the table against the registries --------------------------------------- */

static const char *const registries[] = { "tract_core", "tract_transformers", "tract_onnx", "tract_pulse", "tract_resource" };

/* The operations whose rows are made elsewhere (the scan and submodel of
 * the flattener): their rows may be present or not yet. */
static bool made_elsewhere(const char *name)
{
	return strcmp(name, "tract_core_scan") == 0 || strcmp(name, "tract_core_submodel") == 0;
}

/* Every declaration without body of sema/tract/NAME.nnef has a row of the
 * same name with the same parameters in the same order, and every
 * SF_TRACT row is such a declaration. */
START_TEST(rows_match_registries)
{
	Arena a;
	arena_init(&a);
	Interner in;
	intern_init(&in, &a);
	DiagList dl;
	diag_list_init(&dl, 0);
	bool seen[SHAPE_OP_COUNT] = { false };
	size_t decls = 0;
	ParseOptions opt = { .dialect = DIALECT_TRACT };
	for (size_t r = 0; r < UTIL_ARRAY_LEN(registries); r++) {
		SourceFile *src = sema_registry_source(registries[r]);
		ck_assert_msg(src != NULL, "no registry %s", registries[r]);
		ParseResult res = parse_document(src, PARSE_FRAGMENTS, &opt, &a, &in, &dl);
		ck_assert_msg(dl.nerrors == 0, "%s.nnef does not parse", registries[r]);
		for (size_t i = 0; i < res.doc->nitems; i++) {
			const AstItem *it = &res.doc->items[i];
			if (it->kind != AST_ITEM_DEF || it->def->body)
				continue;
			const AstDef *d = it->def;
			decls++;
			ShapeOp op = shape_op_lookup(d->name);
			if (op == SHAPE_OP_NONE && made_elsewhere(d->name))
				continue;
			ck_assert_msg(op != SHAPE_OP_NONE, "'%s' (%s.nnef) has no row in shapes/tract.def", d->name, registries[r]);
			ck_assert_msg(shape_op_flags(op) & SF_TRACT, "'%s' has no SF_TRACT", d->name);
			ck_assert_msg(!seen[op], "'%s' declared twice", d->name);
			seen[op] = true;
			ck_assert_msg(shape_op_nparams(op) == d->nparams, "'%s': %zu parameters in tract.def, %zu in %s.nnef", d->name, shape_op_nparams(op), d->nparams, registries[r]);
			for (size_t k = 0; k < d->nparams; k++)
				ck_assert_msg(strcmp(shape_op_param(op, k), d->params[k].name) == 0, "'%s': parameter %zu is '%s' in tract.def, '%s' in %s.nnef", d->name, k, shape_op_param(op, k), d->params[k].name, registries[r]);
			/* an operation with several results says so */
			ck_assert_msg(((shape_op_flags(op) & SF_TUPLE_RESULT) != 0) == (d->nresults > 1), "'%s': %zu results but SF_TUPLE_RESULT %s", d->name, d->nresults, (shape_op_flags(op) & SF_TUPLE_RESULT) ? "set" : "not set");
		}
		source_free(src);
	}
	ck_assert_uint_eq(decls, 88);
	for (int op = 0; op < SHAPE_OP_COUNT; op++)
		if (shape_op_flags((ShapeOp)op) & SF_TRACT)
			ck_assert_msg(seen[op] || made_elsewhere(shape_op_name((ShapeOp)op)), "row '%s' has no declaration in sema/tract/", shape_op_name((ShapeOp)op));
	diag_list_free(&dl);
	intern_free(&in);
	arena_free(&a);
}
END_TEST

/* Each row takes at most 16 parameters and names its shape function's
 * kind consistently. */
START_TEST(rows_are_consistent)
{
	size_t rows = 0;
	for (int op = 0; op < SHAPE_OP_COUNT; op++) {
		unsigned long long f = shape_op_flags((ShapeOp)op);
		if (!(f & SF_TRACT))
			continue;
		rows++;
		ck_assert_uint_le(shape_op_nparams((ShapeOp)op), 16);
		ck_assert_msg(!(f & SF_BINARY) || shape_op_nparams((ShapeOp)op) == 2, "%s", shape_op_name((ShapeOp)op));
	}
	ck_assert_uint_ge(rows, 86);
	ck_assert(shape_op_flags(SHAPE_OP_TRACT_CORE_TOPK) & SF_TUPLE_RESULT);
	ck_assert(shape_op_flags(SHAPE_OP_TRACT_CORE_RANGE) & SF_SYMP(0));
	ck_assert(shape_op_flags(SHAPE_OP_TRACT_PULSE_PULSE_PAD) & SF_SYMP(5));
	ck_assert(!(shape_op_flags(SHAPE_OP_TRACT_CORE_DOWNSAMPLE) & SF_SYMP(2)));
}
END_TEST

/* ---- element-wise ------------------------------------------------------------- */

START_TEST(elementwise_ops)
{
	EXPECT("[2,S,4]", TRACT_CORE_ROUND_EVEN, "<2,S,4>");
	DTYPE(0, DT_NONE);
	EXPECT("[]", TRACT_CORE_ERF, "<>");
	EXPECT("[1,7]", TRACT_CORE_HARD_SWISH, "<1,7>:f16");
	EXPECT("[3]", TRACT_CORE_BITNOT, "<3>:i32");
	EXPECT("[2,3]", TRACT_CORE_IS_NAN, "<2,3>:f32");
	DTYPE(0, DT_BOOL);
	EXPECT("[3]", TRACT_CORE_IS_INF, "<3>", "true", "false");
	DTYPE(0, DT_BOOL);
	EXPECT("[2,2]", TRACT_CORE_POW_CONST, "<2,2>", "2.0");
	EXPECT("[1,8]", TRACT_CORE_GELU_APPROX, "<1,8>", "false");
	EXPECT("[1,8]", TRACT_TRANSFORMERS_GELU_APPROX, "<1,8>", "true");
	EXPECT("[?]", TRACT_CORE_SILU, "<?>");
	EXPECT("[S,P+1]", TRACT_TRANSFORMERS_SILU, "<S,P+1>");
	EXPECT("[4]", TRACT_ONNX_IS_NAN, "<4>");
	DTYPE(0, DT_BOOL);
	EXPECT("[4,2]", TRACT_ONNX_ISINF, "<4,2>", "true", "true");
	DTYPE(0, DT_BOOL);
}
END_TEST

/* Binary operations: trailing unit axes are appended to the lower rank
 * (notes B.7). */
START_TEST(binary_ops)
{
	EXPECT("[4,3,5]", TRACT_CORE_XOR, "<4,1,5>", "<1,3>");
	DTYPE(0, DT_BOOL);
	EXPECT("E0905@1", TRACT_CORE_BITAND, "<2,3>", "<2,4>");
	/* [2] is [2,1] here, not numpy's [1,2] */
	EXPECT("[2,3]", TRACT_SHL, "<2,3>", "<2>");
	EXPECT("E0905@1", TRACT_SHR, "<2,3>", "<3>");
	EXPECT("[S,4]", TRACT_CORE_BITOR, "<S,1>", "<1,4>");
	/* a symbol against a number: the number (or the symbol is 1) */
	EXPECT("[4,4]", TRACT_CORE_BITOR, "<S,4>", "<4,4>");
	EXPECT("[max(P,S),2]", TRACT_CORE_BITOR, "<S,2>", "<P,2>");
	EXPECT("[2]", TRACT_CORE_BITXOR, "<>", "<2>");
	EXPECT("[?]", TRACT_CORE_BITXOR, "<?>", "<2>");
}
END_TEST

START_TEST(reduce_ops)
{
	EXPECT("[2,1,4]", TRACT_CORE_ARGMAX_REDUCE_LAST, "<2,3,4>", "[1]");
	DTYPE(0, DT_I64);
	EXPECT("[1,3]", TRACT_CORE_ARGMIN_REDUCE_LAST, "<2,3>", "[0]");
	DTYPE(0, DT_I64);
	EXPECT("E0907@1", TRACT_CORE_ARGMAX_REDUCE_LAST, "<2,3,4>", "[0,1]");
	EXPECT("E0910@1", TRACT_CORE_ARGMAX_REDUCE_LAST, "<2,3,4>", "[3]");
	EXPECT("E0910@1", TRACT_CORE_ARGMIN_REDUCE_LAST, "<2,3,4>", "[-1]");
	EXPECT("[1,3,1]", TRACT_CORE_PRODUCT_REDUCE, "<2,3,4>", "[0,2]");
	DTYPE(0, DT_NONE);
	EXPECT("[S,1]", TRACT_CORE_PRODUCT_REDUCE, "<S,3>", "[1]");
	EXPECT("E0911@1", TRACT_CORE_PRODUCT_REDUCE, "<2,3>", "[1,1]");
}
END_TEST

/* ---- shapes of tensors ---------------------------------------------------------- */

START_TEST(broadcast_downsample_dyn_slice)
{
	/* numpy's broadcast: leading axes added to the lower rank */
	EXPECT("[2,3,4]", TRACT_CORE_BROADCAST, "<3,1>", "[2,3,4]");
	EXPECT("[5,3]", TRACT_CORE_BROADCAST, "<5,3>", "[3]");
	EXPECT("E0905@1", TRACT_CORE_BROADCAST, "<3,2>", "[3,4]");
	EXPECT("[S,8]", TRACT_CORE_BROADCAST, "<1,8>", "[S,8]");
	EXPECT("[4,8]", TRACT_CORE_BROADCAST, "<S,8>", "[4,8]");
	EXPECT("E0901@1", TRACT_CORE_BROADCAST, "<3>", "[-1]");

	/* ceil((d - modulo) / |stride|) */
	EXPECT("[4,4]", TRACT_CORE_DOWNSAMPLE, "<10,4>", "0", "3", "0");
	EXPECT("[3,4]", TRACT_CORE_DOWNSAMPLE, "<10,4>", "0", "3", "1");
	EXPECT("[5,4]", TRACT_CORE_DOWNSAMPLE, "<10,4>", "0", "-2", "0");
	EXPECT("[0]", TRACT_CORE_DOWNSAMPLE, "<2>", "0", "1", "5");
	EXPECT("[(S+1)/2]", TRACT_CORE_DOWNSAMPLE, "<S>", "0", "2", "0");
	EXPECT("E0908@2", TRACT_CORE_DOWNSAMPLE, "<10>", "0", "0", "0");
	EXPECT("E0910@1", TRACT_CORE_DOWNSAMPLE, "<10>", "1", "2", "0");
	EXPECT("E0910@1", TRACT_CORE_DOWNSAMPLE, "<10>", "-1", "2", "0");
	EXPECT("E0908@3", TRACT_CORE_DOWNSAMPLE, "<10>", "0", "2", "-1");
	EXPECT("E0935@2", TRACT_CORE_DOWNSAMPLE, "<10>", "0", "S", "0");

	/* the extent is len; start and end may be computed when it runs */
	EXPECT("[4,P]", TRACT_CORE_DYN_SLICE, "<4,S>", "0", "P", "P", "1");
	EXPECT("[4,3]", TRACT_CORE_DYN_SLICE, "<4,10>", "2", "5", "3", "1");
	EXPECT("[4,3]", TRACT_CORE_DYN_SLICE, "<4,10>", "<>", "<>", "<>=3", "1");
	EXPECT("E0908@3", TRACT_CORE_DYN_SLICE, "<4,10>", "2", "5", "4", "1");
	EXPECT("dd", TRACT_CORE_DYN_SLICE, "<4,10>", "<>", "<>", "<>", "1");
	EXPECT("E0910@4", TRACT_CORE_DYN_SLICE, "<4,10>", "2", "5", "3", "2");
}
END_TEST

START_TEST(gather_scatter)
{
	EXPECT("[5,2,7,3]", TRACT_CORE_GATHER, "<5,4,3>", "<2,7>", "1");
	EXPECT("[4,3]", TRACT_CORE_GATHER, "<5,4,3>", "<>", "0");
	EXPECT("[K,4]", TRACT_CORE_GATHER, "<S,4>", "<K>", "0");
	/* tract's axes are unsigned: no negative axes */
	EXPECT("E0910@2", TRACT_CORE_GATHER, "<5,4,3>", "<2>", "-1");
	EXPECT("E0910@2", TRACT_CORE_GATHER, "<5,4,3>", "<2>", "3");

	EXPECT("[5,2]", TRACT_CORE_GATHER_ELEMENTS, "<5,4>", "<5,2>", "1");
	EXPECT("[5,2,1]", TRACT_CORE_GATHER_ELEMENTS, "<5,4,3>", "<5,2,1>", "2");
	EXPECT("E0906@1", TRACT_CORE_GATHER_ELEMENTS, "<5,4>", "<5>", "1");
	EXPECT("E0910@2", TRACT_CORE_GATHER_ELEMENTS, "<5,4>", "<5,4>", "-1");

	/* indices[:q-1] ++ input[batch_dims + k:] */
	EXPECT("[5,4]", TRACT_CORE_GATHER_ND, "<2,3,4>", "<5,2>", "0");
	EXPECT("[2,5,4]", TRACT_CORE_GATHER_ND, "<2,3,4>", "<2,5,1>", "1");
	EXPECT("[S,3]", TRACT_CORE_GATHER_ND, "<2,3>", "<S,1>", "0");
	EXPECT("E0942@1", TRACT_CORE_GATHER_ND, "<2,3>", "<5,3>", "0");
	EXPECT("E0935@1", TRACT_CORE_GATHER_ND, "<2,3>", "<5,S>", "0");
	EXPECT("E0942@1", TRACT_CORE_GATHER_ND, "<2,3,4>", "<3,5,1>", "1");
	EXPECT("E0906@1", TRACT_CORE_GATHER_ND, "<2,3>", "<>", "0");
	EXPECT("E0908@2", TRACT_CORE_GATHER_ND, "<2,3>", "<1,1>", "-1");

	EXPECT("[5,4]", TRACT_CORE_SCATTER_ELEMENTS, "<5,4>", "<2,4>", "<2,4>", "0", "'none'");
	EXPECT("[S,4]", TRACT_CORE_SCATTER_ELEMENTS, "<S,4>", "<K,4>", "<K,4>", "0", "'none'");
	EXPECT("E0927@2", TRACT_CORE_SCATTER_ELEMENTS, "<5,4>", "<2,4>", "<2,3>", "0", "'none'");
	EXPECT("E0906@1", TRACT_CORE_SCATTER_ELEMENTS, "<5,4>", "<2>", "<2>", "0", "'none'");
	EXPECT("E0910@3", TRACT_CORE_SCATTER_ELEMENTS, "<5,4>", "<2,4>", "<2,4>", "2", "'none'");

	/* updates: indices[:q-1] ++ input[k:] */
	EXPECT("[4,5,6]", TRACT_CORE_SCATTER_ND, "<4,5,6>", "<3,2>", "<3,6>", "'none'");
	EXPECT("[4,5,6]", TRACT_CORE_SCATTER_ND, "<4,5,6>", "<2,3,3>", "<2,3>", "'none'");
	EXPECT("E0927@2", TRACT_CORE_SCATTER_ND, "<4,5,6>", "<3,2>", "<3,5>", "'none'");
	EXPECT("E0942@1", TRACT_CORE_SCATTER_ND, "<4,5>", "<3,3>", "<3>", "'none'");

	EXPECT("[2,10,3]", TRACT_CORE_ONE_HOT, "<2,3>", "1", "10", "0.0", "1.0");
	DTYPE(0, DT_F32);
	EXPECT("[2,3,10]", TRACT_CORE_ONE_HOT, "<2,3>", "2", "10", "0", "1");
	DTYPE(0, DT_I32);
	EXPECT("E0910@1", TRACT_CORE_ONE_HOT, "<2,3>", "3", "10", "0.0", "1.0");
	EXPECT("E0908@2", TRACT_CORE_ONE_HOT, "<2,3>", "0", "0", "0.0", "1.0");
}
END_TEST

/* range: ceil((end - start) / step) items. */
START_TEST(range_lengths)
{
	EXPECT("[4]", TRACT_CORE_RANGE, "0", "10", "3");
	DTYPE(0, DT_I64);
	EXPECT("[4]", TRACT_CORE_RANGE, "10", "0", "-3");
	EXPECT("[0]", TRACT_CORE_RANGE, "0", "10", "-1");
	EXPECT("[0]", TRACT_CORE_RANGE, "0", "0", "1");
	EXPECT("[10]", TRACT_CORE_RANGE, "-5", "5", "1");
	EXPECT("[4]", TRACT_CORE_RANGE, "0.0", "1.0", "0.25");
	DTYPE(0, DT_F32);
	EXPECT("E0908@2", TRACT_CORE_RANGE, "0", "10", "0");
	EXPECT("E0908@2", TRACT_CORE_RANGE, "0.0", "1.0", "0.0");
	/* symbolic start and end, a number for step (the corpus' range) */
	EXPECT("[S]", TRACT_CORE_RANGE, "P", "P+S", "1");
	EXPECT("[(S+1)/2]", TRACT_CORE_RANGE, "P", "P+S", "2");
	EXPECT("[S]", TRACT_CORE_RANGE, "S", "0", "-1");
	EXPECT("[3]", TRACT_CORE_RANGE, "S", "S+3", "1");
	EXPECT("[0]", TRACT_CORE_RANGE, "S+3", "S", "1");
	/* values of tensors known when the graph is built */
	EXPECT("[S]", TRACT_CORE_RANGE, "<>=P", "<>=P+S", "1");
	DTYPE(0, DT_I64);
	/* else known only when the model runs */
	EXPECT("dd", TRACT_CORE_RANGE, "0", "S", "K");
	EXPECT("dd", TRACT_CORE_RANGE, "<>", "5", "1");
	EXPECT("E0908@0", TRACT_CORE_RANGE, "<2>=[1,2]", "5", "1");
}
END_TEST

START_TEST(topk_trilu)
{
	EXPECT("[3,4];[3,4]", TRACT_CORE_TOPK, "<3,10>:f16", "<>=4", "1", "true");
	DTYPE(0, DT_F16);
	DTYPE(1, DT_I64);
	EXPECT("[3,4];[3,4]", TRACT_CORE_TOPK, "<3,10>", "4", "1", "false");
	EXPECT("[K,10];[K,10]", TRACT_CORE_TOPK, "<S,10>", "K", "0", "true");
	/* k computed when the model runs */
	EXPECT("dd", TRACT_CORE_TOPK, "<3,10>", "<>", "1", "true");
	DTYPE(1, DT_I64);
	EXPECT("E0908@1", TRACT_CORE_TOPK, "<3,10>", "12", "1", "true");
	EXPECT("E0908@1", TRACT_CORE_TOPK, "<3,10>", "-1", "1", "true");
	EXPECT("E0910@2", TRACT_CORE_TOPK, "<3,10>", "4", "2", "true");
	EXPECT("[?];[?]", TRACT_CORE_TOPK, "<?>", "4", "1", "true");

	EXPECT("[4,4]", TRACT_CORE_TRILU, "<4,4>", "<>=0", "true");
	EXPECT("[2,S,S]", TRACT_CORE_TRILU, "<2,S,S>", "<>", "false");
	EXPECT("[2,3,3]", TRACT_CORE_TRILU, "<2,3,3>", "-1", "false");
	EXPECT("E0906@0", TRACT_CORE_TRILU, "<4>", "0", "true");
}
END_TEST

START_TEST(normalizations)
{
	EXPECT("[2,5]", TRACT_CORE_SOFTMAX, "<2,5>", "<1>=[1]", "false");
	EXPECT("[2,5]", TRACT_CORE_SOFTMAX, "<2,5>", "<1>=[1]", "'fast_compact'");
	EXPECT("[2,5]", TRACT_CORE_SOFTMAX, "<2,5>", "<1>", "false");
	EXPECT("E0910@1", TRACT_CORE_SOFTMAX, "<2,5>", "<1>=[2]", "false");
	EXPECT("E0910@1", TRACT_CORE_SOFTMAX, "<2,5>", "<1>=[-1]", "false");
	EXPECT("[2,S]", TRACT_CORE_LOG_SOFTMAX, "<2,S>", "<1>=[1]");
	EXPECT("E0910@1", TRACT_CORE_LOG_SOFTMAX, "<2,5>", "<2>=[0,3]");

	EXPECT("[2,8]", TRACT_CORE_RMS_NORM, "<2,8>", "1", "0.000001");
	EXPECT("[S,8]", TRACT_TRANSFORMERS_RMS_NORM, "<S,8>", "1", "0.00001");
	EXPECT("E0910@1", TRACT_CORE_RMS_NORM, "<2,8>", "2", "0.000001");
	EXPECT("[2,8]", TRACT_CORE_SCALED_RMS_NORM, "<2,8>:f32", "<8>", "1", "0.000001", "'f16'", "''");
	DTYPE(0, DT_F16);
	EXPECT("[2,8]", TRACT_CORE_SCALED_RMS_NORM, "<2,8>", "<8>", "1", "0.000001", "''", "'f32'");
	DTYPE(0, DT_NONE);
	EXPECT("E0933@4", TRACT_CORE_SCALED_RMS_NORM, "<2,8>", "<8>", "1", "0.000001", "'half'", "''");
	EXPECT("E0933@5", TRACT_CORE_SCALED_RMS_NORM, "<2,8>", "<8>", "1", "0.000001", "''", "'x'");
}
END_TEST

/* fft and stft read complex numbers as a last axis of 2. */
START_TEST(fft_stft)
{
	EXPECT("[4,8,2]", TRACT_CORE_FFT, "<4,8,2>", "1", "false");
	EXPECT("[S,2]", TRACT_CORE_FFT, "<S,2>", "0", "true");
	EXPECT("E0942@0", TRACT_CORE_FFT, "<4,8,3>", "1", "false");
	EXPECT("E0910@1", TRACT_CORE_FFT, "<4,8,2>", "2", "false");
	EXPECT("E0906@0", TRACT_CORE_FFT, "<8>", "0", "false");

	/* (100 - 16) / 8 + 1 = 11 frames of 16 */
	EXPECT("[11,16,2]", TRACT_CORE_STFT, "<100,2>", "0", "16", "8", "false");
	EXPECT("[3,11,16,2]", TRACT_CORE_STFT, "<3,100,2>", "1", "16", "8", "<16>");
	EXPECT("[S/8-1,16,2]", TRACT_CORE_STFT, "<S,2>", "0", "16", "8", "false");
	EXPECT("E0942@4", TRACT_CORE_STFT, "<100,2>", "0", "16", "8", "<8>");
	EXPECT("E0915@2", TRACT_CORE_STFT, "<100,2>", "0", "200", "8", "false");
	EXPECT("E0908@3", TRACT_CORE_STFT, "<100,2>", "0", "16", "0", "false");
	EXPECT("E0908@2", TRACT_CORE_STFT, "<100,2>", "0", "0", "1", "false");
}
END_TEST

START_TEST(state_and_views)
{
	EXPECT("[4]", TRACT_CORE_FORCE_EVAL, "{<2,3>,<4>}", "[0]");
	EXPECT("[2,3]", TRACT_CORE_FORCE_EVAL, "{<2,3>,<4>}", "[1]");
	EXPECT("E0907@1", TRACT_CORE_FORCE_EVAL, "{<2,3>,<4>}", "[0,1]");
	EXPECT("E0909@4", TRACT_CORE_SCATTER_ELEMENTS, "<5,4>", "<2,4>", "<2,4>", "0", "'sum'");
	EXPECT("E0908@1", TRACT_CORE_FORCE_EVAL, "{<2,3>,<4>}", "[2]");
	EXPECT("E0907@0", TRACT_CORE_FORCE_EVAL, "{}", "[]");
	EXPECT("[2]", TRACT_CORE_LOAD, "{<2>}", "'slot'");
	EXPECT("E0907@0", TRACT_CORE_LOAD, "{}", "'slot'");
	EXPECT("[3]", TRACT_CORE_STORE, "<3>", "<5>", "'s'");

	EXPECT("[3,4,2]", TRACT_CORE_COMPLEX_TO_INNER_DIM, "<3,4>");
	EXPECT("[3,4]", TRACT_CORE_INNER_DIM_TO_COMPLEX, "<3,4,2>");
	EXPECT("E0942@0", TRACT_CORE_INNER_DIM_TO_COMPLEX, "<3,4>");
	EXPECT("E0906@0", TRACT_CORE_INNER_DIM_TO_COMPLEX, "<>");

	EXPECT("[2,8]", TRACT_CORE_CLAMPED_SWIGLU, "<2,8>:f16", "<2,8>:f16", "1.702", "7.0");
	DTYPE(0, DT_F32);
	EXPECT("E0908@3", TRACT_CORE_CLAMPED_SWIGLU, "<2,8>", "<2,8>", "1.702", "0.0");
	EXPECT("E0940@0", TRACT_CORE_CLAMPED_SWIGLU, "<2,8>:i32", "<2,8>", "1.702", "7.0");
	EXPECT("E0940@1", TRACT_CORE_CLAMPED_SWIGLU, "<2,8>:f32", "<2,8>:f64", "1.702", "7.0");
	EXPECT("E0927@1", TRACT_CORE_CLAMPED_SWIGLU, "<2,8>", "<2,4>", "1.702", "7.0");
}
END_TEST

/* ---- einsum, matmul, qconv --------------------------------------------------------- */

START_TEST(einsum_equations)
{
	EXPECT("[2,4]", TRACT_CORE_EINSUM, "{<2,3>,<3,4>}", "'mk,kn->mn'", "'f32'", "''");
	DTYPE(0, DT_F32);
	EXPECT("[2,4]", TRACT_CORE_EINSUM, "{<2,3>,<3,4>}", "'mk, kn -> mn'", "'f16'", "''");
	DTYPE(0, DT_F16);
	/* the corpus' gru-epilogue: a contraction over k, n from rows */
	EXPECT("[1,12]", TRACT_CORE_EINSUM, "{<1,4>,<12,4>}", "'mk,nk->mn'", "'f32'", "''");
	/* a letter of extent 1 broadcasts */
	EXPECT("[5,3,6]", TRACT_CORE_EINSUM, "{<1,3,4>,<5,4,6>}", "'bmk,bkn->bmn'", "'f32'", "''");
	/* full contraction, diagonal, transpose, outer product */
	EXPECT("[]", TRACT_CORE_EINSUM, "{<3>,<3>}", "'i,i->'", "'f32'", "''");
	EXPECT("[3]", TRACT_CORE_EINSUM, "{<3,3>}", "'ii->i'", "'f32'", "''");
	EXPECT("[4,2]", TRACT_CORE_EINSUM, "{<2,4>}", "'ij->ji'", "'f32'", "''");
	EXPECT("[2,5]", TRACT_CORE_EINSUM, "{<2>,<5>}", "'i,j->ij'", "'i32'", "''");
	DTYPE(0, DT_I32);
	/* without '->': the letters found once, in alphabetical order */
	EXPECT("[2,4]", TRACT_CORE_EINSUM, "{<2,3>,<3,4>}", "'ij,jk'", "'f32'", "''");
	EXPECT("[4,2]", TRACT_CORE_EINSUM, "{<2,3>,<3,4>}", "'zj,ja'", "'f32'", "''");
	/* an output letter in no input has extent 1 */
	EXPECT("[2,4,1]", TRACT_CORE_EINSUM, "{<2,3>,<3,4>}", "'mk,kn->mnz'", "'f32'", "''");
	/* symbols flow through */
	EXPECT("[S,4]", TRACT_CORE_EINSUM, "{<S,3>,<3,4>}", "'mk,kn->mn'", "'f32'", "''");
	EXPECT("[2,4]", TRACT_CORE_EINSUM, "{<2,S>,<S,4>}", "'mk,kn->mn'", "'f32'", "''");
	EXPECT("[?]", TRACT_CORE_EINSUM, "{<?>,<3,4>}", "'mk,kn->mn'", "'f32'", "''");
	/* malformed expressions, and ones that do not fit the inputs */
	EXPECT("E0941@1", TRACT_CORE_EINSUM, "{<2,3>,<3,4>}", "'mk,kn-mn'", "'f32'", "''");
	EXPECT("E0941@1", TRACT_CORE_EINSUM, "{<2,3>,<3,4>}", "'mk,kn->m,n'", "'f32'", "''");
	EXPECT("E0941@1", TRACT_CORE_EINSUM, "{<2,3>}", "'mk->mm'", "'f32'", "''");
	EXPECT("E0941@1", TRACT_CORE_EINSUM, "{<2,3>,<3,4>}", "'mk,kn,nj->mj'", "'f32'", "''");
	EXPECT("E0941@1", TRACT_CORE_EINSUM, "{<2,3>,<3,4>}", "'m...,kn->mn'", "'f32'", "''");
	EXPECT("E0941@1", TRACT_CORE_EINSUM, "{<?>,<3,4>}", "'mk->mn'", "'f32'", "''");
	EXPECT("E0906@0", TRACT_CORE_EINSUM, "{<2,3>,<3>}", "'mk,kn->mn'", "'f32'", "''");
	EXPECT("E0924@0", TRACT_CORE_EINSUM, "{<2,3>,<4,5>}", "'mk,kn->mn'", "'f32'", "''");
	EXPECT("E0933@2", TRACT_CORE_EINSUM, "{<2,3>,<3,4>}", "'mk,kn->mn'", "'f33'", "''");

	EXPECT("[2,4]", TRACT_CORE_EINSUM_Q, "{<2,3>:i8,<3,4>:i8}", "'mk,kn->mn'", "'i32'", "'i8'", "<>", "<>", "<>", "<>", "<>", "<>", "<>");
	DTYPE(0, DT_I8);
	EXPECT("E0943@3", TRACT_CORE_EINSUM_Q, "{<2,3>,<3,4>}", "'mk,kn->mn'", "'i32'", "''", "<>", "<>", "<>", "<>", "<>", "<>", "<>");
	EXPECT("E0907@0", TRACT_CORE_EINSUM_Q, "{<2,3>,<3,4>,<4>}", "'mk,kn,n->mn'", "'i32'", "'u8'", "<>", "<>", "<>", "<>", "<>", "<>", "<>");
}
END_TEST

/* Legacy axes [a_m, a_k, b_k, b_n, c_m, c_n]. */
START_TEST(legacy_matmul)
{
	EXPECT("[2,4]", TRACT_CORE_MATMUL, "<2,3>", "<3,4>", "[0,1,0,1,0,1]");
	EXPECT("[2,4]", TRACT_CORE_MATMUL, "<2,3>", "<4,3>", "[0,1,1,0,0,1]");
	EXPECT("[4,2]", TRACT_CORE_MATMUL, "<2,3>", "<3,4>", "[0,1,0,1,1,0]");
	EXPECT("[5,2,4]", TRACT_CORE_MATMUL, "<5,2,3>", "<1,3,4>", "[1,2,1,2,1,2]");
	EXPECT("[S,2,4]", TRACT_CORE_MATMUL, "<S,2,3>", "<S,3,4>", "[1,2,1,2,1,2]");
	EXPECT("E0924@1", TRACT_CORE_MATMUL, "<2,3>", "<4,4>", "[0,1,0,1,0,1]");
	EXPECT("E0907@2", TRACT_CORE_MATMUL, "<2,3>", "<3,4>", "[0,1,0,1,0]");
	EXPECT("E0910@2", TRACT_CORE_MATMUL, "<2,3>", "<3,4>", "[0,1,0,1,0,2]");
	EXPECT("E0911@2", TRACT_CORE_MATMUL, "<2,3>", "<3,4>", "[0,0,0,1,0,1]");
	EXPECT("E0906@1", TRACT_CORE_MATMUL, "<2,3>", "<1,3,4>", "[0,1,0,1,0,1]");
	EXPECT("E0905@1", TRACT_CORE_MATMUL, "<5,2,3>", "<4,3,4>", "[1,2,1,2,1,2]");

	EXPECT("[2,4]", TRACT_CORE_QMATMUL, "<2,3>:i8", "<3,4>:i8", "<>", "[0,1,0,1,0,1]", "0", "1.0", "0", "1.0", "0", "1.0", "'i32'");
	DTYPE(0, DT_I32);
	EXPECT("E0933@10", TRACT_CORE_QMATMUL, "<2,3>", "<3,4>", "<>", "[0,1,0,1,0,1]", "0", "1.0", "0", "1.0", "0", "1.0", "'q'");
}
END_TEST

START_TEST(qconv_shapes)
{
	/* padding [] is tract's SAME_UPPER: ceil(x / s) */
	EXPECT("[1,4,8,8]", TRACT_CORE_QCONV, "<1,3,8,8>:i8", "<4,3,3,3>", "<>", "1", "[]", "[]", "[]", "'constant'", "0", "1.0", "0", "1.0", "0", "1.0");
	DTYPE(0, DT_I8);
	EXPECT("[1,4,6,6]", TRACT_CORE_QCONV, "<1,3,8,8>", "<4,3,3,3>", "<>", "1", "[]", "[]", "[(0,0),(0,0)]", "'constant'", "0", "1.0", "0", "1.0", "0", "1.0");
	EXPECT("[1,4,4,4]", TRACT_CORE_QCONV, "<1,3,8,8>", "<4,3,3,3>", "<>", "1", "[1,1]", "[2,2]", "[(1,1),(1,1)]", "'constant'", "0", "1.0", "0", "1.0", "0", "1.0");
	EXPECT("[1,4,4,4]", TRACT_CORE_QCONV, "<1,4,8,8>", "<4,1,3,3>", "<>", "4", "[]", "[2,2]", "[]", "'constant'", "0", "1.0", "0", "1.0", "0", "1.0");
	EXPECT("[1,4,S,8]", TRACT_CORE_QCONV, "<1,3,S,8>", "<4,3,3,3>", "<>", "1", "[]", "[]", "[]", "'constant'", "0", "1.0", "0", "1.0", "0", "1.0");
	EXPECT("E0913@1", TRACT_CORE_QCONV, "<1,3,8,8>", "<4,2,3,3>", "<>", "1", "[]", "[]", "[]", "'constant'", "0", "1.0", "0", "1.0", "0", "1.0");
	EXPECT("E0912@3", TRACT_CORE_QCONV, "<1,3,8,8>", "<4,1,3,3>", "<>", "3", "[]", "[]", "[]", "'constant'", "0", "1.0", "0", "1.0", "0", "1.0");
	EXPECT("E0935@1", TRACT_CORE_QCONV, "<1,3,8,8>", "<4,3,K,3>", "<>", "1", "[]", "[]", "[]", "'constant'", "0", "1.0", "0", "1.0", "0", "1.0");
	EXPECT("E0907@4", TRACT_CORE_QCONV, "<1,3,8,8>", "<4,3,3,3>", "<>", "1", "[1]", "[]", "[]", "'constant'", "0", "1.0", "0", "1.0", "0", "1.0");
	EXPECT("E0906@1", TRACT_CORE_QCONV, "<1,3,8,8>", "<4,3,3>", "<>", "1", "[]", "[]", "[]", "'constant'", "0", "1.0", "0", "1.0", "0", "1.0");
	EXPECT("E0915@6", TRACT_CORE_QCONV, "<1,3,2,2>", "<4,3,3,3>", "<>", "1", "[]", "[]", "[(0,0),(0,0)]", "'constant'", "0", "1.0", "0", "1.0", "0", "1.0");
}
END_TEST

/* ---- recurrent cells ----------------------------------------------------------------- */

START_TEST(recurrent_cells)
{
	EXPECT("[2,4]", TRACT_CORE_GRU_EPILOGUE, "<2,12>", "<2,12>", "<2,4>", "4");
	EXPECT("[1,4]", TRACT_CORE_GRU_EPILOGUE, "<12>:f32", "<12>", "<1,4>:f32", "4");
	EXPECT("E0942@0", TRACT_CORE_GRU_EPILOGUE, "<2,8>", "<2,12>", "<2,4>", "4");
	EXPECT("E0942@1", TRACT_CORE_GRU_EPILOGUE, "<2,12>", "<2,8>", "<2,4>", "4");
	EXPECT("E0942@2", TRACT_CORE_GRU_EPILOGUE, "<2,12>", "<2,12>", "<2,5>", "4");
	EXPECT("E0940@0", TRACT_CORE_GRU_EPILOGUE, "<2,12>:f16", "<2,12>", "<2,4>:f32", "4");
	EXPECT("E0908@3", TRACT_CORE_GRU_EPILOGUE, "<2,12>", "<2,12>", "<2,4>", "0");
	EXPECT("[S,4]", TRACT_CORE_GRU_EPILOGUE, "<S,12>", "<S,12>", "<S,4>", "4");

	EXPECT("[1,4];[1,4]", TRACT_CORE_LSTM_EPILOGUE, "<1,16>", "<1,4>:f16", "4");
	DTYPE(0, DT_F16);
	DTYPE(1, DT_F16);
	EXPECT("E0942@0", TRACT_CORE_LSTM_EPILOGUE, "<1,12>", "<1,4>", "4");
	EXPECT("[?];[?]", TRACT_CORE_LSTM_EPILOGUE, "<?>", "<1,4>", "4");

	EXPECT("[1,5,4];[1,1,4]", TRACT_CORE_GRU_SEQ, "<1,5,3>", "<12,3>", "<12,4>", "<24>", "<1,1,4>", "4", "1", "1", "0");
	DTYPE(0, DT_F32);
	DTYPE(1, DT_F32);
	EXPECT("[2,T,4];[2,1,4]", TRACT_CORE_GRU_SEQ, "<2,T,3>", "<12,3>", "<12,4>", "<>", "<2,1,4>", "4", "-1", "false", "false");
	EXPECT("E0942@1", TRACT_CORE_GRU_SEQ, "<1,5,3>", "<12,2>", "<12,4>", "<>", "<1,1,4>", "4", "1", "0", "0");
	EXPECT("E0942@2", TRACT_CORE_GRU_SEQ, "<1,5,3>", "<12,3>", "<12,5>", "<>", "<1,1,4>", "4", "1", "0", "0");
	EXPECT("E0942@3", TRACT_CORE_GRU_SEQ, "<1,5,3>", "<12,3>", "<12,4>", "<20>", "<1,1,4>", "4", "1", "1", "0");
	EXPECT("E0942@4", TRACT_CORE_GRU_SEQ, "<1,5,3>", "<12,3>", "<12,4>", "<>", "<1,1,3>", "4", "1", "0", "0");
	EXPECT("E0906@0", TRACT_CORE_GRU_SEQ, "<5,3>", "<12,3>", "<12,4>", "<>", "<1,1,4>", "4", "1", "0", "0");
	EXPECT("E0908@6", TRACT_CORE_GRU_SEQ, "<1,5,3>", "<12,3>", "<12,4>", "<>", "<1,1,4>", "4", "0", "0", "0");
}
END_TEST

/* ---- resize, grid_sample, vptq -------------------------------------------------------- */

START_TEST(resize_modes)
{
	/* scales: d * s for a whole s; the corpus' core_resize_linear */
	EXPECT("[1,1,8]", TRACT_CORE_RESIZE, "<1,1,4>", "<3>=[1.0,1.0,2.0]", "false", "'half_pixel'", "'linear'", "'floor'");
	/* floor(d * s) otherwise */
	EXPECT("[1,1,7]", TRACT_CORE_RESIZE, "<1,1,5>", "<3>=[1.0,1.0,1.5]", "false", "'asymmetric'", "'nearest'", "'round_prefer_ceil'");
	/* sizes, as reals (the corpus' core_resize_sizes) */
	EXPECT("[1,1,4,4]", TRACT_CORE_RESIZE, "<1,1,2,2>", "false", "<4>=[1.0,1.0,4.0,4.0]", "'asymmetric'", "'nearest'", "'floor'");
	EXPECT("[1,P]", TRACT_CORE_RESIZE, "<1,S>", "false", "<2>=[1,P]", "'align_corners'", "'linear'", "'ceil'");
	EXPECT("[1,2*S]", TRACT_CORE_RESIZE, "<1,S>", "<2>=[1.0,2.0]", "false", "'pytorch_half_pixel'", "'nearest'", "'round_prefer_floor'");
	EXPECT("E0935@0", TRACT_CORE_RESIZE, "<1,S>", "<2>=[1.0,1.5]", "false", "'half_pixel'", "'nearest'", "'floor'");
	EXPECT("dd", TRACT_CORE_RESIZE, "<1,1,4>", "<3>", "false", "'half_pixel'", "'nearest'", "'floor'");
	EXPECT("E0943@2", TRACT_CORE_RESIZE, "<1,1,4>", "<3>=[1.0,1.0,2.0]", "<3>=[1,1,8]", "'half_pixel'", "'nearest'", "'floor'");
	EXPECT("E0943@1", TRACT_CORE_RESIZE, "<1,1,4>", "false", "false", "'half_pixel'", "'nearest'", "'floor'");
	EXPECT("E0907@1", TRACT_CORE_RESIZE, "<1,1,4>", "<2>=[1.0,2.0]", "false", "'half_pixel'", "'nearest'", "'floor'");
	EXPECT("E0908@1", TRACT_CORE_RESIZE, "<1,1,4>", "<3>=[1.0,0.0,2.0]", "false", "'half_pixel'", "'nearest'", "'floor'");
	EXPECT("E0909@3", TRACT_CORE_RESIZE, "<1,1,4>", "<3>=[1.0,1.0,2.0]", "false", "'tf_crop'", "'nearest'", "'floor'");
	EXPECT("E0909@4", TRACT_CORE_RESIZE, "<1,1,4>", "<3>=[1.0,1.0,2.0]", "false", "'half_pixel'", "'cubic'", "'floor'");
	EXPECT("E0909@5", TRACT_CORE_RESIZE, "<1,1,4>", "<3>=[1.0,1.0,2.0]", "false", "'half_pixel'", "'nearest'", "'round'");

	EXPECT("[1,1,8]", TRACT_ONNX_RESIZE, "<1,1,4>", "<3>=[1.0,1.0,2.0]", "'half_pixel'", "'cubic'", "'floor'", "-0.75", "false");
	EXPECT("dd", TRACT_ONNX_RESIZE, "<1,1,4>", "<3>", "'half_pixel'", "'linear'", "'floor'", "-0.5", "true");
	EXPECT("E0943@1", TRACT_ONNX_RESIZE, "<1,1,4>", "false", "'half_pixel'", "'linear'", "'floor'", "-0.5", "true");
}
END_TEST

START_TEST(grid_sample_vptq)
{
	EXPECT("[1,3,5,6]", TRACT_CORE_GRID_SAMPLE, "<1,3,8,8>", "<1,5,6,2>", "'bilinear'", "'zeros'", "false");
	EXPECT("[2,3,5,6,7]", TRACT_ONNX_GRID_SAMPLE, "<2,3,4,8,8>", "<2,5,6,7,3>", "'nearest'", "'border'", "true");
	EXPECT("[1,3,5,6]", TRACT_ONNX_GRID_SAMPLE, "<1,3,8,8>", "<1,5,6,2>", "'bicubic'", "'reflection'", "false");
	EXPECT("E0909@2", TRACT_ONNX_GRID_SAMPLE, "<2,3,4,8,8>", "<2,5,6,7,3>", "'bicubic'", "'border'", "true");
	EXPECT("E0942@1", TRACT_CORE_GRID_SAMPLE, "<1,3,8,8>", "<1,5,6,3>", "'bilinear'", "'zeros'", "false");
	EXPECT("E0942@1", TRACT_CORE_GRID_SAMPLE, "<1,3,8,8>", "<2,5,6,2>", "'bilinear'", "'zeros'", "false");
	EXPECT("E0906@1", TRACT_CORE_GRID_SAMPLE, "<1,3,8,8>", "<1,5,2>", "'bilinear'", "'zeros'", "false");
	EXPECT("E0909@2", TRACT_CORE_GRID_SAMPLE, "<1,3,8,8>", "<1,5,6,2>", "'area'", "'zeros'", "false");
	EXPECT("E0909@3", TRACT_CORE_GRID_SAMPLE, "<1,3,8,8>", "<1,5,6,2>", "'bilinear'", "'wrap'", "false");
	EXPECT("[S,3,5,6]", TRACT_CORE_GRID_SAMPLE, "<S,3,8,8>", "<S,5,6,2>", "'bilinear'", "'zeros'", "false");

	EXPECT("[2,7,128]", TRACT_CORE_VPTQ_GEMM, "<2,7,64>", "<>", "<>", "<>", "<>", "<>", "<>", "<>", "<>", "8", "<>=64", "<>=128");
	EXPECT("dd", TRACT_CORE_VPTQ_GEMM, "<2,7,64>", "<>", "<>", "<>", "<>", "<>", "<>", "<>", "<>", "8", "<>=64", "<>");
	EXPECT("E0924@10", TRACT_CORE_VPTQ_GEMM, "<2,7,64>", "<>", "<>", "<>", "<>", "<>", "<>", "<>", "<>", "8", "<>=32", "<>=128");
	EXPECT("E0908@9", TRACT_CORE_VPTQ_GEMM, "<2,7,64>", "<>", "<>", "<>", "<>", "<>", "<>", "<>", "<>", "0", "<>=64", "<>=128");
}
END_TEST

/* ---- tract_transformers ----------------------------------------------------------------- */

START_TEST(sdpa_variants)
{
	/* the corpus: q = k = v [1, 2, 3], causal and not */
	EXPECT("[1,2,3]", TRACT_TRANSFORMERS_SDPA, "<1,2,3>:f32", "<1,2,3>", "<1,2,3>", "false", "false", "'f32'", "'f32'", "true");
	DTYPE(0, DT_F32);
	EXPECT("[1,2,3]", TRACT_TRANSFORMERS_SDPA, "<1,2,3>:f16", "<1,2,3>", "<1,2,3>", "false", "false", "'f16'", "'f32'", "false");
	DTYPE(0, DT_F16);
	/* d_v from v; scale given */
	EXPECT("[2,5,32]", TRACT_TRANSFORMERS_SDPA, "<2,5,16>", "<2,7,16>", "<2,7,32>", "false", "0.125", "'f32'", "'f32'", "false");
	/* grouped-query: 8 q heads over 2 k and v heads */
	EXPECT("[1,8,5,16]", TRACT_TRANSFORMERS_SDPA, "<1,8,5,16>", "<1,2,5,16>", "<1,2,5,16>", "false", "false", "'f32'", "'f32'", "true");
	/* a mask of rank 4 with leading unit axes (the corpus' grouped case) */
	EXPECT("[1,8,5,32]", TRACT_TRANSFORMERS_SDPA, "<1,8,5,16>", "<1,2,7,16>", "<1,2,7,32>", "<1,1,5,7>", "0.25", "'f32'", "'f32'", "false");
	EXPECT("[1,8,5,32]", TRACT_TRANSFORMERS_SDPA, "<1,8,5,16>", "<1,2,7,16>", "<1,2,7,32>", "<1,7>", "false", "'f32'", "'f32'", "false");
	/* symbols flow through a non-causal attention */
	EXPECT("[1,S,32]", TRACT_TRANSFORMERS_SDPA, "<1,S,64>", "<1,P+S,64>", "<1,P+S,32>", "<S,P+S>", "false", "'f32'", "'f32'", "false");
	/* every check of the notes */
	EXPECT("E0943@3", TRACT_TRANSFORMERS_SDPA, "<1,2,3>", "<1,2,3>", "<1,2,3>", "<2,2>", "false", "'f32'", "'f32'", "true");
	EXPECT("E0906@0", TRACT_TRANSFORMERS_SDPA, "<2,3>", "<2,3>", "<2,3>", "false", "false", "'f32'", "'f32'", "false");
	EXPECT("E0906@1", TRACT_TRANSFORMERS_SDPA, "<1,2,3>", "<1,1,2,3>", "<1,2,3>", "false", "false", "'f32'", "'f32'", "false");
	EXPECT("E0906@2", TRACT_TRANSFORMERS_SDPA, "<1,2,3>", "<1,2,3>", "<2,3>", "false", "false", "'f32'", "'f32'", "false");
	EXPECT("E0906@3", TRACT_TRANSFORMERS_SDPA, "<1,2,3>", "<1,2,3>", "<1,2,3>", "<2>", "false", "'f32'", "'f32'", "false");
	EXPECT("E0942@3", TRACT_TRANSFORMERS_SDPA, "<1,8,5,16>", "<1,2,7,16>", "<1,2,7,32>", "<2,1,5,7>", "false", "'f32'", "'f32'", "false");
	EXPECT("E0935@3", TRACT_TRANSFORMERS_SDPA, "<1,8,5,16>", "<1,2,7,16>", "<1,2,7,32>", "<B,1,5,7>", "false", "'f32'", "'f32'", "false");
	EXPECT("E0942@0", TRACT_TRANSFORMERS_SDPA, "<1,6,5,16>", "<1,4,5,16>", "<1,4,5,16>", "false", "false", "'f32'", "'f32'", "false");
	EXPECT("E0942@2", TRACT_TRANSFORMERS_SDPA, "<1,8,5,16>", "<1,2,5,16>", "<1,4,5,16>", "false", "false", "'f32'", "'f32'", "false");
	EXPECT("E0935@0", TRACT_TRANSFORMERS_SDPA, "<1,H,5,16>", "<1,2,5,16>", "<1,2,5,16>", "false", "false", "'f32'", "'f32'", "false");
	/* a causal mask needs plain sequence lengths, and keys for each query */
	EXPECT("E0935@0", TRACT_TRANSFORMERS_SDPA, "<1,S,4>", "<1,S,4>", "<1,S,4>", "false", "false", "'f32'", "'f32'", "true");
	EXPECT("E0942@1", TRACT_TRANSFORMERS_SDPA, "<1,5,4>", "<1,3,4>", "<1,3,4>", "false", "false", "'f32'", "'f32'", "true");
	EXPECT("[1,3,4]", TRACT_TRANSFORMERS_SDPA, "<1,3,4>", "<1,5,4>", "<1,5,4>", "false", "false", "'f32'", "'f32'", "true");
	/* what the products need */
	EXPECT("E0924@1", TRACT_TRANSFORMERS_SDPA, "<1,2,4>", "<1,2,5>", "<1,2,5>", "false", "false", "'f32'", "'f32'", "false");
	EXPECT("E0924@2", TRACT_TRANSFORMERS_SDPA, "<1,2,4>", "<1,3,4>", "<1,2,4>", "false", "false", "'f32'", "'f32'", "false");
	EXPECT("E0905@1", TRACT_TRANSFORMERS_SDPA, "<2,2,4>", "<3,2,4>", "<3,2,4>", "false", "false", "'f32'", "'f32'", "false");
	EXPECT("E0905@3", TRACT_TRANSFORMERS_SDPA, "<1,5,4>", "<1,7,4>", "<1,7,4>", "<3,7>", "false", "'f32'", "'f32'", "false");
	EXPECT("E0933@5", TRACT_TRANSFORMERS_SDPA, "<1,2,3>", "<1,2,3>", "<1,2,3>", "false", "false", "'f99'", "'f32'", "false");
	EXPECT("E0933@6", TRACT_TRANSFORMERS_SDPA, "<1,2,3>", "<1,2,3>", "<1,2,3>", "false", "false", "'f32'", "''", "false");
}
END_TEST

START_TEST(rope_masked_softmax)
{
	EXPECT("[1,4,8]", TRACT_TRANSFORMERS_APPLY_ROPE, "<1,4,8>", "<4,8>", "<4,8>");
	EXPECT("[1,S,8]", TRACT_TRANSFORMERS_APPLY_ROPE, "<1,S,8>", "<S,8>", "<1,1,S,8>");
	EXPECT("E0942@0", TRACT_TRANSFORMERS_APPLY_ROPE, "<1,4,7>", "<4,7>", "<4,7>");
	EXPECT("E0905@1", TRACT_TRANSFORMERS_APPLY_ROPE, "<1,4,8>", "<5,8>", "<4,8>");
	EXPECT("E0905@2", TRACT_TRANSFORMERS_APPLY_ROPE, "<1,4,8>", "<4,8>", "<4,6>");

	EXPECT("[2,4,4]", TRACT_TRANSFORMERS_SCALED_MASKED_SOFTMAX, "<2,4,4>", "<1,4,4>", "0.5");
	EXPECT("E0906@0", TRACT_TRANSFORMERS_SCALED_MASKED_SOFTMAX, "<4,4>", "<1,4,4>", "0.5");
	EXPECT("E0906@1", TRACT_TRANSFORMERS_SCALED_MASKED_SOFTMAX, "<2,4,4>", "<4,4>", "0.5");
	EXPECT("E0940@1", TRACT_TRANSFORMERS_SCALED_MASKED_SOFTMAX, "<2,4,4>:f16", "<1,4,4>:f32", "0.5");
}
END_TEST

START_TEST(qwen35_recurrent)
{
	/* the corpus' causal-conv1d-update */
	EXPECT("[1,1,4];[4,4]", TRACT_TRANSFORMERS_CAUSAL_CONV1D_UPDATE, "<1,1,4>:f16", "<4,4>:f16", "<4,4>:f16");
	DTYPE(0, DT_F16);
	DTYPE(1, DT_F16);
	EXPECT("[1,1,4];[4,4]", TRACT_QWEN35_CAUSAL_CONV1D_UPDATE, "<1,1,4>", "<4,4>", "<4,4>");
	EXPECT("E0940@0", TRACT_TRANSFORMERS_CAUSAL_CONV1D_UPDATE, "<1,1,4>:f32", "<4,4>:f16", "<4,4>:f16");
	EXPECT("E0940@2", TRACT_QWEN35_CAUSAL_CONV1D_UPDATE, "<1,1,4>:f16", "<4,4>:f16", "<4,4>:f32");
	EXPECT("E0942@1", TRACT_TRANSFORMERS_CAUSAL_CONV1D_UPDATE, "<1,1,4>", "<4,3>", "<4,4>");
	EXPECT("E0942@1", TRACT_TRANSFORMERS_CAUSAL_CONV1D_UPDATE, "<1,1,3>", "<4,4>", "<3,4>");
	EXPECT("E0942@2", TRACT_TRANSFORMERS_CAUSAL_CONV1D_UPDATE, "<1,1,4>", "<4,4>", "<3,4>");
	EXPECT("[1,S,4];[4,4]", TRACT_TRANSFORMERS_CAUSAL_CONV1D_UPDATE, "<1,S,4>", "<4,4>", "<4,4>");

	/* q, k [b, S, hk, w]; v [b, S, hv, w]; state [b, hv, w, w] */
	EXPECT("[1,3,4,8];[1,4,8,8]", TRACT_TRANSFORMERS_GDN_RECURRENT, "<1,3,2,8>:f32", "<1,3,2,8>:f32", "<1,3,4,8>:f32", "<1,3,4>:f32", "<1,3,4>:f32", "<1,4,8,8>:f32");
	DTYPE(0, DT_F32);
	EXPECT("[1,3,4,8];[1,4,8,8]", TRACT_QWEN35_GDN_RECURRENT, "<1,3,2,8>:f16", "<1,3,2,8>:f16", "<1,3,4,8>:f16", "<1,3,4>:f32", "<1,3,4>:f16", "<1,4,8,8>:f32");
	DTYPE(0, DT_F16);
	DTYPE(1, DT_F32);
	EXPECT("[1,S,2,8];[1,2,8,8]", TRACT_TRANSFORMERS_GDN_RECURRENT, "<1,S,2,8>", "<1,S,2,8>", "<1,S,2,8>", "<1,S,2>", "<1,S,2>", "<1,2,8,8>");
	EXPECT("E0940@3", TRACT_TRANSFORMERS_GDN_RECURRENT, "<1,3,2,8>:f16", "<1,3,2,8>:f16", "<1,3,4,8>:f16", "<1,3,4>:f16", "<1,3,4>:f16", "<1,4,8,8>:f16");
	EXPECT("E0940@1", TRACT_TRANSFORMERS_GDN_RECURRENT, "<1,3,2,8>:f32", "<1,3,2,8>:f16", "<1,3,4,8>:f32", "<1,3,4>:f32", "<1,3,4>:f32", "<1,4,8,8>:f32");
	EXPECT("E0940@0", TRACT_TRANSFORMERS_GDN_RECURRENT, "<1,3,2,8>:i8", "<1,3,2,8>", "<1,3,4,8>", "<1,3,4>", "<1,3,4>", "<1,4,8,8>");
	EXPECT("E0927@1", TRACT_TRANSFORMERS_GDN_RECURRENT, "<1,3,2,8>", "<1,3,4,8>", "<1,3,4,8>", "<1,3,4>", "<1,3,4>", "<1,4,8,8>");
	EXPECT("E0942@2", TRACT_TRANSFORMERS_GDN_RECURRENT, "<1,3,2,8>", "<1,3,2,8>", "<1,3,3,8>", "<1,3,3>", "<1,3,3>", "<1,3,8,8>");
	EXPECT("E0942@4", TRACT_TRANSFORMERS_GDN_RECURRENT, "<1,3,2,8>", "<1,3,2,8>", "<1,3,4,8>", "<1,3,4>", "<1,3,3>", "<1,4,8,8>");
	EXPECT("E0942@5", TRACT_TRANSFORMERS_GDN_RECURRENT, "<1,3,2,8>", "<1,3,2,8>", "<1,3,4,8>", "<1,3,4>", "<1,3,4>", "<1,4,8,4>");
	EXPECT("E0906@0", TRACT_TRANSFORMERS_GDN_RECURRENT, "<3,2,8>", "<3,2,8>", "<1,3,4,8>", "<1,3,4>", "<1,3,4>", "<1,4,8,8>");
}
END_TEST

START_TEST(caches_moe)
{
	EXPECT("[1,8,P+S,64]", TRACT_TRANSFORMERS_DYN_KV_CACHE, "<1,8,S,64>", "'k0'", "2", "'f32'", "[1,8,P,64]", "[1,8,S,64]");
	EXPECT("[1,8,12,64]", TRACT_TRANSFORMERS_DYN_KV_CACHE, "<1,8,4,64>", "'k0'", "2", "'f16'", "[1,8,8,64]", "[1,8,4,64]");
	EXPECT("E0910@2", TRACT_TRANSFORMERS_DYN_KV_CACHE, "<1,8,S,64>", "'k0'", "4", "'f32'", "[1,8,P,64]", "[1,8,S,64]");
	EXPECT("E0907@4", TRACT_TRANSFORMERS_DYN_KV_CACHE, "<1,8,S,64>", "'k0'", "2", "'f32'", "[1,P,64]", "[1,8,S,64]");
	EXPECT("E0933@3", TRACT_TRANSFORMERS_DYN_KV_CACHE, "<1,8,S,64>", "'k0'", "2", "'float'", "[1,8,P,64]", "[1,8,S,64]");

	EXPECT("[1,8,P+S,64]", TRACT_TRANSFORMERS_QUANTIZED_DYN_KV_CACHE, "<1,8,S,64>", "'k0'", "2", "4", "1", "'f32'", "[1,8,P,64]", "[1,8,S,64]");
	EXPECT("E0908@3", TRACT_TRANSFORMERS_QUANTIZED_DYN_KV_CACHE, "<1,8,S,64>", "'k0'", "2", "3", "1", "'f32'", "[1,8,P,64]", "[1,8,S,64]");
	EXPECT("E0910@2", TRACT_TRANSFORMERS_QUANTIZED_DYN_KV_CACHE, "<1,8,S,64>", "'k0'", "1", "8", "0", "'f32'", "[1,P,8,64]", "[1,S,8,64]");
	EXPECT("E0906@0", TRACT_TRANSFORMERS_QUANTIZED_DYN_KV_CACHE, "<8,S,64>", "'v0'", "2", "8", "0", "'f32'", "[8,P,64]", "[8,S,64]");

	EXPECT("[1,2,4,8]", TRACT_TRANSFORMERS_WINDOW_KV_SDPA, "<1,2,4,8>:f16", "<1,2,1,8>", "<1,2,1,8>", "2", "16", "false");
	DTYPE(0, DT_F16);
	EXPECT("E0908@4", TRACT_TRANSFORMERS_WINDOW_KV_SDPA, "<1,2,4,8>", "<1,2,1,8>", "<1,2,1,8>", "2", "0", "0.5");
	EXPECT("E0906@1", TRACT_TRANSFORMERS_WINDOW_KV_SDPA, "<1,2,4,8>", "<2,1,8>", "<1,2,1,8>", "2", "16", "false");

	EXPECT("[4,16]", TRACT_MOE_FFN, "<4,16>", "<16,8>", "<8,16,32>", "<8,32,16>", "false", "false", "false", "false", "false", "2", "'silu'", "'softmax_topk'", "false", "false", "false");
	EXPECT("[S,16]", TRACT_MOE_FFN, "<S,16>", "<16,8>", "<8,16,32>", "<8,32,16>", "<8,16,32>", "<8>", "false", "false", "false", "2", "'swiglu'", "'sigmoid'", "1.702", "7.0", "'linear'");
	EXPECT("E0908@9", TRACT_MOE_FFN, "<4,16>", "<16,8>", "<8,16,32>", "<8,32,16>", "false", "false", "false", "false", "false", "0", "'silu'", "'raw'", "false", "false", "false");
	EXPECT("E0909@11", TRACT_MOE_FFN, "<4,16>", "<16,8>", "<8,16,32>", "<8,32,16>", "false", "false", "false", "false", "false", "2", "'silu'", "'top'", "false", "false", "false");
	EXPECT("E0909@14", TRACT_MOE_FFN, "<4,16>", "<16,8>", "<8,16,32>", "<8,32,16>", "false", "false", "false", "false", "false", "2", "'silu'", "'softmax_all'", "false", "false", "'rows'");
}
END_TEST

/* ---- tract_onnx --------------------------------------------------------------------------- */

START_TEST(onnx_ops)
{
	EXPECT("[1,8,4,4]", TRACT_ONNX_LRN, "<1,8,4,4>", "0.0001", "0.75", "1.0", "5");
	EXPECT("E0908@4", TRACT_ONNX_LRN, "<1,8,4,4>", "0.0001", "0.75", "1.0", "0");
	EXPECT("E0906@0", TRACT_ONNX_LRN, "<8>", "0.0001", "0.75", "1.0", "3");

	EXPECT("[5]", TRACT_ONNX_ML_DIRECT_LOOKUP, "<5>:i32", "<10>:f32", "<>:f32");
	DTYPE(0, DT_F32);
	EXPECT("E0940@2", TRACT_ONNX_ML_DIRECT_LOOKUP, "<5>:i32", "<10>:f32", "<>:i64");
	EXPECT("[5,2]", TRACT_ONNX_ML_REVERSE_LOOKUP, "<5,2>", "<10>", "0.0");
	DTYPE(0, DT_I32);
	EXPECT("[3,2]", TRACT_ONNX_ML_TREE_ENSEMBLE_CLASSIFIER, "<3,4>", "<>", "<>", "<>", "3", "2", "'SUM'");
	DTYPE(0, DT_F32);
	EXPECT("E0909@6", TRACT_ONNX_ML_TREE_ENSEMBLE_CLASSIFIER, "<3,4>", "<>", "<>", "<>", "3", "2", "'MEAN'");
	EXPECT("E0906@0", TRACT_ONNX_ML_TREE_ENSEMBLE_CLASSIFIER, "<4>", "<>", "<>", "<>", "3", "2", "'MAX'");
	EXPECT("E0942@0", TRACT_ONNX_ML_TREE_ENSEMBLE_CLASSIFIER, "<3,4>", "<>", "<>", "<>", "5", "2", "'MIN'");
	EXPECT("E0908@5", TRACT_ONNX_ML_TREE_ENSEMBLE_CLASSIFIER, "<3,4>", "<>", "<>", "<>", "3", "0", "'AVERAGE'");

	EXPECT("[2,3]", TRACT_ONNX_MULTINOMIAL, "<2,10>", "6", "3", "false");
	DTYPE(0, DT_I32);
	EXPECT("[2,1]", TRACT_ONNX_MULTINOMIAL, "<2,10>", "7", "1", "42");
	DTYPE(0, DT_I64);
	EXPECT("E0908@1", TRACT_ONNX_MULTINOMIAL, "<2,10>", "5", "1", "false");
	EXPECT("E0908@2", TRACT_ONNX_MULTINOMIAL, "<2,10>", "6", "0", "false");
	EXPECT("E0935@0", TRACT_ONNX_MULTINOMIAL, "<S,10>", "6", "1", "false");
	EXPECT("E0906@0", TRACT_ONNX_MULTINOMIAL, "<10>", "6", "1", "false");

	/* n: the symbol tract names so */
	EXPECT("[n,3]", TRACT_ONNX_NON_MAX_SUPPRESSION, "<1,6,4>", "<1,3,6>", "0", "0.5", "false", "0");
	DTYPE(0, DT_I64);
	EXPECT("[n,3]", TRACT_ONNX_NON_MAX_SUPPRESSION, "<1,6,4>", "<1,3,6>", "10", "0.5", "0.1", "1");
	EXPECT("E0908@5", TRACT_ONNX_NON_MAX_SUPPRESSION, "<1,6,4>", "<1,3,6>", "0", "0.5", "false", "2");
	EXPECT("E0942@0", TRACT_ONNX_NON_MAX_SUPPRESSION, "<1,6,5>", "<1,3,6>", "0", "0.5", "false", "0");
	EXPECT("E0942@1", TRACT_ONNX_NON_MAX_SUPPRESSION, "<1,6,4>", "<1,3,5>", "0", "0.5", "false", "0");
	EXPECT("E0906@1", TRACT_ONNX_NON_MAX_SUPPRESSION, "<1,6,4>", "<3,6>", "0", "0.5", "false", "0");

	/* data-dependent unless the input's items are known */
	EXPECT("[2,3]", TRACT_ONNX_NON_ZERO, "<2,3>=[0,1,0,2,0,3]", "false");
	DTYPE(0, DT_I64);
	EXPECT("[1,2]", TRACT_ONNX_NON_ZERO, "<4>=[true,false,false,true]", "false");
	EXPECT("dd", TRACT_ONNX_NON_ZERO, "<2,3>", "false");
	EXPECT("dd", TRACT_ONNX_NON_ZERO, "<2,3>", "'N'");

	EXPECT("[2,S]", TRACT_ONNX_RANDOM, "'f32'", "[2,S]", "'normal'", "[0.0,1.0]", "false");
	DTYPE(0, DT_F32);
	EXPECT("[4]", TRACT_ONNX_RANDOM, "'f16'", "[4]", "'uniform'", "[-1.0,1.0]", "7");
	DTYPE(0, DT_F16);
	EXPECT("E0907@3", TRACT_ONNX_RANDOM, "'f32'", "[4]", "'uniform'", "[0.0,1.0,2.0]", "false");
	EXPECT("E0909@2", TRACT_ONNX_RANDOM, "'f32'", "[4]", "'beta'", "[0.0,1.0]", "false");
	EXPECT("E0933@0", TRACT_ONNX_RANDOM, "'float'", "[4]", "'normal'", "[0.0,1.0]", "false");
	EXPECT("E0901@1", TRACT_ONNX_RANDOM, "'f32'", "[-4]", "'normal'", "[0.0,1.0]", "false");
}
END_TEST

/* ---- tract_pulse, tract_resource ------------------------------------------------------------ */

START_TEST(pulse_resource)
{
	EXPECT("[1,S+3,8]", TRACT_PULSE_DELAY, "<1,S,8>", "1", "2", "3");
	EXPECT("[1,4,8]", TRACT_PULSE_DELAY, "<1,4,8>", "1", "2", "0");
	EXPECT("E0908@3", TRACT_PULSE_DELAY, "<1,S,8>", "1", "2", "-1");
	EXPECT("E0910@1", TRACT_PULSE_DELAY, "<1,S,8>", "3", "2", "0");
	EXPECT("[1,S,8]", TRACT_PULSE_MASK, "<1,S,8>", "1", "0", "T", "0.0");
	EXPECT("E0908@2", TRACT_PULSE_MASK, "<1,S,8>", "1", "-2", "T", "0.0");
	EXPECT("[1,S,8]", TRACT_PULSE_PULSE_PAD, "<1,S,8>", "1", "2", "3", "0", "E", "'constant'", "0.0", "0");
	EXPECT("[1,S,8]", TRACT_PULSE_PULSE_PAD, "<1,S,8>", "1", "2", "3", "0", "10", "'replicated'", "0.0", "1");
	EXPECT("E0909@6", TRACT_PULSE_PULSE_PAD, "<1,S,8>", "1", "2", "3", "0", "E", "'edge'", "0.0", "0");
	EXPECT("E0910@1", TRACT_PULSE_PULSE_PAD, "<1,S,8>", "5", "2", "3", "0", "E", "'reflect'", "0.0", "0");

	/* the value comes from a file of the model */
	EXPECT("dd", TRACT_RESOURCE_GET, "'vocab'", "'tokens'");
	ck_assert(strstr(sb_str(&cx.msg), "vocab") != NULL);
	EXPECT("E0908@0", TRACT_RESOURCE_GET, "''", "'tokens'");
}
END_TEST

Suite *tract_shapes_suite(void)
{
	Suite *s = suite_create("tract_shapes");
	TCase *tc = tcase_create("table");
	tcase_add_test(tc, rows_match_registries);
	tcase_add_test(tc, rows_are_consistent);
	suite_add_tcase(s, tc);
	tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, elementwise_ops);
	tcase_add_test(tc, binary_ops);
	tcase_add_test(tc, reduce_ops);
	tcase_add_test(tc, broadcast_downsample_dyn_slice);
	tcase_add_test(tc, gather_scatter);
	tcase_add_test(tc, range_lengths);
	tcase_add_test(tc, topk_trilu);
	tcase_add_test(tc, normalizations);
	tcase_add_test(tc, fft_stft);
	tcase_add_test(tc, state_and_views);
	suite_add_tcase(s, tc);
	tc = tcase_create("nn");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, einsum_equations);
	tcase_add_test(tc, legacy_matmul);
	tcase_add_test(tc, qconv_shapes);
	tcase_add_test(tc, recurrent_cells);
	tcase_add_test(tc, resize_modes);
	tcase_add_test(tc, grid_sample_vptq);
	suite_add_tcase(s, tc);
	tc = tcase_create("transformers");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, sdpa_variants);
	tcase_add_test(tc, rope_masked_softmax);
	tcase_add_test(tc, qwen35_recurrent);
	tcase_add_test(tc, caches_moe);
	suite_add_tcase(s, tc);
	tc = tcase_create("onnx_pulse");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, onnx_ops);
	tcase_add_test(tc, pulse_resource);
	suite_add_tcase(s, tc);
	return s;
}
