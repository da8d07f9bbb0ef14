/*
 * check_interp.c - the interpreter (interp/): the kernel table, and every
 * case of testsuite/golden/run/, small graphs with hand-computed results,
 * run in float and in double precision.
 *
 * A case is an NNEF document whose comment lines give its data:
 *
 *   # input NAME: TYPE[D0,D1,...] = V V V ...
 *   # variable LABEL: TYPE[D0,D1,...] = V V V ...
 *   # expect NAME: TYPE[D0,D1,...] = V V V ...
 *   # cycles N
 *   # error CODE LINE:COL
 *   # dialect tract
 *
 * TYPE is scalar, integer or logical (values true/false or 1/0); values
 * are row-major. Every graph input needs an input line; each expect line
 * names a graph output. Variable lines set the data of variables (by
 * label; others get generated values); with a cycles line the graph runs
 * N times and the expectations hold after the last. A case with an error line must fail at run time
 * with that code at that position instead. A dialect line reads the document in tract's dialect
 * (the cases of its operations are named tract_*.nnef). Scalars match within 1e-5
 * relative (1e-5 absolute near 0); integers and logicals exactly.
 */
#include "api/api_internal.h"
#include "testutil.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the kernel table -------------------------------------------------------------- */

START_TEST(test_every_primitive_has_a_kernel)
{
	/* the standard primitives; those of tract's registries (SF_TRACT)
	 * have kernels as they are written */
	for (int op = 0; op < SHAPE_OP_COUNT; op++) {
		if (shape_op_flags((ShapeOp)op) & SF_TRACT)
			continue;
		ck_assert_msg(interp_has_kernel((ShapeOp)op, INTERP_FLOAT), "%s has no float kernel", shape_op_name((ShapeOp)op));
		ck_assert_msg(interp_has_kernel((ShapeOp)op, INTERP_DOUBLE), "%s has no double kernel", shape_op_name((ShapeOp)op));
	}
	ck_assert(!interp_has_kernel(SHAPE_OP_NONE, INTERP_FLOAT));
	/* and interp/kernels.def has exactly one row per primitive */
	char *def = test_read_source_file("interp/kernels.def");
	ck_assert_ptr_nonnull(def);
	for (int op = 0; op < SHAPE_OP_COUNT; op++) {
		char id[64];
		size_t rows = 0;
		if (shape_op_flags((ShapeOp)op) & SF_TRACT)
			continue;
		snprintf(id, sizeof(id), "%s", shape_op_name((ShapeOp)op));
		for (char *p = id; *p; p++)
			*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		for (const char *p = def; (p = strstr(p, "KERNEL")); p++) {
			const char *paren = strchr(p, '(');
			if (!paren || paren - p > 12)
				continue;
			size_t n = strlen(id);
			if (strncmp(paren + 1, id, n) == 0 && paren[1 + n] == ',')
				rows++;
		}
		ck_assert_msg(rows == 1, "kernels.def has %zu rows for %s", rows, id);
	}
	free(def);
}
END_TEST

/* ---- golden cases --------------------------------------------------------------------- */

typedef struct Tensor {
	char name[64];
	TypeKind type;
	int64_t dims[8];
	uint32_t rank;
	double *v;
	size_t n;
} Tensor;

#define CASE_MAX 32 /* tensors of each kind in one case */

typedef struct Case {
	Tensor inputs[CASE_MAX], expects[CASE_MAX], vars[CASE_MAX];
	size_t ninputs, nexpects, nvars;
	unsigned cycles;
	bool tract;
	char error[8];
	unsigned line, col;
} Case;

/* Parses "NAME: TYPE[D,..] = V V ..." at p into t. */
static void parse_tensor(const char *file, const char *p, Tensor *t)
{
	char type[16];
	int used = 0;
	memset(t, 0, sizeof(*t));
	ck_assert_msg(sscanf(p, " %63[^:]: %15[a-z][%n", t->name, type, &used) == 2 && used, "%s: bad tensor line '%s'", file, p);
	t->type = strcmp(type, "scalar") == 0 ? TY_SCALAR : strcmp(type, "integer") == 0 ? TY_INTEGER : TY_LOGICAL;
	p += used;
	while (*p && *p != ']') {
		char *end;
		ck_assert_uint_lt(t->rank, 8);
		t->dims[t->rank++] = strtoll(p, &end, 10);
		p = *end == ',' ? end + 1 : end;
	}
	p = strchr(p, '=');
	ck_assert_msg(p != NULL, "%s: no '=' in '%s'", file, t->name);
	p++;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		double x;
		char *end = NULL;
		if (strncmp(p, "true", 4) == 0) {
			x = 1;
			end = (char *)p + 4;
		} else if (strncmp(p, "false", 5) == 0) {
			x = 0;
			end = (char *)p + 5;
		} else {
			x = strtod(p, &end);
			ck_assert_msg(end != p, "%s: bad value at '%.10s'", file, p);
		}
		t->v = realloc(t->v, (t->n + 1) * sizeof(double));
		t->v[t->n++] = x;
		p = end;
	}
}

