/*
 * tract_coerce.c - evaluation in tract's dialect (sema/tract/TRACT-NOTES.md B.3):
 * what tract makes of a value given where the declaration expects
 * something else.
 *
 * - A tensor given for an attribute (repeats = [d0, d1], where d0 was
 *   sliced from tract_core_shape_of): its value, which tract requires to
 *   be known when the model is loaded: a tensor of one item gives that
 *   item (converted to the attribute's type); a tensor computed from
 *   variables only is known then, but not to the check (its operation is
 *   then not shape-checked, and a note says so); a tensor computed when
 *   the model runs is an error (E0814), as in tract.
 * - An array of literals given for a tensor, or assigned to a graph
 *   identifier, is a constant tensor (`constant` in the flat graph), its
 *   shape the array's nesting; an array holding tensors is their stack.
 * - A literal assigned to a graph identifier is a constant of rank 0; the
 *   one tensor of an array result (tract_core_scan's outputs) assigned to
 *   an identifier is that tensor.
 */
#include "flatten/flatten_internal.h"

#include <assert.h>
#include <string.h>

DType flat_variable_datum(Flattener *F, const FlatOp *op)
{
	const Value *label = flat_op_args(op)[1];
	DType d = DT_NONE;
	if (F->opt->var_datum && label->kind == VAL_STR)
		d = F->opt->var_datum(F->opt->model_ctx, label->u.str, label->n);
	if (d != DT_NONE)
		return d;
	const Type *g = flat_op_generic(op, F->tt);
	return g ? flat_kind_datum(g->kind) : DT_F32;
}

/* ---- tensors given for attributes ------------------------------------------ */

/* Where a value comes from, for messages: the argument written, else the
 * invocation. */
typedef struct Site {
	Loc loc;
	const Frame *frame;
	const char *param;
	const char *op;
	bool later;             /* a value known only when the model is
				   loaded was met */
} Site;

static const Value *new_item(Flattener *F, Value v)
{
	Value *p = ARENA_NEW(F->arena, Value);
	*p = v;
	return p;
}

/* An item of a tensor's value, as a value of primitive type `type`. */
static const Value *item_as(Flattener *F, const Value *item, const Type *type,
			    Site *s, const FlatTensor *t)
{
	Value out;
	switch (type->kind) {
	case TY_INTEGER:
		if (item->kind == VAL_INT || item->kind == VAL_SYMBOL)
			return item;
		if (flat_item_cast(F, item, DT_I64, &out))
			return new_item(F, out);
		break;
	case TY_SCALAR:
		if (item->kind == VAL_SCALAR)
			return item;
		if (item->kind == VAL_SYMBOL) {
			flat_error(F, DIAG_E0814, s->loc, s->frame, "'%s' of '%s' is the integer %s of '%s', known only when the model runs; tract needs a number here", s->param, s->op, dim_text_of(item->u.dim), t->name);
			return NULL;
		}
		if (flat_item_cast(F, item, DT_F64, &out))
			return new_item(F, out);
		break;
	case TY_LOGICAL:
		if (flat_item_cast(F, item, DT_BOOL, &out))
			return new_item(F, out);
		break;
	case TY_STRING:
		if (item->kind == VAL_STR)
			return item;
		break;
	case TY_GENERIC:
		return item;
	case TY_TENSOR:
	case TY_ARRAY:
	case TY_TUPLE:
	case TY_EMPTY_ARRAY:
		break;
	}
	flat_error(F, DIAG_E0814, s->loc, s->frame, "'%s' of '%s' takes a value of type %s, which the value of '%s' cannot be", s->param, s->op, ty_str(F->arena, type), t->name);
	return NULL;
}

bool flat_tract_is_wire(const char *op, const char *param)
{
	static const char *const wires[][2] = {
		{ "tract_core_range", "start" }, { "tract_core_range", "end" },
		{ "tract_core_range", "step" }, { "tract_core_dyn_slice", "start" },
		{ "tract_core_dyn_slice", "end" },
		{ "tract_core_qconv", "a0" }, { "tract_core_qconv", "a_scale" },
		{ "tract_core_qconv", "b0" }, { "tract_core_qconv", "b_scale" },
		{ "tract_core_qconv", "c0" }, { "tract_core_qconv", "c_scale" },
		{ "tract_core_qmatmul", "a0" }, { "tract_core_qmatmul", "a_scale" },
		{ "tract_core_qmatmul", "b0" }, { "tract_core_qmatmul", "b_scale" },
		{ "tract_core_qmatmul", "c0" }, { "tract_core_qmatmul", "c_scale" },
	};
	for (size_t i = 0; i < sizeof(wires) / sizeof(*wires); i++)
		if (strcmp(wires[i][0], op) == 0 && strcmp(wires[i][1], param) == 0)
			return true;
	return false;
}

