/*
 * shape.c - shape propagation as the graph is built (spec 2.4.1:
 * "propagate tensor shapes, perform argument checking for operations").
 *
 * Each primitive is checked the moment the evaluator emits it: its
 * arguments' shapes go to the pure shape function of shapes/, and the
 * results get the shapes it computes, so shape_of works for every tensor
 * whose shape is known. An error is placed where the user can act on it:
 * at the argument written in the invocation when there is one; inside a
 * standard compound (max_pool, linear...), at the user's call of that
 * compound. Results of a custom operation (declared without a body) have
 * unknown shapes (spec chapter 6); operations that need them are skipped,
 * with one note per custom operation.
 *
 * The rules that span operations live here too: variables sharing a label
 * (case-insensitively) have one shape (4.1.3), and `update` takes a
 * variable and updates it once (4.8).
 */
#include "flatten/flatten_internal.h"

#include <assert.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void flat_shapes_init(Flattener *F)
{
	pmap_init(&F->reasons);
	pmap_init(&F->prims);
	arena_init(&F->shape_arena);
	pmap_init(&F->updated);
	pmap_init(&F->origin_of);
	pmap_init(&F->skipped);
	sb_init(&F->msg);
	sb_init(&F->hint);
	sb_init(&F->key);
}

void flat_shapes_free(Flattener *F)
{
	pmap_free(&F->reasons);
	pmap_free(&F->prims);
	arena_free(&F->shape_arena);
	util_free(F->dims);
	util_free(F->labels);
	pmap_free(&F->updated);
	pmap_free(&F->skipped);
	pmap_free(&F->origin_of);
	sb_free(&F->msg);
	sb_free(&F->hint);
	sb_free(&F->key);
	util_free(F->scratch);
	util_free(F->origins);
}

/* The primitive a fragment is: a standard declaration without body, or
 * one of a registry of tract's dialect. */
static ShapeOp prim_of(Flattener *F, const SemaFrag *f)
{
	if ((!f->is_std && !f->is_registry) || f->def->body)
		return SHAPE_OP_NONE;
	bool found;
	uintptr_t v = (uintptr_t)pmap_get(&F->prims, f, &found);
	if (!found) {
		v = (uintptr_t)shape_op_lookup(f->name) + 1;
		pmap_put(&F->prims, f, (void *)v);
	}
	return (ShapeOp)(v - 1);
}

/* ---- shared extents ------------------------------------------------------ */

/* A slot of the table of result extents (dims NULL: free). A graph of a
 * million operations has a few distinct shapes: each is kept once in the
 * graph's arena, and shape_infer works in a scratch arena. */
typedef struct DimsSlot {
	const int64_t *dims;
	uint32_t rank;
	uint32_t hash;
} DimsSlot;

static uint32_t dims_hash(const int64_t *dims, uint32_t rank)
{
	uint64_t h = 0xcbf29ce484222325u ^ rank;
	for (uint32_t i = 0; i < rank; i++)
		h = (h ^ (uint64_t)dims[i]) * 0x100000001b3u;
	return (uint32_t)(h ^ (h >> 32));
}

static void dims_grow(Flattener *F)
{
	size_t cap = F->capdims ? F->capdims * 2 : 64;
	DimsSlot *t = util_calloc(cap, sizeof(*t));
	for (size_t i = 0; i < F->capdims; i++) {
		DimsSlot *o = &F->dims[i];
		if (!o->dims)
			continue;
		size_t j = o->hash & (cap - 1);
		while (t[j].dims)
			j = (j + 1) & (cap - 1);
		t[j] = *o;
	}
	util_free(F->dims);
	F->dims = t;
	F->capdims = cap;
}

/* Points s at the graph's copy of its extents (made if it is the first
 * shape of those extents). */
static void share_dims(Flattener *F, Shape *s)
{
	if (!s->dims)
		return;
	if (2 * (F->ndims + 1) > F->capdims)
		dims_grow(F);
	uint32_t h = dims_hash(s->dims, s->rank);
	size_t j = h & (F->capdims - 1);
	for (DimsSlot *d; (d = &F->dims[j])->dims; j = (j + 1) & (F->capdims - 1))
		if (d->hash == h && d->rank == s->rank &&
		    memcmp(d->dims, s->dims, s->rank * sizeof(int64_t)) == 0) {
			s->dims = d->dims;
			return;
		}
	int64_t *copy = ARENA_ARRAY(F->arena, int64_t, s->rank ? s->rank : 1);
	memcpy(copy, s->dims, s->rank * sizeof(int64_t));
	F->dims[j] = (DimsSlot){ copy, s->rank, h };
	F->ndims++;
	s->dims = copy;
}

