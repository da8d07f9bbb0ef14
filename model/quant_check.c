/*
 * quant_check.c - graph.quant against the graph (spec 5.3 Quantization File
 * Format, and 7.1 Incorporating Quantization Info):
 *   - each entry names an exported tensor: an identifier of the graph
 *     (3.3.4), not a variable label; each tensor at most once;
 *   - its operation is a quantization operation: standard or declared in
 *     the document, taking the tensor to quantize as its first parameter
 *     and giving one tensor;
 *   - "all other parameters must be provided as named arguments", each a
 *     literal of the parameter's type; a tensor parameter may take a
 *     (nested) array literal (1.0.5, per-channel values), rectangular and
 *     broadcast compatible with the tensor being quantized.
 */
#include "model/model_internal.h"

#include <stdlib.h>
#include <string.h>

/* The exported tensor named `name`, or NULL. */
static const FlatTensor *exported(const Model *m, const char *name)
{
	const FlatGraph *g = m->flat;
	for (size_t i = 0; i < g->ntensors; i++)
		if (flat_tensor(g, i)->bound && flat_tensor(g, i)->name == name)
			return flat_tensor(g, i);
	return NULL;
}

/* The variable labelled `label`, for a hint. */
static const FlatTensor *labelled(const Model *m, const char *label)
{
	const FlatGraph *g = m->flat;
	for (size_t i = 0; i < g->nops; i++) {
		const FlatOp *op = g->ops[i];
		if (op->prim == SHAPE_OP_VARIABLE &&
		    flat_op_args(op)[1]->n == strlen(label) &&
		    memcmp(flat_op_args(op)[1]->u.str, label, strlen(label)) == 0)
			return op->results[0]->u.t;
	}
	return NULL;
}

/* ---- values ------------------------------------------------------------------ */

static bool literal_is(const QuantValue *v, TypeKind k)
{
	switch (k) {
	case TY_SCALAR:
		return v->kind == QV_REAL;
	case TY_INTEGER:
		return v->kind == QV_INT;
	case TY_LOGICAL:
		return v->kind == QV_BOOL;
	case TY_STRING:
		return v->kind == QV_STRING;
	case TY_GENERIC:
		return v->kind != QV_ARRAY;
	case TY_TENSOR:
	case TY_ARRAY:
	case TY_TUPLE:
	case TY_EMPTY_ARRAY:
		return false;
	}
	return false; /* not reached: every kind is a case */
}

/* Whether v is an array literal of the attribute type t (arrays of
 * primitives, nested). */
static bool attribute_fits(const QuantValue *v, const Type *t)
{
	if (t->kind != TY_ARRAY)
		return ty_is_primitive(t) && literal_is(v, t->kind);
	if (v->kind != QV_ARRAY)
		return false;
	for (size_t i = 0; i < v->u.list.n; i++)
		if (!attribute_fits(v->u.list.items[i], t->item))
			return false;
	return true;
}

/* The shape of a nested array literal of items of kind k: false (with
 * *bad the offending value) when it is ragged or holds other items. */
static bool array_shape(const QuantValue *v, TypeKind k, int64_t *dims,
			size_t *rank, size_t depth, const QuantValue **bad)
{
	if (v->kind != QV_ARRAY) {
		if (depth != *rank || !literal_is(v, k)) {
			*bad = v;
			return false;
		}
		return true;
	}
	if (depth == *rank) {
		if (*rank == 8 || v->u.list.n == 0) {
			*bad = v;
			return false;
		}
		dims[(*rank)++] = (int64_t)v->u.list.n;
	} else if (depth > *rank || dims[depth] != (int64_t)v->u.list.n) {
		*bad = v;
		return false;
	}
	for (size_t i = 0; i < v->u.list.n; i++)
		if (!array_shape(v->u.list.items[i], k, dims, rank, depth + 1, bad))
			return false;
	return true;
}

static const char *kind_word(TypeKind k)
{
	return k == TY_SCALAR ? "real" : k == TY_INTEGER ? "integer"
		: k == TY_LOGICAL ? "logical" : "string";
}

/* A value for a tensor parameter: a literal of its data type, or a
 * rectangular array of them broadcast compatible with the tensor. */
