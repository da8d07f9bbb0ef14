/*
 * check_shapes.c - the shape functions of the primitives (spec 1.0.2
 * chapter 4 "Operations", with 1.0.5 4.5.4 slice, 4.5.7 gather and 4.5.8
 * cast): the table of primitives, every primitive's result shape for
 * valid arguments, the argument-validity rules (diagnostic code and the
 * parameter at fault), unknown input shapes, 64-bit overflow, and the
 * shape utilities (volume, printing, equality).
 *
 * Arguments are written as short literals, read by the reader of
 * shape_literals.c into Values and Shapes in the fixture's arena, in the
 * order of the parameters in shapes/primitives.def:
 *   <1,3,224,224>   the shape of a tensor argument (<> rank 0, <?> unknown)
 *   {<1,2>,<1,3>}   the shapes of a tensor-array argument
 *   [1,2] (0,1) 3 -1 1.0 true 'constant'   attribute values
 * A call answers with the printed result shape ("[1,64,55,55]"), the
 * items of an array result joined by ';' ("?" when their number is not
 * known), or "E0908@5": the diagnostic code and the parameter at fault.
 * (Strings rather than variadic int64_t arguments: an int literal passed
 * where va_arg reads an int64_t is undefined behaviour, and the reader
 * counts the items itself.)
 */
#include "sema/sema.h"
#include "shapes/shapes.h"
#include "shape_literals.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* The state of one test (a checked fixture: set up in the test's
 * process). */
typedef struct Ctx {
	Arena arena;
	StrBuf msg, hint, text;
	ShapeCall c;
	bool ok;
} Ctx;

static Ctx cx;

static void setup(void)
{
	arena_init(&cx.arena);
	sb_init(&cx.msg);
	sb_init(&cx.hint);
	sb_init(&cx.text);
	memset(&cx.c, 0, sizeof(cx.c));
	cx.ok = false;
}

static void teardown(void)
{
	sb_free(&cx.msg);
	sb_free(&cx.hint);
	sb_free(&cx.text);
	arena_free(&cx.arena);
}

/* ---- reading the literals (shape_literals.c) --------------------------- */

/* A reader of literals made in the fixture's arena (no symbols). */
static LitReader reader(void)
{
	return (LitReader){ .arena = &cx.arena };
}

/* ---- running shape_infer ------------------------------------------------ */

static void print_result(StrBuf *o, const ShapeCall *c)
{
	if (!(shape_op_flags(c->op) & SF_ARRAY_RESULT)) {
		/* a known result exactly when every input is known */
		ck_assert_int_eq(c->out.known, c->known);
		shape_print(o, &c->out);
		return;
	}
	if (!c->outs) {
		ck_assert(!c->known);
		sb_puts(o, "?");
		return;
	}
	for (size_t k = 0; k < c->nouts; k++) {
		if (k)
			sb_putc(o, ';');
		ck_assert_int_eq(c->outs[k].known, c->known);
		shape_print(o, &c->outs[k]);
	}
}

/* Runs shape_infer for op with the arguments argv (NULL-terminated, one
 * per parameter); answers the printed result or "E09xx@param". */
static const char *run(ShapeOp op, const char *const *argv)
{
	size_t np = shape_op_nparams(op), n = 0;
	while (argv[n])
		n++;
	ck_assert_msg(n == np, "%s has %zu parameters; the test gives %zu",
		      shape_op_name(op), np, n);
	const Value **args = ARENA_ARRAY(&cx.arena, const Value *, np);
	ShapeIn *in = ARENA_ARRAY(&cx.arena, ShapeIn, np);
	LitReader L = reader();
	for (size_t i = 0; i < np; i++) {
		LitArg a;
		lit_arg(&L, argv[i], &a);
		args[i] = a.value;
		in[i] = a.in;
	}
	ShapeCall *c = &cx.c;
	memset(c, 0, sizeof(*c));
	c->op = op;
	c->args = args;
	c->in = in;
	c->arena = &cx.arena;
	c->msg = &cx.msg;
	c->hint = &cx.hint;
	sb_clear(&cx.msg);
	sb_clear(&cx.hint);
	cx.ok = shape_infer(c);
	sb_clear(&cx.text);
	if (cx.ok) {
		print_result(&cx.text, c);
	} else {
		ck_assert_msg(sb_str(c->msg)[0] != '\0',
			      "%s failed without a message", shape_op_name(op));
		ck_assert_int_ge(c->code, DIAG_E0901);
		ck_assert_int_le(c->code, DIAG_E0929);
		ck_assert_int_ge(c->param, -1);
		ck_assert_int_lt(c->param, (int)np);
		sb_printf(&cx.text, "%s@%d", diag_code_name(c->code), c->param);
	}
	return arena_strdup(&cx.arena, sb_str(&cx.text));
}

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })
/* EXPECT("[1,64,55,55]", CONV, "<1,3,224,224>", ...): the result of
 * SHAPE_OP_CONV for those arguments is [1,64,55,55] (or an error). */
