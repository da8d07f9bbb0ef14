/*
 * quant_apply.c - graph.quant in the graph (spec 7.1 Incorporating
 * Quantization Info): "the two descriptions together are interpreted as if the
 * appropriate quantization was applied to each tensor after its value is
 * computed", i.e. as if each statement of the graph that assigns a tensor
 * graph.quant names were followed by
 *
 *     name = quantizer(name, <the entry's arguments>);
 *
 * Each entry (checked by sema_check_quant) has its arguments evaluated
 * right after the tensor is assigned, by the evaluator of the document's
 * own expressions; a per-channel array (1.0.5) must be rectangular and
 * broadcast to the tensor's shape (E1206); the tensor's data type must
 * be the one the operation quantizes (E1203). The quantizer is then
 * invoked on it (expanded as any compound, a per-channel array made a
 * constant tensor): with FlattenOptions.quantize, into the graph, its
 * result taking the name, so that every consumer, and the graph's
 * results, see the quantized values; without, as a check only (as a kept
 * compound is), which finds the errors a run would. The
 * tensor before quantization is renamed, except the result of external
 * and variable, which keeps its name (the input fed, the data loaded by
 * it); its quantized value then takes a new name.
 */
#include "flatten/flatten_internal.h"

#include <string.h>

/* Dimensions of a per-channel array at most. */
enum { QUANT_MAX_RANK = 8 };

void flat_quant_init(Flattener *F)
{
	pmap_init(&F->quants);
	pmap_init(&F->raw);
	pmap_init(&F->unquantized);
	const AstDoc *q = F->opt->quant;
	for (size_t i = 0; q && i < q->nitems; i++) {
		const AstItem *it = &q->items[i];
		if (it->kind != AST_ITEM_QUANT || ast_kind(it->call) != AST_INVOKE || !it->call->u.inv.call || pmap_has(&F->quants, it->tensor))
			continue; /* not checked, or a second entry (E1205) */
		pmap_put(&F->quants, it->tensor, (void *)it);
	}
}

void flat_quant_free(Flattener *F)
{
	pmap_free(&F->quants);
	pmap_free(&F->raw);
	pmap_free(&F->unquantized);
	util_free(F->quant);
}

/* ---- per-channel arrays ------------------------------------------------------ */

/* The extents of a nested array of numbers, its items in row-major order
 * appended to items: false when it is ragged, empty or too deep. */
static bool array_dims(const Value *v, int64_t *dims, uint32_t *rank,
		       uint32_t depth, const Value ***items, size_t *n,
		       size_t *cap)
{
	if (v->kind != VAL_ARRAY) {
		if (depth != *rank)
			return false;
		ARRAY_RESERVE(*items, *n, *cap, 64);
		(*items)[(*n)++] = v;
		return true;
	}
	if (depth == *rank) {
		if (*rank == QUANT_MAX_RANK || v->n == 0)
			return false;
		dims[(*rank)++] = v->n;
	} else if (depth > *rank || dims[depth] != (int64_t)v->n) {
		return false;
	}
	for (uint32_t i = 0; i < v->n; i++)
		if (!array_dims(v->u.items[i], dims, rank, depth + 1, items, n, cap))
			return false;
	return true;
}

/* A per-channel array for parameter `param` of the entry, against the
 * tensor x: the constant tensor it stands for, NULL after an error. */
static const Value *per_channel(Flattener *F, const AstExpr *arg,
				const SemaParam *param, const Value *v,
				const FlatTensor *x, Scope *s)
{
	int64_t dims[QUANT_MAX_RANK];
	uint32_t rank = 0;
	const Value **items = NULL;
	size_t n = 0, cap = 0;
	bool ok = array_dims(v, dims, &rank, 0, &items, &n, &cap);
	const Value *list = NULL;
	if (ok) { /* the list keeps its items' array: one of the arena's */
		const Value **kept = ARENA_ARRAY(F->arena, const Value *, n);
		memcpy(kept, items, n * sizeof(*kept));
		list = flat_val_list(F, VAL_ARRAY, kept, n);
	}
	util_free(items);
	if (!ok) {
		flat_value_error(F, DIAG_E1206, arg->loc, s, "'%s': a per-channel array must be rectangular, not empty, and at most %d deep", param->name, QUANT_MAX_RANK);
		return NULL;
	}
	for (uint32_t d = 0; x->known && d < (rank > x->rank ? rank : x->rank); d++) {
		int64_t ve = d < rank ? dims[d] : 1, te = d < x->rank ? x->dims[d] : 1;
		if (ve == te || ve == 1)
			continue;
		StrBuf b1, b2;
		sb_init(&b1);
		sb_init(&b2);
		Shape vs = { dims, rank, true }, xs = flat_tensor_shape(x);
		shape_print(&b1, &vs);
		shape_print(&b2, &xs);
		flat_value_error(F, DIAG_E1206, arg->loc, s, "'%s': an array of shape %s does not broadcast to the shape %s of '%s' (dimension %u)", param->name, sb_str(&b1), sb_str(&b2), x->name, d);
		sb_free(&b1);
		sb_free(&b2);
		return NULL;
	}
	const Value **shape = ARENA_ARRAY(F->arena, const Value *, rank);
	for (uint32_t d = 0; d < rank; d++)
		shape[d] = flat_val_int(F, dims[d]);
	const SemaFrag *constant = sema_lookup(F->prog, intern_cstr(F->interner, "constant"));
	const Value *args[2] = { flat_val_list(F, VAL_ARRAY, shape, rank), list };
	Target anon = flat_anon_target(s, param->name);
	const Type *item = param->type->item && param->type->item->kind != TY_GENERIC ? param->type->item : ty_prim(F->tt, TY_SCALAR);
	return flat_call(F, constant, item, args, arg, s, &anon);
}