/* ---- results ------------------------------------------------------------ */

void flat_set_shape(Flattener *F, FlatTensor *t, const Shape *s,
		    const FlatOp *origin)
{
	t->dims = s->dims;
	t->rank = s->rank;
	t->known = s->known;
	if (!s->known && (origin || pmap_has(&F->origin_of, t)))
		pmap_put(&F->origin_of, t, (void *)origin);
}

const FlatOp *flat_origin(const Flattener *F, const FlatTensor *t)
{
	bool found;
	return t->known ? NULL : pmap_get(&F->origin_of, t, &found);
}

static void set_shape(Flattener *F, const Value *v, const Shape *s,
		      const FlatOp *origin)
{
	if (v && v->kind == VAL_TENSOR) {
		flat_set_shape(F, v->u.t, s, origin);
	} else if (v && (v->kind == VAL_ARRAY || v->kind == VAL_TUPLE)) {
		for (size_t i = 0; i < v->n; i++)
			set_shape(F, v->u.items[i], s, origin);
	}
}

/* Every result of op is of unknown shape, coming from origin (NULL: after
 * an error, when nothing more is said about it). */
static void results_unknown(Flattener *F, const FlatOp *op,
			    const FlatOp *origin)
{
	static const Shape unknown = { NULL, 0, false };
	for (size_t k = 0; k < op->frag->nresults; k++)
		set_shape(F, op->results[k], &unknown, origin);
}

const char *flat_shape_text(Flattener *F, const Shape *s)
{
	StrBuf b;
	sb_init(&b);
	shape_print(&b, s);
	const char *text = arena_strdup(F->arena, sb_str(&b));
	sb_free(&b);
	return text;
}

/* Counts an operation skipped for want of origin's results' shapes. */
static void count_skip(Flattener *F, const FlatOp *origin)
{
	if (F->dry || !origin)
		return;
	void **slot = pmap_ref(&F->skipped, origin);
	if (!*slot) {
		ARRAY_RESERVE(F->origins, F->norigins, F->caporigins, 8);
		F->origins[F->norigins++] = origin;
	}
	*slot = (void *)((uintptr_t)*slot + 1);
}

void flat_shape_notes(Flattener *F)
{
	for (size_t i = 0; i < F->norigins; i++) {
		const FlatOp *op = F->origins[i];
		bool found;
		uintptr_t n = (uintptr_t)pmap_get(&F->skipped, op, &found);
		const char *why = pmap_get(&F->reasons, op, &found);
		if (why) {
			Diag *d = diag_add(F->diags, DIAG_N0934, flat_op_loc(op), "%s: the shapes of its results are not known when the graph is built, so %lu operation%s using them %s not shape-checked", why, (unsigned long)n, n == 1 ? "" : "s", n == 1 ? "was" : "were");
			flat_add_frames(F, d, flat_op_frame(op));
			continue;
		}
		Diag *d = op->prim == SHAPE_OP_NONE
			? diag_add(F->diags, DIAG_N0930, flat_op_loc(op), "the custom operation '%s' gives results of unknown shape (spec chapter 6): %lu operation%s using them %s not shape-checked", op->frag->name, (unsigned long)n, n == 1 ? "" : "s", n == 1 ? "was" : "were")
			: diag_add(F->diags, DIAG_N0932, flat_op_loc(op), "'%s' is given an extent of unknown value (a symbol of tract_symbol), so its results are of unknown shape: %lu operation%s using them %s not shape-checked", op->frag->name, (unsigned long)n, n == 1 ? "" : "s", n == 1 ? "was" : "were");
		flat_add_frames(F, d, flat_op_frame(op));
	}
}

/* ---- where an error goes ------------------------------------------------ */

/* The expression the user wrote for parameter p of invocation (or
 * operator expression) e, or NULL. */
static const AstExpr *arg_expr(const AstExpr *e, int p)
{
	if (!e || p < 0)
		return NULL;
	if (e->kind == AST_INVOKE && e->u.inv.call)
		return e->u.inv.call->args[p];
	if (e->kind == AST_BINARY)
		return p == 0 ? e->u.bin.a : p == 1 ? e->u.bin.b : NULL;
	if (e->kind == AST_UNARY)
		return p == 0 ? e->u.bin.a : NULL;
	return NULL;
}

