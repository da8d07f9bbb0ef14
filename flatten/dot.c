/*
 * dot.c - the flat graph (spec chapter 6) as a Graphviz DOT digraph, for
 * `dot -Tsvg`. Reads a FlatGraph; writes text only.
 *
 * Nodes, one line each, in graph order:
 *   - every operation is node "op<i>", i its index in g->ops, so the DOT
 *     has exactly g->nops operation nodes (fewer when folding, below):
 *       external   an ellipse filled blue, labelled with the input's name;
 *       variable   a cylinder filled yellow, labelled with its label;
 *       constant   a small plain node: "constant" and its value (cut short);
 *       primitive  a box: its name, then one line "param = value" per
 *                  argument that is not a tensor and differs from the
 *                  declared default (at most DOT_ATTRS_MAX lines, each
 *                  value cut to DOT_VALUE_MAX characters);
 *       custom     a dashed box (declared without body), its name and
 *                  argument lines as a primitive's;
 *       kept       a rounded box (a compound kept atomic), its name and
 *                  argument lines as a primitive's;
 *   - every tensor of the graph's outputs is a sink "out<k>", a green
 *     double octagon labelled with its name, after the operations.
 * Edges: one per (tensor, consumer) pair, from the producer's node to the
 * consumer's, written after the consumer's node in argument order, and
 * one from each output's producer to its sink. The label is the tensor's
 * name and shape, its data type in front unless scalar:
 * "conv1: [1,16,32,32]", "mask: logical[1,10]", "y: [?]" (shape not
 * known). A tensor that is an output and also consumed has both kinds of
 * edges; the items of an array result (split, unstack) are tensors like
 * any other; literal arguments are not edges (a primitive shows those
 * that are not defaults in its label).
 *
 * Folding the weights (flat_print_dot's fold_weights), a variable or
 * constant that some operation consumes and that is not a graph output
 * has no node and no edges: each consumer's label ends with a line per
 * such tensor it takes, in argument order, once each, "LABEL: SHAPE" for
 * a variable (its label, as its node would show) and "NAME: SHAPE = VALUE"
 * for a constant (the value cut short), the shape written as on edges:
 * "conv\npadding = [(1, 1), (1, 1)]\nconv/filter: [4,3,3,3]".
 *
 *   digraph "net" {
 *     node [shape=box, fontname="Helvetica", fontsize=11];
 *     edge [fontname="Helvetica", fontsize=9];
 *     op0 [label="input", shape=ellipse, style=filled, fillcolor="#cfe2f3"];
 *     op1 [label="max\ny = 0.0"];
 *     op0 -> op1 [label="input: [1,3]"];
 *     out0 [label="output", shape=doubleoctagon, style=filled, fillcolor="#d9ead3"];
 *     op1 -> out0 [label="output: [1,3]"];
 *   }
 *
 * Every string is written quoted, with quotes, backslashes and line
 * breaks escaped. Linear in the size of the graph: producers and the last
 * consumer of each tensor are found through arrays indexed by tensor id.
 */
#include "flatten/flatten_internal.h"

#include <stdlib.h>
#include <string.h>

#define DOT_VALUE_MAX 32 /* characters of a value shown in a label */
#define DOT_ATTRS_MAX 4  /* argument lines in a primitive's label */

/* What the writer keeps while it walks the graph. */
typedef struct DotCtx {
	StrBuf *out;
	const FlatGraph *g;
	size_t *prod;   /* tensor id -> index of its producer + 1 (0: none) */
	size_t *seen;   /* tensor id -> index of its last consumer + 1 */
	bool *folded;   /* op index -> drawn in its consumers' labels */
	size_t *listed; /* tensor id -> last op whose label lists it + 1 */
	StrBuf label;   /* the label being built */
	StrBuf value;   /* a value as printed, before it is cut short */
} DotCtx;

/* Writes s[0..n) as a DOT quoted string: '"' and '\' escaped, a line
 * break as the label line break "\n", any other byte that is not
 * printable ASCII as the text "\xNN". */
