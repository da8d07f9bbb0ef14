/*
 * graph.c - the flat graph through nnef.h: tensors, operations and
 * their argument values, read in place.
 */
#include "api/api_internal.h"

#include <string.h>

#define OUT(T, p) ((const T *)(const void *)(p))

const nnef_graph *nnef_model_graph(const nnef_model *m)
{
	return OUT(nnef_graph, m->m.flat);
}

const char *nnef_graph_name(const nnef_graph *g)
{
	return api_graph(g)->graph->name;
}

size_t nnef_graph_tensor_count(const nnef_graph *g)
{
	return api_graph(g)->ntensors;
}

const nnef_tensor_info *nnef_graph_tensor(const nnef_graph *g, size_t i)
{
	const FlatGraph *fg = api_graph(g);
	return i < fg->ntensors ? OUT(nnef_tensor_info, flat_tensor(fg, i)) : NULL;
}

size_t nnef_graph_input_count(const nnef_graph *g)
{
	return api_graph(g)->ninputs;
}

const nnef_tensor_info *nnef_graph_input(const nnef_graph *g, size_t i)
{
	const FlatGraph *fg = api_graph(g);
	return i < fg->ninputs ? OUT(nnef_tensor_info, fg->inputs[i]) : NULL;
}

size_t nnef_graph_output_count(const nnef_graph *g)
{
	return api_graph(g)->noutputs;
}

const nnef_tensor_info *nnef_graph_output(const nnef_graph *g, size_t i)
{
	const FlatGraph *fg = api_graph(g);
	if (i >= fg->noutputs || fg->outputs[i]->kind != VAL_TENSOR)
		return NULL;
	return OUT(nnef_tensor_info, fg->outputs[i]->u.t);
}

const char *nnef_tensor_info_name(const nnef_tensor_info *t)
{
	const FlatTensor *ft = api_tensor_info(t);
	return ft->name;
}

bool nnef_tensor_info_named(const nnef_tensor_info *t)
{
	return flat_tensor_named(api_tensor_info(t));
}

nnef_dtype nnef_tensor_info_dtype(const nnef_tensor_info *t)
{
	switch (flat_tensor_kind(api_tensor_info(t))) {
	case TY_INTEGER:
		return NNEF_INTEGER;
	case TY_LOGICAL:
		return NNEF_LOGICAL;
	case TY_SCALAR:
	case TY_STRING:
	case TY_GENERIC:
	case TY_TENSOR:
	case TY_ARRAY:
	case TY_TUPLE:
	case TY_EMPTY_ARRAY:
		return NNEF_SCALAR;
	}
	return NNEF_SCALAR; /* not reached: every kind is a case */
}

bool nnef_tensor_info_shape_known(const nnef_tensor_info *t)
{
	return api_tensor_info(t)->known;
}

size_t nnef_tensor_info_rank(const nnef_tensor_info *t)
{
	const FlatTensor *s = api_tensor_info(t);
	return s->known ? s->rank : 0;
}

int64_t nnef_tensor_info_dim(const nnef_tensor_info *t, size_t i)
{
	const FlatTensor *s = api_tensor_info(t);
	if (!s->known || i >= s->rank)
		return 0;
	return dim_is_symbolic(s->dims[i]) ? -1 : s->dims[i];
}

const char *nnef_tensor_info_dim_text(const nnef_tensor_info *t, size_t i)
{
	const FlatTensor *s = api_tensor_info(t);
	if (!s->known || i >= s->rank || !dim_is_symbolic(s->dims[i]))
		return NULL;
	return dim_text_of(dim_expr_of(s->dims[i])); /* made by the flattener */
}

const char *nnef_tensor_info_datum_type(const nnef_tensor_info *t)
{
	DType d = (DType)api_tensor_info(t)->datum;
	return d == DT_NONE ? NULL : dtype_name(d);
}

const nnef_op *nnef_tensor_info_producer(const nnef_tensor_info *t)
{
	return OUT(nnef_op, api_tensor_info(t)->producer);
}

size_t nnef_graph_quant_count(const nnef_graph *g, bool *applied)
{
	const FlatGraph *fg = api_graph(g);
	*applied = fg->quantized;
	return fg->nquant;
}

size_t nnef_graph_op_count(const nnef_graph *g)
{
	return api_graph(g)->nops;
}