/* The outermost standard compound of the chain of expansions op is in,
 * or NULL outside standard compounds. */
static const Frame *std_top(const FlatOp *op)
{
	const Frame *top = NULL;
	for (const Frame *f = flat_op_frame(op); f && f->frag->is_std; f = f->parent)
		top = f;
	return top;
}

/* The expression the user wrote for the argument of op's parameter p: in
 * the invocation e; inside the standard compound top, in the user's call
 * of it, when the value reached the primitive unchanged (as an argument,
 * or an item of an array the user wrote: add_n([a, b])). NULL if none. */
static const AstExpr *user_arg(const Flattener *F, const FlatOp *op,
			       const AstExpr *e, const Frame *top, int p)
{
	if (!top)
		return arg_expr(e, p);
	const Value *val = p >= 0 ? flat_op_args(op)[p] : NULL;
	const Expansion *x = flat_expansion(F, top);
	for (size_t j = 0; x && val && j < top->frag->nparams; j++) {
		const Value *arg = x->args[j];
		if (arg == val)
			return arg_expr(x->call, (int)j);
		const AstExpr *list = arg->kind == VAL_ARRAY ? arg_expr(x->call, (int)j) : NULL;
		if (!list || list->kind != AST_ARRAY || list->u.list.n != arg->n)
			continue;
		for (size_t k = 0; k < arg->n; k++)
			if (arg->u.items[k] == val)
				return list->u.list.items[k];
	}
	return NULL;
}

/* How shape messages name the arguments of the operation being checked
 * (ShapeCall.arg_name): a tensor argument the user wrote as an identifier
 * is named by it, since that is the name the user knows. */
typedef struct ArgNames {
	const Flattener *F;
	const FlatOp *op;
	const AstExpr *e;
} ArgNames;

static const char *arg_name(void *ctx, int p)
{
	const ArgNames *a = ctx;
	const SemaFrag *f = a->op->frag;
	if (p < 0 || (size_t)p >= f->nparams || ty_is_attribute(f->params[p].type))
		return NULL;
	const AstExpr *at = user_arg(a->F, a->op, a->e, std_top(a->op), p);
	return at && at->kind == AST_IDENT ? at->u.ident : NULL;
}

/* A note on the tensors a message named (c->named): those the user
 * passed under another name ("'p' is the argument 'x' of 'add', 'q' the
 * argument 'y'"), then, inside a standard compound top, those that are
 * not the user's ("; 'y' of 'add' is a value computed inside 'add_n'"). */
static void note_named(Flattener *F, Diag *d, const FlatOp *op,
		       const AstExpr *e, const ShapeCall *c, const Frame *top)
{
	const SemaFrag *f = op->frag;
	StrBuf b, inner;
	sb_init(&b);
	sb_init(&inner);
	size_t ninner = 0;
	for (int p = 0; p < 32 && (size_t)p < f->nparams; p++) {
		if (!(c->named & ((uint32_t)1 << p)) || ty_is_attribute(f->params[p].type))
			continue;
		const AstExpr *at = user_arg(F, op, e, top, p);
		const char *param = f->params[p].name;
		if (!at && top) {
			sb_printf(&inner, "%s'%s'", ninner ? " and " : "", param);
			ninner++;
		}
		if (!at || at->kind != AST_IDENT || strcmp(at->u.ident, param) == 0)
			continue;
		if (!b.len)
			sb_printf(&b, "'%s' is the argument '%s' of '%s'", at->u.ident, param, f->name);
		else
			sb_printf(&b, ", '%s' the argument '%s'", at->u.ident, param);
	}
	if (ninner)
		sb_printf(&b, "%s%s of '%s' %s computed inside '%s'", b.len ? "; " : "", sb_str(&inner), f->name, ninner == 1 ? "is a value" : "are values", top->frag->name);
	if (b.len)
		diag_note(F->diags, d, loc_make(NULL, 0, 0), false, "%s", sb_str(&b));
	sb_free(&b);
	sb_free(&inner);
}

/* Reports a shape error of op. Inside standard compounds the error goes
 * to the user's call of the outermost one (at the argument whose value
 * reached the primitive unchanged, if the user wrote it) and leads with
 * that compound's name, with a note naming the primitive; elsewhere at
 * the argument in the invocation. */
