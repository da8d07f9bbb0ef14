/*
 * eval.c - the evaluator of spec 3.3.3 Building Expressions.
 *
 * Values are computed at compile time; operators on tensors and
 * invocations of primitives become operations of the flat graph;
 * invocations of compounds are expanded: their bodies are evaluated in a
 * scope of their own, with parameters bound to the argument values
 * (defaults substituted) and the generic type bound to a concrete type.
 * An if-else evaluates only the branch it takes; array slices share their
 * storage, so recursions like add_n(x[1:]) stay linear.
 *
 * Each function returns the value, or NULL after an error has been
 * reported (with "in expansion of" notes); NULL propagates silently.
 */
#include "flatten/flatten_internal.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- diagnostics ------------------------------------------------------ */

/* Adds "in expansion of 'f' at file:line:col" notes, innermost first; a
 * long chain keeps its ends. */
void flat_add_frames(Flattener *F, Diag *d, const Frame *frame)
{
	flat_note_frames(F->diags, d, frame);
}

void flat_note_frames(DiagList *diags, Diag *d, const Frame *frame)
{
	if (!d || !frame)
		return;
	size_t total = frame->depth, shown = 0;
	/* up to the root: the graph's, or graph.quant's (flatten/quant_apply.c) */
	for (const Frame *f = frame; f && f->frag; f = f->parent, shown++) {
		if (total > 12 && shown == 5) {
			size_t skip = total - 10;
			diag_note(diags, d, loc_make(NULL, 0, 0), false,
				  "... %zu more expansions ...", skip);
			for (size_t k = 0; k < skip; k++)
				f = f->parent;
			shown += skip;
		}
		unsigned line, col;
		Loc call = f->loc;
		source_linecol(call.file, call.off, &line, &col);
		diag_note(diags, d, loc_make(NULL, 0, 0), false,
			  "in expansion of '%s' at %s:%u:%u", f->frag->name,
			  call.file->path, line, col);
		d->notes[d->nnotes - 1].at = call;
	}
}

Diag *flat_value_error(Flattener *F, DiagCode code, Loc loc,
			 const Scope *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	Diag *d = diag_vadd(F->diags, diag_code_level(code), code, loc, fmt,
			    ap);
	va_end(ap);
	flat_add_frames(F, d, s ? s->frame : NULL);
	return d;
}

Diag *flat_error(Flattener *F, DiagCode code, Loc loc, const Frame *frame,
		 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	Diag *d = diag_vadd(F->diags, diag_code_level(code), code, loc, fmt,
			    ap);
	va_end(ap);
	flat_add_frames(F, d, frame);
	return d;
}

/* ---- values ----------------------------------------------------------- */

static Value *new_value(Flattener *F, ValKind kind)
{
	Value *v = ARENA_NEW(F->arena, Value);
	v->kind = kind;
	return v;
}

const Value *flat_val_int(Flattener *F, int64_t i)
{
	Value *v = new_value(F, VAL_INT);
	v->u.i = i;
	return v;
}

const Value *flat_val_scalar(Flattener *F, double s)
{
	Value *v = new_value(F, VAL_SCALAR);
	v->u.s = s;
	return v;
}

const Value *flat_val_bool(Flattener *F, bool b)
{
	Value *v = new_value(F, VAL_BOOL);
	v->u.b = b;
	return v;
}

const Value *flat_val_str(Flattener *F, const char *p, size_t len)
{
	assert(len <= VALUE_MAX_ITEMS); /* the budget, or the source, bound it */
	Value *v = new_value(F, VAL_STR);
	v->u.str = p;
	v->n = (uint32_t)len;
	return v;
}

DimTable *flat_dims(Flattener *F)
{
	if (!F->dimtab)
		F->dimtab = dim_table_new();
	return F->dimtab;
}

const Value *flat_val_dim(Flattener *F, const DimExpr *e)
{
	int64_t c;
	if (dim_is_const(e, &c))
		return flat_val_int(F, c);
	dim_text(flat_dims(F), e); /* for nnef_value_string */
	Value *v = new_value(F, VAL_SYMBOL);
	v->u.dim = e;
	return v;
}

const DimExpr *flat_dim_of(Flattener *F, const Value *v)
{
	assert(v->kind == VAL_INT || v->kind == VAL_SYMBOL);
	return v->kind == VAL_SYMBOL ? v->u.dim : dim_const(flat_dims(F), v->u.i);
}

/* A symbol of tract_symbol (its interned name): an integer of unknown
 * value. */
static const Value *val_symbol(Flattener *F, const char *name)
{
	return flat_val_dim(F, dim_symbol(flat_dims(F), name));
}

const Value *flat_val_list(Flattener *F, ValKind kind, const Value *const *items,
		      size_t n)
{
	assert(n <= VALUE_MAX_ITEMS);
	Value *v = new_value(F, kind);
	v->u.items = items;
	v->n = (uint32_t)n;
	return v;
}

static const char *hint_join(Flattener *F, const char *a, const char *b)
{
	if (!a || !*a)
		return b;
	/* "a_b", without a format: one for every expansion */
	size_t na = strlen(a), nb = strlen(b);
	char *s = arena_alloc(&F->hints, na + nb + 2);
	memcpy(s, a, na);
	s[na] = '_';
	memcpy(s + na + 1, b, nb + 1);
	return s;
}

/* ---- targets ----------------------------------------------------------- */

Target flat_anon_target(const Scope *s, const char *base)
{
	Target t = { .lhs = NULL, .scope = s, .anon = base, .name = NULL };
	return t;
}

/* The name hint of a target: the identifier it assigns (prefixed by the
 * expansion it is in), or the base of an anonymous value. */
const char *flat_target_hint(Flattener *F, const Target *t)
{
	if (t && t->name)
		return t->name;
	if (!t || !t->lhs)
		return t ? t->anon : "t";
	const AstExpr *e = t->lhs;
	while (e->kind == AST_ARRAY || e->kind == AST_TUPLE) {
		if (e->u.list.n == 0)
			return t->scope->prefix && *t->scope->prefix
				       ? t->scope->prefix
				       : "t";
		e = e->u.list.items[0];
	}
	return hint_join(F, t->scope->prefix, e->u.ident);
}