#define EXPECT(want, op, ...) \
	ck_assert_str_eq(run(SHAPE_OP_##op, ARGV(__VA_ARGS__)), (want))

/* A shape for the utility tests. */
static Shape shp(const char *text)
{
	const char *p = text;
	LitReader L = reader();
	Shape s = lit_shape(&L, &p);
	ck_assert_str_eq(p, "");
	return s;
}

static const char *printed(const char *text)
{
	Shape s = shp(text);
	sb_clear(&cx.text);
	shape_print(&cx.text, &s);
	return arena_strdup(&cx.arena, sb_str(&cx.text));
}

/* ---- the table of primitives -------------------------------------------- */

START_TEST(op_table)
{
	ck_assert_int_eq(shape_op_lookup("conv"), SHAPE_OP_CONV);
	ck_assert_int_eq(shape_op_lookup("relu"), SHAPE_OP_NONE);
	ck_assert_int_eq(shape_op_lookup("max_pool"), SHAPE_OP_NONE);
	ck_assert_int_eq(shape_op_lookup(""), SHAPE_OP_NONE);
	ck_assert_int_eq(shape_op_lookup("Conv"), SHAPE_OP_NONE);
	ck_assert_int_eq(shape_op_lookup("external"), SHAPE_OP_EXTERNAL);
	ck_assert_int_eq(shape_op_lookup("update"), SHAPE_OP_UPDATE);
	ck_assert_str_eq(shape_op_name(SHAPE_OP_MULTILINEAR_UPSAMPLE),
			 "multilinear_upsample");
	ck_assert_str_eq(shape_op_name(SHAPE_OP_ARGMAX_POOL), "argmax_pool");
	ck_assert_str_eq(shape_op_name(SHAPE_OP_CAST), "cast");
	for (int op = 0; op < SHAPE_OP_COUNT; op++) {
		ck_assert_int_eq(shape_op_lookup(shape_op_name((ShapeOp)op)),
				 op);
		ck_assert_uint_ge(shape_op_nparams((ShapeOp)op), 1);
	}
	/* parameters in declaration order (4.3.1, 4.5.4, 4.7) */
	ck_assert_uint_eq(shape_op_nparams(SHAPE_OP_CONV), 8);
	ck_assert_str_eq(shape_op_param(SHAPE_OP_CONV, 0), "input");
	ck_assert_str_eq(shape_op_param(SHAPE_OP_CONV, 4), "padding");
	ck_assert_str_eq(shape_op_param(SHAPE_OP_CONV, 7), "groups");
	ck_assert_uint_eq(shape_op_nparams(SHAPE_OP_DECONV), 9);
	ck_assert_str_eq(shape_op_param(SHAPE_OP_DECONV, 7), "output_shape");
	ck_assert_uint_eq(shape_op_nparams(SHAPE_OP_EXTERNAL), 1);
	ck_assert_str_eq(shape_op_param(SHAPE_OP_EXTERNAL, 0), "shape");
	ck_assert_uint_eq(shape_op_nparams(SHAPE_OP_SELECT), 3);
	ck_assert_str_eq(shape_op_param(SHAPE_OP_SELECT, 0), "condition");
	ck_assert_uint_eq(shape_op_nparams(SHAPE_OP_SLICE), 5);
	ck_assert_str_eq(shape_op_param(SHAPE_OP_SLICE, 4), "stride");
	ck_assert_str_eq(shape_op_param(SHAPE_OP_MATMUL, 2), "transposeA");
	ck_assert_str_eq(shape_op_param(SHAPE_OP_SAMPLE, 1), "index");
	ck_assert_str_eq(shape_op_param(SHAPE_OP_CAST, 0), "input");
	ck_assert_uint_eq(shape_op_nparams(SHAPE_OP_ROI_RESAMPLE), 5);
	/* kinds */
	ck_assert(shape_op_flags(SHAPE_OP_SPLIT) & SF_ARRAY_RESULT);
	ck_assert(shape_op_flags(SHAPE_OP_UNSTACK) & SF_ARRAY_RESULT);
	ck_assert(!(shape_op_flags(SHAPE_OP_STACK) & SF_ARRAY_RESULT));
	ck_assert(shape_op_flags(SHAPE_OP_DECONV) & SF_REVERSE);
	ck_assert(!(shape_op_flags(SHAPE_OP_CONV) & SF_REVERSE));
	ck_assert(shape_op_flags(SHAPE_OP_CAST) & SF_UNARY);
	ck_assert(shape_op_flags(SHAPE_OP_ADD) & SF_BINARY);
}
END_TEST

/* The rows of shapes/primitives.def and the primitive declarations (the
 * fragments without body) of sema/stdlib.nnef match one to one, with the
 * same parameters in the same order (spec chapter 4: every primitive has
 * a shape function). */
START_TEST(op_table_matches_stdlib)
{
	Arena a;
	arena_init(&a);
	Interner in;
	intern_init(&in, &a);
	DiagList dl;
	diag_list_init(&dl, 0);
	SourceFile *src = sema_stdlib_source();
	ParseResult r = parse_document(src, PARSE_FRAGMENTS, NULL, &a, &in, &dl);
	ck_assert_uint_eq(dl.nerrors, 0);
	bool seen[SHAPE_OP_COUNT] = { false };
	size_t prims = 0;
	for (size_t i = 0; i < r.doc->nitems; i++) {
		const AstItem *it = &r.doc->items[i];
		if (it->kind != AST_ITEM_DEF || it->def->body)
			continue;
		const AstDef *d = it->def;
		ShapeOp op = shape_op_lookup(d->name);
		ck_assert_msg(op != SHAPE_OP_NONE, "primitive '%s' has no row in primitives.def", d->name);
		ck_assert_msg(!seen[op], "'%s' declared twice", d->name);
		seen[op] = true;
		prims++;
		ck_assert_msg(shape_op_nparams(op) == d->nparams, "'%s': %zu parameters in primitives.def, %zu in stdlib.nnef", d->name, shape_op_nparams(op), d->nparams);
		for (size_t k = 0; k < d->nparams; k++)
			ck_assert_str_eq(shape_op_param(op, k), d->params[k].name);
	}
	size_t standard = 0; /* the rows of tract's registries: tract.def */
	for (int op = 0; op < SHAPE_OP_COUNT; op++)
		standard += !(shape_op_flags((ShapeOp)op) & SF_TRACT);
	ck_assert_uint_eq(prims, standard);
	for (int op = 0; op < SHAPE_OP_COUNT; op++)
		ck_assert_msg(seen[op] || (shape_op_flags((ShapeOp)op) & SF_TRACT), "'%s' is not a primitive of stdlib.nnef", shape_op_name((ShapeOp)op));
	source_free(src);
	diag_list_free(&dl);
	intern_free(&in);
	arena_free(&a);
}
END_TEST

/* ---- shape utilities ---------------------------------------------------- */

START_TEST(shape_utilities)
{
	int64_t v = -1;
	Shape s = shp("<1,3,224,224>");
	ck_assert(shape_volume(&s, &v));
	ck_assert_int_eq(v, 150528);
	s = shp("<>");
	ck_assert(shape_volume(&s, &v));
	ck_assert_int_eq(v, 1);
	s = shp("<0,5>"); /* an empty slice */
	ck_assert(shape_volume(&s, &v));
	ck_assert_int_eq(v, 0);
	s = shp("<3037000499,3037000499>"); /* 9223372030926249001 */
	ck_assert(shape_volume(&s, &v));
	ck_assert_int_eq(v, INT64_C(9223372030926249001));
	s = shp("<3037000500,3037000500>");
	ck_assert(!shape_volume(&s, &v));
	s = shp("<4611686018427387904,2>");
	ck_assert(!shape_volume(&s, &v));

	ck_assert_str_eq(printed("<1,3,224,224>"), "[1,3,224,224]");
	ck_assert_str_eq(printed("<>"), "[]");
	ck_assert_str_eq(printed("<?>"), "[?]");
	ck_assert_str_eq(printed("<7>"), "[7]");
	ck_assert_str_eq(printed("<0,5>"), "[0,5]");
	ck_assert_str_eq(printed("<9223372036854775807>"),
			 "[9223372036854775807]");

	Shape a = shp("<2,3,4>"), b = shp("<2,3,4>");
	ck_assert_ptr_ne(a.dims, b.dims);
	ck_assert(shape_equal(&a, &b));
	b = shp("<2,3,5>");
	ck_assert(!shape_equal(&a, &b));
	b = shp("<2,3>");
	ck_assert(!shape_equal(&a, &b));
	b = shp("<2,3,4,1>");
	ck_assert(!shape_equal(&a, &b));
	b = shp("<?>");
	ck_assert(!shape_equal(&a, &b));
	a = shp("<>");
	b = shp("<>");
	ck_assert(shape_equal(&a, &b));
	b = shp("<1>");
	ck_assert(!shape_equal(&a, &b));
}
END_TEST

/* ---- 4.1 Tensor Introducing Operations ---------------------------------- */

/* spec 4.1.1 External Data Sources: "Items in shape must be strictly
 * positive"; output has that shape. */
START_TEST(external_shapes)
{
	EXPECT("[1,3,224,224]", EXTERNAL, "[1,3,224,224]");
	EXPECT("[10]", EXTERNAL, "[10]");
	EXPECT("[]", EXTERNAL, "[]");
	EXPECT("[1,1,1,1,1,1,1,1]", EXTERNAL, "[1,1,1,1,1,1,1,1]");
	EXPECT("E0901@0", EXTERNAL, "[1,0,3]");
	EXPECT("E0901@0", EXTERNAL, "[-2]");
	/* 2^62 * 2^62 does not fit: shape arithmetic is checked */
	EXPECT("E0929@0", EXTERNAL,
	       "[4611686018427387904,4611686018427387904]");
	EXPECT("[4611686018427387904]", EXTERNAL, "[4611686018427387904]");
}
END_TEST

/* spec 4.1.2 Constants: "The length of value must equal the volume
 * implied by shape or must be 1." */
START_TEST(constant_shapes)
{
	EXPECT("[2,3]", CONSTANT, "[2,3]", "[0.0]");
	EXPECT("[2,3]", CONSTANT, "[2,3]", "[1.0,2.0,3.0,4.0,5.0,6.0]");
	EXPECT("[]", CONSTANT, "[]", "[1.5]");
	EXPECT("[1,4]", CONSTANT, "[1,4]", "[true,false,true,true]");
	EXPECT("E0902@1", CONSTANT, "[2,3]", "[1.0,2.0,3.0,4.0]");
	EXPECT("E0902@1", CONSTANT, "[2]", "[1,2,3]");
	EXPECT("E0901@0", CONSTANT, "[2,0]", "[1.0]");
}
END_TEST

/* spec 4.1.3 Variables: "label must not be empty. Labels must only
 * contain the following characters: [a-z], [A-Z], [0-9], _, -, ., /, \" */
START_TEST(variable_shapes)
{
	EXPECT("[64,3,7,7]", VARIABLE, "[64,3,7,7]", "'conv1/weights'");
	EXPECT("[1,64]", VARIABLE, "[1,64]", "'Block-1.bias_0'");
	EXPECT("[5]", VARIABLE, "[5]", "'a\\b'");
	EXPECT("E0903@1", VARIABLE, "[5]", "''");
	EXPECT("E0903@1", VARIABLE, "[5]", "'a b'");
	EXPECT("E0903@1", VARIABLE, "[5]", "'w:0'");
	EXPECT("E0901@0", VARIABLE, "[5,-1]", "'w'");
}
END_TEST

/* ---- 4.2 Element-wise Operations ---------------------------------------- */

/* spec 4.2.1 Unary Operations: "The shape of y is equal to that of x"
 * (and 1.0.5 4.5.8 Casting: output has the shape of input). */
START_TEST(unary_ops)
{
	int count = 0;
	for (int op = 0; op < SHAPE_OP_COUNT; op++) {
		if (!(shape_op_flags((ShapeOp)op) & SF_UNARY) ||
		    (shape_op_flags((ShapeOp)op) & SF_TRACT))
			continue; /* tract's: check_tract_shapes.c */
		count++;
		ck_assert_str_eq(run((ShapeOp)op, ARGV("<2,3,4>")), "[2,3,4]");
		ck_assert_str_eq(run((ShapeOp)op, ARGV("<>")), "[]");
		ck_assert_str_eq(run((ShapeOp)op, ARGV("<1,1,1,7,1>")),
				 "[1,1,1,7,1]");
	}
	/* copy .. round (23 in 4.2.1) and cast */
	ck_assert_int_eq(count, 24);
	EXPECT("[1,1000]", CAST, "<1,1000>");
	EXPECT("[1,3,224,224]", TANH, "<1,3,224,224>");
}
END_TEST

/* spec 4.2.2 Binary Operations: "The shape of x and y must be
 * broadcast-compatible", trailing singleton dimensions (spec 2.2). */
START_TEST(binary_ops)
{
	int count = 0;
	for (int op = 0; op < SHAPE_OP_COUNT; op++) {
		if (!(shape_op_flags((ShapeOp)op) & SF_BINARY) ||
		    (shape_op_flags((ShapeOp)op) & SF_TRACT))
			continue; /* tract's: check_tract_shapes.c */
		count++;
		ck_assert_str_eq(run((ShapeOp)op, ARGV("<4,1,5>", "<1,3>")),
				 "[4,3,5]");
		ck_assert_str_eq(run((ShapeOp)op, ARGV("<2,3>", "<2,4>")),
				 "E0905@1");
	}
	ck_assert_int_eq(count, 13);
	EXPECT("[1,16,32,32]", ADD, "<1,16,32,32>", "<1,16>");
	EXPECT("[1,16,32,32]", ADD, "<1,16>", "<1,16,32,32>");
	EXPECT("[2,3]", MUL, "<2,3>", "<>");
	EXPECT("[2,3]", SUB, "<>", "<2,3>");
	EXPECT("[]", DIV, "<>", "<>");
	EXPECT("[3,4]", POW, "<3,1>", "<1,4>");
	EXPECT("[5,1,2]", LT, "<1>", "<5,1,2>");
	EXPECT("[2,3,4]", EQ, "<2,3,4>", "<2,3,4>");
	EXPECT("[2,3,4]", AND, "<2,3,4>", "<2>");
	EXPECT("E0905@1", ADD, "<2,3>", "<3>");
	EXPECT("E0905@1", OR, "<1,16,32,32>", "<1,8>");
}
END_TEST

/* spec 4.2.3 Select Operation: "The shape of condition, true_value and
 * false_value must be (three-way) broadcast-compatible." */
START_TEST(select_op)
{
	EXPECT("[1,16,32,32]", SELECT, "<1,16,1,1>", "<1,16,32,32>", "<>");
	EXPECT("[4,3,5]", SELECT, "<4,1,1>", "<1,3>", "<1,1,5>");
	EXPECT("[2,7]", SELECT, "<2,1>", "<2>", "<2,7>");
	EXPECT("[]", SELECT, "<>", "<>", "<>");
	EXPECT("[6]", SELECT, "<>", "<6>", "<1>");
	EXPECT("E0905@1", SELECT, "<2>", "<3>", "<1>");
	EXPECT("E0905@2", SELECT, "<2>", "<1>", "<3>");
}
END_TEST

/* ---- 4.3 Sliding-Window Operations -------------------------------------- */

/* spec 4.3 Output Shape Calculation and 4.3.2 Box Filter: every dimension
 * is windowed; x = floor((p + X + q - fd) / s) + 1, fd = (f - 1) * d + 1.
 * Parameters: input, size, border, padding, stride, dilation, normalize. */
START_TEST(box_shapes)
{
	/* rank 1: (10 - 3) / 1 + 1 = 8; stride 2: floor(7 / 2) + 1 = 4 */
	EXPECT("[8]", BOX, "<10>", "[3]", "'constant'", "[(0,0)]", "[]", "[]",
	       "false");
	EXPECT("[4]", BOX, "<10>", "[3]", "'constant'", "[(0,0)]", "[2]", "[]",
	       "false");
	/* automatic padding: x = ceil(10 / 1) = 10 (t = 2, p = q = 1);
	 * stride 2: x = ceil(10 / 2) = 5 (t = 1, p = 0, q = 1) */
	EXPECT("[10]", BOX, "<10>", "[3]", "'constant'", "[]", "[]", "[]",
	       "false");
	EXPECT("[5]", BOX, "<10>", "[3]", "'ignore'", "[]", "[2]", "[]",
	       "true");
	/* a window wider than the input: x = 2, t = 1 + 5 - 2 = 4 */
	EXPECT("[2]", BOX, "<2>", "[5]", "'constant'", "[]", "[]", "[]",
	       "false");
	/* negative padding: -2 + 10 - 1 - 1 + 1 = 7 */
	EXPECT("[7]", BOX, "<10>", "[1]", "'constant'", "[(-2,-1)]", "[]",
	       "[]", "false");
	/* rank 2: 4 (f = 1); floor((1 + 6 + 1 - 3) / 2) + 1 = 3 */
	EXPECT("[4,3]", BOX, "<4,6>", "[1,3]", "'replicate'",
	       "[(0,0),(1,1)]", "[1,2]", "[]", "false");
	/* rank 3 with dilation 2: fd = 5, 7 - 5 + 1 = 3 */
	EXPECT("[2,3,3]", BOX, "<2,7,7>", "[1,3,3]", "'reflect'",
	       "[(0,0),(0,0),(0,0)]", "[]", "[1,2,2]", "false");
	/* rank 4, the avg_pool of 4.9.3: x = ceil(32 / 2) = 16 */
	EXPECT("[1,16,16,16]", BOX, "<1,16,32,32>", "[1,1,2,2]", "'constant'",
	       "[]", "[1,1,2,2]", "[]", "true");
	/* floor((1 + 5 + 1 - 3) / 2) + 1 = 3 */
	EXPECT("[1,3,3,3]", BOX, "<1,3,5,5>", "[1,1,3,3]", "'ignore'",
	       "[(0,0),(0,0),(1,1),(1,1)]", "[1,1,2,2]", "[]", "true");
	/* rank 5, automatic: x = ceil(8 / 2) = 4 (t = 1) */
	EXPECT("[1,2,4,4,4]", BOX, "<1,2,8,8,8>", "[1,1,3,3,3]",
	       "'reflect-even'", "[]", "[1,1,2,2,2]", "[]", "false");
	/* rank 0: no dimension to window */
	EXPECT("[]", BOX, "<>", "[]", "'constant'", "[]", "[]", "[]", "false");
	/* Argument Validity */
	EXPECT("E0908@1", BOX, "<10>", "[0]", "'constant'", "[]", "[]", "[]",
	       "false");
	EXPECT("E0908@4", BOX, "<10>", "[3]", "'constant'", "[]", "[0]", "[]",
	       "false");
	EXPECT("E0908@5", BOX, "<10>", "[3]", "'constant'", "[]", "[]", "[-1]",
	       "false");
	EXPECT("E0909@2", BOX, "<10>", "[3]", "'wrap'", "[]", "[]", "[]",
	       "false");
	EXPECT("E0907@1", BOX, "<4,6>", "[3]", "'constant'", "[]", "[]", "[]",
	       "false");
	EXPECT("E0907@3", BOX, "<4,6>", "[1,3]", "'constant'", "[(0,0)]", "[]",
	       "[]", "false");
	EXPECT("E0907@4", BOX, "<4,6>", "[1,3]", "'constant'", "[]",
	       "[1,1,1]", "[]", "false");
	/* p + X + q >= fd: 0 + 2 + 0 < 3 */
	EXPECT("E0915@-1", BOX, "<2>", "[3]", "'constant'", "[(0,0)]", "[]",
	       "[]", "false");
	/* p + X overflows */
	EXPECT("E0929@3", BOX, "<1>", "[1]", "'constant'",
	       "[(9223372036854775807,1)]", "[]", "[]", "false");
}
END_TEST

/* spec 4.3 Output Shape Calculation (reverse: X = (x - 1) * s + fd -
 * (p + q)) and 4.3.2 Box Filter (debox). Parameters: input, size, border,
 * padding, stride, dilation, output_shape, normalize. */
START_TEST(debox_shapes)
{
	/* rank 1: (4 - 1) * 2 + 3 - 0 = 9 */
	EXPECT("[9]", DEBOX, "<4>", "[3]", "'constant'", "[(0,0)]", "[2]",
	       "[]", "[]", "false");
	/* output_shape [10] down-scales to floor((10 - 3) / 2) + 1 = 4 too */
	EXPECT("[10]", DEBOX, "<4>", "[3]", "'constant'", "[(0,0)]", "[2]",
	       "[]", "[10]", "false");
	/* automatic padding, no output_shape: X = x * s = 10 */
	EXPECT("[10]", DEBOX, "<5>", "[3]", "'constant'", "[]", "[2]", "[]",
	       "[]", "false");
	/* automatic padding with output_shape 9: ceil(9 / 2) = 5 */
	EXPECT("[9]", DEBOX, "<5>", "[3]", "'constant'", "[]", "[2]", "[]",
	       "[9]", "false");
	/* rank 2 with dilation: 3; (3 - 1) * 1 + 5 = 7 */
	EXPECT("[3,7]", DEBOX, "<3,3>", "[1,3]", "'ignore'", "[(0,0),(0,0)]",
	       "[]", "[1,2]", "[]", "true");
	/* rank 3: (4 - 1) * 2 + 2 = 8 */
	EXPECT("[2,8,8]", DEBOX, "<2,4,4>", "[1,2,2]", "'constant'",
	       "[(0,0),(0,0),(0,0)]", "[1,2,2]", "[]", "[]", "false");
	/* rank 4: the reverse of avg_pool 2x2 */
	EXPECT("[1,16,32,32]", DEBOX, "<1,16,16,16>", "[1,1,2,2]",
	       "'constant'", "[]", "[1,1,2,2]", "[]", "[]", "true");
	/* rank 5: stride 1, X = x */
	EXPECT("[1,1,2,3,4]", DEBOX, "<1,1,2,3,4>", "[1,1,3,3,3]",
	       "'replicate'", "[]", "[]", "[]", "[]", "false");
	EXPECT("[1,1,2,3,4]", DEBOX, "<1,1,2,3,4>", "[1,1,3,3,3]",
	       "'replicate'", "[]", "[]", "[]", "[1,1,2,3,4]", "false");
	/* output_shape that down-scales to 6, not 5 */
	EXPECT("E0916@6", DEBOX, "<5>", "[3]", "'constant'", "[]", "[2]", "[]",
	       "[12]", "false");
	EXPECT("E0907@6", DEBOX, "<4,4>", "[1,1]", "'constant'", "[]", "[]",
	       "[]", "[8]", "false");
	EXPECT("E0901@6", DEBOX, "<4>", "[1]", "'constant'", "[]", "[]", "[]",
	       "[0]", "false");
	/* (1 - 1) * 1 + 1 - (1 + 1) = -1 */
	EXPECT("E0915@-1", DEBOX, "<1>", "[1]", "'constant'", "[(1,1)]", "[]",
	       "[]", "[]", "false");
	EXPECT("E0908@4", DEBOX, "<4>", "[1]", "'constant'", "[]", "[0]", "[]",
	       "[]", "false");
}
END_TEST

/* spec 4.3.3 Index Based Sampling: argmax_pool (input, size, border,
 * padding, stride, dilation) down-scales like box. */
START_TEST(argmax_pool_shapes)
{
	/* floor((0 + 7 + 0 - 2) / 2) + 1 = 3 */
	EXPECT("[3]", ARGMAX_POOL, "<7>", "[2]", "'ignore'", "[(0,0)]", "[2]",
	       "[]");
	/* dilation 3: fd = 7, 9 - 7 + 1 = 3 */
	EXPECT("[3]", ARGMAX_POOL, "<9>", "[3]", "'constant'", "[(0,0)]", "[]",
	       "[3]");
	EXPECT("[5,5]", ARGMAX_POOL, "<5,5>", "[2,2]", "'ignore'", "[]", "[]",
	       "[]");
	EXPECT("[3,3,3]", ARGMAX_POOL, "<3,9,9>", "[1,3,3]", "'ignore'",
	       "[(0,0),(0,0),(0,0)]", "[1,3,3]", "[]");
	/* floor((0 + 112 + 1 - 3) / 2) + 1 = 56 */
	EXPECT("[1,64,56,56]", ARGMAX_POOL, "<1,64,112,112>", "[1,1,3,3]",
	       "'ignore'", "[(0,0),(0,0),(0,1),(0,1)]", "[1,1,2,2]", "[]");
	EXPECT("[1,64,56,56]", ARGMAX_POOL, "<1,64,112,112>", "[1,1,3,3]",
	       "'ignore'", "[]", "[1,1,2,2]", "[]");
	EXPECT("[2,2,3,3,3]", ARGMAX_POOL, "<2,2,6,6,6>", "[1,1,2,2,2]",
	       "'constant'", "[]", "[1,1,2,2,2]", "[]");
	EXPECT("E0909@2", ARGMAX_POOL, "<7>", "[2]", "'max'", "[]", "[]", "[]");
	EXPECT("E0907@5", ARGMAX_POOL, "<7>", "[2]", "'ignore'", "[]", "[]",
	       "[1,1]");
}
END_TEST

/* spec 4.3.3 Index Based Sampling: sample (input, index, size, border,
 * padding, stride, dilation): "The shape of index must be the same as
 * that of output"; the output is down-scaled. */
START_TEST(sample_shapes)
{
	EXPECT("[3]", SAMPLE, "<7>", "<3>", "[2]", "'constant'", "[(0,0)]",
	       "[2]", "[]");
	/* dilation 2: fd = 5, 9 - 5 + 1 = 5 */
	EXPECT("[5]", SAMPLE, "<9>", "<5>", "[3]", "'constant'", "[(0,0)]",
	       "[]", "[2]");
	/* (6 - 2) / 2 + 1 = 3 */
	EXPECT("[3,3]", SAMPLE, "<6,6>", "<3,3>", "[2,2]", "'reflect'",
	       "[(0,0),(0,0)]", "[2,2]", "[]");
	EXPECT("[1,4,4]", SAMPLE, "<1,8,8>", "<1,4,4>", "[1,3,3]",
	       "'replicate'", "[]", "[1,2,2]", "[1,1,1]");
	/* the max_pool of 4.9.3 passes border = 'ignore' to sample */
	EXPECT("[1,64,56,56]", SAMPLE, "<1,64,112,112>", "<1,64,56,56>",
	       "[1,1,3,3]", "'ignore'", "[]", "[1,1,2,2]", "[]");
	EXPECT("[1,1,2,2,2]", SAMPLE, "<1,1,4,4,4>", "<1,1,2,2,2>",
	       "[1,1,2,2,2]", "'constant'", "[]", "[1,1,2,2,2]", "[]");
	EXPECT("E0927@1", SAMPLE, "<1,64,112,112>", "<1,64,55,55>",
	       "[1,1,3,3]", "'ignore'", "[]", "[1,1,2,2]", "[]");
	EXPECT("E0927@1", SAMPLE, "<6,6>", "<6,6>", "[2,2]", "'constant'",
	       "[(0,0),(0,0)]", "[2,2]", "[]");
	EXPECT("E0908@2", SAMPLE, "<6>", "<6>", "[-1]", "'constant'", "[]",
	       "[]", "[]");
}
END_TEST

/* spec 4.3.3 Index Based Sampling: desample (input, index, size, border,
 * padding, stride, dilation, output_shape): "The shape of index must be
 * the same as ... that of input for desample"; the output is up-scaled;
 * border must be 'constant'. */
START_TEST(desample_shapes)
{
	/* (3 - 1) * 2 + 2 = 6 */
	EXPECT("[6]", DESAMPLE, "<3>", "<3>", "[2]", "'constant'", "[(0,0)]",
	       "[2]", "[]", "[]");
	EXPECT("[6,6]", DESAMPLE, "<3,3>", "<3,3>", "[2,2]", "'constant'",
	       "[(0,0),(0,0)]", "[2,2]", "[]", "[]");
	/* floor((7 - 2) / 2) + 1 = 3 */
	EXPECT("[7,7]", DESAMPLE, "<3,3>", "<3,3>", "[2,2]", "'constant'",
	       "[(0,0),(0,0)]", "[2,2]", "[]", "[7,7]");
	/* dilation 3: fd = 4, (3 - 1) * 1 + 4 = 6 */
	EXPECT("[6]", DESAMPLE, "<3>", "<3>", "[2]", "'constant'", "[(0,0)]",
	       "[]", "[3]", "[]");
	EXPECT("[1,8,8]", DESAMPLE, "<1,4,4>", "<1,4,4>", "[1,3,3]",
	       "'constant'", "[]", "[1,2,2]", "[]", "[]");
	EXPECT("[1,64,112,112]", DESAMPLE, "<1,64,56,56>", "<1,64,56,56>",
	       "[1,1,3,3]", "'constant'", "[]", "[1,1,2,2]", "[]",
	       "[1,64,112,112]");
	/* automatic padding for X = 111: ceil(111 / 2) = 56 */
	EXPECT("[1,64,111,111]", DESAMPLE, "<1,64,56,56>", "<1,64,56,56>",
	       "[1,1,3,3]", "'constant'", "[]", "[1,1,2,2]", "[]",
	       "[1,64,111,111]");
	EXPECT("[1,1,4,4,4]", DESAMPLE, "<1,1,2,2,2>", "<1,1,2,2,2>",
	       "[1,1,2,2,2]", "'constant'", "[]", "[1,1,2,2,2]", "[]", "[]");
	EXPECT("E0909@3", DESAMPLE, "<3>", "<3>", "[2]", "'ignore'", "[]",
	       "[2]", "[]", "[]");
	EXPECT("E0927@1", DESAMPLE, "<1,64,56,56>", "<1,64,112,112>",
	       "[1,1,3,3]", "'constant'", "[]", "[1,1,2,2]", "[]", "[]");
	/* 113 down-scales to ceil(113 / 2) = 57 */
	EXPECT("E0916@7", DESAMPLE, "<1,64,56,56>", "<1,64,56,56>",
	       "[1,1,3,3]", "'constant'", "[]", "[1,1,2,2]", "[]",
	       "[1,64,113,113]");
}
END_TEST

/* spec 4.3.1 Convolution and Deconvolution: conv (input, filter, bias,
 * border, padding, stride, dilation, groups) windows the spatial
 * dimensions; the output's channels are the filter's batch dimension. */
START_TEST(conv_shapes)
{
	/* AlexNet conv1: floor((2 + 224 + 2 - 11) / 4) + 1 = 55 */
	EXPECT("[1,64,55,55]", CONV, "<1,3,224,224>", "<64,3,11,11>",
	       "<1,64>", "'constant'", "[(2,2),(2,2)]", "[4,4]", "[]", "1");
	/* automatic padding: ceil(224 / 2) = 112 (t = 5, p = 2, q = 3) */
	EXPECT("[1,64,112,112]", CONV, "<1,3,224,224>", "<64,3,7,7>", "<>",
	       "'constant'", "[]", "[2,2]", "[]", "1");
	/* 1 spatial dimension, dilation 2: fd = 9, 100 - 9 + 1 = 92 */
	EXPECT("[2,8,92]", CONV, "<2,4,100>", "<8,4,5>", "<>", "'constant'",
	       "[(0,0)]", "[]", "[2]", "1");
	/* 3 spatial dimensions: floor((1 + 16 + 1 - 3) / 2) + 1 = 8 */
	EXPECT("[1,4,8,8,8]", CONV, "<1,2,16,16,16>", "<4,2,3,3,3>",
	       "<1,4>", "'replicate'", "[(1,1),(1,1),(1,1)]", "[2,2,2]", "[]",
	       "1");
	/* dilation 2: fd = 5, 10 - 5 + 1 = 6 */
	EXPECT("[1,1,6,6]", CONV, "<1,1,10,10>", "<1,1,3,3>", "<>",
	       "'reflect'", "[(0,0),(0,0)]", "[]", "[2,2]", "1");
	/* no spatial dimension: a linear layer */
	EXPECT("[5,7]", CONV, "<5,3>", "<7,3>", "<1,7>", "'constant'", "[]",
	       "[]", "[]", "1");
	/* groups = 0: one group per input channel (depthwise), G = 32 */
	EXPECT("[1,32,56,56]", CONV, "<1,32,56,56>", "<32,1,3,3>", "<>",
	       "'constant'", "[]", "[]", "[]", "0");
	EXPECT("[1,64,56,56]", CONV, "<1,32,56,56>", "<64,1,3,3>", "<1,64>",
	       "'constant'", "[]", "[]", "[]", "0");
	/* groups = 4: filter (64, 32 / 4, 3, 3) */
	EXPECT("[1,64,28,28]", CONV, "<1,32,28,28>", "<64,8,3,3>",
	       "<1,64,1,1>", "'constant'", "[(1,1),(1,1)]", "[]", "[]", "4");
	/* asymmetric explicit padding, stride 2: floor((0 + 9 + 1 - 3) / 2)
	 * + 1 = 4 and floor((1 + 9 + 0 - 3) / 2) + 1 = 4; 9 - 1 + 1 = 9 */
	EXPECT("[2,6,4,4,9]", CONV, "<2,3,9,9,9>", "<6,3,3,3,1>", "<1,1>",
	       "'constant'", "[(0,1),(1,0),(0,0)]", "[2,2,1]", "[]", "1");
	/* "Items in stride must be strictly positive" */
	EXPECT("E0908@5", CONV, "<1,3,8,8>", "<8,3,3,3>", "<>", "'constant'",
	       "[]", "[0,1]", "[]", "1");
	EXPECT("E0908@6", CONV, "<1,3,8,8>", "<8,3,3,3>", "<>", "'constant'",
	       "[]", "[]", "[1,0]", "1");
	EXPECT("E0908@7", CONV, "<1,3,8,8>", "<8,3,3,3>", "<>", "'constant'",
	       "[]", "[]", "[]", "-1");
	EXPECT("E0909@3", CONV, "<1,3,8,8>", "<8,3,3,3>", "<>", "'ignore'",
	       "[]", "[]", "[]", "1");
	EXPECT("E0907@4", CONV, "<1,3,8,8>", "<8,3,3,3>", "<>", "'constant'",
	       "[(1,1)]", "[]", "[]", "1");
	EXPECT("E0907@5", CONV, "<1,3,8,8>", "<8,3,3,3>", "<>", "'constant'",
	       "[]", "[1,1,1,1]", "[]", "1");
	EXPECT("E0906@1", CONV, "<1,3,8,8>", "<8,3,3>", "<>", "'constant'",
	       "[]", "[]", "[]", "1");
	EXPECT("E0906@0", CONV, "<3>", "<3>", "<>", "'constant'", "[]", "[]",
	       "[]", "1");
	/* filter channels 4 * 1 group != 3 input channels */
	EXPECT("E0913@1", CONV, "<1,3,8,8>", "<8,4,3,3>", "<>", "'constant'",
	       "[]", "[]", "[]", "1");
	/* 3 groups do not divide 64 filters */
	EXPECT("E0912@7", CONV, "<1,24,8,8>", "<64,8,3,3>", "<>", "'constant'",
	       "[]", "[]", "[]", "3");
	/* groups = 0 means 4 groups here, which do not divide 6 filters */
	EXPECT("E0912@7", CONV, "<1,4,8,8>", "<6,1,3,3>", "<>", "'constant'",
	       "[]", "[]", "[]", "0");
	/* bias: channel dimension 64 or 1, singular elsewhere */
	EXPECT("E0914@2", CONV, "<1,32,28,28>", "<64,32,3,3>", "<1,32>",
	       "'constant'", "[]", "[]", "[]", "1");
	EXPECT("E0914@2", CONV, "<1,32,28,28>", "<64,32,3,3>", "<64>",
	       "'constant'", "[]", "[]", "[]", "1");
	EXPECT("E0914@2", CONV, "<1,32,28,28>", "<64,32,3,3>",
	       "<1,64,1,1,1>", "'constant'", "[]", "[]", "[]", "1");
	EXPECT("[1,64,28,28]", CONV, "<1,32,28,28>", "<64,32,3,3>", "<1,1>",
	       "'constant'", "[]", "[]", "[]", "1");
	/* 0 + 2 + 0 < 3 */
	EXPECT("E0915@-1", CONV, "<1,1,2,2>", "<1,1,3,3>", "<>", "'constant'",
	       "[(0,0),(0,0)]", "[]", "[]", "1");
}
END_TEST

/* spec 4.3.1 Convolution and Deconvolution: deconv (input, filter, bias,
 * border, padding, stride, dilation, output_shape, groups) maps the
 * down-scaled input to the up-scaled output, X = (x - 1) * s + fd -
 * (p + q); filter (c, C / G, ...), output channels C. */
START_TEST(deconv_shapes)
{
	/* automatic padding, no output_shape: X = 32 * 2 */
	EXPECT("[4,8,64,64]", DECONV, "<4,16,32,32>", "<16,8,3,3>", "<>",
	       "'constant'", "[]", "[2,2]", "[]", "[]", "1");
	EXPECT("[4,8,64,64]", DECONV, "<4,16,32,32>", "<16,8,3,3>", "<1,8>",
	       "'constant'", "[]", "[2,2]", "[]", "[]", "1");
	/* (8 - 1) * 2 + 4 - 2 = 16 */
	EXPECT("[1,4,16,16]", DECONV, "<1,16,8,8>", "<16,4,4,4>", "<>",
	       "'constant'", "[(1,1),(1,1)]", "[2,2]", "[]", "[]", "1");
	/* (55 - 1) * 4 + 11 - 4 = 223; output_shape 224 down-scales to
	 * floor((2 + 224 + 2 - 11) / 4) + 1 = 55 too */
	EXPECT("[1,3,223,223]", DECONV, "<1,64,55,55>", "<64,3,11,11>", "<>",
	       "'constant'", "[(2,2),(2,2)]", "[4,4]", "[]", "[]", "1");
	EXPECT("[1,3,224,224]", DECONV, "<1,64,55,55>", "<64,3,11,11>", "<>",
	       "'constant'", "[(2,2),(2,2)]", "[4,4]", "[]", "[1,3,224,224]",
	       "1");
	/* 1 spatial dimension: (10 - 1) + 3 = 12 */
	EXPECT("[1,2,12]", DECONV, "<1,8,10>", "<8,2,3>", "<>", "'constant'",
	       "[(0,0)]", "[]", "[]", "[]", "1");
	/* 3 spatial dimensions: 4 * 2 */
	EXPECT("[1,2,8,8,8]", DECONV, "<1,4,4,4,4>", "<4,2,2,2,2>", "<>",
	       "'constant'", "[]", "[2,2,2]", "[]", "[]", "1");
	/* dilation 2: fd = 5, (6 - 1) + 5 = 10 */
	EXPECT("[1,1,10,10]", DECONV, "<1,1,6,6>", "<1,1,3,3>", "<>",
	       "'constant'", "[(0,0),(0,0)]", "[]", "[2,2]", "[]", "1");
	/* groups = 0: G = 32 input channels, C = 1 * 32 */
	EXPECT("[1,32,14,14]", DECONV, "<1,32,14,14>", "<32,1,3,3>", "<>",
	       "'constant'", "[]", "[]", "[]", "[]", "0");
	/* groups = 2: C = 4 * 2; (7 - 1) + 3 - 2 = 7 */
	EXPECT("[1,8,7,7]", DECONV, "<1,32,7,7>", "<32,4,3,3>", "<1,8>",
	       "'constant'", "[(1,1),(1,1)]", "[]", "[]", "[]", "2");
	/* output_shape with the wrong batch or an extent that down-scales
	 * to floor((2 + 230 + 2 - 11) / 4) + 1 = 56 */
	EXPECT("E0916@7", DECONV, "<1,64,55,55>", "<64,3,11,11>", "<>",
	       "'constant'", "[(2,2),(2,2)]", "[4,4]", "[]", "[2,3,224,224]",
	       "1");
	EXPECT("E0916@7", DECONV, "<1,64,55,55>", "<64,3,11,11>", "<>",
	       "'constant'", "[(2,2),(2,2)]", "[4,4]", "[]", "[1,3,230,230]",
	       "1");
	/* output channels 3, not 4 */
	EXPECT("E0916@7", DECONV, "<1,64,55,55>", "<64,3,11,11>", "<>",
	       "'constant'", "[(2,2),(2,2)]", "[4,4]", "[]", "[1,4,224,224]",
	       "1");
	EXPECT("E0907@7", DECONV, "<1,64,55,55>", "<64,3,11,11>", "<>",
	       "'constant'", "[]", "[4,4]", "[]", "[224,224]", "1");
	EXPECT("E0913@1", DECONV, "<1,16,8,8>", "<8,4,3,3>", "<>",
	       "'constant'", "[]", "[]", "[]", "[]", "1");
	EXPECT("E0912@8", DECONV, "<1,16,8,8>", "<16,4,3,3>", "<>",
	       "'constant'", "[]", "[]", "[]", "[]", "3");
	/* bias must match the output's channels, 8 */
	EXPECT("E0914@2", DECONV, "<4,16,32,32>", "<16,8,3,3>", "<1,16>",
	       "'constant'", "[]", "[2,2]", "[]", "[]", "1");
	EXPECT("E0908@5", DECONV, "<4,16,32,32>", "<16,8,3,3>", "<>",
	       "'constant'", "[]", "[2,0]", "[]", "[]", "1");
}
END_TEST

/* spec 4.3.4 Up and Down-Sampling: multilinear_upsample (input, factor,
 * method, border): "For up-sampling, X = x * f" in the spatial
 * dimensions. */
START_TEST(upsample_shapes)
{
	EXPECT("[1,16,64,64]", MULTILINEAR_UPSAMPLE, "<1,16,32,32>", "[2,2]",
	       "'symmetric'", "'replicate'");
	EXPECT("[2,3,15]", MULTILINEAR_UPSAMPLE, "<2,3,5>", "[3]", "'aligned'",
	       "'constant'");
	EXPECT("[1,1,4,3,16]", MULTILINEAR_UPSAMPLE, "<1,1,2,3,4>",
	       "[2,1,4]", "'asymmetric'", "'reflect'");
	EXPECT("[4,2]", MULTILINEAR_UPSAMPLE, "<4,2>", "[]", "'symmetric'",
	       "'reflect-even'");
	EXPECT("E0907@1", MULTILINEAR_UPSAMPLE, "<1,16,32,32>", "[2]",
	       "'symmetric'", "'constant'");
	EXPECT("E0908@1", MULTILINEAR_UPSAMPLE, "<1,16,32,32>", "[0,2]",
	       "'symmetric'", "'constant'");
	EXPECT("E0909@2", MULTILINEAR_UPSAMPLE, "<1,16,32,32>", "[2,2]",
	       "'nearest'", "'constant'");
	EXPECT("E0909@3", MULTILINEAR_UPSAMPLE, "<1,16,32,32>", "[2,2]",
	       "'symmetric'", "'ignore'");
	EXPECT("E0906@0", MULTILINEAR_UPSAMPLE, "<16>", "[]", "'symmetric'",
	       "'constant'");
	EXPECT("E0929@1", MULTILINEAR_UPSAMPLE, "<1,1,4611686018427387904>",
	       "[2]", "'symmetric'", "'constant'");
}
END_TEST

/* ---- 4.4 Reduce Operations ---------------------------------------------- */

/* spec 4.4 Reduce Operations: "Items in axes must be unique, non-negative
 * and less than the rank of input"; the output is singular along axes. */
START_TEST(reduce_shapes)
{
	EXPECT("[2,1,4]", SUM_REDUCE, "<2,3,4>", "[1]", "false");
	EXPECT("[1,3,1]", SUM_REDUCE, "<2,3,4>", "[0,2]", "true");
	EXPECT("[1,3,1]", SUM_REDUCE, "<2,3,4>", "[2,0]", "false");
	EXPECT("[2,3,4]", SUM_REDUCE, "<2,3,4>", "[]", "false");
	EXPECT("[1,1,1]", SUM_REDUCE, "<2,3,4>", "[0,1,2]", "false");
	EXPECT("[2,3,1]", MAX_REDUCE, "<2,3,4>", "[2]");
	EXPECT("[1]", MIN_REDUCE, "<5>", "[0]");
	EXPECT("[1,1]", ARGMAX_REDUCE, "<1,10>", "[1]");
	EXPECT("[1,10]", ARGMIN_REDUCE, "<4,10>", "[0]");
	EXPECT("[1,16,1,1]", ALL_REDUCE, "<1,16,8,8>", "[2,3]");
	EXPECT("[]", ANY_REDUCE, "<>", "[]");
	EXPECT("E0910@1", SUM_REDUCE, "<2,3,4>", "[3]", "false");
	EXPECT("E0910@1", MAX_REDUCE, "<2,3,4>", "[-1]");
	EXPECT("E0911@1", MIN_REDUCE, "<2,3,4>", "[1,1]");
	EXPECT("E0910@1", ANY_REDUCE, "<>", "[0]");
}
END_TEST

/* ---- 4.5 Tensor Shape Operations ---------------------------------------- */

/* spec 4.5.1 Reshaping: reshape (input, shape, axis_start, axis_count);
 * a 0 item copies the input's extent, a -1 item is inferred; the range
 * [axis_start, axis_start + axis_count) is replaced. */
START_TEST(reshape_shapes)
{
	EXPECT("[6,4]", RESHAPE, "<2,3,4>", "[6,4]", "0", "-1");
	EXPECT("[24]", RESHAPE, "<2,3,4>", "[-1]", "0", "-1");
	EXPECT("[2,12]", RESHAPE, "<2,3,4>", "[0,-1]", "0", "-1");
	EXPECT("[2,3,4]", RESHAPE, "<2,3,4>", "[0,0,0]", "0", "-1");
	EXPECT("[1,3136]", RESHAPE, "<1,64,7,7>", "[0,-1]", "0", "-1");
	EXPECT("[4,3,2]", RESHAPE, "<2,3,4>", "[-1,3,2]", "0", "-1");
	/* axis_start / axis_count */
	EXPECT("[2,12,5]", RESHAPE, "<2,3,4,5>", "[12]", "1", "2");
	EXPECT("[2,12,5]", RESHAPE, "<2,3,4,5>", "[-1]", "1", "2");
	EXPECT("[2,3,1,4]", RESHAPE, "<2,3,4>", "[3,1]", "1", "1");
	EXPECT("[2,3,20]", RESHAPE, "<2,3,4,5>", "[-1]", "2", "-1");
	EXPECT("[2,3,4,5]", RESHAPE, "<2,3,20>", "[0,0,4,5]", "0", "-1");
	/* an empty range (volume 1) at the end: a new singleton */
	EXPECT("[2,3,1]", RESHAPE, "<2,3>", "[1]", "2", "0");
	EXPECT("[1,2,3]", RESHAPE, "<2,3>", "[1]", "0", "0");
	/* rank 0 */
	EXPECT("[1,1]", RESHAPE, "<>", "[1,1]", "0", "-1");
	EXPECT("[]", RESHAPE, "<1>", "[]", "0", "-1");
	EXPECT("E0917@1", RESHAPE, "<2,3,4>", "[]", "0", "-1");
	EXPECT("E0917@1", RESHAPE, "<2,3,4>", "[5,-1]", "0", "-1");
	EXPECT("E0917@1", RESHAPE, "<2,3,4>", "[-1,-1]", "0", "-1");
	EXPECT("E0917@1", RESHAPE, "<2,3,4>", "[-2,12]", "0", "-1");
	EXPECT("E0917@1", RESHAPE, "<2,3,4>", "[7,4]", "0", "-1");
	EXPECT("[2,3,4,1]", RESHAPE, "<2,3,4>", "[0,0,0,1]", "0", "-1");
	/* a 0 item outside the reshaped range (one dimension, 3) */
	EXPECT("E0917@1", RESHAPE, "<2,3,4>", "[0,0]", "1", "1");
	EXPECT("E0910@2", RESHAPE, "<2,3,4>", "[-1]", "4", "-1");
	EXPECT("E0910@2", RESHAPE, "<2,3,4>", "[-1]", "-1", "-1");
	EXPECT("E0910@3", RESHAPE, "<2,3,4>", "[-1]", "1", "3");
	EXPECT("E0910@3", RESHAPE, "<2,3,4>", "[-1]", "1", "-2");
}
END_TEST

/* spec 4.5.1 Reshaping: squeeze removes singleton axes, unsqueeze inserts
 * them at the given positions of the output. */
START_TEST(squeeze_unsqueeze_shapes)
{
	EXPECT("[3,5]", SQUEEZE, "<1,3,1,5>", "[0,2]");
	EXPECT("[3,1,5]", SQUEEZE, "<1,3,1,5>", "[0]");
	EXPECT("[1,3]", SQUEEZE, "<1,3>", "[]");
	EXPECT("[]", SQUEEZE, "<1>", "[0]");
	EXPECT("[1000]", SQUEEZE, "<1,1000,1,1>", "[3,2,0]");
	EXPECT("E0918@1", SQUEEZE, "<1,3>", "[1]");
	EXPECT("E0910@1", SQUEEZE, "<1,3>", "[2]");
	EXPECT("E0911@1", SQUEEZE, "<1,1>", "[0,0]");

	EXPECT("[1,3,5]", UNSQUEEZE, "<3,5>", "[0]");
	EXPECT("[1,3,5,1]", UNSQUEEZE, "<3,5>", "[0,3]");
	EXPECT("[3,1,1,5]", UNSQUEEZE, "<3,5>", "[1,2]");
	EXPECT("[1,3,1,5]", UNSQUEEZE, "<3,5>", "[2,0]");
	EXPECT("[1]", UNSQUEEZE, "<>", "[0]");
	EXPECT("[1,1]", UNSQUEEZE, "<>", "[0,1]");
	EXPECT("[3,5]", UNSQUEEZE, "<3,5>", "[]");
	EXPECT("[1,1000,1,1]", UNSQUEEZE, "<1,1000>", "[2,3]");
	EXPECT("E0910@1", UNSQUEEZE, "<3,5>", "[3]");
	EXPECT("E0910@1", UNSQUEEZE, "<3,5>", "[-1]");
	EXPECT("E0911@1", UNSQUEEZE, "<3,5>", "[1,1]");
}
END_TEST

/* spec 4.5.2 Transposing: "If the axes array has n items, it must be a
 * permutation of the integers from 0 to n-1"; n <= rank, the trailing
 * dimensions stay. */
START_TEST(transpose_shapes)
{
	EXPECT("[1,224,224,3]", TRANSPOSE, "<1,3,224,224>", "[0,2,3,1]");
	EXPECT("[4,2,3]", TRANSPOSE, "<2,3,4>", "[2,0,1]");
	EXPECT("[3,2,4]", TRANSPOSE, "<2,3,4>", "[1,0]");
	EXPECT("[2,3,4]", TRANSPOSE, "<2,3,4>", "[0]");
	EXPECT("[2,3,4]", TRANSPOSE, "<2,3,4>", "[]");
	EXPECT("[]", TRANSPOSE, "<>", "[]");
	EXPECT("E0919@1", TRANSPOSE, "<2,3,4>", "[0,2]");
	EXPECT("E0919@1", TRANSPOSE, "<2,3,4>", "[1,1]");
	EXPECT("E0919@1", TRANSPOSE, "<2,3,4>", "[-1,0]");
	EXPECT("E0907@1", TRANSPOSE, "<2,3,4>", "[3,0,1,2]");
	EXPECT("E0907@1", TRANSPOSE, "<5>", "[1,0]");
}
END_TEST

/* spec 4.5.3 Splitting and Concatenation: split (value, axis, ratios)
 * "The sum of ratios must divide the extent of value along dimension
 * axis"; unstack (value, axis) gives one result per index along axis. */
START_TEST(split_unstack_shapes)
{
	EXPECT("[4,2];[4,4]", SPLIT, "<4,6>", "1", "[1,2]");
	ck_assert_uint_eq(cx.c.nouts, 2);
	EXPECT("[2,2];[2,2];[2,2]", SPLIT, "<6,2>", "0", "[1,1,1]");
	ck_assert_uint_eq(cx.c.nouts, 3);
	EXPECT("[1,4];[1,6]", SPLIT, "<1,10>", "1", "[2,3]");
	EXPECT("[1,10]", SPLIT, "<1,10>", "1", "[5]");
	EXPECT("[1,2,8];[1,6,8]", SPLIT, "<1,8,8>", "1", "[1,3]");
	EXPECT("E0920@2", SPLIT, "<4,6>", "1", "[4]");
	EXPECT("E0907@2", SPLIT, "<4,6>", "1", "[]");
	EXPECT("E0908@2", SPLIT, "<4,6>", "1", "[0,1]");
	EXPECT("E0910@1", SPLIT, "<4,6>", "2", "[1]");
	EXPECT("E0910@1", SPLIT, "<4,6>", "-1", "[1]");

	EXPECT("[4,5];[4,5];[4,5]", UNSTACK, "<3,4,5>", "0");
	ck_assert_uint_eq(cx.c.nouts, 3);
	EXPECT("[3,4];[3,4];[3,4];[3,4];[3,4]", UNSTACK, "<3,4,5>", "2");
	ck_assert_uint_eq(cx.c.nouts, 5);
	EXPECT("[]", UNSTACK, "<1>", "0");
	ck_assert_uint_eq(cx.c.nouts, 1);
	EXPECT("E0910@1", UNSTACK, "<3,4,5>", "3");
}
END_TEST

/* spec 4.5.3 Splitting and Concatenation: concat (values, axis) "The rank
 * of values[i] must be the same. The shapes of values[i] for all
 * dimensions other than axis must be the same"; stack (values, axis):
 * "the rank of output is the rank of input plus 1". */
START_TEST(concat_stack_shapes)
{
	EXPECT("[1,5,5]", CONCAT, "{<1,2,5>,<1,3,5>}", "1");
	EXPECT("[6,4]", CONCAT, "{<1,4>,<2,4>,<3,4>}", "0");
	EXPECT("[2,3]", CONCAT, "{<2,3>}", "0");
	EXPECT("[2,3,9]", CONCAT, "{<2,3,4>,<2,3,5>}", "2");
	EXPECT("E0907@0", CONCAT, "{}", "0");
	EXPECT("E0922@0", CONCAT, "{<1,2>,<2,3>}", "1");
	EXPECT("E0906@0", CONCAT, "{<1,2>,<1,2,1>}", "1");
	EXPECT("E0910@1", CONCAT, "{<1,2>,<1,2>}", "2");
	EXPECT("E0910@1", CONCAT, "{<>,<>}", "0");

	EXPECT("[3,2,3]", STACK, "{<2,3>,<2,3>,<2,3>}", "0");
	EXPECT("[2,4,3]", STACK, "{<2,3>,<2,3>,<2,3>,<2,3>}", "1");
	EXPECT("[2,3,2]", STACK, "{<2,3>,<2,3>}", "2");
	EXPECT("[2]", STACK, "{<>,<>}", "0");
	EXPECT("[1,5]", STACK, "{<5>}", "0");
	EXPECT("E0910@1", STACK, "{<2,3>,<2,3>}", "3");
	EXPECT("E0922@0", STACK, "{<2,3>,<3,2>}", "0");
	EXPECT("E0907@0", STACK, "{}", "0");
}
END_TEST

/* spec 1.0.5 4.5.4 Slicing: slice (input, axes, begin, end, stride).
 * Negative begin/end add the extent; values above x are x, below 0 are
 * -1; the extent counts begin, begin + stride, ... before end. */
START_TEST(slice_shapes)
{
	/* 1, 4, 7 */
	EXPECT("[3]", SLICE, "<10>", "[0]", "[1]", "[8]", "[3]");
	/* 0, 2, 4 */
	EXPECT("[3]", SLICE, "<10>", "[0]", "[0]", "[5]", "[2]");
	/* negative stride: begin 9, end -1 (from -11 + 10): 9 .. 0 */
	EXPECT("[10]", SLICE, "<10>", "[0]", "[-1]", "[-11]", "[-1]");
	/* 9, 7, 5, 3, 1 (end 0 is an index when the stride is not 1) */
	EXPECT("[5]", SLICE, "<10>", "[0]", "[9]", "[0]", "[-2]");
	EXPECT("[5]", SLICE, "<10>", "[0]", "[5]", "[0]", "[-1]");
	/* negative indices: 7 .. 9 */
	EXPECT("[2,2,3]", SLICE, "<2,10,3>", "[1]", "[-3]", "[-1]", "[]");
	/* end == 0 with stride [] or all 1: until the end (deprecated) */
	EXPECT("[7]", SLICE, "<10>", "[0]", "[3]", "[0]", "[]");
	EXPECT("[7]", SLICE, "<10>", "[0]", "[3]", "[0]", "[1]");
	EXPECT("[3]", SLICE, "<10>", "[0]", "[-3]", "[0]", "[]");
	EXPECT("[10]", SLICE, "<10>", "[0]", "[0]", "[0]", "[]");
	EXPECT("[8,3]", SLICE, "<10,10>", "[0,1]", "[2,7]", "[0,0]", "[1,1]");
	EXPECT("[0]", SLICE, "<10>", "[0]", "[0]", "[0]", "[2]");
	/* clamping to [0, 10] */
	EXPECT("[10]", SLICE, "<10>", "[0]", "[0]", "[100]", "[]");
	EXPECT("[5]", SLICE, "<10>", "[0]", "[-100]", "[5]", "[]");
	EXPECT("[0]", SLICE, "<10>", "[0]", "[12]", "[15]", "[]");
	/* clamping to [-1, 9] for a negative stride */
	EXPECT("[10]", SLICE, "<10>", "[0]", "[100]", "[-100]", "[-1]");
	/* begin -10 and end -20 clamp to -1: nothing */
	EXPECT("[0]", SLICE, "<10>", "[0]", "[-20]", "[-30]", "[-1]");
	/* begin -10 and end -5 clamp to 0: nothing */
	EXPECT("[0]", SLICE, "<10>", "[0]", "[-20]", "[-15]", "[]");
	/* empty results */
	EXPECT("[0]", SLICE, "<10>", "[0]", "[2]", "[2]", "[]");
	EXPECT("[4,0]", SLICE, "<4,6>", "[1]", "[3]", "[3]", "[-1]");
	/* two axes, in any order: 1, 3 along axis 2 and 1, 2 along axis 0 */
	EXPECT("[2,5,2]", SLICE, "<4,5,6>", "[2,0]", "[1,1]", "[5,3]",
	       "[2,1]");
	EXPECT("[1,3,224,224]", SLICE, "<1,3,224,224>", "[]", "[]", "[]",
	       "[]");
	EXPECT("[1,3,112,224]", SLICE, "<1,3,224,224>", "[2]", "[0]",
	       "[-1]", "[2]");
	/* Argument Validity */
	EXPECT("E0923@3", SLICE, "<10>", "[0]", "[5]", "[2]", "[]");
	EXPECT("E0923@3", SLICE, "<10>", "[0]", "[2]", "[5]", "[-1]");
	/* stride [1,2] is not all 1: end 0 is index 0, before begin 2 */
	EXPECT("E0923@3", SLICE, "<10,10>", "[0,1]", "[2,0]", "[0,0]",
	       "[1,2]");
	EXPECT("E0908@4", SLICE, "<10>", "[0]", "[0]", "[5]", "[0]");
	EXPECT("E0907@2", SLICE, "<10>", "[0]", "[]", "[1]", "[]");
	EXPECT("E0907@3", SLICE, "<10>", "[0]", "[1]", "[1,2]", "[]");
	EXPECT("E0907@4", SLICE, "<10>", "[0]", "[1]", "[2]", "[1,1]");
	EXPECT("E0910@1", SLICE, "<10>", "[1]", "[1]", "[2]", "[]");
	EXPECT("E0911@1", SLICE, "<10,10>", "[0,0]", "[1,1]", "[2,2]", "[]");
}
END_TEST

/* spec 4.5.5 Padding: pad (input, padding, border, value); padding has a
 * pair per dimension, possibly negative; extent x + p + q. */
START_TEST(pad_shapes)
{
	EXPECT("[1,3,6,6]", PAD, "<1,3,4,4>", "[(0,0),(0,0),(1,1),(2,0)]",
	       "'constant'", "0.0");
	EXPECT("[1,3,6,7]", PAD, "<1,3,8,8>", "[(0,0),(0,0),(-1,-1),(-2,1)]",
	       "'reflect'", "0.0");
	EXPECT("[8]", PAD, "<5>", "[(0,3)]", "'replicate'", "0.0");
	EXPECT("[1]", PAD, "<5>", "[(-2,-2)]", "'reflect-even'", "1.0");
	EXPECT("[]", PAD, "<>", "[]", "'constant'", "0.0");
	EXPECT("E0907@1", PAD, "<1,3,4,4>", "[(1,1),(1,1)]", "'constant'",
	       "0.0");
	/* 2 - 1 - 1 = 0 */
	EXPECT("E0915@1", PAD, "<2>", "[(-1,-1)]", "'constant'", "0.0");
	EXPECT("E0909@2", PAD, "<2>", "[(1,1)]", "'ignore'", "0.0");
	EXPECT("E0929@1", PAD, "<4611686018427387904>",
	       "[(4611686018427387904,0)]", "'constant'", "0.0");
}
END_TEST

/* spec 4.5.6 Tiling: "The length of repeats must equal the rank of
 * input. The items in repeats must be strictly positive"; extent
 * x * r. */
START_TEST(tile_shapes)
{
	EXPECT("[4,3]", TILE, "<2,3>", "[2,1]");
	EXPECT("[4,3,5]", TILE, "<1,3,1>", "[4,1,5]");
	EXPECT("[2,3]", TILE, "<2,3>", "[1,1]");
	EXPECT("[]", TILE, "<>", "[]");
	EXPECT("E0908@1", TILE, "<2>", "[0]");
	EXPECT("E0907@1", TILE, "<2,3>", "[2]");
	/* an extent 2^62 * 2 = 2^63, or a volume 2^62 * 2^62, too large */
	EXPECT("E0929@1", TILE, "<4611686018427387904>", "[2]");
	EXPECT("E0929@-1", TILE, "<2147483648,2147483648>",
	       "[2147483648,2147483648]");
}
END_TEST

/* spec 1.0.5 4.5.7 Gathering: gather (input, indices, axis): output
 * input[:axis] ++ indices.shape ++ input[axis+1:]. 4.5.8 Casting. */
START_TEST(gather_cast_shapes)
{
	EXPECT("[2,3,4]", GATHER, "<5,4>", "<2,3>", "0");
	EXPECT("[5,7,3]", GATHER, "<5,4,3>", "<7>", "1");
	EXPECT("[5,4,2,6]", GATHER, "<5,4,3>", "<2,6>", "2");
	EXPECT("[5]", GATHER, "<5,4>", "<>", "1");
	EXPECT("[2,2]", GATHER, "<5>", "<2,2>", "0");
	EXPECT("E0910@2", GATHER, "<5,4>", "<2>", "-1");
	EXPECT("E0910@2", GATHER, "<5,4>", "<2>", "2");
	EXPECT("E0910@2", GATHER, "<>", "<2>", "0");
	EXPECT("[2,3]", CAST, "<2,3>");
	EXPECT("[]", CAST, "<>");
}
END_TEST

/* ---- 4.6 - 4.8 ---------------------------------------------------------- */

/* spec 4.6 Region-of-Interest Operations (4.6.1 RoI Pooling, 4.6.2 RoI
 * Align): input (B, C, H, W, ...), rois (N, 2 * M), batch_index (N, 1),
 * output_size M items; output (N, C, output_size...). */
START_TEST(roi_shapes)
{
	EXPECT("[10,256,7,7]", AVG_ROI_POOL, "<2,256,32,32>", "<10,4>",
	       "<10>", "[7,7]");
	EXPECT("[10,256,7,7]", MAX_ROI_POOL, "<2,256,32,32>", "<10,4>",
	       "<10,1>", "[7,7]");
	EXPECT("[5,64,14,14]", ROI_RESAMPLE, "<1,64,16,16>", "<5,4>", "<5>",
	       "[14,14]", "'symmetric'");
	EXPECT("[5,64,2,3]", ROI_RESAMPLE, "<1,64,16,16>", "<5,4>", "<5,1>",
	       "[2,3]", "'aligned'");
	EXPECT("[3,8,2,2,2]", MAX_ROI_POOL, "<1,8,4,4,4>", "<3,6>", "<3>",
	       "[2,2,2]");
	EXPECT("[6,4,3]", AVG_ROI_POOL, "<2,4,10>", "<6,2>", "<6,1>", "[3]");
	EXPECT("E0928@1", AVG_ROI_POOL, "<2,256,32,32>", "<10,3>", "<10>",
	       "[7,7]");
	EXPECT("E0928@1", AVG_ROI_POOL, "<2,256,32,32>", "<40>", "<10>",
	       "[7,7]");
	EXPECT("E0928@2", MAX_ROI_POOL, "<2,256,32,32>", "<10,4>", "<9>",
	       "[7,7]");
	EXPECT("E0928@2", MAX_ROI_POOL, "<2,256,32,32>", "<10,4>", "<10,2>",
	       "[7,7]");
	EXPECT("E0907@3", MAX_ROI_POOL, "<2,256,32,32>", "<10,4>", "<10>",
	       "[7]");
	EXPECT("E0908@3", MAX_ROI_POOL, "<2,256,32,32>", "<10,4>", "<10>",
	       "[0,7]");
	EXPECT("E0909@4", ROI_RESAMPLE, "<1,64,16,16>", "<5,4>", "<5>",
	       "[14,14]", "'nearest'");
	EXPECT("E0906@0", AVG_ROI_POOL, "<2,256>", "<10,4>", "<10>", "[]");
}
END_TEST

/* spec 4.7 Matrix Multiplication: matmul (A, B, transposeA, transposeB);
 * "The rank of A and B must be at least 2 and they must be equal"; the
 * leading dimensions broadcast. */
START_TEST(matmul_shapes)
{
	EXPECT("[3,5]", MATMUL, "<3,4>", "<4,5>", "false", "false");
	EXPECT("[3,5]", MATMUL, "<4,3>", "<4,5>", "true", "false");
	EXPECT("[3,5]", MATMUL, "<3,4>", "<5,4>", "false", "true");
	EXPECT("[3,5]", MATMUL, "<4,3>", "<5,4>", "true", "true");
	EXPECT("[1,1000]", MATMUL, "<1,4096>", "<1000,4096>", "false", "true");
	EXPECT("[2,3,5]", MATMUL, "<2,3,4>", "<2,4,5>", "false", "false");
	EXPECT("[2,6,3,5]", MATMUL, "<2,1,3,4>", "<1,6,4,5>", "false",
	       "false");
	EXPECT("[8,5,3]", MATMUL, "<1,4,5>", "<8,3,4>", "true", "true");
	EXPECT("E0924@1", MATMUL, "<3,4>", "<5,6>", "false", "false");
	EXPECT("E0924@1", MATMUL, "<3,4>", "<4,5>", "true", "false");
	EXPECT("E0924@1", MATMUL, "<3,4>", "<4,5>", "false", "true");
	EXPECT("E0906@1", MATMUL, "<2,3,4>", "<4,5>", "false", "false");
	EXPECT("E0906@0", MATMUL, "<4>", "<4>", "false", "false");
	EXPECT("E0905@1", MATMUL, "<2,3,4>", "<3,4,5>", "false", "false");
}
END_TEST

/* spec 4.8 Variable Updates: "The rank and shape of value must equal the
 * shape of variable." */
START_TEST(update_shapes)
{
	EXPECT("[2,3]", UPDATE, "<2,3>", "<2,3>");
	EXPECT("[]", UPDATE, "<>", "<>");
	EXPECT("E0927@1", UPDATE, "<2,3>", "<3,2>");
	EXPECT("E0927@1", UPDATE, "<2,3>", "<2,3,1>");
}
END_TEST

/* ---- unknown shapes ----------------------------------------------------- */

/* spec chapter 6 (custom operations give shapes not known at compile
 * time): attributes are still checked, the results are unknown. */
START_TEST(unknown_shapes)
{
	/* spec 4.3 Argument Validity: "Items in stride must be strictly
	 * positive", whatever the input's shape */
	EXPECT("E0908@5", CONV, "<?>", "<8,3,3,3>", "<>", "'constant'", "[]",
	       "[0,1]", "[]", "1");
	EXPECT("[?]", CONV, "<?>", "<8,3,3,3>", "<>", "'constant'", "[]",
	       "[1,1]", "[]", "1");
	ck_assert(!cx.c.known);
	ck_assert(!cx.c.out.known);
	EXPECT("[1,8,6,6]", CONV, "<1,3,8,8>", "<8,3,3,3>", "<>", "'constant'",
	       "[(0,0),(0,0)]", "[1,1]", "[]", "1");
	ck_assert(cx.c.known);
	ck_assert(cx.c.out.known);
	EXPECT("E0909@3", DECONV, "<1,4,8,8>", "<?>", "<>", "'wrap'", "[]",
	       "[]", "[]", "[]", "1");
	EXPECT("[?]", DECONV, "<1,4,8,8>", "<?>", "<>", "'constant'", "[]",
	       "[]", "[]", "[]", "1");
	EXPECT("[?]", ADD, "<?>", "<2,3>");
	ck_assert(!cx.c.known);
	EXPECT("[?]", SELECT, "<2>", "<2>", "<?>");
	EXPECT("[?]", EXP, "<?>");
	EXPECT("E0908@1", BOX, "<?>", "[0]", "'constant'", "[]", "[]", "[]",
	       "false");
	EXPECT("[?]", BOX, "<?>", "[3,3]", "'constant'", "[]", "[]", "[]",
	       "false");
	EXPECT("[?]", SUM_REDUCE, "<?>", "[1]", "false");
	EXPECT("E0917@1", RESHAPE, "<?>", "[-2]", "0", "-1");
	EXPECT("[?]", RESHAPE, "<?>", "[0,-1]", "0", "-1");
	EXPECT("E0919@1", TRANSPOSE, "<?>", "[0,0]");
	EXPECT("[?]", TRANSPOSE, "<?>", "[1,0]");
	EXPECT("[?];[?]", SPLIT, "<?>", "1", "[1,1]");
	ck_assert_uint_eq(cx.c.nouts, 2);
	EXPECT("E0908@2", SPLIT, "<?>", "1", "[1,0]");
	/* the number of results of unstack is not known */
	EXPECT("?", UNSTACK, "<?>", "0");
	ck_assert_ptr_null(cx.c.outs);
	EXPECT("[?]", CONCAT, "{<2,3>,<?>}", "0");
	EXPECT("[?]", STACK, "{<?>,<2,3>}", "0");
	EXPECT("E0908@4", SLICE, "<?>", "[0]", "[0]", "[1]", "[0]");
	EXPECT("[?]", SLICE, "<?>", "[0]", "[0]", "[1]", "[]");
	EXPECT("E0909@2", PAD, "<?>", "[(1,1)]", "'ignore'", "0.0");
	EXPECT("E0908@1", TILE, "<?>", "[0]");
	EXPECT("[?]", TILE, "<?>", "[2]");
	EXPECT("E0910@2", GATHER, "<?>", "<3>", "-1");
	EXPECT("[?]", GATHER, "<5,4>", "<?>", "0");
	EXPECT("E0909@2", MULTILINEAR_UPSAMPLE, "<?>", "[2,2]", "'cubic'",
	       "'constant'");
	EXPECT("[?]", MATMUL, "<?>", "<4,5>", "false", "false");
	EXPECT("E0908@3", AVG_ROI_POOL, "<?>", "<10,4>", "<10>", "[0,7]");
	EXPECT("[?]", ROI_RESAMPLE, "<2,4,8,8>", "<?>", "<10>", "[7,7]",
	       "'aligned'");
	EXPECT("[?]", UPDATE, "<?>", "<2,3>");
}
END_TEST

Suite *shapes_suite(void)
{
	Suite *s = suite_create("shapes");
	TCase *tc = tcase_create("table");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, op_table);
	tcase_add_test(tc, op_table_matches_stdlib);
	tcase_add_test(tc, shape_utilities);
	suite_add_tcase(s, tc);
	tc = tcase_create("elementwise");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, external_shapes);
	tcase_add_test(tc, constant_shapes);
	tcase_add_test(tc, variable_shapes);
	tcase_add_test(tc, unary_ops);
	tcase_add_test(tc, binary_ops);
	tcase_add_test(tc, select_op);
	suite_add_tcase(s, tc);
	tc = tcase_create("window");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, box_shapes);
	tcase_add_test(tc, debox_shapes);
	tcase_add_test(tc, argmax_pool_shapes);
	tcase_add_test(tc, sample_shapes);
	tcase_add_test(tc, desample_shapes);
	tcase_add_test(tc, conv_shapes);
	tcase_add_test(tc, deconv_shapes);
	tcase_add_test(tc, upsample_shapes);
	suite_add_tcase(s, tc);
	tc = tcase_create("layout");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reduce_shapes);
	tcase_add_test(tc, reshape_shapes);
	tcase_add_test(tc, squeeze_unsqueeze_shapes);
	tcase_add_test(tc, transpose_shapes);
	tcase_add_test(tc, split_unstack_shapes);
	tcase_add_test(tc, concat_stack_shapes);
	tcase_add_test(tc, slice_shapes);
	tcase_add_test(tc, pad_shapes);
	tcase_add_test(tc, tile_shapes);
	tcase_add_test(tc, gather_cast_shapes);
	suite_add_tcase(s, tc);
	tc = tcase_create("misc");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, roi_shapes);
	tcase_add_test(tc, matmul_shapes);
	tcase_add_test(tc, update_shapes);
	tcase_add_test(tc, unknown_shapes);
	suite_add_tcase(s, tc);
	return s;
}