/* ---- one tensor -------------------------------------------------------------- */

/* Whether t is what external or variable gives. */
static bool fed_or_loaded(const FlatTensor *t)
{
	const FlatOp *op = t->producer;
	return op && (op->prim == SHAPE_OP_EXTERNAL || op->prim == SHAPE_OP_VARIABLE);
}

/* Whether f's first parameter takes x's data type (a quantization of
 * reals does not take integers or logicals): E1203 when not. In tract's
 * dialect an entry for a tensor of integers declares its datum type (the
 * integers are the codes, zero point and scale their meaning, which its
 * operations read): nothing to apply, and no error. */
static bool takes(Flattener *F, const AstItem *it, const SemaFrag *f,
		  const FlatTensor *x, Scope *s)
{
	const Type *want = f->params[0].type->item;
	const Type *have = flat_tensor_dtype(x, F->tt);
	if (!want || want->kind == TY_GENERIC || have->kind == want->kind)
		return true;
	if (F->tract)
		return false;
	flat_value_error(F, DIAG_E1203, it->call->loc, s, "'%s' quantizes a tensor<%s>, and '%s' is a tensor<%s>", f->name, ty_str(F->arena, want), x->name, ty_str(F->arena, have));
	return false;
}

static void quantize_checked(Flattener *F, const char *name, Scope *s);

/* The entry's arguments evaluated (into fq, and args as the call takes
 * them), the entry recorded in the graph's list, then the quantizer
 * invoked on args[0]: its result, NULL after an error. */
static const Value *quantizer(Flattener *F, const AstItem *it,
			      const SemaFrag *f, FlatQuant *fq,
			      const Value **args, Scope *s, const Target *anon)
{
	const SemaCall *call = it->call->u.inv.call;
	for (size_t p = 1; p < f->nparams; p++) {
		fq->args[p] = args[p] = flat_eval_expr(F, call->args[p], s, anon);
		if (args[p] && args[p]->kind == VAL_ARRAY && f->params[p].type->kind == TY_TENSOR)
			args[p] = per_channel(F, call->args[p], &f->params[p], args[p], args[0]->u.t, s);
		if (!args[p])
			return NULL;
	}
	ARRAY_RESERVE(F->quant, F->nquant, F->capquant, 16);
	F->quant[F->nquant++] = fq;
	return flat_invoke(F, it->call, s, anon, f, call->generic, args);
}

/* The errors of graph.quant's values (E1206, those of evaluating them)
 * are counted apart: they do not make the graph itself invalid. */
static void quantize(Flattener *F, const char *name, Scope *s)
{
	size_t before = F->diags->nerrors;
	quantize_checked(F, name, s);
	F->quant_errors += F->diags->nerrors - before;
}

static void quantize_checked(Flattener *F, const char *name, Scope *graph)
{
	bool found;
	const AstItem *it = pmap_get(&F->quants, name, &found);
	const Value *x = found ? flat_graph_value(name) : NULL;
	if (!x || x->kind != VAL_TENSOR)
		return; /* not a tensor: model_check_quant says so */
	/* the graph's scope, its operations at home in graph.quant: a root
	 * frame of that file */
	Frame *home = ARENA_NEW(F->arena, Frame);
	home->loc = it->tensor_loc;
	Scope qs = *graph, *s = &qs;
	qs.frame = home;
	const SemaCall *call = it->call->u.inv.call;
	const SemaFrag *f = call->callee;
	if (!takes(F, it, f, x->u.t, s))
		return;
	const Value **args = ARENA_ARRAY(F->arena, const Value *, f->nparams);
	FlatQuant *fq = ARENA_NEW(F->arena, FlatQuant);
	fq->tensor = name;
	fq->loc = it->tensor_loc;
	fq->op = f;
	fq->args = ARENA_ARRAY(F->arena, const Value *, f->nparams);
	fq->args[0] = args[0] = x;
	Target anon = flat_anon_target(s, name);
	/* only checked: expanded as a kept compound is, adding nothing to
	 * the graph, so that what the run would find is found here too */
	bool apply = F->opt->quantize;
	F->dry += !apply;
	const Value *q = quantizer(F, it, f, fq, args, s, &anon);
	F->dry -= !apply;
	if (!apply || !q || q->kind != VAL_TENSOR)
		return;
	FlatTensor *raw = x->u.t;
	if (!fed_or_loaded(raw)) {
		StrBuf b;
		sb_init(&b);
		sb_printf(&b, "%s_raw", name);
		raw->name = flat_unique_name(F, sb_str(&b));
		sb_free(&b);
		raw->bound = false;
		q->u.t->name = name;
		q->u.t->bound = true;
	}
	pmap_put(&F->raw, name, (void *)x);
	pmap_put(&F->unquantized, q->u.t, (void *)x);
	flat_set_graph_value(F, name, q);
}

void flat_quant_update(Flattener *F, const SemaFrag *f, const Value **args)
{
	bool found;
	const Value *raw = args[0]->kind == VAL_TENSOR ? pmap_get(&F->unquantized, args[0]->u.t, &found) : NULL;
	if (raw && strcmp(f->name, "update") == 0)
		args[0] = raw;
}

void flat_quant_stmt(Flattener *F, const AstExpr *lhs, Scope *s)
{
	if (lhs->kind == AST_IDENT) {
		if (pmap_has(&F->quants, lhs->u.ident))
			quantize(F, lhs->u.ident, s);
		return;
	}
	for (size_t i = 0; i < lhs->u.list.n; i++)
		flat_quant_stmt(F, lhs->u.list.items[i], s);
}
