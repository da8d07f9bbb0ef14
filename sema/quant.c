/*
 * quant.c - the entries of a quantization file against the program (spec
 * 5.3 Quantization File Format, 7.1 Incorporating Quantization Info):
 *
 *   "filter1": linear_quantize(min = -2.0 * 0.5, max = 2.5, bits = 4 + 4);
 *
 * The file is read by the document's grammar (PARSE_QUANT); here each
 * entry's invocation is checked as the graph's invocations are, with two
 * differences the spec makes: the tensor being quantized is not an
 * argument (it is named before the ':'), and the arguments are
 * compile-time expressions, "no tensor ids". A tensor parameter (min and
 * max of linear_quantize) may take an array of values of its data type
 * (1.0.5: one per channel), which the flattener makes a constant tensor.
 * Whether the entry's name is a tensor of the graph, and whether a
 * per-channel array fits its shape, is known once the graph is built
 * (flatten/quant_apply.c, model/quant_check.c).
 */
#include "sema/sema_internal.h"

#include <string.h>

bool sema_standard_quantizer(const char *name)
{
	/* 4.9.5 Quantization Operations (1.0.5): "the quantization
	 * algorithms are described as compound operations [...] therefore
	 * the set of quantization techniques can easily be extended" (7): a
	 * fragment of the document may quantize too, but no other standard
	 * operation does */
	static const char *const names[] = {
		"linear_quantize", "logarithmic_quantize",
		"min_max_linear_quantize", "zero_point_linear_quantize",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* Whether f can quantize a tensor: its first parameter a tensor, one
 * tensor result. */
static bool can_quantize(const SemaFrag *f)
{
	return f->nparams && f->params[0].type->kind == TY_TENSOR &&
	       f->nresults == 1 && f->results[0].type->kind == TY_TENSOR;
}

/* The quantization operation closest to op, for "did you mean". */
static const char *suggest_op(const SemaProgram *p, const char *op)
{
	const char **cands = util_malloc((p->nfrags ? p->nfrags : 1) * sizeof(*cands));
	size_t k = 0;
	for (size_t i = 0; i < p->nfrags; i++) {
		const SemaFrag *f = p->frags[i];
		if (f->is_std ? sema_standard_quantizer(f->name) : can_quantize(f))
			cands[k++] = f->name;
	}
	const char *s = sema_suggest(op, cands, k);
	util_free(cands);
	return s;
}

static const SemaFrag *quant_op(Ctx *c, const AstExpr *call)
{
	const char *op = call->u.inv.name;
	const SemaFrag *f = sema_lookup(c->prog, op);
	if (!f) {
		Diag *d = diag_add(c->diags, DIAG_E1203, call->loc, "unknown operation '%s'; graph.quant uses quantization operations such as linear_quantize", op);
		const char *s = suggest_op(c->prog, op);
		if (s)
			diag_hint(c->diags, d, "did you mean '%s'?", s);
		return NULL;
	}
	if (f->is_std && !sema_standard_quantizer(f->name)) {
		diag_add(c->diags, DIAG_E1203, call->loc, "'%s' is not a quantization operation (spec 4.9.5: linear_quantize, logarithmic_quantize, min_max_linear_quantize, zero_point_linear_quantize; a document may define its own)", op);
		return NULL;
	}
	if (!can_quantize(f)) {
		diag_add(c->diags, DIAG_E1203, call->loc, "'%s' cannot quantize a tensor: a quantization operation takes the tensor as its first parameter and gives one tensor", op);
		return NULL;
	}
	return f->bad ? NULL : f;
}

/* ---- arguments ------------------------------------------------------------- */

/* The first identifier of e that is not the iterator of a comprehension
 * around it: a tensor id, which graph.quant's expressions may not hold. */
typedef struct IdScan {
	const char *iters[64];
	size_t niters;
	const AstExpr *found;
} IdScan;

static void scan_ids(const AstExpr *e, void *ctx)
{
	IdScan *s = ctx;
	if (s->found)
		return;
	if (ast_kind(e) == AST_IDENT) {
		for (size_t i = 0; i < s->niters; i++)
			if (s->iters[i] == e->u.ident)
				return;
		s->found = e;
		return;
	}
	size_t before = s->niters;
	if (ast_kind(e) == AST_COMPREHENSION)
		for (uint32_t i = 0; i < e->u.comp.niters && s->niters < 64; i++)
			s->iters[s->niters++] = e->u.comp.iters[i].name;
	ast_visit_children(e, scan_ids, s);
	s->niters = before;
}

/* The depth of nested arrays around t's items, and those items. */
static const Type *array_items(const Type *t, size_t *depth)
{
	*depth = 0;
	while (t->kind == TY_ARRAY && t->item) {
		t = t->item;
		(*depth)++;
	}
	return t;
}

/* Whether a value of type t fits parameter type pt: as in an invocation,
 * or for a tensor parameter, its data type or arrays of it. */
static bool arg_fits(Ctx *c, const Type *t, const Type *pt)
{
	if (pt->kind != TY_TENSOR)
		return sema_castable(c, t, pt, NULL, NULL);
	TypeKind k = pt->item && pt->item->kind != TY_GENERIC ? pt->item->kind : TY_SCALAR;
	size_t depth;
	const Type *item = array_items(t, &depth);
	return item->kind == k;
}

static const char *kind_word(const Type *pt)
{
	TypeKind k = pt->item ? pt->item->kind : TY_SCALAR;
	return k == TY_INTEGER ? "integer" : k == TY_LOGICAL ? "logical" : k == TY_STRING ? "string" : "scalar";
}

/* One named argument: which parameter it gives (0 when it cannot be
 * taken), its expression typed. */
static size_t check_arg(Ctx *c, const SemaFrag *f, const AstArg *a,
			const AstExpr **given)
{
	if (!a->name)
		return 0; /* positional: the parser has said so (E1201) */
	bool found;
	uintptr_t k = (uintptr_t)pmap_get(&f->param_index, a->name, &found);
	if (!found) {
		diag_add(c->diags, DIAG_E1204, a->name_loc, "'%s' has no parameter '%s'", f->name, a->name);
		return 0;
	}
	size_t p = (size_t)k - 1;
	if (p == 0) {
		diag_add(c->diags, DIAG_E1204, a->name_loc, "'%s' is the tensor being quantized; graph.quant names it before the ':' and does not pass it", a->name);
		return 0;
	}
	if (given[p]) {
		diag_add(c->diags, DIAG_E1204, a->name_loc, "'%s' is given twice", a->name);
		return 0;
	}
	IdScan scan = { .niters = 0, .found = NULL };
	scan_ids(a->value, &scan);
	if (scan.found) {
		diag_add(c->diags, DIAG_E1201, scan.found->loc, "'%s' is an identifier; arguments in graph.quant are compile-time expressions, with no tensor ids (spec 5.3)", scan.found->u.ident);
		return 0;
	}
	const Type *t = sema_expr(c, a->value, false);
	if (!t)
		return 0;
	const Type *pt = f->params[p].type;
	if (!arg_fits(c, t, pt)) {
		if (pt->kind == TY_TENSOR)
			diag_add(c->diags, DIAG_E1204, a->value->loc, "'%s' takes a %s value (or an array of them, per channel), not %s", a->name, kind_word(pt), ty_str(c->arena, t));
		else
			diag_add(c->diags, DIAG_E1204, a->value->loc, "'%s' takes a value of type %s, not %s", a->name, ty_str(c->arena, pt), ty_str(c->arena, t));
		return 0;
	}
	given[p] = a->value;
	return p;
}

/* The entry's arguments; its call annotated when they are all right. */
static bool check_entry(Ctx *c, AstExpr *call)
{
	const SemaFrag *f = quant_op(c, call);
	if (!f)
		return false;
	const AstExpr **given = ARENA_ARRAY(c->arena, const AstExpr *, f->nparams);
	memset(given, 0, f->nparams * sizeof(*given));
	bool ok = true;
	for (uint32_t i = 0; i < call->u.inv.nargs; i++)
		ok &= check_arg(c, f, &call->u.inv.args[i], given) != 0;
	for (size_t p = 1; p < f->nparams; p++)
		if (!given[p] && ok) {
			diag_add(c->diags, DIAG_E1204, call->loc, "'%s' needs the argument '%s': graph.quant gives every parameter but the tensor (spec 5.3)", f->name, f->params[p].name);
			ok = false;
		}
	if (!ok)
		return false;
	SemaCall *sc = ARENA_NEW(c->arena, SemaCall);
	sc->callee = f;
	sc->generic = f->is_generic ? (f->generic_default ? f->generic_default : ty_prim(c->tt, TY_SCALAR)) : NULL;
	sc->args = given;
	call->u.inv.call = sc;
	return true;
}

bool sema_check_quant(SemaProgram *prog, const AstDoc *doc, Arena *arena,
		      Interner *interner, DiagList *diags)
{
	static const SemaOptions none;
	Ctx c;
	memset(&c, 0, sizeof(c));
	c.prog = prog;
	c.tt = &prog->types;
	c.arena = arena;
	c.interner = interner;
	c.diags = diags;
	c.opt = &none;
	c.file = doc->file;
	sema_env_init(&c.env);
	sema_env_init(&c.assigned);
	bool ok = true;
	for (size_t i = 0; i < doc->nitems && !diag_limit_reached(diags); i++) {
		const AstItem *it = &doc->items[i];
		if (it->kind == AST_ITEM_QUANT && ast_kind(it->call) == AST_INVOKE)
			ok &= check_entry(&c, it->call);
	}
	util_free(c.iters);
	sema_env_free(&c.env);
	sema_env_free(&c.assigned);
	return ok;
}