/* The value of tensor t where an attribute of type `type` is expected. */
static const Value *tensor_as_attribute(Flattener *F, const Value *v,
					const Type *type, Site *s)
{
	const FlatTensor *t = v->u.t;
	const FlatKnown *k = flat_known(F, v);
	if (flat_tract_is_wire(s->op, s->param) && (!k || (k->items && k->n != 1)))
		return v; /* an input of the operation: of any number of
			     values, and computed when the model runs or not */
	if (!k) {
		Diag *d = flat_error(F, DIAG_E0814, s->loc, s->frame, "'%s' of '%s' is given '%s', whose value is computed when the model runs; tract needs it when the model is loaded", s->param, s->op, t->name);
		diag_hint(F->diags, d, "an attribute may be given a tensor computed from constants, variables and shapes (tract_core_shape_of), not from the graph's inputs' values");
		return NULL;
	}
	if (!k->items) {
		s->later = true; /* from variables: known when loaded */
		return v;
	}
	if (k->n != 1) {
		flat_error(F, DIAG_E0814, s->loc, s->frame, "'%s' of '%s' is given '%s', a tensor of %u values; tract takes one value here", s->param, s->op, t->name, (unsigned)k->n);
		return NULL;
	}
	if (type->kind == TY_ARRAY) { /* a one-item array of it */
		const Value *one = item_as(F, &k->items[0], type->item, s, t);
		if (!one)
			return NULL;
		const Value **items = ARENA_ARRAY(F->arena, const Value *, 1);
		items[0] = one;
		return flat_val_list(F, VAL_ARRAY, items, 1);
	}
	return item_as(F, &k->items[0], type, s, t);
}

/* v given for attribute type `type`: its tensors replaced by their
 * values, and integers given for logicals made logicals. */
static const Value *as_attribute(Flattener *F, const Value *v, const Type *type,
				 Site *s)
{
	if (v->kind == VAL_TENSOR)
		return tensor_as_attribute(F, v, type, s);
	if (v->kind == VAL_INT && type->kind == TY_LOGICAL)
		return flat_val_bool(F, v->u.i != 0); /* tract reads flags so */
	if ((v->kind != VAL_ARRAY && v->kind != VAL_TUPLE) ||
	    (type->kind != TY_ARRAY && type->kind != TY_TUPLE))
		return v;
	const Value **items = NULL;
	for (size_t i = 0; i < v->n; i++) {
		const Type *it = type->kind == TY_ARRAY ? type->item
			       : i < type->n ? type->items[i] : NULL;
		if (!it)
			return v;
		const Value *x = as_attribute(F, v->u.items[i], it, s);
		if (!x)
			return NULL;
		if (x != v->u.items[i] && !items) {
			items = ARENA_ARRAY(F->arena, const Value *, v->n);
			memcpy(items, v->u.items, v->n * sizeof(*items));
		}
		if (items)
			items[i] = x;
	}
	return items ? flat_val_list(F, v->kind, items, v->n) : v;
}

/* ---- arrays given for tensors: constants ------------------------------------- */

/* The shape of a nested array of literals (rectangular), its items
 * appended to *leaves; false with *why when it is not one. */
static bool array_shape(const Value *v, int64_t *dims, uint32_t depth,
			uint32_t *rank, const Value ***leaves, size_t *n,
			size_t *cap, const char **why)
{
	if (v->kind != VAL_ARRAY) {
		if (v->kind == VAL_TENSOR || v->kind == VAL_TUPLE) {
			*why = "holds a tensor or a tuple";
			return false;
		}
		if (depth != *rank) {
			*why = "is not rectangular: its items are nested to different depths";
			return false;
		}
		ARRAY_RESERVE(*leaves, *n, *cap, 16);
		(*leaves)[(*n)++] = v;
		return true;
	}
	if (depth >= 16) {
		*why = "is nested more than 16 deep";
		return false;
	}
	if (depth == *rank) {
		if (*n) { /* a leaf was met at a lesser depth */
			*why = "is not rectangular: its items are nested to different depths";
			return false;
		}
		dims[(*rank)++] = v->n;
	} else if (dims[depth] != (int64_t)v->n) {
		*why = "is not rectangular: its rows have different lengths";
		return false;
	}
	if (v->n == 0) {
		*why = "has an empty array, and extents are positive";
		return false;
	}
	for (size_t i = 0; i < v->n; i++)
		if (!array_shape(v->u.items[i], dims, depth + 1, rank, leaves, n,
				 cap, why))
			return false;
	return true;
}