static void check_tensor_value(Model *m, const QuantArg *a, const Type *t,
			       const FlatTensor *x)
{
	TypeKind k = t->item ? t->item->kind : TY_SCALAR;
	const QuantValue *v = a->value, *bad = NULL;
	if (v->kind != QV_ARRAY) {
		if (!literal_is(v, k))
			diag_add(&m->diags, DIAG_E1204, v->loc, "'%s' takes a %s literal (or an array of them, per channel)", a->name, kind_word(k));
		return;
	}
	int64_t dims[8];
	size_t rank = 0;
	if (!array_shape(v, k, dims, &rank, 0, &bad)) {
		diag_add(&m->diags, DIAG_E1206, bad->loc, "'%s': a per-channel array must be rectangular, not empty, at most 8 deep, and hold %s literals", a->name, kind_word(k));
		return;
	}
	if (!x->known)
		return;
	Shape s = { dims, (uint32_t)rank, true };
	size_t n = rank > x->rank ? rank : x->rank;
	for (size_t d = 0; d < n; d++) {
		int64_t ve = d < rank ? dims[d] : 1;
		int64_t te = d < x->rank ? x->dims[d] : 1;
		if (ve == te || ve == 1)
			continue;
		StrBuf b1, b2;
		sb_init(&b1);
		sb_init(&b2);
		shape_print(&b1, &s);
		Shape xs = flat_tensor_shape(x);
		shape_print(&b2, &xs);
		diag_add(&m->diags, DIAG_E1206, v->loc, "'%s': an array of shape %s does not broadcast to the tensor's shape %s (dimension %zu)", a->name, sb_str(&b1), sb_str(&b2), d);
		sb_free(&b1);
		sb_free(&b2);
		return;
	}
}

/* ---- entries ----------------------------------------------------------------- */

/* The operation of an entry, if it can quantize: first parameter a
 * tensor, one tensor result. */
/* The standard quantization operations (spec 4.9.5 Quantization
 * Operations, 1.0.5). "The quantization algorithms are described as
 * compound operations [...] therefore the set of quantization techniques
 * can easily be extended" (chapter 7): a fragment of the document may
 * quantize too, but no other standard operation does. */