static void report(Flattener *F, const FlatOp *op, const AstExpr *e,
		   const ShapeCall *c, DiagLevel level)
{
	const Frame *top = std_top(op);
	const AstExpr *at = user_arg(F, op, e, top, c->param);
	Loc loc = at ? at->loc : top ? top->loc : e ? e->loc : flat_op_loc(op);
	Diag *d = diag_add_level(F->diags, level, c->code, loc, "%s: %s",
				 top ? top->frag->name : op->frag->name,
				 sb_str(&F->msg));
	if (F->hint.len)
		diag_hint(F->diags, d, "%s", sb_str(&F->hint));
	if (top) {
		const Frame *inner = flat_op_frame(op);
		if (inner == top)
			diag_note(F->diags, d, loc_make(NULL, 0, 0), false,
				  "'%s' is part of the standard operation '%s' called here",
				  op->frag->name, top->frag->name);
		else
			diag_note(F->diags, d, loc_make(NULL, 0, 0), false,
				  "'%s' is part of the standard operation '%s' called here (through '%s')",
				  op->frag->name, top->frag->name,
				  inner->frag->name);
	}
	note_named(F, d, op, e, c, top);
	flat_add_frames(F, d, top ? top->parent : flat_op_frame(op));
}

/* ---- the rules across operations --------------------------------------- */

/* 4.1.3: "If a variable operation has the same label as another variable
 * operation in the graph (according to case insensitive comparison), then
 * they share the underlying data, and they must have the same shape." */
/* The label of a variable operation, lower-cased and interned: one key
 * for the variables that share their data. */
static const char *label_key(Flattener *F, const FlatOp *var)
{
	const Value *label = flat_op_args(var)[1];
	sb_clear(&F->key);
	for (size_t i = 0; i < label->n; i++)
		sb_putc(&F->key, (char)tolower((unsigned char)label->u.str[i]));
	return intern_bytes(F->interner, sb_str(&F->key), F->key.len);
}

uint32_t flat_label_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint32_t)tolower((unsigned char)s[i])) * 16777619u;
	return h;
}

static uint32_t label_hash(const Value *label)
{
	return flat_label_hash(label->u.str, label->n);
}

static bool same_label(const Value *a, const Value *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (tolower((unsigned char)a->u.str[i]) !=
		    tolower((unsigned char)b->u.str[i]))
			return false;
	return true;
}

/* The slot of label (of hash h) in F->labels: the one of its first
 * variable, or the free one where that goes. */
static FlatLabel *label_slot(Flattener *F, const Value *label, uint32_t h)
{
	size_t mask = F->caplabels - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		FlatLabel *slot = &F->labels[i];
		if (!slot->var || (slot->hash == h &&
				   same_label(flat_op_args(F->vars[slot->var - 1])[1], label)))
			return slot;
	}
}

/* Room for one more label (a load of at most 1/2). */
static void labels_reserve(Flattener *F)
{
	if ((F->nvars + 1) * 2 <= F->caplabels)
		return;
	FlatLabel *old = F->labels;
	size_t oldcap = F->caplabels;
	F->caplabels = oldcap ? 2 * oldcap : 64;
	F->labels = util_calloc(F->caplabels, sizeof(*F->labels));
	size_t mask = F->caplabels - 1;
	for (size_t k = 0; k < oldcap; k++) {
		if (!old[k].var)
			continue;
		size_t i = old[k].hash & mask;
		while (F->labels[i].var)
			i = (i + 1) & mask;
		F->labels[i] = old[k];
	}
	util_free(old);
}

/* A variable's label is looked up once its shapes are known: its hash,
 * and the memory of its slot, are asked for before they are worked out
 * (the table of a million labels is far away in memory). */
static void ask_label(Flattener *F, const FlatOp *op)
{
	labels_reserve(F);
	F->label_op = op;
	F->label_hash = label_hash(flat_op_args(op)[1]);
	__builtin_prefetch(&F->labels[F->label_hash & (F->caplabels - 1)]);
}

