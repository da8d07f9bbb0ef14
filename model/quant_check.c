/*
 * quant_check.c - graph.quant (spec 5.3 Quantization File Format, 7.1
 * Incorporating Quantization Info): read by the document's grammar
 * (PARSE_QUANT), its entries checked by sema (sema_check_quant: the
 * operations and their arguments, compile-time expressions), evaluated
 * and applied by the flattener (flatten/quant_apply.c); here, once the graph
 * is built, what needs the graph:
 *   - each entry names an exported tensor: an identifier of the graph
 *     (3.3.4), not a variable label; each tensor at most once;
 *   - a variable of quantized codes has an entry to decode them with.
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
		for (size_t k = 0; m->quant && k < m->quant->nitems && !found; k++)
			found = m->quant->items[k].kind == AST_ITEM_QUANT && m->quant->items[k].tensor == name;
		if (!found)
			diag_add(&m->diags, DIAG_W1107, flat_op_loc(v->op), "variable '%.*s': '%s' holds quantized codes, but graph.quant has no entry for '%s' to give their real values", (int)v->label_len, v->label, v->file->name, name);
	}
}

const AstDoc *model_parse_quant(Model *m)
{
	m->quant = NULL;
	if (!m->quant_src)
		return NULL;
	ParseOptions po = { .dialect = m->dialect, .lenient = m->lenient };
	ParseResult r = parse_document(m->quant_src, PARSE_QUANT, &po, &m->arena, &m->interner, &m->diags);
	if (r.syntax_ok)
		sema_check_quant(&m->prog, r.doc, &m->arena, &m->interner, &m->diags);
	return m->quant = r.doc;
}

void model_check_quant(Model *m)
{
	if (!m->quant) {
		check_quantized_vars(m);
		return;
	}
	PtrMap seen;
	pmap_init(&seen);
	for (size_t i = 0; i < m->quant->nitems; i++) {
		const AstItem *e = &m->quant->items[i];
		if (e->kind != AST_ITEM_QUANT)
			continue;
		const char *name = e->tensor;
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
		const AstItem *first = pmap_get(&seen, name, &dup);
		if (dup) {
			Diag *d = diag_add(&m->diags, DIAG_E1205, e->tensor_loc, "'%s' is quantized twice", e->tensor);
			diag_note(&m->diags, d, first->tensor_loc, true, "its first entry is here");
			continue;
		}
		pmap_put(&seen, name, (void *)e);
	}
	pmap_free(&seen);
	check_quantized_vars(m);
}