static bool standard_quantizer(const char *name)
{
	static const char *const names[] = {
		"linear_quantize", "logarithmic_quantize",
		"min_max_linear_quantize", "zero_point_linear_quantize",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* The quantization operation closest to op (a standard one, or one the
 * document defines: its first parameter and its one result tensors),
 * for "did you mean". */
static const char *suggest_op(const Model *m, const char *op)
{
	const SemaProgram *p = &m->prog;
	const char **cands = util_malloc((p->nfrags ? p->nfrags : 1) * sizeof(*cands));
	size_t k = 0;
	for (size_t i = 0; i < p->nfrags; i++) {
		const SemaFrag *f = p->frags[i];
		if (f->is_std ? standard_quantizer(f->name)
			      : f->nparams && f->params[0].type->kind == TY_TENSOR && f->nresults == 1)
			cands[k++] = f->name;
	}
	const char *s = sema_suggest(op, cands, k);
	util_free(cands);
	return s;
}

/* The tensor of the graph whose name is closest to name (graph.quant
 * names them by their identifiers), for "did you mean". */
static const char *suggest_tensor(const Model *m, const char *name)
{
	const FlatGraph *g = m->flat;
	const char **cands = util_malloc((g->ntensors ? g->ntensors : 1) * sizeof(*cands));
	size_t k = 0;
	for (size_t i = 0; i < g->ntensors; i++)
		if (flat_tensor(g, i)->bound)
			cands[k++] = flat_tensor(g, i)->name;
	const char *s = sema_suggest(name, cands, k);
	util_free(cands);
	return s;
}

static const SemaFrag *quant_op(Model *m, const QuantEntry *e)
{
	const SemaFrag *f = sema_lookup(&m->prog, e->op);
	if (!f) {
		Diag *d = diag_add(&m->diags, DIAG_E1203, e->op_loc, "unknown operation '%s'; graph.quant uses quantization operations such as linear_quantize", e->op);
		const char *s = suggest_op(m, e->op);
		if (s)
			diag_hint(&m->diags, d, "did you mean '%s'?", s);
		return NULL;
	}
	if (f->is_std && !standard_quantizer(f->name)) {
		diag_add(&m->diags, DIAG_E1203, e->op_loc, "'%s' is not a quantization operation (spec 4.9.5: linear_quantize, logarithmic_quantize, min_max_linear_quantize, zero_point_linear_quantize; a document may define its own)", e->op);
		return NULL;
	}
	if (f->nparams == 0 || f->params[0].type->kind != TY_TENSOR ||
	    f->nresults != 1 || f->results[0].type->kind != TY_TENSOR) {
		diag_add(&m->diags, DIAG_E1203, e->op_loc, "'%s' cannot quantize a tensor: a quantization operation takes the tensor as its first parameter and gives one tensor", e->op);
		return NULL;
	}
	return f;
}

/* The arguments: each names a parameter other than the first, once, with
 * a value of its type; every other parameter is given. */
static void check_args(Model *m, const QuantEntry *e, const SemaFrag *f,
		       const FlatTensor *x)
{
	const QuantArg **given = util_calloc(f->nparams, sizeof(*given));
	for (size_t i = 0; i < e->nargs; i++) {
		const QuantArg *a = &e->args[i];
		bool found;
		uintptr_t k = (uintptr_t)pmap_get(&f->param_index, a->name, &found);
		if (!found) {
			diag_add(&m->diags, DIAG_E1204, a->loc, "'%s' has no parameter '%s'", f->name, a->name);
			continue;
		}
		size_t p = (size_t)k - 1;
		if (p == 0) {
			diag_add(&m->diags, DIAG_E1204, a->loc, "'%s' is the tensor being quantized; graph.quant names it before the ':' and does not pass it", a->name);
			continue;
		}
		if (given[p]) {
			diag_add(&m->diags, DIAG_E1204, a->loc, "'%s' is given twice", a->name);
			continue;
		}
		given[p] = a;
		const Type *t = f->params[p].type;
		if (t->kind == TY_TENSOR)
			check_tensor_value(m, a, t, x);
		else if (!attribute_fits(a->value, t))
			diag_add(&m->diags, DIAG_E1204, a->value->loc, "'%s' takes a value of type %s", a->name, ty_str(&m->arena, t));
	}
	for (size_t p = 1; p < f->nparams; p++)
		if (!given[p])
			diag_add(&m->diags, DIAG_E1204, e->op_loc, "'%s' needs the argument '%s': graph.quant gives every parameter but the tensor (spec 5.3)", f->name, f->params[p].name);
	util_free(given);
}

/* Quantized codes (item types 2 and 3) mean nothing without their entry
 * in graph.quant (spec 5.2.1): warn, since no consumer can decode them
 * (nnef-run refuses them, E1306). */
static void check_quantized_vars(Model *m)
{
	for (size_t i = 0; i < m->nvars; i++) {
		const ModelVar *v = &m->vars[i];
		if (!v->header || (v->header->type != DAT_QUINT && v->header->type != DAT_QSINT))
			continue;
		const FlatTensor *t = v->op->results[0]->u.t;
		const char *name = t->name;
		bool found = false;
		for (size_t k = 0; k < m->quant.n && !found; k++)
			found = strcmp(m->quant.entries[k].tensor, name) == 0;
		if (!found)
			diag_add(&m->diags, DIAG_W1107, flat_op_loc(v->op), "variable '%.*s': '%s' holds quantized codes, but graph.quant has no entry for '%s' to give their real values", (int)v->label_len, v->label, v->file->name, name);
	}
}

void model_check_quant(Model *m)
{
	if (!m->quant_src) {
		check_quantized_vars(m);
		return;
	}
	QuantFile qf;
	dat_quant_parse(m->quant_src, &m->arena, &m->interner, &m->diags, &qf);
	m->quant = qf;
	PtrMap seen;
	pmap_init(&seen);
	for (size_t i = 0; i < qf.n; i++) {
		const QuantEntry *e = &qf.entries[i];
		const char *name = intern_cstr(&m->interner, e->tensor);
		const FlatTensor *x = exported(m, name);
		if (!x) {
			Diag *d = diag_add(&m->diags, DIAG_E1202, e->tensor_loc, "'%s' is not a tensor of the graph", e->tensor);
			const FlatTensor *v = labelled(m, e->tensor);
			const char *s = v ? NULL : suggest_tensor(m, e->tensor);
			if (v)
				diag_hint(&m->diags, d, "'%s' is the label of variable '%s'; graph.quant names tensors by their identifiers (spec 5.3)", e->tensor, v->name);
			else if (s)
				diag_hint(&m->diags, d, "did you mean '%s'?", s);
			continue;
		}
		bool dup;
		const QuantEntry *first = pmap_get(&seen, name, &dup);
		if (dup) {
			Diag *d = diag_add(&m->diags, DIAG_E1205, e->tensor_loc, "'%s' is quantized twice", e->tensor);
			diag_note(&m->diags, d, first->tensor_loc, true, "its first entry is here");
			continue;
		}
		pmap_put(&seen, name, (void *)e);
		const SemaFrag *f = quant_op(m, e);
		if (f)
			check_args(m, e, f, x);
	}
	pmap_free(&seen);
	check_quantized_vars(m);
}
