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
 *
 * Values are written as NNEF literals (flat_print_value), tensors by name.
 */
#include "flatten/flatten.h"

#include <string.h>

/* tract's dialect has no `constant`: a constant tensor is written as the
 * literal it was, an array nested by its shape ("x = [[1.0, 2.0]];"). */
static void print_literal(StrBuf *out, const Value *values,
			  const Value *shape, size_t dim, size_t *at)
{
	if (dim == shape->n) {
		flat_print_value(out, values->u.items[values->n == 1 ? 0 : *at]);
		(*at)++;
		return;
	}
	sb_putc(out, '[');
	for (int64_t i = 0; i < shape->u.items[dim]->u.i; i++) {
		if (i)
			sb_puts(out, ", ");
		print_literal(out, values, shape, dim + 1, at);
	}
	sb_putc(out, ']');
}

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
		case VAL_ARRAY:
		case VAL_TUPLE:
		case VAL_TENSOR:
			return NULL;
		}
		return NULL; /* not reached */
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
	case TY_INTEGER:
	case TY_SCALAR:
	case TY_LOGICAL:
	case TY_STRING:
	case TY_EMPTY_ARRAY:
		return NULL;
	}
	return NULL; /* not reached: every kind is a case */
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

/* A tensor's type: its datum type in tract's dialect ("f32"), else its
 * NNEF data type ("scalar"). */
static void put_type(StrBuf *out, const FlatTensor *t, const TypeTable *tt)
{
	if (t->datum != DT_NONE)
		sb_puts(out, dtype_name((DType)t->datum));
	else
		ty_print(out, flat_tensor_dtype(t, tt));
}

/* "scalar[1,3,224,224]" for each tensor of v, separated by ", ". */
static void put_types(StrBuf *out, const Value *v, const TypeTable *tt,
		      bool *first)
{
	if (v->kind == VAL_TENSOR) {
		if (!*first)
			sb_puts(out, ", ");
		*first = false;
		put_type(out, v->u.t, tt);
		Shape shape = flat_tensor_shape(v->u.t);
		shape_print(out, &shape);
	} else if (v->kind == VAL_ARRAY || v->kind == VAL_TUPLE) {
		for (size_t i = 0; i < v->n; i++)
			put_types(out, v->u.items[i], tt, first);
	}
}

/* tract's dialect: whether v is the absence of an optional argument, the
 * default `false` of a parameter that is not logical (its declarations
 * say "scale: scalar = false"), left out of the call. */
static bool absent(const SemaParam *p, const Value *v)
{
	return p->def && p->def->kind == AST_BOOL && !p->def->u.bval &&
	       v->kind == VAL_BOOL && !v->u.b && p->type->kind != TY_LOGICAL;
}

static void print_op(StrBuf *out, const FlatOp *op, const TypeTable *tt,
		     bool annotate, bool tract)
{
	const SemaFrag *f = op->frag;
	sb_puts(out, "    ");
	for (size_t k = 0; k < f->nresults; k++) {
		if (k)
			sb_puts(out, ", ");
		flat_print_value(out, op->results[k]);
	}
	if (tract && op->prim == SHAPE_OP_CONSTANT) {
		size_t at = 0;
		sb_puts(out, " = ");
		print_literal(out, flat_op_args(op)[1], flat_op_args(op)[0], 0, &at);
		sb_puts(out, ";");
		if (annotate) {
			bool first = true;
			sb_puts(out, "  # ");
			put_types(out, op->results[0], tt, &first);
		}
		sb_putc(out, '\n');
		return;
	}
	sb_printf(out, " = %s", f->name);
	if (needs_generic(op, tt)) {
		sb_putc(out, '<');
		ty_print(out, flat_op_generic(op, tt));
		sb_putc(out, '>');
	}
	sb_putc(out, '(');
	bool named = false; /* positional arguments come first */
	for (size_t i = 0, n = 0; i < f->nparams; i++) {
		const SemaParam *p = &f->params[i];
		const Value *v = flat_op_args(op)[i];
		if (tract && absent(p, v)) {
			named = true; /* left out: those after it by name */
			continue;
		}
		if (n++)
			sb_puts(out, ", ");
		named |= ty_is_attribute(f->params[i].type) ||
			 (tract && !ty_all_tensors(f->params[i].type));
		if (named)
			sb_printf(out, "%s = ", f->params[i].name);
		flat_print_value(out, flat_op_args(op)[i]);
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
		ast_print_name(out, p[i].name);
	}
	sb_puts(out, " )");
}

/* tract's dialect: the extension lines of the document (registries,
 * symbols, assertions), as written, then the symbols it introduced by
 * their use; fragment definitions and operator expressions need no line. */