/* The NNEF type of a constant of these items (all of one kind, integers
 * and symbols together), or NULL with *why. */
static const Type *leaves_type(Flattener *F, const Value **leaves, size_t n,
			       const char **why)
{
	ValKind k = leaves[0]->kind == VAL_SYMBOL ? VAL_INT : leaves[0]->kind;
	for (size_t i = 1; i < n; i++) {
		ValKind ki = leaves[i]->kind == VAL_SYMBOL ? VAL_INT : leaves[i]->kind;
		if (ki != k) {
			*why = "mixes items of different types (tract makes one tensor of one datum type)";
			return NULL;
		}
	}
	TypeKind t = k == VAL_INT ? TY_INTEGER : k == VAL_SCALAR ? TY_SCALAR
		   : k == VAL_BOOL ? TY_LOGICAL : TY_STRING;
	return ty_prim(F->tt, t);
}

/* Emits the standard primitive `name` of data type `type` on args, its
 * one result named `exact` or after `hint`, its shapes inferred. */
static const Value *emit_one(Flattener *F, const char *name, const Type *type,
			     const Value **args, const Site *s,
			     const char *exact, const char *hint)
{
	const SemaFrag *f = sema_lookup(F->prog, intern_cstr(F->interner, name));
	FlatOp *op = flat_emit(F, f, type, args, s->loc, s->frame);
	FlatTensor *t = flat_new_tensor(F, type, exact, hint);
	t->producer = op;
	op->results[0] = &t->value;
	flat_infer_shapes(F, op, NULL);
	return &t->value;
}

/* Emits the constant tensor an array (or a literal) of literals is, named
 * `exact` or after `hint`; NULL after reporting why it cannot be one. */
static const Value *emit_constant(Flattener *F, const Value *v, Site *s,
				  const char *exact, const char *hint)
{
	int64_t dims[16];
	uint32_t rank = 0;
	const Value **leaves = NULL;
	size_t n = 0, cap = 0;
	const char *why = NULL;
	bool ok = array_shape(v, dims, 0, &rank, &leaves, &n, &cap, &why);
	const Type *type = ok ? leaves_type(F, leaves, n, &why) : NULL;
	if (!type) {
		if (s->op)
			flat_error(F, DIAG_E0816, s->loc, s->frame, "this array, given for the tensor '%s' of '%s', %s", s->param, s->op, why);
		else
			flat_error(F, DIAG_E0816, s->loc, s->frame, "the array assigned to '%s' %s", s->param, why);
		util_free(leaves);
		return NULL;
	}
	const Value **items = ARENA_ARRAY(F->arena, const Value *, n);
	memcpy(items, leaves, n * sizeof(*items));
	util_free(leaves);
	const Value **extents = ARENA_ARRAY(F->arena, const Value *, rank ? rank : 1);
	for (uint32_t d = 0; d < rank; d++)
		extents[d] = flat_val_int(F, dims[d]);
	const Value *args[2] = { flat_val_list(F, VAL_ARRAY, extents, rank),
				 flat_val_list(F, VAL_ARRAY, items, n) };
	return emit_one(F, "constant", type, args, s, exact, hint);
}

/* Emits the stack of the items of an array that holds tensors (tract:
 * each gets a leading unit axis, then they are concatenated). */
static const Value *emit_stack(Flattener *F, const Value *v, Site *s,
			       const char *exact, const char *hint)
{
	const Value *args[2] = { v, flat_val_int(F, 0) };
	const Type *dtype = NULL;
	for (size_t i = 0; i < v->n && !dtype; i++)
		if (v->u.items[i]->kind == VAL_TENSOR)
			dtype = flat_tensor_dtype(v->u.items[i]->u.t, F->tt);
	return emit_one(F, "stack", dtype, args, s, exact, hint);
}