/* The k-th item of a target that is an array or tuple left-hand side. */
static Target target_item(Flattener *F, const Target *t, size_t k)
{
	Target it = { NULL, t ? t->scope : NULL, NULL, NULL };
	if (t && t->lhs &&
	    (t->lhs->kind == AST_ARRAY || t->lhs->kind == AST_TUPLE) &&
	    k < t->lhs->u.list.n) {
		it.lhs = t->lhs->u.list.items[k];
		return it;
	}
	it.anon = arena_printf(&F->hints, "%s_%zu", flat_target_hint(F, t), k + 1);
	return it;
}

/* The hint for the tensor an operation named `op` produces for target t:
 * the target's identifier, or "<anon>_<op>" for an intermediate. */
static const char *result_hint(Flattener *F, const Target *t, const char *op)
{
	if (t && t->lhs && t->lhs->kind == AST_IDENT)
		return flat_target_hint(F, t);
	return hint_join(F, flat_target_hint(F, t), op);
}

/* ---- the flat graph --------------------------------------------------- */

#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(FlatTensor) == 48, "a flat graph may have millions of tensors: keep FlatTensor at 48 bytes, its value included");
_Static_assert(sizeof(FlatOp) == 32, "a flat graph may have millions of operations: keep FlatOp at 32 bytes before its results and arguments");
_Static_assert(SHAPE_OP_NONE <= UINT16_MAX, "FlatOp.prim holds a ShapeOp in 16 bits");
#endif

FlatTensor *flat_new_tensor(Flattener *F, const Type *dtype,
			    const char *exact, const char *hint)
{
	size_t i = F->ntensors;
	FlatTensor *t;
	if (F->dry) {
		t = ARENA_NEW(F->arena, FlatTensor); /* checked only, not part
							of the graph */
	} else {
		if (i % FLAT_TENSOR_BLOCK == 0) {
			size_t k = i / FLAT_TENSOR_BLOCK;
			ARRAY_RESERVE(F->tensor_blocks, k, F->captensor_blocks, 16);
			F->tensor_blocks[k] = ARENA_ARRAY(F->arena, FlatTensor, FLAT_TENSOR_BLOCK);
		}
		t = &F->tensor_blocks[i / FLAT_TENSOR_BLOCK][i % FLAT_TENSOR_BLOCK];
		F->ntensors++;
	}
	t->value.kind = VAL_TENSOR;
	t->value.n = (uint32_t)i; /* its id */
	t->value.u.t = t;
	assert(!dtype || dtype->kind <= TY_GENERIC); /* a data type */
	t->dtype = dtype ? (uint8_t)(dtype->kind + 1) : 0;
	t->datum = DT_NONE;
	t->name = exact ? exact : flat_unique_name(F, hint);
	return t;
}

FlatOp *flat_emit(Flattener *F, const SemaFrag *frag, const Type *generic,
		  const Value *const *args, Loc loc, const Frame *frame)
{
	size_t nres = frag->nresults ? frag->nresults : 1;
	FlatOp *op = arena_alloc(F->arena, sizeof(FlatOp) + (nres + frag->nparams) * sizeof(const Value *));
	op->frag = frag;
	assert(!generic || generic->kind <= TY_STRING); /* a primitive type */
	op->generic = generic ? (uint8_t)(generic->kind + 1) : 0;
	if (frag->nparams)
		memcpy(op->results + nres, args, frag->nparams * sizeof(*args));
	op->where = frame ? frame : F->root;
	op->off = loc.off;
	op->len = loc.len;
	assert(flat_op_loc(op).file == loc.file); /* see flat_op_loc */
	op->prim = SHAPE_OP_NONE;
	if (F->dry)
		return op;
	size_t max = F->opt->max_ops ? F->opt->max_ops : FLATTEN_DEFAULT_MAX_OPS;
	if (F->nops == max && !F->too_deep) {
		const Frame *top = frame;
		while (top && top->parent)
			top = top->parent; /* the call the user wrote */
		diag_add(F->diags, DIAG_E0812, top ? top->loc : loc, "the flat graph would have more than %zu operations; raise the limit with --max-operations", max);
		F->too_deep = true; /* stop: nothing more is evaluated */
	}
	ARRAY_RESERVE(F->ops, F->nops, F->capops, 256);
	F->ops[F->nops++] = op;
	if (!frag->is_std) /* declared by the output (collect_declared) */
		flat_mark_declared(F, frag);
	return op;
}

/* The data type of a tensor type with '?' bound. */
static const Type *data_type(const Type *t)
{
	return t->kind == TY_TENSOR ? t->item : NULL;
}

/* What '?' means in scope s, for a binding recorded by sema. */
static const Type *concrete(const Scope *s, const Type *binding)
{
	if (binding && binding->kind == TY_GENERIC)
		return s->generic;
	return binding;
}

/* Creates the result value of an operation's result of type rt (with '?'
 * bound) for target t: a tensor, or an array or tuple of tensors whose
 * length the target's left-hand side gives. */
static const Value *make_result(Flattener *F, FlatOp *op, const Type *rt,
				const Target *t, const Scope *s)
{
	if (rt->kind == TY_TENSOR) {
		/* an identifier of the graph, or a compound's local whose name
		 * is reserved, names the tensor exactly */
		const char *exact = NULL;
		if (t && t->name)
			exact = t->name;
		else if (t && t->lhs && t->lhs->kind == AST_IDENT &&
			 !t->scope->frag)
			exact = t->lhs->u.ident;
		FlatTensor *ft = flat_new_tensor(F, rt->item, exact,
						 result_hint(F, t, op->frag->name));
		ft->producer = op;
		return &ft->value;
	}
	if (rt->kind == TY_ARRAY || rt->kind == TY_TUPLE) {
		const AstExpr *lhs = t ? t->lhs : NULL;
		ValKind want = rt->kind == TY_ARRAY ? VAL_ARRAY : VAL_TUPLE;
		size_t n;
		if (rt->kind == TY_TUPLE) {
			n = rt->n;
		} else if (F->result_len) { /* known from the arguments */
			n = F->result_len;
			F->result_len = 0;
		} else if (lhs && lhs->kind == AST_ARRAY) {
			n = lhs->u.list.n;
		} else {
			Diag *d = flat_value_error(F, DIAG_E0808, flat_op_loc(op), s,
					      "the length of the tensor array '%s' returns is not known here",
					      op->frag->name);
			diag_hint(F->diags, d,
				  "assign it to an array of identifiers, as in '[a, b] = %s(...)'%s",
				  op->frag->name,
				  op->frag->def->body ? ", or do not keep it atomic"
						      : "");
			return NULL;
		}
		const Value **items = ARENA_ARRAY(F->arena, const Value *,
						  n ? n : 1);
		for (size_t k = 0; k < n; k++) {
			Target it = target_item(F, t, k);
			const Type *ik = rt->kind == TY_ARRAY ? rt->item
							      : rt->items[k];
			items[k] = make_result(F, op, ik, &it, s);
			if (!items[k])
				return NULL;
		}
		return flat_val_list(F, want, items, n);
	}
	/* results of fragments are tensors (checked by sema) */
	return NULL;
}