static void tract_extensions(StrBuf *out, const FlatGraph *g)
{
	const AstDoc *doc = g->prog->doc;
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstItem *it = &doc->items[i];
		if (it->kind != AST_ITEM_EXTENSION || !it->nexts ||
		    strncmp(it->exts[0].name, "KHR_", 4) == 0)
			continue;
		sb_puts(out, "extension");
		for (size_t k = 0; k < it->nexts; k++)
			sb_printf(out, " %s", it->exts[k].name);
		if (it->expr.len)
			sb_printf(out, " %.*s", (int)it->expr.len, it->expr.file->text + it->expr.off);
		sb_puts(out, ";\n");
	}
	const PtrMap *implicit = &g->prog->implicit_symbols;
	for (size_t i = 0; i < implicit->cap; i++)
		if (implicit->slots[i].key)
			sb_printf(out, "extension tract_symbol %s;\n", (const char *)implicit->slots[i].key);
}

void flat_print(StrBuf *out, const FlatGraph *g, bool annotate_shapes)
{
	const TypeTable *tt = &g->prog->types;
	bool tract = g->prog->doc->dialect == DIALECT_TRACT;
	sb_puts(out, "version 1.0;\n");
	bool operators = false;
	for (size_t i = 0; i < g->nkeep; i++)
		operators |= parse_body_needs_operators(g->keep[i]->def->body);
	if (g->nkeep && !tract)
		sb_printf(out, "extension KHR_enable_fragment_definitions%s;\n",
			  operators ? " KHR_enable_operator_expressions" : "");
	/* the symbols an extent may still be (--lenient) */
	const AstVendor *v = &g->prog->doc->vendor;
	if (tract)
		tract_extensions(out, g);
	for (size_t i = 0; i < v->nsymbols && !tract; i++)
		sb_printf(out, "extension tract_symbol %s;\n", v->symbols[i]->name);
	sb_putc(out, '\n');
	for (size_t i = 0; i < g->nkeep; i++) {
		const AstDef *d = g->keep[i]->def;
		sb_putn(out, d->name_loc.file->text + d->loc.off, d->loc.len);
		sb_puts(out, "\n\n");
	}
	sb_puts(out, "graph ");
	ast_print_name(out, g->graph->name);
	print_names(out, g->graph->params, g->graph->nparams);
	sb_puts(out, " -> ");
	print_names(out, g->graph->results, g->graph->nresults);
	sb_puts(out, "\n{\n");
	for (size_t i = 0; i < g->nops; i++)
		print_op(out, g->ops[i], tt, annotate_shapes, tract);
	sb_puts(out, "}\n");
}

void flat_print_shapes(StrBuf *out, const FlatGraph *g, bool all)
{
	for (size_t i = 0; i < g->ntensors; i++) {
		const FlatTensor *t = flat_tensor(g, i);
		if (!all && !flat_tensor_named(t))
			continue;
		ast_print_name(out, t->name);
		sb_puts(out, ": ");
		put_type(out, t, &g->prog->types);
		Shape shape = flat_tensor_shape(t);
		shape_print(out, &shape);
		sb_putc(out, '\n');
	}
}

/* ---- values as NNEF literals ------------------------------------------- */

void flat_print_value(StrBuf *out, const Value *v)
{
	char buf[32];
	switch (v->kind) {
	case VAL_SYMBOL:
		dim_print(out, v->u.dim, true);
		return;
	case VAL_INT:
		sb_printf(out, "%lld", (long long)v->u.i);
		return;
	case VAL_SCALAR:
		util_format_real(buf, v->u.s);
		sb_puts(out, buf);
		return;
	case VAL_BOOL:
		sb_puts(out, v->u.b ? "true" : "false");
		return;
	case VAL_STR:
		sb_putc(out, '\'');
		for (size_t i = 0; i < v->n; i++) {
			char c = v->u.str[i];
			if (c == '\'' || c == '\\')
				sb_putc(out, '\\');
			sb_putc(out, c);
		}
		sb_putc(out, '\'');
		return;
	case VAL_ARRAY:
	case VAL_TUPLE:
		sb_putc(out, v->kind == VAL_ARRAY ? '[' : '(');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				sb_puts(out, ", ");
			flat_print_value(out, v->u.items[i]);
		}
		sb_putc(out, v->kind == VAL_ARRAY ? ']' : ')');
		return;
	case VAL_TENSOR:
		if (v->u.t->name)
			ast_print_name(out, v->u.t->name);
		else
			sb_putc(out, '?');
		return;
	}
}