static void check_label(Flattener *F, FlatOp *op, const AstExpr *e)
{
	const Value *label = flat_op_args(op)[1];
	labels_reserve(F);
	uint32_t h = F->label_op == op ? F->label_hash : label_hash(label);
	FlatLabel *slot = label_slot(F, label, h);
	if (!slot->var) {
		if (F->nvars >= UINT32_MAX - 1)
			util_oom(); /* beyond any limit on operations */
		ARRAY_RESERVE(F->vars, F->nvars, F->capvars, 64);
		F->vars[F->nvars++] = op;
		op->var = (uint32_t)F->nvars;
		*slot = (FlatLabel){ op->var, h };
		return;
	}
	const FlatOp *first = F->vars[slot->var - 1];
	op->var = first->var;
	Shape a = flat_tensor_shape(first->results[0]->u.t);
	Shape b = flat_tensor_shape(op->results[0]->u.t);
	if (shape_equal(&a, &b))
		return;
	const AstExpr *at = arg_expr(e, 1);
	Diag *d = diag_add(F->diags, DIAG_E0904, at ? at->loc : flat_op_loc(op),
			   "variable: the label '%.*s' is also the label of a variable of shape %s; variables sharing a label share their data and must have one shape, not %s",
			   (int)label->n, label->u.str, flat_shape_text(F, &a),
			   flat_shape_text(F, &b));
	diag_note(F->diags, d, flat_op_loc(first), true,
		  "the first variable with this label (compared ignoring case)");
}

/* 4.8: the first argument of update is a variable; "each variable can
 * only be updated once in a cycle". Variables sharing a label share their
 * data (4.1.3): updating two of them is updating one twice. */
static bool check_update(Flattener *F, FlatOp *op, const AstExpr *e)
{
	const Value *v = flat_op_args(op)[0];
	const AstExpr *at = arg_expr(e, 0);
	Loc loc = at ? at->loc : flat_op_loc(op);
	if (v->kind != VAL_TENSOR || !v->u.t->producer ||
	    v->u.t->producer->prim != SHAPE_OP_VARIABLE) {
		Diag *d = diag_add(F->diags, DIAG_E0925, loc,
				   "update: %s is %s, not a variable",
				   at && at->kind == AST_IDENT ? arena_printf(F->arena, "'%s', the tensor to update,", at->u.ident) : "the tensor to update",
				   v->kind != VAL_TENSOR ? "a literal"
				   : v->u.t->producer
					   ? arena_printf(F->arena,
							  "the result of '%s'",
							  v->u.t->producer->frag
								  ->name)
					   : "not made by an operation");
		diag_hint(F->diags, d, "only tensors made by 'variable' can be updated (spec 4.8)");
		return false;
	}
	void **slot = pmap_ref(&F->updated, label_key(F, v->u.t->producer));
	if (*slot) {
		const FlatOp *first = *slot;
		const FlatTensor *was = flat_op_args(first)[0]->u.t;
		Diag *d = diag_add(F->diags, DIAG_E0926, loc, was == v->u.t ? "update: the variable '%s' is updated a second time; a variable can be updated once per cycle" : "update: the variable '%s' shares its label, and so its data, with a variable already updated; a variable can be updated once per cycle", v->u.t->name);
		diag_note(F->diags, d, flat_op_loc(first), true,
			  "the first update is here");
		return false;
	}
	*slot = op;
	return true;
}

/* ---- rules of standard compounds ------------------------------------------ */

/* 4.3.4: "For down-sampling, x = X / f, where the division must result in
 * an integer without modulo." The compounds' bodies (box with stride f)
 * would round down; the rule is checked on the call. Factors that are not
 * positive, larger than the extent, or too many are left to box. */
static void check_downsample(Flattener *F, const SemaFrag *f,
			     const Value **args, const AstExpr *e,
			     const Scope *s)
{
	const Value *in = args[0], *factor = args[1];
	if (in->kind != VAL_TENSOR || !in->u.t->known)
		return;
	Shape xs = flat_tensor_shape(in->u.t);
	const Shape *x = &xs;
	for (size_t i = 0; i < factor->n && i + 2 < x->rank; i++) {
		int64_t k = factor->u.items[i]->u.i, X = x->dims[i + 2];
		if (k <= 0 || k > X || X % k == 0)
			continue; /* box reports a factor out of range */
		const AstExpr *at = arg_expr(e, 1);
		Diag *d = diag_add(F->diags, DIAG_E0931, at ? at->loc : e->loc, "%s: factor %lld does not divide the extent %lld of dimension %zu; down-sampling needs X / f without remainder (spec 4.3.4)", f->name, (long long)k, (long long)X, i + 2);
		flat_add_frames(F, d, s->frame);
		return;
	}
}