static void parse_case(const char *file, const char *text, Case *c)
{
	memset(c, 0, sizeof(*c));
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char buf[4096];
		size_t n = strcspn(line, "\n");
		ck_assert_uint_lt(n, sizeof(buf));
		memcpy(buf, line, n);
		buf[n] = '\0';
		ck_assert_msg(c->ninputs < CASE_MAX && c->nexpects < CASE_MAX && c->nvars < CASE_MAX, "%s: more than %d tensors of a kind", file, CASE_MAX);
		if (strncmp(buf, "# input ", 8) == 0)
			parse_tensor(file, buf + 8, &c->inputs[c->ninputs++]);
		else if (strncmp(buf, "# expect ", 9) == 0)
			parse_tensor(file, buf + 9, &c->expects[c->nexpects++]);
		else if (strncmp(buf, "# variable ", 11) == 0)
			parse_tensor(file, buf + 11, &c->vars[c->nvars++]);
		else if (strcmp(buf, "# dialect tract") == 0)
			c->tract = true;
		else if (strncmp(buf, "# cycles ", 9) == 0)
			c->cycles = (unsigned)atoi(buf + 9);
		else if (strncmp(buf, "# error ", 8) == 0)
			ck_assert(sscanf(buf + 8, "%7s %u:%u", c->error, &c->line, &c->col) == 3);
	}
}

static void free_case(Case *c)
{
	for (size_t i = 0; i < c->ninputs; i++)
		free(c->inputs[i].v);
	for (size_t i = 0; i < c->nexpects; i++)
		free(c->expects[i].v);
	for (size_t i = 0; i < c->nvars; i++)
		free(c->vars[i].v);
}

static bool same_shape(const Tensor *want, const ITensor *t)
{
	if (want->rank != t->rank)
		return false;
	for (uint32_t d = 0; d < t->rank; d++)
		if (want->dims[d] != t->dims[d])
			return false;
	return true;
}

static void fill_tensor(Interp *it, ITensor *t, const Tensor *in, const char *file)
{
	ck_assert_msg(same_shape(in, t) && in->type == t->dtype, "%s: '%s' does not match the graph", file, in->name);
	ck_assert_msg(in->n == t->count, "%s: input '%s' has %zu values for %zu items", file, in->name, in->n, t->count);
	for (size_t k = 0; k < t->count; k++) {
		if (t->dtype == TY_SCALAR && interp_precision(it) == INTERP_FLOAT)
			((float *)t->data)[k] = (float)in->v[k];
		else if (t->dtype == TY_SCALAR)
			((double *)t->data)[k] = in->v[k];
		else if (t->dtype == TY_INTEGER)
			((int64_t *)t->data)[k] = (int64_t)in->v[k];
		else
			((uint8_t *)t->data)[k] = in->v[k] != 0;
	}
}

static void fill_variable(Interp *it, const Tensor *v, const char *file)
{
	size_t i = 0;
	while (i < interp_nvariables(it) && strcmp(interp_variable_label(it, i), v->name) != 0)
		i++;
	ck_assert_msg(i < interp_nvariables(it), "%s: no variable labelled '%s'", file, v->name);
	fill_tensor(it, (ITensor *)interp_variable(it, i), v, file);
}

static void check_output(Interp *it, const Tensor *want, const char *file,
			  const char *prec)
{
	size_t i = 0;
	while (i < interp_noutputs(it) && strcmp(interp_output_name(it, i), want->name) != 0)
		i++;
	ck_assert_msg(i < interp_noutputs(it), "%s: '%s' is not an output", file, want->name);
	const ITensor *t = interp_output(it, i);
	ck_assert_msg(same_shape(want, t) && want->type == t->dtype, "%s: output '%s' has another shape or type (rank %u, %zu items, type %d)", file, want->name, t->rank, t->count, (int)t->dtype);
	ck_assert_msg(want->n == t->count, "%s: expect '%s' has %zu values for %zu items", file, want->name, want->n, t->count);
	for (size_t k = 0; k < t->count; k++) {
		double got = interp_value(it, t, k), e = want->v[k];
		bool ok = t->dtype == TY_SCALAR ? got == e || fabs(got - e) <= 1e-5 * fmax(1.0, fabs(e)) || (isnan(got) && isnan(e))
						: got == e;
		ck_assert_msg(ok, "%s (%s): '%s' item %zu is %.9g, expected %.9g", file, prec, want->name, k, got, e);
	}
}

