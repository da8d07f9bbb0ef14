/*
 * scan.c - the operations of tract's dialect that run another graph
 * (sema/tract/TRACT-NOTES.md, C.1): tract_core_scan, a loop whose body is
 * a fragment of the document named by a string, and tract_core_submodel,
 * a model stored inside the model.
 *
 * tract_core_scan(body, scan, full, state, output, skip, ...):
 *   scan   [(name, x, axis, chunk)]   x cut along axis in chunks of |chunk|;
 *                                     the body sees one chunk per iteration
 *   full   [(name, x)]                the same x every iteration
 *   state  [(name, init, result)]     init at the first iteration, then
 *                                     the body's result `result` of the
 *                                     iteration before
 *   output [(result, "full"|"last", axis, chunk)]  every iteration's
 *                                     result concatenated along axis, or
 *                                     the last one's
 * Each parameter of the body is bound by one tuple, by name (tract also
 * takes a name whose characters other than letters and digits are
 * written '_': "Y.y_h" binds Y_y_h). The body is evaluated here as a check
 * (nothing of it joins the graph): with a chunk of each scanned input, so
 * that its errors are found and its results get their shapes; each
 * output then has its result's shape, "full" ones with the iterations'
 * extent along their axis. The scan stays one operation of the flat
 * graph, its body named by its argument.
 */
#include "flatten/flatten_internal.h"

#include <ctype.h>
#include <string.h>

enum { P_BODY, P_SCAN, P_FULL, P_STATE, P_OUTPUT };

bool flat_is_nested(const SemaFrag *f)
{
	return strcmp(f->name, "tract_core_scan") == 0 ||
	       strcmp(f->name, "tract_core_submodel") == 0;
}

bool flat_scan_names(const Value *v, const char *name)
{
	size_t n = strlen(name);
	if (v->n == n && memcmp(v->u.str, name, n) == 0)
		return true;
	size_t k = 0;
	if (v->n && !isalpha((unsigned char)v->u.str[0]) && v->u.str[0] != '_') {
		if (name[k++] != '_')
			return false;
	}
	for (size_t i = 0; i < v->n; i++, k++) {
		char c = isalnum((unsigned char)v->u.str[i]) ? v->u.str[i] : '_';
		if (k >= n || name[k] != c)
			return false;
	}
	return k == n;
}

/* The state of one scan being checked. */
typedef struct Scan {
	Flattener *F;
	const AstExpr *e;
	Scope *s;
	const Value **args;
	const SemaFrag *body;
	const Value **bound;      /* per body parameter */
	int64_t iterations;       /* an extent: maybe symbolic */
	bool counted;             /* iterations is known (something is
				     scanned) */
	const Value *first_scan;  /* the first scanned input, for messages */
} Scan;

/* The location of argument p of the scan as written. */
static Loc arg_loc(const Scan *x, int p)
{
	const SemaCall *c = x->e->u.inv.call;
	const AstExpr *a = c ? c->args[p] : NULL;
	return a ? a->loc : x->e->loc;
}

static void scan_error(Scan *x, int p, DiagCode code, const char *fmt, ...)
	UTIL_PRINTF(4, 5);

static void scan_error(Scan *x, int p, DiagCode code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	Diag *d = diag_vadd(x->F->diags, diag_code_level(code), code, arg_loc(x, p), fmt, ap);
	va_end(ap);
	flat_add_frames(x->F, d, x->s->frame);
}

/* A placeholder for one chunk of a scanned input: a tensor of the check
 * only, of x's shape with |chunk| along axis. */
static const Value *chunk_of(Scan *x, const Value *in, int64_t axis,
			     int64_t chunk, const char *name)
{
	Flattener *F = x->F;
	const FlatTensor *t = in->u.t;
	F->dry++;
	FlatTensor *c = flat_new_tensor(F, flat_tensor_dtype(t, F->tt), NULL, name);
	F->dry--;
	c->datum = t->datum;
	int64_t *dims = ARENA_ARRAY(F->arena, int64_t, t->rank ? t->rank : 1);
	memcpy(dims, t->dims, t->rank * sizeof(*dims));
	dims[axis] = chunk < 0 ? -chunk : chunk;
	Shape s = { dims, t->rank, true };
	flat_set_shape(F, c, &s, NULL);
	return &c->value;
}

/* The iterations a scanned input of extent d gives in chunks of |chunk|,
 * agreeing with the others'. */