/* The tensor a value given for a tensor is in tract. */
static const Value *as_tensor(Flattener *F, const Value *v, Site *s,
			      const char *exact, const char *hint)
{
	if (v->kind != VAL_ARRAY)
		return v; /* a tensor, or a literal (rank 0) */
	for (size_t i = 0; i < v->n; i++)
		if (value_holds(v->u.items[i], VAL_TENSOR))
			return emit_stack(F, v, s, exact, hint);
	return emit_constant(F, v, s, exact, hint);
}

bool flat_tract_args(Flattener *F, const SemaFrag *f, const Value **args,
		     const AstExpr *call, const Frame *frame, bool *later)
{
	const SemaCall *sc = call->kind == AST_INVOKE ? call->u.inv.call : NULL;
	for (size_t i = 0; i < f->nparams; i++) {
		const AstExpr *at = sc ? sc->args[i] : NULL;
		Site s = { at ? at->loc : call->loc, frame, f->params[i].name,
			   f->name, false };
		const Type *pt = f->params[i].type;
		if (ty_is_attribute(pt))
			args[i] = as_attribute(F, args[i], pt, &s);
		else if (pt->kind == TY_TENSOR)
			args[i] = as_tensor(F, args[i], &s, NULL,
					    arena_printf(&F->hints, "%s_%s", f->name, f->params[i].name));
		else if (pt->kind == TY_ARRAY && args[i]->kind == VAL_TENSOR) {
			/* tract takes one value where a list is declared as a
			 * list of one */
			const Value **one = ARENA_ARRAY(F->arena, const Value *, 1);
			one[0] = args[i];
			args[i] = flat_val_list(F, VAL_ARRAY, one, 1);
		}
		if (!args[i])
			return false;
		*later |= s.later;
	}
	return true;
}

/* softmax(x, axes): tract's Softmax op leaves out the axes beyond the
 * input's rank (it iterates over the input's axes and looks each up in
 * axes); so the softmax of a tensor over none of its axes is 1
 * everywhere. The standard body would fail on such an axis. */
static void tract_softmax(Flattener *F, const Value **args, const AstExpr *e,
			  const Frame *frame)
{
	const Value *x = args[0], *axes = args[1];
	if (x->kind != VAL_TENSOR || !x->u.t->known || axes->kind != VAL_ARRAY)
		return;
	uint32_t rank = x->u.t->rank;
	const Value **kept = ARENA_ARRAY(F->arena, const Value *, axes->n ? axes->n : 1);
	size_t n = 0;
	for (size_t i = 0; i < axes->n; i++) {
		const Value *a = axes->u.items[i];
		if (a->kind != VAL_INT || (a->u.i >= 0 && (uint64_t)a->u.i < rank)) {
			kept[n++] = a;
			continue;
		}
		const SemaCall *sc = e->kind == AST_INVOKE ? e->u.inv.call : NULL;
		const AstExpr *at = sc ? sc->args[1] : NULL;
		Diag *d = flat_error(F, DIAG_W0936, at ? at->loc : e->loc, frame, "softmax: axis %lld is out of range for '%s', of rank %u; tract leaves it out%s", (long long)a->u.i, x->u.t->name, rank, axes->n == 1 ? ", so every item is its own softmax, 1.0" : "");
		diag_hint(F->diags, d, "Khronos NNEF rejects it: the axes of softmax are axes of its input");
	}
	if (n != axes->n)
		args[1] = flat_val_list(F, VAL_ARRAY, kept, n);
}

void flat_tract_compound(Flattener *F, const SemaFrag *f, const Value **args,
			 const AstExpr *e, const Frame *frame)
{
	if (strcmp(f->name, "softmax") == 0)
		tract_softmax(F, args, e, frame);
}

const Value *flat_tract_assigned(Flattener *F, const AstExpr *lhs,
				 const Value *v, const Frame *frame)
{
	if (v->kind == VAL_TENSOR)
		return v;
	if (v->kind == VAL_ARRAY && v->n == 1 && v->u.items[0]->kind == VAL_TENSOR)
		return v->u.items[0]; /* an array result of one tensor */
	Site s = { lhs->loc, frame, lhs->u.ident, NULL, false };
	if (v->kind == VAL_ARRAY && value_holds(v, VAL_TENSOR))
		return emit_stack(F, v, &s, lhs->u.ident, NULL);
	if (v->kind == VAL_ARRAY && v->n > 1 && v->u.items[0]->kind == VAL_TENSOR)
		return v;
	return emit_constant(F, v, &s, lhs->u.ident, NULL);
}
