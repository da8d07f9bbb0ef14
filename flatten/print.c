/*
 * print.c - the flat document (spec chapter 6: a sequence of primitives
 * with concrete arguments). Every parameter is written: tensors by
 * position, attributes by name, defaults included, so flattening the
 * output again reproduces it byte for byte. A generic operation gets an
 * explicit <type> only when neither its default nor its arguments would
 * give that type back.
 *
 * With annotate_shapes each operation is followed by a comment with the
 * types and shapes of its results ("  # scalar[1,16,32,32]").
 *
 *   version 1.0;
 *
 *   graph net( input ) -> ( output )
 *   {
 *       input = external<scalar>(shape = [1, 3]);
 *       output = max(input, 0.0);
 *   }
 */
#include "flatten/flatten.h"

#include <string.h>

/* The type '?' takes from a value passed where `param` is expected, or
 * NULL when the value says nothing about it. */
static const Type *deduce(const Value *v, const Type *param,
			  const TypeTable *tt)
{
	if (!param->has_generic)
		return NULL;
	switch (param->kind) {
	case TY_GENERIC:
		switch (v->kind) {
		case VAL_INT:
		case VAL_SYMBOL:
			return ty_prim(tt, TY_INTEGER);
		case VAL_SCALAR:
			return ty_prim(tt, TY_SCALAR);
		case VAL_BOOL:
			return ty_prim(tt, TY_LOGICAL);
		case VAL_STR:
			return ty_prim(tt, TY_STRING);
		default:
			return NULL;
		}
	case TY_TENSOR:
		if (v->kind == VAL_TENSOR)
			return flat_tensor_dtype(v->u.t, tt);
		return deduce(v, param->item, tt);
	case TY_ARRAY:
		if (v->kind != VAL_ARRAY)
			return NULL;
		for (size_t i = 0; i < v->n; i++) {
			const Type *t = deduce(v->u.items[i], param->item, tt);
			if (t)
				return t;
		}
		return NULL;
	case TY_TUPLE:
		if (v->kind != VAL_TUPLE)
			return NULL;
		for (size_t i = 0; i < v->n && i < param->n; i++) {
			const Type *t = deduce(v->u.items[i], param->items[i],
					       tt);
			if (t)
				return t;
		}
		return NULL;
	default:
		return NULL;
	}
}

static bool needs_generic(const FlatOp *op, const TypeTable *tt)
{
	const SemaFrag *f = op->frag;
	const Type *generic = flat_op_generic(op, tt);
	if (!f->is_generic || !generic)
		return false;
	if (f->generic_default)
		return f->generic_default != generic;
	for (size_t i = 0; i < f->nparams; i++) {
		const Type *t = deduce(flat_op_args(op)[i], f->params[i].type, tt);
		if (t)
			return t != generic;
	}
	return true;
}

/* "scalar[1,3,224,224]" for each tensor of v, separated by ", ". */
static void put_types(StrBuf *out, const Value *v, const TypeTable *tt,
		      bool *first)
{
	if (v->kind == VAL_TENSOR) {
		if (!*first)
			sb_puts(out, ", ");
		*first = false;
		ty_print(out, flat_tensor_dtype(v->u.t, tt));
		Shape shape = flat_tensor_shape(v->u.t);
		shape_print(out, &shape);
	} else if (v->kind == VAL_ARRAY || v->kind == VAL_TUPLE) {
		for (size_t i = 0; i < v->n; i++)
			put_types(out, v->u.items[i], tt, first);
	}
}

static void print_op(StrBuf *out, const FlatOp *op, const TypeTable *tt,
		     bool annotate)
{
	const SemaFrag *f = op->frag;
	sb_puts(out, "    ");
	for (size_t k = 0; k < f->nresults; k++) {
		if (k)
			sb_puts(out, ", ");
		value_print(out, op->results[k]);
	}
	sb_printf(out, " = %s", f->name);
	if (needs_generic(op, tt)) {
		sb_putc(out, '<');
		ty_print(out, flat_op_generic(op, tt));
		sb_putc(out, '>');
	}
	sb_putc(out, '(');
	for (size_t i = 0; i < f->nparams; i++) {
		if (i)
			sb_puts(out, ", ");
		if (ty_is_attribute(f->params[i].type))
			sb_printf(out, "%s = ", f->params[i].name);
		value_print(out, flat_op_args(op)[i]);
	}
	sb_puts(out, ");");
	if (annotate) {
		bool first = true;
		sb_puts(out, "  # ");
		for (size_t k = 0; k < f->nresults; k++)
			put_types(out, op->results[k], tt, &first);
	}
	sb_putc(out, '\n');
}

static void print_names(StrBuf *out, const AstParam *p, size_t n)
{
	sb_puts(out, "( ");
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_puts(out, ", ");
		value_print_name(out, p[i].name);
	}
	sb_puts(out, " )");
}

void flat_print(StrBuf *out, const FlatGraph *g, bool annotate_shapes)
{
	const TypeTable *tt = &g->prog->types;
	sb_puts(out, "version 1.0;\n");
	bool operators = false;
	for (size_t i = 0; i < g->nkeep; i++)
		operators |= parse_body_needs_operators(g->keep[i]->def->body);
	if (g->nkeep)
		sb_printf(out, "extension KHR_enable_fragment_definitions%s;\n",
			  operators ? " KHR_enable_operator_expressions" : "");
	/* the symbols an extent may still be (--lenient) */
	const AstVendor *v = &g->prog->doc->vendor;
	for (size_t i = 0; i < v->nsymbols; i++)
		sb_printf(out, "extension tract_symbol %s;\n", v->symbols[i]->name);
	sb_putc(out, '\n');
	for (size_t i = 0; i < g->nkeep; i++) {
		const AstDef *d = g->keep[i]->def;
		sb_putn(out, d->name_loc.file->text + d->loc.off, d->loc.len);
		sb_puts(out, "\n\n");
	}
	sb_puts(out, "graph ");
	value_print_name(out, g->graph->name);
	print_names(out, g->graph->params, g->graph->nparams);
	sb_puts(out, " -> ");
	print_names(out, g->graph->results, g->graph->nresults);
	sb_puts(out, "\n{\n");
	for (size_t i = 0; i < g->nops; i++)
		print_op(out, g->ops[i], tt, annotate_shapes);
	sb_puts(out, "}\n");
}

void flat_print_shapes(StrBuf *out, const FlatGraph *g)
{
	for (size_t i = 0; i < g->ntensors; i++) {
		const FlatTensor *t = flat_tensor(g, i);
		value_print_name(out, t->name);
		sb_puts(out, ": ");
		ty_print(out, flat_tensor_dtype(t, &g->prog->types));
		Shape shape = flat_tensor_shape(t);
		shape_print(out, &shape);
		sb_putc(out, '\n');
	}
}