static void put_quoted(StrBuf *out, const char *s, size_t n)
{
	sb_putc(out, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			sb_putc(out, '\\');
			sb_putc(out, (char)c);
		} else if (c == '\n') {
			sb_puts(out, "\\n");
		} else if (c < 0x20 || c >= 0x7f) {
			sb_printf(out, "\\\\x%02x", c);
		} else {
			sb_putc(out, (char)c);
		}
	}
	sb_putc(out, '"');
}

/* Whether t is a tensor of g; *id receives its index in g->tensors. */
static bool tensor_id(const FlatGraph *g, const FlatTensor *t, size_t *id)
{
	*id = flat_tensor_id(t);
	return *id < g->ntensors && flat_tensor(g, *id) == t;
}

/* Appends t's type and shape to the label: "[d0,d1]", "logical[d0,d1]"
 * for a tensor not of scalars. */
static void put_shape(DotCtx *c, const FlatTensor *t)
{
	if (t->dtype && flat_tensor_kind(t) != TY_SCALAR)
		ty_print(&c->label, flat_tensor_dtype(t, &c->g->prog->types));
	Shape shape = flat_tensor_shape(t);
	shape_print(&c->label, &shape);
}

/* "name: [d0,d1]" ("name: logical[d0,d1]" for a tensor not of scalars). */
static void put_tensor_label(DotCtx *c, const FlatTensor *t)
{
	sb_clear(&c->label);
	sb_puts(&c->label, t->name ? t->name : "?");
	sb_puts(&c->label, ": ");
	put_shape(c, t);
	put_quoted(c->out, c->label.data, c->label.len);
}

/* Appends v as an NNEF literal to the label, cut to DOT_VALUE_MAX
 * characters ("..." at the end when cut). */
static void put_short_value(DotCtx *c, const Value *v)
{
	sb_clear(&c->value);
	flat_print_value(&c->value, v);
	if (c->value.len <= DOT_VALUE_MAX) {
		sb_putn(&c->label, c->value.data, c->value.len);
		return;
	}
	sb_putn(&c->label, c->value.data, DOT_VALUE_MAX - 3);
	sb_puts(&c->label, "...");
}

/* Appends a line "param = value" per argument of op (a primitive, a
 * custom or a kept compound) that is not a tensor and not its
 * parameter's default. */
static void put_attrs(DotCtx *c, const FlatOp *op)
{
	const SemaFrag *f = op->frag;
	size_t shown = 0;
	for (size_t i = 0; i < f->nparams; i++) {
		const Value *v = flat_op_args(op)[i];
		if (!v || value_holds(v, VAL_TENSOR))
			continue;
		if (f->params[i].def && flat_literal_equals(f->params[i].def, v))
			continue;
		if (shown++ == DOT_ATTRS_MAX) {
			sb_puts(&c->label, "\n...");
			return;
		}
		sb_printf(&c->label, "\n%s = ", f->params[i].name);
		put_short_value(c, v);
	}
}

/* Builds op's label in c->label; returns the node's other attributes. */
static const char *op_look(DotCtx *c, const FlatOp *op)
{
	const Value *r = op->results[0];
	const Value *a = op->frag->nparams > 1 ? flat_op_args(op)[1] : NULL;
	if (op->prim == SHAPE_OP_EXTERNAL && r && r->kind == VAL_TENSOR) {
		sb_puts(&c->label, r->u.t->name ? r->u.t->name : "?");
		return "shape=ellipse, style=filled, fillcolor=\"#cfe2f3\"";
	}
	if (op->prim == SHAPE_OP_VARIABLE && a && a->kind == VAL_STR &&
	    a->n) {
		sb_putn(&c->label, a->u.str, a->n);
		return "shape=cylinder, style=filled, fillcolor=\"#fff2cc\"";
	}
	sb_puts(&c->label, op->frag->name);
	if (op->prim == SHAPE_OP_CONSTANT && a) {
		sb_putc(&c->label, '\n');
		put_short_value(c, a);
		return "shape=plain, fontsize=9";
	}
	put_attrs(c, op);
	if (op->prim != SHAPE_OP_NONE)
		return NULL;
	if (!op->frag->def->body)
		return "style=dashed";
	return "style=rounded";
}