const nnef_op *nnef_graph_op(const nnef_graph *g, size_t i)
{
	const FlatGraph *fg = api_graph(g);
	return i < fg->nops ? OUT(nnef_op, fg->ops[i]) : NULL;
}

const char *nnef_op_name(const nnef_op *op)
{
	return api_op(op)->frag->name;
}

bool nnef_op_is_primitive(const nnef_op *op)
{
	return api_op(op)->prim != SHAPE_OP_NONE;
}

nnef_location nnef_op_location(const nnef_op *op)
{
	Loc l = flat_op_loc(api_op(op));
	for (const Frame *f = flat_op_frame(api_op(op)); f; f = f->parent)
		if (!f->parent)
			l = f->loc; /* the call written in the graph */
	return api_location(l);
}

const char *nnef_op_compound(const nnef_op *op)
{
	const Frame *f = flat_op_frame(api_op(op));
	while (f && f->parent)
		f = f->parent;
	return f ? f->frag->name : NULL;
}

size_t nnef_op_arg_count(const nnef_op *op)
{
	return api_op(op)->frag->nparams;
}

const char *nnef_op_arg_name(const nnef_op *op, size_t i)
{
	const SemaFrag *f = api_op(op)->frag;
	return i < f->nparams ? f->params[i].name : NULL;
}

const nnef_value *nnef_op_arg(const nnef_op *op, size_t i)
{
	const FlatOp *o = api_op(op);
	return i < o->frag->nparams ? OUT(nnef_value, flat_op_args(o)[i]) : NULL;
}

size_t nnef_op_result_count(const nnef_op *op)
{
	return api_op(op)->frag->nresults;
}

const char *nnef_op_result_name(const nnef_op *op, size_t i)
{
	const SemaFrag *f = api_op(op)->frag;
	return i < f->nresults ? f->results[i].name : NULL;
}

const nnef_value *nnef_op_result(const nnef_op *op, size_t i)
{
	const FlatOp *o = api_op(op);
	return i < o->frag->nresults ? OUT(nnef_value, o->results[i]) : NULL;
}

nnef_value_kind nnef_value_kind_of(const nnef_value *v)
{
	static const nnef_value_kind kinds[] = {
		[VAL_INT] = NNEF_VALUE_INTEGER, [VAL_SCALAR] = NNEF_VALUE_SCALAR,
		[VAL_BOOL] = NNEF_VALUE_LOGICAL, [VAL_STR] = NNEF_VALUE_STRING,
		[VAL_ARRAY] = NNEF_VALUE_ARRAY, [VAL_TUPLE] = NNEF_VALUE_TUPLE,
		[VAL_TENSOR] = NNEF_VALUE_TENSOR,
		[VAL_SYMBOL] = NNEF_VALUE_SYMBOL,
	};
	return kinds[api_value(v)->kind];
}

int64_t nnef_value_integer(const nnef_value *v)
{
	return api_value(v)->kind == VAL_INT ? api_value(v)->u.i : 0;
}

double nnef_value_scalar(const nnef_value *v)
{
	const Value *x = api_value(v);
	return x->kind == VAL_SCALAR ? x->u.s : x->kind == VAL_INT ? (double)x->u.i : 0;
}

bool nnef_value_logical(const nnef_value *v)
{
	return api_value(v)->kind == VAL_BOOL && api_value(v)->u.b;
}

const char *nnef_value_string(const nnef_value *v, size_t *len)
{
	const Value *x = api_value(v);
	if (x->kind == VAL_SYMBOL) { /* its text, made when it was */
		const char *text = dim_text_of(x->u.dim);
		*len = text ? strlen(text) : 0;
		return text;
	}
	if (x->kind != VAL_STR) {
		*len = 0;
		return NULL;
	}
	*len = x->n;
	return x->u.str;
}

size_t nnef_value_item_count(const nnef_value *v)
{
	const Value *x = api_value(v);
	return x->kind == VAL_ARRAY || x->kind == VAL_TUPLE ? x->n : 0;
}

const nnef_value *nnef_value_item(const nnef_value *v, size_t i)
{
	return i < nnef_value_item_count(v) ? OUT(nnef_value, api_value(v)->u.items[i]) : NULL;
}

const nnef_tensor_info *nnef_value_tensor(const nnef_value *v)
{
	const Value *x = api_value(v);
	return x->kind == VAL_TENSOR ? OUT(nnef_tensor_info, x->u.t) : NULL;
}