static bool count_iterations(Scan *x, const Value *in, int64_t d,
			     int64_t chunk)
{
	DimTable *t = flat_dims(x->F);
	int64_t step = chunk < 0 ? -chunk : chunk, n;
	if (!dim_is_symbolic(d)) {
		if (d % step) {
			scan_error(x, P_SCAN, DIAG_E0817, "tract_core_scan: '%s' has extent %lld along the scanned axis, which chunks of %lld do not divide", in->u.t->name, (long long)d, (long long)step);
			return false;
		}
		n = d / step;
	} else {
		const DimExpr *q = dim_exact_div(t, dim_expr_of(d), dim_const(t, step));
		if (!q)
			q = dim_div(t, dim_expr_of(d), step);
		if (!q) {
			scan_error(x, P_SCAN, DIAG_E0817, "tract_core_scan: the iterations of '%s' do not fit in 64 bits", in->u.t->name);
			return false;
		}
		n = dim_encode(q);
	}
	if (!x->counted || x->iterations == n) {
		x->counted = true;
		x->iterations = n;
		x->first_scan = in;
		return true;
	}
	scan_error(x, P_SCAN, DIAG_E0817, "tract_core_scan: '%s' gives %s iterations, but '%s' gives %s; scanned inputs must agree",
		   in->u.t->name, dim_text(t, dim_decode(t, n)), x->first_scan->u.t->name,
		   dim_text(t, dim_decode(t, x->iterations)));
	return false;
}

/* Binds body parameter i by tuple `tuple` of argument p. */
static bool bind_tuple(Scan *x, size_t i, int p, const Value *tuple)
{
	const char *name = x->body->params[i].name;
	const Value *in = tuple->u.items[1];
	if (x->bound[i]) {
		scan_error(x, p, DIAG_E0817, "tract_core_scan: the body's parameter '%s' is bound twice", name);
		return false;
	}
	if (in->kind != VAL_TENSOR || !in->u.t->known) {
		x->bound[i] = in; /* a literal, or of unknown shape */
		return true;
	}
	if (p != P_SCAN) {
		x->bound[i] = in;
		return true;
	}
	const FlatTensor *t = in->u.t;
	int64_t axis = tuple->u.items[2]->u.i, chunk = tuple->u.items[3]->u.i;
	if (axis < 0 || (uint64_t)axis >= t->rank) {
		scan_error(x, p, DIAG_E0817, "tract_core_scan: axis %lld of '%s' is out of range: '%s' has rank %u", (long long)axis, name, t->name, t->rank);
		return false;
	}
	if (chunk == 0) {
		scan_error(x, p, DIAG_E0817, "tract_core_scan: the chunk of '%s' is 0", name);
		return false;
	}
	if (!count_iterations(x, in, t->dims[axis], chunk))
		return false;
	x->bound[i] = chunk_of(x, in, axis, chunk, name);
	return true;
}

/* Binds every parameter of the body by its tuple of scan, full or state. */
static bool bind_body(Scan *x)
{
	static const int lists[] = { P_SCAN, P_FULL, P_STATE };
	for (size_t i = 0; i < x->body->nparams; i++) {
		for (size_t l = 0; l < 3; l++) {
			const Value *list = x->args[lists[l]];
			for (size_t k = 0; k < list->n; k++) {
				const Value *tuple = list->u.items[k];
				if (flat_scan_names(tuple->u.items[0], x->body->params[i].name) &&
				    !bind_tuple(x, i, lists[l], tuple))
					return false;
			}
		}
		if (!x->bound[i]) {
			scan_error(x, P_SCAN, DIAG_E0817, "tract_core_scan: the parameter '%s' of the body '%s' is bound by no tuple of 'scan', 'full' or 'state'", x->body->params[i].name, x->body->name);
			return false;
		}
	}
	return true;
}

/* The body's result named by the string v, or -1. */
static long body_result(const Scan *x, const Value *v)
{
	for (size_t k = 0; k < x->body->nresults; k++)
		if (flat_scan_names(v, x->body->results[k].name))
			return (long)k;
	return -1;
}

static const Value *result_value(const Scan *x, const Value *res, long k)
{
	return x->body->nresults == 1 ? res : res->u.items[k];
}

/* A state's result must have the state's shape: it is the next
 * iteration's. */
static bool check_states(Scan *x, const Value *res)
{
	const Value *states = x->args[P_STATE];
	for (size_t k = 0; k < states->n; k++) {
		const Value *tuple = states->u.items[k];
		long r = body_result(x, tuple->u.items[2]);
		if (r < 0) {
			scan_error(x, P_STATE, DIAG_E0817, "tract_core_scan: the state '%.*s' is updated by '%.*s', which is not a result of the body '%s'", (int)tuple->u.items[0]->n, tuple->u.items[0]->u.str, (int)tuple->u.items[2]->n, tuple->u.items[2]->u.str, x->body->name);
			return false;
		}
		const Value *init = tuple->u.items[1], *next = result_value(x, res, r);
		if (init->kind != VAL_TENSOR || next->kind != VAL_TENSOR ||
		    !init->u.t->known || !next->u.t->known)
			continue;
		Shape a = flat_tensor_shape(init->u.t), b = flat_tensor_shape(next->u.t);
		if (shape_equal(&a, &b))
			continue;
		scan_error(x, P_STATE, DIAG_E0817, "tract_core_scan: the state '%.*s' starts as '%s' of shape %s, but the body's result '%s' that updates it has shape %s", (int)tuple->u.items[0]->n, tuple->u.items[0]->u.str, init->u.t->name, flat_shape_text(x->F, &a), x->body->results[r].name, flat_shape_text(x->F, &b));
		return false;
	}
	return true;
}