/* Appends to the label of operation number i a line per tensor of v, an
 * argument of it, whose producer is folded: "LABEL: SHAPE" (a variable)
 * or "NAME: SHAPE = VALUE" (a constant); once per tensor. */
static void put_folded(DotCtx *c, const Value *v, size_t i)
{
	size_t id;
	if (!v)
		return;
	if (v->kind == VAL_ARRAY || v->kind == VAL_TUPLE) {
		for (size_t k = 0; k < v->n; k++)
			put_folded(c, v->u.items[k], i);
		return;
	}
	if (v->kind != VAL_TENSOR || !tensor_id(c->g, v->u.t, &id) ||
	    !c->prod[id] || !c->folded[c->prod[id] - 1] ||
	    c->listed[id] == i + 1)
		return;
	c->listed[id] = i + 1;
	const FlatOp *w = c->g->ops[c->prod[id] - 1];
	const Value *a = flat_op_args(w)[1];
	const FlatTensor *t = v->u.t;
	sb_putc(&c->label, '\n');
	if (w->prim == SHAPE_OP_VARIABLE && a && a->kind == VAL_STR && a->n)
		sb_putn(&c->label, a->u.str, a->n);
	else
		sb_puts(&c->label, t->name ? t->name : "?");
	sb_puts(&c->label, ": ");
	put_shape(c, t);
	if (w->prim == SHAPE_OP_CONSTANT && a) {
		sb_puts(&c->label, " = ");
		put_short_value(c, a);
	}
}

/* The node of operation number i (none for a folded one). */
static void put_op_node(DotCtx *c, size_t i)
{
	const FlatOp *op = c->g->ops[i];
	if (c->folded[i])
		return;
	sb_clear(&c->label);
	const char *look = op_look(c, op);
	for (size_t p = 0; p < op->frag->nparams; p++)
		if (!ty_is_attribute(op->frag->params[p].type))
			put_folded(c, flat_op_args(op)[p], i);
	sb_printf(c->out, "  op%zu [label=", i);
	put_quoted(c->out, c->label.data, c->label.len);
	if (look) {
		sb_puts(c->out, ", ");
		sb_puts(c->out, look);
	}
	sb_puts(c->out, "];\n");
}

/* Records operation number i as the producer of every tensor of v. */
static void mark_producer(DotCtx *c, const Value *v, size_t i)
{
	size_t id;
	if (!v)
		return;
	if (v->kind == VAL_ARRAY || v->kind == VAL_TUPLE) {
		for (size_t k = 0; k < v->n; k++)
			mark_producer(c, v->u.items[k], i);
	} else if (v->kind == VAL_TENSOR && tensor_id(c->g, v->u.t, &id)) {
		c->prod[id] = i + 1;
	}
}

/* Sets, to fold, whether the variable or constant producing each tensor
 * of v is folded: true for the arguments of operations, false for the
 * graph's outputs (marked after them). */
static void mark_folded(DotCtx *c, const Value *v, bool fold)
{
	size_t id;
	if (!v)
		return;
	if (v->kind == VAL_ARRAY || v->kind == VAL_TUPLE) {
		for (size_t k = 0; k < v->n; k++)
			mark_folded(c, v->u.items[k], fold);
		return;
	}
	if (v->kind != VAL_TENSOR || !tensor_id(c->g, v->u.t, &id) || !c->prod[id])
		return;
	ShapeOp prim = c->g->ops[c->prod[id] - 1]->prim;
	if (prim == SHAPE_OP_VARIABLE || prim == SHAPE_OP_CONSTANT)
		c->folded[c->prod[id] - 1] = fold;
}

/* An edge into operation number i from the producer of each tensor of
 * v, an argument of it; one per tensor however often it is passed. */