/* Emits an invocation of an operation that stays atomic; returns its
 * result (a tuple for several results). */
static const Value *emit_call(Flattener *F, const SemaFrag *f,
			      const Type *generic, const Value **args,
			      const AstExpr *e, const Scope *s, const Target *t);

const Value *flat_call(Flattener *F, const SemaFrag *f, const Type *generic,
		       const Value **args, const AstExpr *e, const Scope *s,
		       const Target *t)
{
	return emit_call(F, f, generic, args, e, s, t);
}

static const Value *emit_call(Flattener *F, const SemaFrag *f,
			      const Type *generic, const Value **args,
			      const AstExpr *e, const Scope *s, const Target *t)
{
	FlatOp *op = flat_emit(F, f, generic, args, e->loc, s->frame);
	if (f->nresults == 1) {
		op->results[0] = make_result(F, op, ty_bind(F->tt,
							     f->results[0].type,
							     generic),
					     t, s);
		if (op->results[0])
			flat_infer_shapes(F, op, e);
		return op->results[0];
	}
	const Value **items = ARENA_ARRAY(F->arena, const Value *, f->nresults);
	for (size_t k = 0; k < f->nresults; k++) {
		Target it = target_item(F, t, k);
		op->results[k] = items[k] = make_result(
			F, op, ty_bind(F->tt, f->results[k].type, generic), &it,
			s);
		if (!items[k])
			return NULL;
	}
	flat_infer_shapes(F, op, e);
	return flat_val_list(F, VAL_TUPLE, items, f->nresults);
}

static const SemaFrag *std_op(Flattener *F, const char *name)
{
	return sema_lookup(F->prog, intern_cstr(F->interner, name));
}

/* ---- evaluation -------------------------------------------------------- */

static bool stack_exhausted(Flattener *F)
{
	char probe;
	uintptr_t here = (uintptr_t)&probe;
	return F->stack_base > here && F->stack_base - here > F->stack_budget;
}

static const Value *eval_ident(Flattener *F, const AstExpr *e, Scope *s)
{
	const char *name = e->u.ident;
	for (size_t i = F->niters; i-- > 0;)
		if (F->iter_names[i] == name)
			return F->iter_values[i];
	/* sema guarantees it is defined; NULL is an earlier error */
	bool found = false;
	const Value *v = !s->frag ? flat_graph_value(name) : pmap_get(&s->env, name, &found);
	/* a symbol: sema let it through only where --lenient takes it as an
	 * extent of unknown value, or anywhere in tract's dialect */
	if (!v && sema_is_symbol(F->prog, name))
		return val_symbol(F, name);
	if (!v && F->tract && strcmp(name, "inf") == 0)
		return flat_val_scalar(F, INFINITY); /* tract's literal */
	return v;
}

static const Value *eval_list(Flattener *F, const AstExpr *e, Scope *s,
			      const Target *t)
{
	size_t n = e->u.list.n;
	const Value **items = ARENA_ARRAY(F->arena, const Value *, n ? n : 1);
	/* a literal array or tuple on the right of a matching left-hand side
	 * passes its items' names on; otherwise the items are anonymous */
	bool matching = t && t->lhs && t->lhs->kind == e->kind;
	Target anon = flat_anon_target(s, matching ? NULL : flat_target_hint(F, t));
	for (size_t i = 0; i < n; i++) {
		Target it = matching ? target_item(F, t, i) : anon;
		items[i] = flat_eval_expr(F, e->u.list.items[i], s, &it);
		if (!items[i])
			return NULL;
	}
	return flat_val_list(F, e->kind == AST_ARRAY ? VAL_ARRAY : VAL_TUPLE, items,
			n);
}

/* ---- arithmetic -------------------------------------------------------- */

static const Value *int_result(Flattener *F, const AstExpr *e, Scope *s,
			       bool overflow, int64_t r)
{
	if (overflow) {
		flat_value_error(F, DIAG_E0803, e->loc, s,
			    "integer overflow: the result does not fit in 64 bits");
		return NULL;
	}
	return flat_val_int(F, r);
}

static const Value *scalar_result(Flattener *F, const AstExpr *e, Scope *s,
				  double r)
{
	if (!isfinite(r)) {
		flat_value_error(F, DIAG_E0809, e->loc, s,
			    "the result of this arithmetic is not a finite number");
		return NULL;
	}
	return flat_val_scalar(F, r);
}

static bool ipow(int64_t base, int64_t exp, int64_t *out)
{
	int64_t r = 1;
	while (exp > 0) {
		if (exp & 1) {
			if (__builtin_mul_overflow(r, base, &r))
				return false;
		}
		exp >>= 1;
		if (exp && __builtin_mul_overflow(base, base, &base))
			return false;
	}
	*out = r;
	return true;
}

/* Takes bytes from the budget of compile-time values (E0811 when it is
 * spent: a short document must not build gigabytes). */
static bool flat_spend(Flattener *F, Loc loc, const Frame *frame, uint64_t bytes)
{
	uint64_t max = F->opt->max_value_bytes ? F->opt->max_value_bytes : FLATTEN_DEFAULT_MAX_VALUE_BYTES;
	if (bytes <= max && F->value_bytes <= max - bytes) {
		F->value_bytes += bytes;
		return true;
	}
	flat_error(F, DIAG_E0811, loc, frame, "compile-time values would take more than %llu bytes in all; raise the limit with --max-value-bytes", (unsigned long long)max);
	return false;
}

bool flat_spend_for(Flattener *F, const AstExpr *e, const Scope *s,
		  uint64_t bytes)
{
	return flat_spend(F, e->loc, s ? s->frame : NULL, bytes);
}