/* The shape of output tuple k: its result's, "full" ones times the
 * iterations along their axis. */
static bool output_shape(Scan *x, const Value *tuple, const Value *res,
			 Shape *out, uint8_t *datum)
{
	long r = body_result(x, tuple->u.items[0]);
	const Value *kind = tuple->u.items[1];
	bool full = kind->n == 4 && memcmp(kind->u.str, "full", 4) == 0;
	bool last = kind->n == 4 && memcmp(kind->u.str, "last", 4) == 0;
	if (r < 0 || (!full && !last)) {
		if (r < 0)
			scan_error(x, P_OUTPUT, DIAG_E0817, "tract_core_scan: the output '%.*s' is not a result of the body '%s'", (int)tuple->u.items[0]->n, tuple->u.items[0]->u.str, x->body->name);
		else
			scan_error(x, P_OUTPUT, DIAG_E0817, "tract_core_scan: an output is \"full\" or \"last\", not \"%.*s\"", (int)kind->n, kind->u.str);
		return false;
	}
	const Value *v = result_value(x, res, r);
	*out = (Shape){ NULL, 0, false };
	*datum = v->kind == VAL_TENSOR ? v->u.t->datum : DT_NONE;
	if (v->kind != VAL_TENSOR || !v->u.t->known)
		return true;
	*out = flat_tensor_shape(v->u.t);
	if (last)
		return true;
	int64_t axis = tuple->u.items[2]->u.i;
	if (axis < 0 || (uint64_t)axis >= out->rank) {
		scan_error(x, P_OUTPUT, DIAG_E0817, "tract_core_scan: axis %lld of the output '%s' is out of range: the result has rank %u", (long long)axis, x->body->results[r].name, out->rank);
		return false;
	}
	if (!x->counted) {
		out->known = false; /* nothing is scanned: not known here */
		return true;
	}
	DimTable *t = flat_dims(x->F);
	int64_t *dims = ARENA_ARRAY(x->F->arena, int64_t, out->rank);
	memcpy(dims, out->dims, out->rank * sizeof(*dims));
	const DimExpr *d = dim_mul(t, dim_decode(t, dims[axis]), dim_decode(t, x->iterations));
	if (!d) {
		scan_error(x, P_OUTPUT, DIAG_E0817, "tract_core_scan: the extent of the output '%s' does not fit in 64 bits", x->body->results[r].name);
		return false;
	}
	dims[axis] = dim_encode(d);
	out->dims = dims;
	return true;
}

static const Value *tract_scan(Flattener *F, const SemaFrag *f,
			       const Type *generic, const Value **args,
			       const AstExpr *e, Scope *s, const Target *t)
{
	Scan x = { .F = F, .e = e, .s = s, .args = args };
	const Value *bv = args[P_BODY];
	const SemaFrag *body = sema_lookup(F->prog, intern_bytes(F->interner, bv->u.str, bv->n));
	if (!body || !body->def->body || body->is_std || body->is_registry) {
		scan_error(&x, P_BODY, DIAG_E0817, "tract_core_scan: the body '%.*s' is not a fragment of the document with a body", (int)bv->n, bv->u.str);
		return NULL;
	}
	x.body = body;
	x.bound = ARENA_ARRAY(F->arena, const Value *, body->nparams ? body->nparams : 1);
	if (!bind_body(&x))
		return NULL;
	const Value *res = flat_expand_dry(F, e, s, body, x.bound);
	if (!res || !check_states(&x, res))
		return NULL;
	const Value *outs = args[P_OUTPUT];
	if (outs->n == 0) {
		scan_error(&x, P_OUTPUT, DIAG_E0817, "tract_core_scan: 'output' is empty; the scan has no result");
		return NULL;
	}
	Shape *shapes = ARENA_ARRAY(F->arena, Shape, outs->n);
	uint8_t *datums = ARENA_ARRAY(F->arena, uint8_t, outs->n);
	for (size_t k = 0; k < outs->n; k++)
		if (!output_shape(&x, outs->u.items[k], res, &shapes[k], &datums[k]))
			return NULL;
	F->result_len = outs->n;
	const Value *v = flat_call(F, f, generic, args, e, s, t);
	if (!F->dry)
		flat_mark_declared(F, body); /* the flat document defines it */
	if (!v || v->kind != VAL_ARRAY)
		return v;
	for (size_t k = 0; k < v->n && k < outs->n; k++) {
		FlatTensor *r = v->u.items[k]->u.t;
		flat_set_shape(F, r, &shapes[k], NULL);
		r->datum = datums[k];
	}
	return v;
}