static void put_edges(DotCtx *c, const Value *v, size_t i)
{
	size_t id;
	if (!v)
		return;
	if (v->kind == VAL_ARRAY || v->kind == VAL_TUPLE) {
		for (size_t k = 0; k < v->n; k++)
			put_edges(c, v->u.items[k], i);
		return;
	}
	if (v->kind != VAL_TENSOR || !tensor_id(c->g, v->u.t, &id) ||
	    !c->prod[id] || c->seen[id] == i + 1 ||
	    c->folded[c->prod[id] - 1])
		return; /* a literal is not an edge, nor a folded weight */
	c->seen[id] = i + 1;
	sb_printf(c->out, "  op%zu -> op%zu [label=", c->prod[id] - 1, i);
	put_tensor_label(c, v->u.t);
	sb_puts(c->out, "];\n");
}

/* A sink per tensor of v, a graph output, and the edge into it from its
 * producer; *k counts the sinks. */
static void put_sinks(DotCtx *c, const Value *v, size_t *k)
{
	size_t id;
	if (!v)
		return;
	if (v->kind == VAL_ARRAY || v->kind == VAL_TUPLE) {
		for (size_t j = 0; j < v->n; j++)
			put_sinks(c, v->u.items[j], k);
		return;
	}
	if (v->kind != VAL_TENSOR)
		return;
	const FlatTensor *t = v->u.t;
	sb_printf(c->out, "  out%zu [label=", *k);
	put_quoted(c->out, t->name ? t->name : "?",
		   t->name ? strlen(t->name) : 1);
	sb_puts(c->out, ", shape=doubleoctagon, style=filled, "
			"fillcolor=\"#d9ead3\"];\n");
	if (tensor_id(c->g, t, &id) && c->prod[id]) {
		sb_printf(c->out, "  op%zu -> out%zu [label=", c->prod[id] - 1,
			  *k);
		put_tensor_label(c, t);
		sb_puts(c->out, "];\n");
	}
	(*k)++;
}

void flat_print_dot(StrBuf *out, const FlatGraph *g, bool fold_weights)
{
	DotCtx c = { .out = out, .g = g };
	size_t n = g->ntensors ? g->ntensors : 1;
	c.prod = util_calloc(n, sizeof(*c.prod));
	c.seen = util_calloc(n, sizeof(*c.seen));
	c.listed = util_calloc(n, sizeof(*c.listed));
	c.folded = util_calloc(g->nops ? g->nops : 1, sizeof(*c.folded));
	sb_init(&c.label);
	sb_init(&c.value);
	for (size_t i = 0; i < g->nops; i++)
		for (size_t r = 0; r < g->ops[i]->frag->nresults; r++)
			mark_producer(&c, g->ops[i]->results[r], i);
	for (size_t i = 0; fold_weights && i < g->nops; i++) {
		const FlatOp *op = g->ops[i];
		for (size_t p = 0; p < op->frag->nparams; p++)
			if (!ty_is_attribute(op->frag->params[p].type))
				mark_folded(&c, flat_op_args(op)[p], true);
	}
	for (size_t i = 0; fold_weights && i < g->noutputs; i++)
		mark_folded(&c, g->outputs[i], false);

	sb_puts(out, "digraph ");
	put_quoted(out, g->graph->name, strlen(g->graph->name));
	sb_puts(out, " {\n"
		     "  node [shape=box, fontname=\"Helvetica\", fontsize=11];\n"
		     "  edge [fontname=\"Helvetica\", fontsize=9];\n");
	for (size_t i = 0; i < g->nops; i++) {
		const FlatOp *op = g->ops[i];
		put_op_node(&c, i);
		for (size_t p = 0; p < op->frag->nparams; p++)
			if (!ty_is_attribute(op->frag->params[p].type))
				put_edges(&c, flat_op_args(op)[p], i);
	}
	size_t k = 0;
	for (size_t i = 0; i < g->noutputs; i++)
		put_sinks(&c, g->outputs[i], &k);
	sb_puts(out, "}\n");

	sb_free(&c.label);
	sb_free(&c.value);
	util_free(c.prod);
	util_free(c.seen);
	util_free(c.listed);
	util_free(c.folded);
}