/* Concatenation of arrays or strings, and repetition. */
static const Value *concat_values(Flattener *F, const AstExpr *e,
				  const Scope *s, const Value *a,
				  const Value *b)
{
	uint64_t n = (uint64_t)a->n + b->n;
	if (n > VALUE_MAX_ITEMS) {
		flat_value_error(F, DIAG_E0809, e->loc, s, "concatenating %u and %u items is too large: a value holds at most %u", a->n, b->n, (unsigned)VALUE_MAX_ITEMS);
		return NULL;
	}
	if (!flat_spend_for(F, e, s, a->kind == VAL_STR ? n : n * sizeof(Value *)))
		return NULL;
	if (a->kind == VAL_STR) {
		char *p = arena_alloc(F->arena, (size_t)a->n + b->n + 1);
		memcpy(p, a->u.str, a->n);
		memcpy(p + a->n, b->u.str, b->n);
		return flat_val_str(F, p, a->n + b->n);
	}
	const Value **items = ARENA_ARRAY(F->arena, const Value *, n ? n : 1);
	if (a->n)
		memcpy(items, a->u.items, a->n * sizeof(*items));
	if (b->n)
		memcpy(items + a->n, b->u.items,
		       b->n * sizeof(*items));
	return flat_val_list(F, VAL_ARRAY, items, n);
}

static const Value *repeat_value(Flattener *F, const AstExpr *e, Scope *s,
				 const Value *a, int64_t times)
{
	size_t len = a->n;
	if (times < 0) {
		flat_value_error(F, DIAG_E0809, e->loc, s,
			    "cannot repeat %s %lld times",
			    a->kind == VAL_STR ? "a string" : "an array",
			    (long long)times);
		return NULL;
	}
	if (len && (uint64_t)times > (((size_t)1 << 31) / len)) {
		flat_value_error(F, DIAG_E0809, e->loc, s,
			    "repeating %zu items %lld times is too large", len,
			    (long long)times);
		return NULL;
	}
	size_t n = len * (size_t)times;
	if (!flat_spend_for(F, e, s, a->kind == VAL_STR ? n : n * sizeof(Value *)))
		return NULL;
	if (a->kind == VAL_STR) {
		char *p = arena_alloc(F->arena, n + 1);
		for (int64_t k = 0; k < times; k++)
			memcpy(p + (size_t)k * len, a->u.str, len);
		return flat_val_str(F, p, n);
	}
	const Value **items = ARENA_ARRAY(F->arena, const Value *, n ? n : 1);
	for (int64_t k = 0; k < times; k++)
		if (len)
			memcpy(items + (size_t)k * len, a->u.items,
			       len * sizeof(*items));
	return flat_val_list(F, VAL_ARRAY, items, n);
}

/* An operator with a tensor operand: the primitive of spec 3.3.3 Table 1. */
static const Value *emit_operator(Flattener *F, const AstExpr *e, Scope *s,
				  const Target *t, const Value **operands,
				  size_t n)
{
	const SemaFrag **slot = &F->op_frags[e->op][n == 1];
	if (!*slot)
		*slot = std_op(F, ast_op_fragment((AstOp)e->op, n == 1));
	const SemaFrag *f = *slot;
	const Type *generic = NULL;
	if (f->is_generic) /* copy: the operand's data type */
		generic = operands[0]->kind == VAL_TENSOR
				  ? flat_tensor_dtype(operands[0]->u.t, F->tt)
				  : data_type(e->type);
	const Value *few[8] = { NULL }; /* the operation copies them */
	const Value **args = f->nparams <= 8 ? few
					    : ARENA_ARRAY(F->arena, const Value *, f->nparams);
	for (size_t i = 0; i < n; i++)
		args[i] = operands[i];
	bool later = false;
	if (F->tract && !flat_tract_args(F, f, args, e, s->frame, &later))
		return NULL;
	return emit_call(F, f, generic, args, e, s, t);
}

static const Value *eval_unary(Flattener *F, const AstExpr *e, Scope *s,
			       const Target *t)
{
	Target anon = flat_anon_target(s, flat_target_hint(F, t));
	const Value *a = flat_eval_expr(F, e->u.bin.a, s, &anon);
	if (!a)
		return NULL;
	if (e->type->kind == TY_TENSOR)
		return emit_operator(F, e, s, t, &a, 1);
	switch ((AstOp)e->op) {
	case AST_OP_NOT:
		return flat_val_bool(F, !a->u.b);
	case AST_OP_PLUS:
		return a;
	case AST_OP_MINUS:
		if (a->kind == VAL_SCALAR)
			return flat_val_scalar(F, -a->u.s);
		if (a->kind == VAL_SYMBOL)
			return flat_val_dim(F, dim_sub(flat_dims(F), dim_const(flat_dims(F), 0), a->u.dim));
		/* -INT64_MIN overflows: negate only what can be negated */
		return int_result(F, e, s, a->u.i == INT64_MIN, a->u.i == INT64_MIN ? 0 : -a->u.i);
	case AST_OP_MUL:
	case AST_OP_DIV:
	case AST_OP_POW:
	case AST_OP_LT:
	case AST_OP_LE:
	case AST_OP_GT:
	case AST_OP_GE:
	case AST_OP_EQ:
	case AST_OP_NE:
	case AST_OP_AND:
	case AST_OP_OR:
	case AST_OP_IN:
		return NULL;
	}
	return NULL; /* not reached: every kind is a case */
}

static int cmp_numbers(const Value *a, const Value *b)
{
	if (a->kind == VAL_INT)
		return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
	return a->u.s < b->u.s ? -1 : a->u.s > b->u.s;
}

static bool contains(const Value *item, const Value *array)
{
	for (size_t i = 0; i < array->n; i++)
		if (value_equal(item, array->u.items[i]))
			return true;
	return false;
}