/* ---- tract_core_submodel ------------------------------------------------------ */

/* A shape of the model inside, made in this graph's table of symbols. */
static Shape import_shape(Flattener *F, const FlatTensor *t)
{
	Shape s = flat_tensor_shape(t);
	if (!s.known || !shape_is_symbolic(&s))
		return s;
	int64_t *dims = ARENA_ARRAY(F->arena, int64_t, s.rank);
	for (uint32_t d = 0; d < s.rank; d++) {
		const DimExpr *e = dim_is_symbolic(s.dims[d])
				   ? dim_import(flat_dims(F), dim_expr_of(s.dims[d])) : NULL;
		dims[d] = e ? dim_encode(e) : s.dims[d];
	}
	s.dims = dims;
	return s;
}

/* The inputs given must be the model's, one each, of its shapes. */
static bool check_sub_inputs(Scan *x, const Value *in, const FlatGraph *g,
			     const char *label)
{
	Flattener *F = x->F;
	if (in->n != g->ninputs) {
		scan_error(x, 0, DIAG_E0818, "tract_core_submodel: the model '%s' takes %zu input%s, but %u %s given", label, g->ninputs, g->ninputs == 1 ? "" : "s", (unsigned)in->n, in->n == 1 ? "is" : "are");
		return false;
	}
	for (size_t i = 0; i < in->n; i++) {
		const Value *v = in->u.items[i];
		if (v->kind != VAL_TENSOR || !v->u.t->known || !g->inputs[i] ||
		    !g->inputs[i]->known)
			continue;
		Shape a = flat_tensor_shape(v->u.t), b = import_shape(F, g->inputs[i]);
		if (shape_equal(&a, &b))
			continue;
		scan_error(x, 0, DIAG_E0818, "tract_core_submodel: input %zu, '%s', has shape %s, but the input '%s' of the model '%s' has shape %s", i, v->u.t->name, flat_shape_text(F, &a), g->inputs[i]->name, label, flat_shape_text(F, &b));
		return false;
	}
	return true;
}

static const Value *tract_submodel(Flattener *F, const SemaFrag *f,
				   const Type *generic, const Value **args,
				   const AstExpr *e, Scope *s, const Target *t)
{
	Scan x = { .F = F, .e = e, .s = s, .args = args };
	const Value *label = args[1];
	char *name = arena_strndup(F->arena, label->u.str, label->n);
	bool invalid = false;
	const FlatGraph *g = F->opt->submodel
		? F->opt->submodel(F->opt->model_ctx, label->u.str, label->n, e->loc, &invalid)
		: NULL;
	if (!g) {
		if (invalid)
			scan_error(&x, 1, DIAG_E0818, "tract_core_submodel: the model '%s' inside this one is not valid (its diagnostics say why)", name);
		else if (!F->opt->submodel)
			scan_error(&x, 1, DIAG_E0818, "tract_core_submodel: '%s' names a model inside this one, but a bare graph file holds none", name);
		else
			scan_error(&x, 1, DIAG_E0818, "tract_core_submodel: this model holds no model '%s' (a folder '%s' holding graph.nnef)", name, name);
		return NULL;
	}
	if (!check_sub_inputs(&x, args[0], g, name))
		return NULL;
	if (g->noutputs == 0) {
		scan_error(&x, 1, DIAG_E0818, "tract_core_submodel: the model '%s' has no output", name);
		return NULL;
	}
	F->result_len = g->noutputs;
	const Value *v = flat_call(F, f, generic, args, e, s, t);
	if (!v || v->kind != VAL_ARRAY)
		return v;
	for (size_t k = 0; k < v->n && k < g->noutputs; k++) {
		FlatTensor *r = v->u.items[k]->u.t;
		const Value *o = g->outputs[k];
		if (!o || o->kind != VAL_TENSOR)
			continue;
		Shape sh = import_shape(F, o->u.t);
		flat_set_shape(F, r, &sh, NULL);
		r->datum = o->u.t->datum;
	}
	return v;
}

const Value *flat_tract_nested(Flattener *F, const SemaFrag *f,
			       const Type *generic, const Value **args,
			       const AstExpr *e, Scope *s, const Target *t)
{
	if (strcmp(f->name, "tract_core_submodel") == 0)
		return tract_submodel(F, f, generic, args, e, s, t);
	return tract_scan(F, f, generic, args, e, s, t);
}