/* The standard compounds with rules of their own, by name. */
static const struct {
	const char *name;
	void (*check)(Flattener *F, const SemaFrag *f, const Value **args,
		      const AstExpr *e, const Scope *s);
} compound_rules[] = {
	{ "nearest_downsample", check_downsample },
	{ "area_downsample", check_downsample },
};

void flat_check_compound(Flattener *F, const SemaFrag *f, const Value **args,
			 const AstExpr *e, const Scope *s)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(compound_rules); i++)
		if (strcmp(f->name, compound_rules[i].name) == 0)
			compound_rules[i].check(F, f, args, e, s);
}

/* ---- the arguments -------------------------------------------------------- */

static Shape *scratch(Flattener *F, size_t n)
{
	if (n > F->capscratch) {
		F->capscratch = n > 2 * F->capscratch ? n : 2 * F->capscratch;
		F->scratch = util_realloc(F->scratch,
					  F->capscratch * sizeof(*F->scratch));
	}
	return F->scratch;
}

/* The shape of a value given for a tensor: a tensor's, or the rank-0
 * singleton shape of a literal (spec 3.3.1). */
static Shape value_shape(const Value *v)
{
	if (v->kind == VAL_TENSOR)
		return flat_tensor_shape(v->u.t);
	Shape s = { NULL, 0, true };
	return s;
}

/* The origin of the first unknown shape among the tensors of v. */
static bool unknown_in(const Flattener *F, const Value *v,
		       const FlatOp **origin)
{
	if (v->kind == VAL_TENSOR && !v->u.t->known) {
		*origin = flat_origin(F, v->u.t);
		return true;
	}
	if (v->kind == VAL_ARRAY || v->kind == VAL_TUPLE)
		for (size_t i = 0; i < v->n; i++)
			if (unknown_in(F, v->u.items[i], origin))
				return true;
	return false;
}

/* --input-shape: the shape of an external bound to a graph parameter the
 * user named replaces the one written. */
static void override_input(Flattener *F, FlatOp *op)
{
	const Value *r = op->results[0];
	if (F->dry || !r || r->kind != VAL_TENSOR)
		return;
	size_t at = 0; /* external(shape), tract_core_external(datum_type, shape) */
	while (at + 1 < op->frag->nparams && strcmp(op->frag->params[at].name, "shape") != 0)
		at++;
	for (size_t i = 0; i < F->opt->ninput_shapes; i++) {
		const InputShape *is = &F->opt->input_shapes[i];
		if (strcmp(is->name, r->u.t->name) != 0)
			continue;
		const Value **items = ARENA_ARRAY(F->arena, const Value *,
						  is->rank ? is->rank : 1);
		for (size_t k = 0; k < is->rank; k++) {
			Value *d = ARENA_NEW(F->arena, Value);
			d->kind = VAL_INT;
			d->u.i = is->dims[k];
			items[k] = d;
		}
		Value *shape = ARENA_NEW(F->arena, Value);
		shape->kind = VAL_ARRAY;
		shape->u.items = items;
		shape->n = (uint32_t)is->rank;
		flat_op_args(op)[at] = shape;
	}
}

/* The results of an array-result primitive (split, unstack): their number
 * must be what the left-hand side holds. */
static void set_array_results(Flattener *F, FlatOp *op, const AstExpr *e,
			      const ShapeCall *c, const FlatOp *origin)
{
	const Value *r = op->results[0];
	if (!r || r->kind != VAL_ARRAY)
		return;
	if (c->outs && c->nouts != r->n) {
		Diag *d = diag_add(F->diags, DIAG_E0921, e ? e->loc : flat_op_loc(op),
				   "%s: gives %zu tensor%s here, but the left-hand side has %zu item%s",
				   op->frag->name, c->nouts,
				   c->nouts == 1 ? "" : "s", (size_t)r->n,
				   r->n == 1 ? "" : "s");
		flat_add_frames(F, d, flat_op_frame(op));
		results_unknown(F, op, NULL);
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		static const Shape unknown = { NULL, 0, false };
		set_shape(F, r->u.items[i],
			  c->outs ? &c->outs[i] : &unknown, origin);
	}
}