static const Value *eval_binary(Flattener *F, const AstExpr *e, Scope *s,
				const Target *t)
{
	AstOp op = (AstOp)e->op;
	Target anon = flat_anon_target(s, flat_target_hint(F, t));
	const Value *a = flat_eval_expr(F, e->u.bin.a, s, &anon);
	if (!a)
		return NULL;
	const Value *b = flat_eval_expr(F, e->u.bin.b, s, &anon);
	if (!b)
		return NULL;
	if (e->type->kind == TY_TENSOR) {
		const Value *ops[2] = { a, b };
		return emit_operator(F, e, s, t, ops, 2);
	}
	if (a->kind == VAL_SYMBOL || b->kind == VAL_SYMBOL)
		return flat_dim_operator(F, (AstOp)e->op, a, b, e->loc, s->frame);
	int64_t r = 0;
	switch (op) {
	case AST_OP_PLUS:
		if (a->kind == VAL_INT) {
			bool o = __builtin_add_overflow(a->u.i, b->u.i, &r);
			return int_result(F, e, s, o, r);
		}
		if (a->kind == VAL_SCALAR)
			return scalar_result(F, e, s, a->u.s + b->u.s);
		return concat_values(F, e, s, a, b);
	case AST_OP_MINUS:
		if (a->kind == VAL_INT) {
			bool o = __builtin_sub_overflow(a->u.i, b->u.i, &r);
			return int_result(F, e, s, o, r);
		}
		return scalar_result(F, e, s, a->u.s - b->u.s);
	case AST_OP_MUL:
		if (a->kind == VAL_INT) {
			bool o = __builtin_mul_overflow(a->u.i, b->u.i, &r);
			return int_result(F, e, s, o, r);
		}
		if (a->kind == VAL_SCALAR)
			return scalar_result(F, e, s, a->u.s * b->u.s);
		return repeat_value(F, e, s, a, b->u.i);
	case AST_OP_DIV:
		if ((a->kind == VAL_INT && b->u.i == 0) ||
		    (a->kind == VAL_SCALAR && b->u.s == 0.0)) {
			flat_value_error(F, DIAG_E0802, e->loc, s,
				    "division by zero");
			return NULL;
		}
		if (a->kind == VAL_INT) {
			if (a->u.i == INT64_MIN && b->u.i == -1)
				return int_result(F, e, s, true, 0);
			/* integer division truncates toward zero */
			return flat_val_int(F, a->u.i / b->u.i);
		}
		return scalar_result(F, e, s, a->u.s / b->u.s);
	case AST_OP_POW:
		if (a->kind == VAL_INT) {
			if (b->u.i < 0) {
				flat_value_error(F, DIAG_E0809, e->loc, s,
					    "integer power with the negative exponent %lld",
					    (long long)b->u.i);
				return NULL;
			}
			bool o = !ipow(a->u.i, b->u.i, &r);
			return int_result(F, e, s, o, r);
		}
		return scalar_result(F, e, s, pow(a->u.s, b->u.s));
	case AST_OP_LT:
		return flat_val_bool(F, cmp_numbers(a, b) < 0);
	case AST_OP_LE:
		return flat_val_bool(F, cmp_numbers(a, b) <= 0);
	case AST_OP_GT:
		return flat_val_bool(F, cmp_numbers(a, b) > 0);
	case AST_OP_GE:
		return flat_val_bool(F, cmp_numbers(a, b) >= 0);
	case AST_OP_EQ:
		return flat_val_bool(F, value_equal(a, b));
	case AST_OP_NE:
		return flat_val_bool(F, !value_equal(a, b));
	case AST_OP_AND:
		return flat_val_bool(F, a->u.b && b->u.b);
	case AST_OP_OR:
		return flat_val_bool(F, a->u.b || b->u.b);
	case AST_OP_IN:
		return flat_val_bool(F, contains(a, b));
	case AST_OP_NOT:
		break;
	}
	return NULL;
}

/* ---- subscripts -------------------------------------------------------- */

static const Value *eval_index(Flattener *F, const AstExpr *ix, Scope *s,
			       int64_t *out)
{
	Target anon = flat_anon_target(s, "index");
	const Value *v = flat_eval_expr(F, ix, s, &anon);
	if (!v)
		return NULL;
	*out = v->u.i;
	return v;
}

static const Value *eval_subscript(Flattener *F, const AstExpr *e, Scope *s,
				   const Target *t)
{
	Target anon = flat_anon_target(s, flat_target_hint(F, t));
	const Value *seq = flat_eval_expr(F, e->u.sub.seq, s, &anon);
	if (!seq)
		return NULL;
	if (seq->kind == VAL_TUPLE) /* sema: an integer literal in range */
		return seq->u.items[e->u.sub.index->u.ival];
	bool is_str = seq->kind == VAL_STR;
	size_t len = seq->n;
	const char *what = is_str ? "string" : "array";
	if (!e->u.sub.is_range) {
		int64_t i;
		if (!eval_index(F, e->u.sub.index, s, &i))
			return NULL;
		if (i < 0 || (uint64_t)i >= len) {
			flat_value_error(F, DIAG_E0801, e->u.sub.index->loc, s,
				    "index %lld is out of range for %s %s of length %zu",
				    (long long)i, is_str ? "a" : "an", what, len);
			return NULL;
		}
		if (is_str)
			return flat_val_str(F, seq->u.str + i, 1);
		return seq->u.items[i];
	}
	/* [begin:end]: open ends are 0 and the length; begin >= end gives
	 * an empty result (spec 3.3.3 Arrays) */
	int64_t b = 0, en = (int64_t)len;
	if (e->u.sub.index && !eval_index(F, e->u.sub.index, s, &b))
		return NULL;
	if (e->u.sub.end && !eval_index(F, e->u.sub.end, s, &en))
		return NULL;
	for (int k = 0; k < 2; k++) {
		int64_t v = k ? en : b;
		const AstExpr *x = k ? e->u.sub.end : e->u.sub.index;
		if (x && (v < 0 || (uint64_t)v > len)) {
			flat_value_error(F, DIAG_E0801, x->loc, s,
				    "range bound %lld is out of range for %s %s of length %zu",
				    (long long)v, is_str ? "a" : "an", what, len);
			return NULL;
		}
	}
	size_t n = b < en ? (size_t)(en - b) : 0;
	if (is_str)
		return flat_val_str(F, seq->u.str + (n ? b : 0), n);
	return flat_val_list(F, VAL_ARRAY, seq->u.items + (n ? b : 0), n);
}

/* ---- comprehensions ---------------------------------------------------- */

static void push_iter(Flattener *F, const char *name, const Value *v)
{
	size_t cap = F->capiters; /* the two arrays grow together */
	ARRAY_RESERVE(F->iter_names, F->niters, F->capiters, 8);
	ARRAY_RESERVE(F->iter_values, F->niters, cap, 8);
	F->iter_names[F->niters] = name;
	F->iter_values[F->niters] = v;
	F->niters++;
}