static void run_case(const char *file, const char *text, InterpPrecision p)
{
	Case c;
	parse_case(file, text, &c);
	Model m;
	ModelOptions mo = { .max_errors = 0, .dialect = c.tract ? DIALECT_TRACT : DIALECT_KHRONOS };
	model_check_text(&m, file, text, strlen(text), &mo);
	StrBuf out;
	sb_init(&out);
	model_render_diags(&m, "test", &out, false, false);
	ck_assert_msg(m.status == MODEL_VALID, "%s: invalid:\n%s", file, sb_str(&out));
	sb_free(&out);
	DiagList dl;
	diag_list_init(&dl, 0);
	InterpOptions io = { .precision = p };
	Interp *it = api_interp_new(&m, &io, &dl);
	ck_assert_msg(it != NULL, "%s: cannot run", file);
	ck_assert(interp_load_variables(it, true, 1));
	ck_assert_uint_eq(interp_ninputs(it), c.ninputs);
	for (size_t i = 0; i < c.ninputs; i++) {
		size_t k = 0;
		while (k < c.ninputs && strcmp(c.inputs[k].name, interp_input_name(it, i)) != 0)
			k++;
		ck_assert_msg(k < c.ninputs, "%s: no data for input '%s'", file, interp_input_name(it, i));
		fill_tensor(it, interp_input(it, i), &c.inputs[k], file);
	}
	for (size_t i = 0; i < c.nvars; i++)
		fill_variable(it, &c.vars[i], file);
	const char *prec = p == INTERP_DOUBLE ? "double" : "float";
	bool ran = true;
	for (unsigned k = 0; k < (c.cycles ? c.cycles : 1) && ran; k++)
		ran = interp_run(it);
	if (c.error[0]) {
		ck_assert_msg(!ran, "%s: ran, but should fail with %s", file, c.error);
		ck_assert_uint_ge(dl.len, 1);
		const Diag *d = dl.items[0];
		ck_assert_str_eq(diag_code_name(d->code), c.error);
		unsigned line, col;
		source_linecol(d->loc.file, d->loc.off, &line, &col);
		ck_assert_msg(line == c.line && col == c.col, "%s: error at %u:%u, expected %u:%u", file, line, col, c.line, c.col);
	} else {
		ck_assert_msg(ran, "%s (%s): the run failed (%s)", file, prec, dl.len ? dl.items[0]->msg : "");
		ck_assert_msg(c.nexpects == interp_noutputs(it), "%s: %zu expect lines for %zu outputs", file, c.nexpects, interp_noutputs(it));
		for (size_t i = 0; i < c.nexpects; i++)
			check_output(it, &c.expects[i], file, prec);
	}
	interp_free(it);
	diag_list_free(&dl);
	model_free(&m);
	free_case(&c);
}

/* The primitives a case's flat graph runs, added to seen[]. */
static void note_primitives(const char *file, const char *text, bool *seen)
{
	Model m;
	ModelOptions mo = { .max_errors = 0, .dialect = strstr(text, "\n# dialect tract\n") ? DIALECT_TRACT : DIALECT_KHRONOS };
	model_check_text(&m, file, text, strlen(text), &mo);
	for (size_t i = 0; m.flat && i < m.flat->nops; i++)
		if (m.flat->ops[i]->prim != SHAPE_OP_NONE)
			seen[m.flat->ops[i]->prim] = true;
	model_free(&m);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(test_golden_run)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/golden/run", test_srcdir());
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	char **names = NULL;
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len > 5 && strcmp(e->d_name + len - 5, ".nnef") == 0) {
			names = realloc(names, (n + 1) * sizeof(*names));
			names[n++] = strdup(e->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	bool seen[SHAPE_OP_COUNT] = { false };
	for (size_t i = 0; i < n; i++) {
		char rel[4096];
		snprintf(rel, sizeof(rel), "testsuite/golden/run/%s", names[i]);
		char *text = test_read_source_file(rel);
		ck_assert_ptr_nonnull(text);
		run_case(names[i], text, INTERP_FLOAT);
		run_case(names[i], text, INTERP_DOUBLE);
		note_primitives(names[i], text, seen);
		free(text);
		free(names[i]);
	}
	free(names);
	/* every primitive with a kernel is run by some case (a submodel
	 * needs a container: testsuite/tools/tract.sh runs it) */
	for (int op = 0; op < SHAPE_OP_COUNT; op++)
		ck_assert_msg(seen[op] || !interp_has_kernel((ShapeOp)op, INTERP_FLOAT) || op == SHAPE_OP_TRACT_CORE_SUBMODEL, "no case in golden/run runs '%s'", shape_op_name((ShapeOp)op));
}
END_TEST

Suite *interp_suite(void)
{
	Suite *s = suite_create("interp");
	TCase *tc = tcase_create("kernels");
	tcase_add_test(tc, test_every_primitive_has_a_kernel);
	suite_add_tcase(s, tc);
	tc = tcase_create("golden");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_golden_run);
	suite_add_tcase(s, tc);
	return s;
}