/* The rules of variables and updates across operations. */
static void check_state(Flattener *F, FlatOp *op, const AstExpr *e)
{
	if (op->prim == SHAPE_OP_VARIABLE && !F->dry)
		check_label(F, op, e);
	else if (op->prim == SHAPE_OP_UPDATE && !F->dry)
		check_update(F, op, e);
}

/* tract's dialect: op's results are of unknown shape, for the reason
 * given (a note at op counts the operations skipped for want of them). */
static void results_deferred(Flattener *F, FlatOp *op, const char *why)
{
	if (!F->dry)
		pmap_put(&F->reasons, op, (void *)arena_strdup(F->arena, why));
	results_unknown(F, op, op);
	flat_set_datums(F, op, NULL);
}

/* tract's dialect, before the shape function: an attribute given a
 * symbolic integer where tract needs a number is an error (E0935); one
 * given a tensor known only when the model is loaded defers the shapes
 * (one computed when it runs is for the shape function to judge).
 * False when the shape function must not run. */
static bool tract_attributes(Flattener *F, FlatOp *op, const AstExpr *e)
{
	const SemaFrag *f = op->frag;
	uint64_t flags = shape_op_flags((ShapeOp)op->prim);
	for (size_t i = 0; i < f->nparams; i++) {
		const Value *v = flat_op_args(op)[i];
		if (!ty_is_attribute(f->params[i].type))
			continue;
		if (v->kind == VAL_TENSOR && (!flat_known(F, v) ||
		    flat_tract_is_wire(f->name, f->params[i].name)))
			continue; /* a wire of tract (flatten/tract_coerce.c): for
				     the shape function to judge */
		if (value_holds(v, VAL_TENSOR)) {
			results_deferred(F, op, arena_printf(F->arena, "'%s' of '%s' comes from variables, so it is known when the model is loaded, not when it is checked", f->params[i].name, f->name));
			return false;
		}
		if (i < 16 && (flags & SF_SYMP(i)))
			continue;
		if (!value_holds(v, VAL_SYMBOL))
			continue;
		const AstExpr *at = arg_expr(e, (int)i);
		StrBuf b;
		sb_init(&b);
		flat_print_value(&b, v);
		Diag *d = diag_add(F->diags, DIAG_E0935, at ? at->loc : flat_op_loc(op), "'%s' of '%s' is %s, which holds an integer known only when the model runs; tract needs a number here", f->params[i].name, f->name, sb_str(&b));
		sb_free(&b);
		flat_add_frames(F, d, flat_op_frame(op));
		results_unknown(F, op, NULL);
		return false;
	}
	return true;
}

/* tract's dialect: the datum types and known values of the tensor
 * arguments, for the shape function. */
static void tract_inputs(Flattener *F, const FlatOp *op, DType *dtypes,
			 ShapeKnown *values, bool *symbolic, const ShapeIn *in)
{
	const SemaFrag *f = op->frag;
	for (size_t i = 0; i < f->nparams; i++) {
		const Value *v = flat_op_args(op)[i];
		dtypes[i] = DT_NONE;
		values[i] = (ShapeKnown){ NULL, 0 };
		if (ty_is_attribute(f->params[i].type))
			continue;
		for (size_t k = 0; k < in[i].n; k++)
			*symbolic |= in[i].items[k].known && shape_is_symbolic(&in[i].items[k]);
		const Value *first = v->kind == VAL_ARRAY ? (v->n ? v->u.items[0] : NULL) : v;
		if (!first)
			continue;
		dtypes[i] = flat_value_datum(first);
		const FlatKnown *k = v->kind == VAL_ARRAY ? NULL : flat_known(F, v);
		if (k && k->items)
			values[i] = (ShapeKnown){ k->items, k->n };
	}
}