static const Value *eval_comprehension(Flattener *F, const AstExpr *e,
				       Scope *s, const Target *t)
{
	size_t ni = e->u.comp.niters;
	const Value **arrays = util_malloc(ni * sizeof(*arrays));
	size_t len = 0;
	const Value *result = NULL;
	Target anon = flat_anon_target(s, flat_target_hint(F, t));
	for (size_t k = 0; k < ni; k++) {
		arrays[k] = flat_eval_expr(F, e->u.comp.iters[k].iterable, s, &anon);
		if (!arrays[k])
			goto done;
		if (k == 0) {
			len = arrays[k]->n;
		} else if (arrays[k]->n != len) {
			flat_value_error(F, DIAG_E0805,
				    e->u.comp.iters[k].iterable->loc, s,
				    "the iterated arrays have different lengths: %zu for '%s', %zu for '%s'",
				    len, e->u.comp.iters[0].name,
				    (size_t)arrays[k]->n, e->u.comp.iters[k].name);
			goto done;
		}
	}
	if (!flat_spend_for(F, e, s, len * sizeof(Value *))) {
		result = NULL;
		goto done;
	}
	const Value **items = ARENA_ARRAY(F->arena, const Value *, len ? len : 1);
	size_t n = 0;
	size_t base = F->niters;
	for (size_t i = 0; i < len; i++) {
		F->niters = base;
		for (size_t k = 0; k < ni; k++)
			push_iter(F, e->u.comp.iters[k].name,
				  arrays[k]->u.items[i]);
		if (e->u.comp.cond) {
			const Value *c = flat_eval_expr(F, e->u.comp.cond, s, &anon);
			if (!c) {
				F->niters = base;
				goto done;
			}
			if (!c->u.b)
				continue;
		}
		/* item n of an array left-hand side names the n-th value */
		Target it = anon;
		if (t && t->lhs && t->lhs->kind == AST_ARRAY &&
		    n < t->lhs->u.list.n)
			it = target_item(F, t, n);
		const Value *v = flat_eval_expr(F, e->u.comp.value, s, &it);
		if (!v) {
			F->niters = base;
			goto done;
		}
		items[n++] = v;
	}
	F->niters = base;
	result = flat_val_list(F, VAL_ARRAY, items, n);
done:
	util_free(arrays);
	return result;
}

/* ---- invocations -------------------------------------------------------- */

static bool is_kept(const Flattener *F, const SemaFrag *f)
{
	if (!f->def->body)
		return true;
	if (F->opt->keep_standard && f->is_std)
		return true;
	for (size_t i = 0; i < F->nkept; i++)
		if (F->kept[i] == f)
			return true;
	return false;
}

/* The value of a default argument, evaluated once. */
static const Value *default_value(Flattener *F, const AstExpr *def, Scope *s)
{
	bool found;
	const Value *v = pmap_get(&F->defaults, def, &found);
	if (found)
		return v;
	Target anon = flat_anon_target(s, "default");
	v = flat_eval_expr(F, def, s, &anon);
	if (v)
		pmap_put(&F->defaults, def, (void *)v);
	return v;
}

static const Value *expand(Flattener *F, const AstExpr *e, Scope *s,
			   const Target *t, const SemaFrag *f,
			   const Type *generic, const Value **args);

const Value *flat_expand_dry(Flattener *F, const AstExpr *e, Scope *s,
			     const SemaFrag *f, const Value **args)
{
	Target anon = flat_anon_target(s, f->name);
	F->dry++;
	const Value *v = expand(F, e, s, &anon, f, NULL, args);
	F->dry--;
	return v;
}

const Value *flat_expand(Flattener *F, const AstExpr *e, Scope *s,
			 const SemaFrag *f, const Value **args)
{
	Target anon = flat_anon_target(s, f->name);
	return expand(F, e, s, &anon, f, NULL, args);
}

/* Gives the tensors of `to` the shapes of the matching tensors of
 * `from`; returns false, with the lengths that differ, where an array of
 * `to` (sized by the left-hand side) does not match the one the body
 * made. */
static bool copy_shapes(Flattener *F, const Value *from, const Value *to,
			size_t *want, size_t *got)
{
	if (from->kind == VAL_TENSOR && to->kind == VAL_TENSOR) {
		Shape shape = flat_tensor_shape(from->u.t);
		flat_set_shape(F, to->u.t, &shape, flat_origin(F, from->u.t));
		return true;
	}
	if ((from->kind != VAL_ARRAY && from->kind != VAL_TUPLE) ||
	    from->kind != to->kind)
		return true; /* not a tensor result: nothing to copy */
	if (from->n != to->n) {
		*want = to->n;
		*got = from->n;
		return false;
	}
	for (size_t i = 0; i < from->n; i++)
		if (!copy_shapes(F, from->u.items[i], to->u.items[i],
				 want, got))
			return false;
	return true;
}

/* A compound kept atomic: its body is expanded as a check only (nothing
 * joins the graph, no name is taken), so that the errors in it are found
 * and its results get their shapes; then the invocation is emitted. */
static const Value *emit_kept(Flattener *F, const AstExpr *e, Scope *s,
			      const Target *t, const SemaFrag *f,
			      const Type *generic, const Value **args)
{
	F->dry++;
	const Value *checked = expand(F, e, s, t, f, generic, args);
	F->dry--;
	if (!checked)
		return NULL;
	const Value *v = emit_call(F, f, generic, args, e, s, t);
	size_t want, got;
	if (v && !copy_shapes(F, checked, v, &want, &got)) {
		flat_value_error(F, DIAG_E0807, t && t->lhs ? t->lhs->loc : e->loc, s, "the left-hand side has %zu item%s but the value has %zu", want, want == 1 ? "" : "s", got);
		return NULL;
	}
	return v;
}

static const Value *eval_invoke(Flattener *F, const AstExpr *e, Scope *s,
				const Target *t)
{
	const SemaCall *call = e->u.inv.call;
	const SemaFrag *f = call->callee;
	const Type *generic = concrete(s, call->generic);
	/* the arguments of a compound expanded are needed while its body is
	 * evaluated (its scope takes their values), those of an operation
	 * are copied into it: on the stack when few */
	const Value *few[8];
	const Value **args = f->nparams <= 8
				     ? few
				     : ARENA_ARRAY(F->arena, const Value *,
						   f->nparams);
	Target anon = flat_anon_target(s, flat_target_hint(F, t));
	for (size_t i = 0; i < f->nparams; i++) {
		const Value *v = call->args[i]
					 ? flat_eval_expr(F, call->args[i], s, &anon)
					 : default_value(F, f->params[i].def, s);
		if (!v)
			return NULL;
		args[i] = v;
		if (f->def->body && !F->tract && F->prog->doc->vendor.nsymbols && call->args[i] && value_holds(v, VAL_SYMBOL)) {
			flat_value_error(F, DIAG_E0813, call->args[i]->loc, s, "an extent of unknown value (a symbol of tract_symbol) cannot be an argument of the compound '%s': its body computes with the value", f->name);
			return NULL;
		}
	}
	if (F->unquantized.count)
		flat_quant_update(F, f, args);
	return flat_invoke(F, e, s, t, f, generic, args);
}

const Value *flat_invoke(Flattener *F, const AstExpr *e, Scope *s,
			 const Target *t, const SemaFrag *f,
			 const Type *generic, const Value **args)
{
	bool expands = f->def->body && (!is_kept(F, f) || F->dry);
	bool later = false;
	if (F->tract && !flat_tract_args(F, f, args, e, s->frame, &later))
		return NULL;
	if (F->tract && f->is_registry && flat_is_nested(f))
		return flat_tract_nested(F, f, generic, args, e, s, t);
	if (later && f->def->body) {
		flat_value_error(F, DIAG_E0814, e->loc, s, "an attribute of '%s' is given a tensor computed from variables, known when the model is loaded; nnefkit needs its value when the graph is built, to expand '%s'", f->name, f->name);
		return NULL;
	}
	if (!f->def->body)
		return emit_call(F, f, generic, args, e, s, t);
	if (!expands)
		return emit_kept(F, e, s, t, f, generic, args);
	return expand(F, e, s, t, f, generic, args);
}

/* The data type of a literal given where a tensor is expected. */
static const Type *literal_dtype(const Flattener *F, const Value *v)
{
	switch (v->kind) {
	case VAL_INT:
	case VAL_SYMBOL:
		return ty_prim(F->tt, TY_INTEGER);
	case VAL_BOOL:
		return ty_prim(F->tt, TY_LOGICAL);
	case VAL_SCALAR:
	case VAL_STR:
	case VAL_ARRAY:
	case VAL_TUPLE:
	case VAL_TENSOR:
		return ty_prim(F->tt, TY_SCALAR);
	}
	return NULL; /* not reached: every kind is a case */
}

/* A graph result must be a tensor of its own name: when the body makes it
 * an alias of another tensor, or a literal, a copy gives it its name,
 * right where it is assigned. */
static const Value *result_copy(Flattener *F, const AstExpr *lhs,
				const Value *v)
{
	const SemaFrag *copy = sema_lookup(F->prog, F->copy_name);
	const Type *dtype = v->kind == VAL_TENSOR ? flat_tensor_dtype(v->u.t, F->tt)
						  : literal_dtype(F, v);
	const Value *args[1] = { v };
	FlatOp *op = flat_emit(F, copy, dtype, args, lhs->loc, NULL);
	FlatTensor *t = flat_new_tensor(F, dtype, lhs->u.ident, NULL);
	t->bound = true;
	t->producer = op;
	op->results[0] = &t->value;
	flat_infer_shapes(F, op, NULL);
	return op->results[0];
}

/* tract's dialect: a graph identifier assigned again names the new value
 * from there on; the tensor it named before takes another name, so that
 * the flat graph's names stay unique. */
static void rename_earlier(Flattener *F, const char *name, const Value *v)
{
	const Value *old = flat_graph_value(name);
	if (old && old != v && old->kind == VAL_TENSOR && old->u.t->name == name) {
		old->u.t->name = flat_unique_name(F, name);
		old->u.t->bound = false;
	}
}

/* Binds a left-hand side to a value (spec 3.3.2 Assignments). */
static bool bind(Flattener *F, const AstExpr *lhs, const Value *v, Scope *s)
{
	if (lhs->kind == AST_IDENT) {
		const char *name = lhs->u.ident;
		if (v && !s->frag && F->tract && v->kind != VAL_TENSOR)
			v = flat_tract_assigned(F, lhs, v, s->frame);
		if (v && !s->frag && F->tract)
			rename_earlier(F, name, v);
		if (v && !s->frag) {
			if (v->kind == VAL_TENSOR && !v->u.t->bound) {
				v->u.t->name = name;
				v->u.t->bound = true;
			} else if (flat_is_result(F, name) &&
				   (v->kind != VAL_TENSOR || v->u.t->name != name)) {
				v = result_copy(F, lhs, v);
			}
		}
		if (s->frag)
			pmap_put(&s->env, name, (void *)v);
		else
			flat_set_graph_value(F, name, v);
		return true;
	}
	if (!v) {
		for (size_t i = 0; i < lhs->u.list.n; i++)
			bind(F, lhs->u.list.items[i], NULL, s);
		return false;
	}
	ValKind want = lhs->kind == AST_ARRAY ? VAL_ARRAY : VAL_TUPLE;
	/* tract: a tuple of identifiers takes the tensors of an array */
	if (F->tract && (v->kind == VAL_ARRAY || v->kind == VAL_TUPLE))
		want = v->kind;
	if (v->kind != want || v->n != lhs->u.list.n) {
		flat_value_error(F, DIAG_E0807, lhs->loc, s,
			    "the left-hand side has %zu item%s but the value has %zu",
			    lhs->u.list.n, lhs->u.list.n == 1 ? "" : "s",
			    v->kind == want ? v->n : (size_t)1);
		for (size_t i = 0; i < lhs->u.list.n; i++)
			bind(F, lhs->u.list.items[i], NULL, s);
		return false;
	}
	bool ok = true;
	for (size_t i = 0; i < lhs->u.list.n; i++)
		ok &= bind(F, lhs->u.list.items[i], v->u.items[i], s);
	return ok;
}

/* The result index of a fragment named `name`, or -1. */
static long result_index(const SemaFrag *f, const char *name)
{
	bool found;
	uintptr_t i = (uintptr_t)pmap_get(&f->result_index, name, &found);
	return found ? (long)i - 1 : -1;
}