void flat_infer_shapes(Flattener *F, FlatOp *op, const AstExpr *e)
{
	op->prim = prim_of(F, op->frag);
	if (op->prim == SHAPE_OP_VARIABLE && !F->dry &&
	    flat_op_args(op)[1]->kind == VAL_STR)
		ask_label(F, op);
	if (op->prim == SHAPE_OP_NONE) {
		if (!op->frag->def->body)
			results_unknown(F, op, op); /* a custom operation */
		return;
	}
	if ((op->prim == SHAPE_OP_EXTERNAL || op->prim == SHAPE_OP_TRACT_CORE_EXTERNAL) &&
	    F->opt->ninput_shapes)
		override_input(F, op);
	const SemaFrag *f = op->frag;
	if (shape_op_flags((ShapeOp)op->prim) & SF_NESTED)
		return; /* the caller sets its results' shapes (scan.c) */
	if (F->tract && !tract_attributes(F, op, e)) {
		check_state(F, op, e);
		return;
	}
	bool symbols = !F->tract && F->prog->doc->vendor.nsymbols > 0; /* --lenient */
	for (size_t i = 0; symbols && i < f->nparams; i++)
		if (value_holds(flat_op_args(op)[i], VAL_SYMBOL)) {
			results_unknown(F, op, op); /* an extent of unknown value */
			check_state(F, op, e);
			return;
		}
	enum { MAXP = 16 };
	ShapeIn in[MAXP];
	Shape one[MAXP];
	const FlatOp *origin = NULL;
	bool unknown = false;
	size_t used = 0;
	for (size_t i = 0; i < f->nparams && i < MAXP; i++) {
		const Value *v = flat_op_args(op)[i];
		in[i].items = NULL;
		in[i].n = 0;
		if (ty_is_attribute(f->params[i].type))
			continue;
		if (!unknown)
			unknown = unknown_in(F, v, &origin);
		if (v->kind == VAL_ARRAY) {
			/* one tensor-array parameter at most (concat, stack) */
			Shape *items = scratch(F, v->n);
			for (size_t k = 0; k < v->n; k++)
				items[k] = value_shape(v->u.items[k]);
			in[i].items = items;
			in[i].n = v->n;
			used++;
		} else {
			one[i] = value_shape(v);
			in[i].items = &one[i];
			in[i].n = 1;
		}
	}
	assert(used <= 1 && f->nparams <= MAXP);
	if (unknown && !origin) {
		results_unknown(F, op, NULL); /* after an error: say nothing */
		return;
	}
	DType dtypes[MAXP];
	ShapeKnown values[MAXP];
	bool symbolic = false;
	if (F->tract)
		tract_inputs(F, op, dtypes, values, &symbolic, in);
	if (symbolic && !(shape_op_flags((ShapeOp)op->prim) & SF_SYMBOLIC)) {
		results_deferred(F, op, arena_printf(F->arena, "'%s' is given extents known only when the model runs, and nnefkit computes its shapes from known extents only", f->name));
		check_state(F, op, e);
		return;
	}
	arena_reset(&F->shape_arena);
	ShapeCall c = { .op = op->prim, .args = flat_op_args(op), .in = in,
			.arena = &F->shape_arena, .msg = &F->msg,
			.hint = &F->hint, .lenient = F->opt->lenient };
	if (F->tract) {
		c.tract_rules = true;
		c.dims = flat_dims(F);
		c.in_dtypes = dtypes;
		c.values = values;
	}
	ArgNames names = { F, op, e };
	c.arg_name = arg_name;
	c.arg_ctx = &names;
	sb_clear(&F->hint);
	if (!shape_infer(&c)) {
		report(F, op, e, &c, diag_code_level(c.code));
		results_unknown(F, op, NULL);
		return;
	}
	if (c.deviation)
		report(F, op, e, &c, DIAG_WARNING);
	if (c.data_dependent) {
		results_deferred(F, op, sb_str(&F->msg));
		if (F->tract) /* the types are known: non_zero gives i64 */
			flat_set_datums(F, op, &c);
		check_state(F, op, e);
		return;
	}
	if (!c.known)
		count_skip(F, origin);
	uint64_t flags = shape_op_flags(op->prim);
	if (flags & SF_ARRAY_RESULT) {
		for (size_t i = 0; c.outs && i < c.nouts; i++)
			share_dims(F, &c.outs[i]);
		set_array_results(F, op, e, &c, origin);
	} else if (flags & SF_TUPLE_RESULT) {
		for (size_t k = 0; k < f->nresults; k++) {
			static const Shape unknown_shape = { NULL, 0, false };
			const Shape *s = c.outs && k < c.nouts ? &c.outs[k] : &unknown_shape;
			Shape sk = *s;
			share_dims(F, &sk);
			set_shape(F, op->results[k], &sk, origin);
		}
	} else {
		share_dims(F, &c.out);
		set_shape(F, op->results[0], &c.out, origin);
	}
	if (F->tract) {
		flat_set_datums(F, op, &c);
		flat_fold(F, op);
	}
	check_state(F, op, e);
}