static void flat_eval_body(Flattener *F, const AstBody *body, Scope *s)
{
	for (size_t i = 0; i < body->nstmts; i++) {
		if (diag_limit_reached(F->diags) || F->too_deep)
			return;
		flat_eval_stmt(F, &body->stmts[i], s);
	}
}

void flat_eval_stmt(Flattener *F, const AstAssign *st, Scope *s)
{
	Target t = { st->lhs, s, NULL, NULL };
	/* an assignment to a result of the fragment being expanded names its
	 * tensors after the caller's target; one to a local reserves the
	 * local's name now, so that what it is computed from is named after
	 * it */
	if (s->frag && st->lhs->kind == AST_IDENT) {
		long r = result_index(s->frag, st->lhs->u.ident);
		if (r >= 0)
			t = s->results[r];
		else
			t.name = flat_unique_name(
				F, hint_join(F, s->prefix, st->lhs->u.ident));
	}
	const Value *v = flat_eval_expr(F, st->rhs, s, &t);
	bind(F, st->lhs, v, s);
}

const Expansion *flat_expansion(const Flattener *F, const Frame *frame)
{
	size_t i = frame->depth - 1;
	return i < F->nexps && F->exps[i].frame == frame ? &F->exps[i] : NULL;
}

/* Expands a compound: its body in a new scope. */
static const Value *expand(Flattener *F, const AstExpr *e, Scope *s,
			   const Target *t, const SemaFrag *f,
			   const Type *generic, const Value **args)
{
	if (F->tract && f->is_std) {
		const Value *v = flat_fold_symbolic_call(F, f, args);
		if (v)
			return v;
	}
	uint32_t depth = s->frame ? s->frame->depth + 1 : 1;
	Frame *frame = ARENA_NEW(F->arena, Frame);
	frame->frag = f;
	frame->loc = e->loc;
	frame->parent = s->frame;
	frame->depth = depth;
	if (depth > F->opt->max_depth || stack_exhausted(F)) {
		if (!F->too_deep) {
			Diag *d = diag_add(F->diags, DIAG_E0806, e->loc,
					   "compound expansions nested more than %zu deep",
					   depth > F->opt->max_depth
						   ? F->opt->max_depth
						   : (size_t)depth - 1);
			diag_hint(F->diags, d,
				  depth > F->opt->max_depth
					  ? "an unbounded recursion? the limit is set with --max-depth"
					  : "the evaluation stack is exhausted");
			flat_add_frames(F, d, s->frame);
		}
		F->too_deep = true;
		return NULL;
	}
	if (f->is_std && F->tract)
		flat_tract_compound(F, f, args, e, s->frame);
	if (f->is_std)
		flat_check_compound(F, f, args, e, s);
	Scope inner;
	memset(&inner, 0, sizeof(inner));
	inner.frag = f;
	inner.generic = generic;
	inner.prefix = flat_target_hint(F, t);
	inner.frame = frame;
	pmap_init(&inner.env);
	for (size_t i = 0; i < f->nparams; i++)
		pmap_put(&inner.env, f->params[i].name, (void *)args[i]);
	/* the targets live while the body is evaluated: on the stack when
	 * few (a million expansions would otherwise keep them all) */
	Target few[4];
	Target *rt = f->nresults <= 4 ? few
				       : ARENA_ARRAY(F->arena, Target, f->nresults);
	for (size_t k = 0; k < f->nresults; k++)
		rt[k] = f->nresults == 1 ? *t : target_item(F, t, k);
	inner.results = rt;
	assert(F->nexps == depth - 1);
	ARRAY_RESERVE(F->exps, F->nexps, F->capexps, 16);
	F->exps[F->nexps++] = (Expansion){ frame, e, args };
	flat_eval_body(F, f->def->body, &inner);
	F->nexps--;

	const Value *result = NULL, *one;
	/* a single result is the value itself: no array kept for it */
	const Value **items = f->nresults == 1
				      ? &one
				      : ARENA_ARRAY(F->arena, const Value *, f->nresults);
	bool ok = !F->too_deep;
	for (size_t k = 0; k < f->nresults && ok; k++) {
		bool found;
		items[k] = pmap_get(&inner.env, f->results[k].name, &found);
		ok = items[k] != NULL;
	}
	if (ok)
		result = f->nresults == 1
				 ? items[0]
				 : flat_val_list(F, VAL_TUPLE, items, f->nresults);
	if (result && f->is_std && F->tract)
		flat_fold_compound(F, f, args, result);
	pmap_free(&inner.env);
	return result;
}

/* ---- dispatch ----------------------------------------------------------- */

const Value *flat_eval_expr(Flattener *F, const AstExpr *e, Scope *s,
		       const Target *t)
{
	switch (ast_kind(e)) {
	case AST_IDENT:
		return eval_ident(F, e, s);
	case AST_INT:
		if (e->op != 1) /* 2^63 is only valid negated: not shared */
			return flat_literal(F, e);
		return flat_val_int(F, e->u.ival);
	case AST_REAL:
	case AST_BOOL:
		return flat_literal(F, e);
	case AST_STRING:
	case AST_ARRAY:
	case AST_TUPLE: {
		const Value *v = flat_literal(F, e);
		if (v)
			return v;
		if (e->kind == AST_STRING)
			return flat_val_str(F, e->u.str.s, e->u.str.len);
		return eval_list(F, e, s, t);
	}
	case AST_UNARY: {
		const Value *v = flat_literal(F, e); /* a negative number */
		return v ? v : eval_unary(F, e, s, t);
	}
	case AST_BINARY:
		return eval_binary(F, e, s, t);
	case AST_SUBSCRIPT:
		return eval_subscript(F, e, s, t);
	case AST_IFELSE: {
		/* lazy: only the branch taken is evaluated (spec 3.3.3) */
		Target anon = flat_anon_target(s, flat_target_hint(F, t));
		const Value *c = flat_eval_expr(F, e->u.sel.cond, s, &anon);
		if (!c)
			return NULL;
		return flat_eval_expr(F, c->u.b ? e->u.sel.value : e->u.sel.other, s,
				 t);
	}
	case AST_COMPREHENSION:
		return eval_comprehension(F, e, s, t);
	case AST_BUILTIN:
		return flat_eval_builtin(F, e, s, t);
	case AST_INVOKE:
		return eval_invoke(F, e, s, t);
	}
	return NULL;
}
