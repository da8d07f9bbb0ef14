/*
 * expr.c - types of expressions (spec 3.3.1, 3.3.3) and invocations
 * (spec 3.3.2 Invocations): literals, identifiers, arrays and tuples,
 * the operators of Table 1 (on tensors they map to fragments: a + b is
 * add(a, b)), if-else, subscripts, comprehensions, built-in functions,
 * argument matching and generic deduction.
 *
 * Every function returns the expression's type, or NULL after reporting
 * an error; a NULL operand is not reported again, so one mistake gives one
 * diagnostic.
 */
#include "sema/sema_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *tstr(Ctx *c, const Type *t)
{
	return ty_str(c->arena, t);
}

static const Type *prim(Ctx *c, TypeKind k)
{
	return ty_prim(c->tt, k);
}

static bool is_numeric(const Type *t)
{
	return t->kind == TY_INTEGER || t->kind == TY_SCALAR;
}

static const Type *set_type(AstExpr *e, const Type *t)
{
	e->type = t;
	return t;
}

/* ---- identifiers ------------------------------------------------------ */

static const Binding *find_iter(const Ctx *c, const char *name)
{
	for (size_t i = c->niters; i-- > 0;)
		if (c->iters[i].name == name)
			return &c->iters[i];
	return NULL;
}

/* Candidate names for "did you mean": identifiers of the body. */
static const char *suggest_identifier(Ctx *c, const char *name)
{
	size_t n = c->env.map.count + c->env.nbound + c->niters;
	const char **cands = util_malloc((n ? n : 1) * sizeof(*cands));
	size_t k = 0;
	for (size_t i = 0; i < c->env.map.cap; i++) {
		const Binding *b = c->env.map.slots[i].val;
		if (c->env.map.slots[i].key && b->defined)
			cands[k++] = b->name;
	}
	for (size_t i = 0; i < c->env.nbound; i++) {
		const Binding *b = env_bound(&c->env, i);
		if (b->defined)
			cands[k++] = b->name;
	}
	for (size_t i = 0; i < c->niters; i++)
		cands[k++] = c->iters[i].name;
	const char *s = sema_suggest(name, cands, k);
	util_free(cands);
	return s;
}

/* A use of the symbol name (extension tract_symbol T;). Strict, an error
 * (the first of all uses; the summary counts them). --lenient, an
 * integer of unknown value where an extent may stand: an argument, or an
 * item of an argument's array (Ctx.symbol_site); anywhere else its value
 * would be needed at compile time, an error each time. */
static const Type *check_symbol(Ctx *c, AstExpr *e, const char *name)
{
	if (sema_tract(c)) /* an integer known when the model runs (a TDim) */
		return set_type(e, prim(c, TY_INTEGER));
	bool first = sema_vendor_use(c, VENDOR_SYMBOL, e->loc, name);
	if (c->opt->lenient && e == c->symbol_site) {
		if (!c->symbol_warned) {
			Diag *d = diag_add(c->diags, DIAG_W0309, e->loc, "'%s' is a symbol of the vendor extension tract_symbol: taken as an extent of unknown value, so shapes that depend on it are unknown", name);
			diag_hint(c->diags, d, "to check those shapes, give the graph's inputs fixed shapes with --input-shape");
			c->symbol_warned = true;
		}
		return set_type(e, prim(c, TY_INTEGER));
	}
	if (c->opt->lenient) {
		Diag *d = diag_add(c->diags, DIAG_E0702, e->loc, "'%s' is a symbol of the vendor extension tract_symbol, an extent of unknown value: it can stand only as an argument or an item of an argument's array, not where its value is computed with", name);
		diag_hint(c->diags, d, "write it as an extent, as in 'shape = [%s, 4]'", name);
	} else if (first) {
		Diag *d = diag_add(c->diags, DIAG_E0702, e->loc, "'%s' is a symbol of the vendor extension tract_symbol, an extent known only when the model runs; NNEF has no symbols", name);
		diag_hint(c->diags, d, "give the model a fixed extent here");
	}
	return NULL;
}

/* An identifier on a right-hand side (spec 3.3.2 Identifier Usage: it must
 * appear on the left-hand side of an earlier assignment, or be a fragment
 * parameter or a loop iterator in scope). */
static const Type *check_ident(Ctx *c, AstExpr *e)
{
	const char *name = e->u.ident;
	const Binding *b = find_iter(c, name);
	if (!b)
		b = sema_env_find(&c->env, name);
	if (b && b->defined)
		return set_type(e, b->type);
	if (b) {
		Diag *d = diag_add(c->diags, DIAG_E0702, e->loc,
				   "'%s' is used before it is assigned",
				   name);
		if (b->kind == BIND_GRAPH_PARAM)
			diag_hint(c->diags, d,
				  "graph parameters are defined by '%s = external(...)' before their first use",
				  name);
		else
			diag_note(c->diags, d, bind_decl(c, b), false,
				  "'%s' is declared here", name);
		return NULL;
	}
	const Binding *later = sema_env_find(&c->assigned, name);
	if (later) {
		Diag *d = diag_add(c->diags, DIAG_E0702, e->loc,
				   "'%s' is used before it is assigned", name);
		diag_note(c->diags, d, bind_decl(c, later), false,
			  "'%s' is assigned later, here", name);
		return NULL;
	}
	if (sema_is_symbol(c->prog, name))
		return check_symbol(c, e, name);
	if (sema_tract(c) && c->symbol_intro) {
		/* tract makes a new symbol of it here (and warns so) */
		pmap_put(&c->prog->implicit_symbols, name, NULL);
		Diag *d = diag_add(c->diags, DIAG_W0314, e->loc, "'%s' is not declared, so tract takes it as a new symbol here, an integer known only when the model runs", name);
		diag_hint(c->diags, d, "declare it with 'extension tract_symbol %s;' (tract warns that symbols introduced by their use may not be read in the future)", name);
		return set_type(e, prim(c, TY_INTEGER));
	}
	if (sema_tract(c) && strcmp(name, "inf") == 0) /* tract's literal */
		return set_type(e, prim(c, TY_SCALAR));
	Diag *d = diag_add(c->diags, DIAG_E0702, e->loc,
			   "undefined identifier '%s'", name);
	const char *s = suggest_identifier(c, name);
	if (s)
		diag_hint(c->diags, d, "did you mean '%s'?", s);
	return NULL;
}

/* ---- arrays and tuples ------------------------------------------------ */

/* tract's dialect: a tensor and a literal (or tensors of other data types)
 * have the tensor's type as common type, what tract resolves as tensors
 * (shape = [d0, d1, -1, 2], with d0 and d1 computed). */
static const Type *tract_common(Ctx *c, const Type *a, const Type *b)
{
	if (a->kind == TY_TENSOR && (b->kind == TY_TENSOR || ty_is_primitive(b)))
		return a;
	if (b->kind == TY_TENSOR && ty_is_primitive(a))
		return b;
	/* tuples item by item: ("key", "text") beside ("key", tensor) in
	 * tract_core_properties */
	if (a->kind != TY_TUPLE || b->kind != TY_TUPLE || a->n != b->n)
		return NULL;
	const Type **items = ARENA_ARRAY(c->arena, const Type *, a->n);
	for (size_t i = 0; i < a->n; i++) {
		items[i] = ty_common(a->items[i], b->items[i]);
		if (!items[i])
			items[i] = tract_common(c, a->items[i], b->items[i]);
		if (!items[i])
			return NULL;
	}
	return ty_tuple(c->tt, items, a->n);
}

/* <array-rvalue-expr>: the items have a common type (spec 3.3.3 Arrays). */
static const Type *check_array(Ctx *c, AstExpr *e)
{
	if (e->u.list.n == 0)
		return set_type(e, c->tt->empty_array);
	const Type *common = NULL;
	const AstExpr *first = NULL;
	bool failed = false;
	for (size_t i = 0; i < e->u.list.n; i++) {
		AstExpr *item = e->u.list.items[i];
		const AstExpr *site = c->symbol_site;
		c->symbol_site = site == e ? item : NULL; /* an argument's items */
		const Type *t = sema_expr(c, item, false);
		c->symbol_site = site;
		if (!t) {
			failed = true;
			continue;
		}
		if (!common) {
			common = t;
			first = item;
			continue;
		}
		const Type *u = ty_common(common, t);
		if (!u && sema_tract(c))
			u = tract_common(c, common, t);
		if (!u && !failed) {
			Diag *d = diag_add(c->diags, DIAG_E0407, item->loc,
					   "array item of type %s has no common type with the earlier items (%s)",
					   tstr(c, t), tstr(c, common));
			diag_note(c->diags, d, first->loc, false,
				  "the first item is here");
			if (is_numeric(t) && is_numeric(common))
				diag_hint(c->diags, d,
					  "integers and scalars do not mix in one array; write all items as integers (1) or all as reals (1.0)");
			failed = true;
		}
		if (u)
			common = u;
	}
	if (failed)
		return NULL;
	return set_type(e, ty_array(c->tt, common));
}

/* <tuple-rvalue-expr>: tensor and non-tensor items do not mix (3.3.1). */
static const Type *check_tuple(Ctx *c, AstExpr *e)
{
	const Type **items = ARENA_ARRAY(c->arena, const Type *, e->u.list.n);
	bool failed = false;
	for (size_t i = 0; i < e->u.list.n; i++) {
		items[i] = sema_expr(c, e->u.list.items[i], false);
		failed |= items[i] == NULL;
	}
	if (failed)
		return NULL;
	const Type *t = ty_tuple(c->tt, items, e->u.list.n);
	const Type *mixed = sema_tract(c) ? NULL : ty_mixed_tuple(t);
	if (mixed) {
		Diag *d = diag_add(c->diags, DIAG_E0415, e->loc,
				   "the tuple %s mixes tensors and non-tensor values",
				   tstr(c, mixed));
		diag_hint(c->diags, d,
			  "tuples hold either run-time tensors or compile-time attributes, not both");
		return NULL;
	}
	return set_type(e, t);
}

/* ---- operators -------------------------------------------------------- */


/* An operator with a tensor operand: checked as the invocation of its
 * fragment with the operands as positional arguments. */
static const Type *check_tensor_op(Ctx *c, AstExpr *e, const char *fname,
				   AstExpr **operands, const Type **types,
				   size_t n)
{
	const SemaFrag *f = sema_lookup(c->prog, intern_cstr(c->interner, fname));
	if (!f || f->nparams < n)
		return NULL; /* the standard library always has them */
	const Type *binding = NULL;
	for (size_t i = 0; i < n; i++) {
		const Type *conflict = NULL;
		if (sema_castable(c, types[i], f->params[i].type,
				  f->is_generic ? &binding : NULL, &conflict))
			continue;
		StrBuf sig;
		sb_init(&sig);
		sb_printf(&sig, "%s(", fname);
		for (size_t k = 0; k < f->nparams; k++) {
			if (k)
				sb_puts(&sig, ", ");
			sb_printf(&sig, "%s: ", f->params[k].name);
			ty_print(&sig, f->params[k].type);
		}
		sb_putc(&sig, ')');
		/* the same codes as for operands that are not tensors */
		AstOp op = (AstOp)e->op;
		DiagCode code = op == AST_OP_NOT || op == AST_OP_AND ||
						op == AST_OP_OR
					? DIAG_E0403
				: op == AST_OP_EQ || op == AST_OP_NE ? DIAG_E0402
				: n == 1 ? DIAG_E0404
					 : DIAG_E0401;
		Diag *d;
		if (n == 1)
			d = diag_add(c->diags, code, e->loc,
				     "operator '%s' cannot be applied to %s",
				     ast_op_spelling((AstOp)e->op),
				     tstr(c, types[0]));
		else
			d = diag_add(c->diags, code, e->loc,
				     "operator '%s' cannot be applied to %s and %s",
				     ast_op_spelling((AstOp)e->op),
				     tstr(c, types[0]), tstr(c, types[1]));
		diag_note(c->diags, d, operands[i]->loc, false,
			  "on tensors '%s' is %s, and this operand (%s) does not cast to %s",
			  ast_op_spelling((AstOp)e->op), sb_str(&sig),
			  tstr(c, types[i]), tstr(c, f->params[i].type));
		sb_free(&sig);
		return NULL;
	}
	return set_type(e, ty_bind(c->tt, f->result_type, binding));
}

static bool is_tensor(const Type *t)
{
	return t->kind == TY_TENSOR;
}

static const Type *check_unary(Ctx *c, AstExpr *e)
{
	const Type *t = sema_expr(c, e->u.bin.a, false);
	if (!t)
		return NULL;
	AstOp op = (AstOp)e->op;
	if (is_tensor(t))
		return check_tensor_op(c, e, ast_op_fragment(op, true), &e->u.bin.a,
				       &t, 1);
	bool ok = op == AST_OP_NOT ? t->kind == TY_LOGICAL : is_numeric(t);
	if (ok)
		return set_type(e, t);
	diag_add(c->diags, op == AST_OP_NOT ? DIAG_E0403 : DIAG_E0404, e->loc,
		 "operator '%s' cannot be applied to %s (it takes %s)",
		 ast_op_spelling(op), tstr(c, t),
		 op == AST_OP_NOT ? "a logical value"
				  : "an integer, a scalar or a tensor");
	return NULL;
}

static void mixing_hint(Ctx *c, Diag *d, const Type *a, const Type *b)
{
	if (is_numeric(a) && is_numeric(b))
		diag_hint(c->diags, d,
			  "integers and scalars do not mix; convert one side with scalar(...) or integer(...)");
}

/* Binary operators on non-tensor values (spec 3.3.3 Table 1; + and * also
 * concatenate and repeat arrays and strings). */
static const Type *check_binary(Ctx *c, AstExpr *e)
{
	const Type *a = sema_expr(c, e->u.bin.a, false);
	const Type *b = sema_expr(c, e->u.bin.b, false);
	if (!a || !b)
		return NULL;
	AstOp op = (AstOp)e->op;
	const char *sp = ast_op_spelling(op);

	if (op == AST_OP_IN) {
		/* item in array: deep comparison with the array's items */
		if (b->kind == TY_EMPTY_ARRAY)
			return set_type(e, prim(c, TY_LOGICAL));
		if (b->kind == TY_ARRAY && !is_tensor(a) &&
		    ty_common(a, b->item))
			return set_type(e, prim(c, TY_LOGICAL));
		Diag *d = diag_add(c->diags, DIAG_E0416, e->loc,
				   "'in' cannot test %s against %s",
				   tstr(c, a), tstr(c, b));
		diag_hint(c->diags, d,
			  "'x in a' needs an array a whose items have a common type with x");
		return NULL;
	}

	if (is_tensor(a) || is_tensor(b)) {
		AstExpr *ops[2] = { e->u.bin.a, e->u.bin.b };
		const Type *ts[2] = { a, b };
		return check_tensor_op(c, e, ast_op_fragment(op, false), ops, ts, 2);
	}

	switch (op) {
	case AST_OP_PLUS:
		if (a->kind == TY_STRING && b->kind == TY_STRING)
			return set_type(e, a);
		if ((a->kind == TY_ARRAY || a->kind == TY_EMPTY_ARRAY) &&
		    (b->kind == TY_ARRAY || b->kind == TY_EMPTY_ARRAY)) {
			const Type *u = ty_common(a, b);
			if (u)
				return set_type(e, u);
			diag_add(c->diags, DIAG_E0401, e->loc,
				 "cannot concatenate %s and %s: the items have no common type",
				 tstr(c, a), tstr(c, b));
			return NULL;
		}
		/* fall through */
	case AST_OP_MINUS:
	case AST_OP_DIV:
	case AST_OP_POW:
		if (is_numeric(a) && a == b)
			return set_type(e, a);
		break;
	case AST_OP_MUL:
		if (is_numeric(a) && a == b)
			return set_type(e, a);
		if ((a->kind == TY_STRING || a->kind == TY_ARRAY ||
		     a->kind == TY_EMPTY_ARRAY) &&
		    b->kind == TY_INTEGER)
			return set_type(e, a);
		break;
	case AST_OP_LT:
	case AST_OP_LE:
	case AST_OP_GT:
	case AST_OP_GE:
		/* the spec lists scalar operands; integers compare too, as
		 * its own fragments do (length_of(x) > 0) */
		if (is_numeric(a) && a == b)
			return set_type(e, prim(c, TY_LOGICAL));
		break;
	case AST_OP_EQ:
	case AST_OP_NE:
		if (ty_is_primitive(a) && a == b)
			return set_type(e, prim(c, TY_LOGICAL));
		{
			Diag *d = diag_add(c->diags, DIAG_E0402, e->loc,
					   "'%s' compares values of the same primitive type, not %s and %s",
					   sp, tstr(c, a), tstr(c, b));
			mixing_hint(c, d, a, b);
		}
		return NULL;
	case AST_OP_AND:
	case AST_OP_OR:
		if (a->kind == TY_LOGICAL && b->kind == TY_LOGICAL)
			return set_type(e, a);
		diag_add(c->diags, DIAG_E0403, e->loc,
			 "'%s' needs logical operands, not %s and %s", sp,
			 tstr(c, a), tstr(c, b));
		return NULL;
	case AST_OP_NOT:
	case AST_OP_IN:
		break;
	}
	Diag *d = diag_add(c->diags, DIAG_E0401, e->loc,
			   "operator '%s' cannot be applied to %s and %s", sp,
			   tstr(c, a), tstr(c, b));
	mixing_hint(c, d, a, b);
	return NULL;
}

/* <if-else-expr>: a logical condition known at compile time, branches
 * with a common type (spec 3.3.3 Compile-time Branching). */
static const Type *check_ifelse(Ctx *c, AstExpr *e)
{
	const Type *cond = sema_expr(c, e->u.sel.cond, false);
	const Type *a = sema_expr(c, e->u.sel.value, false);
	const Type *b = sema_expr(c, e->u.sel.other, false);
	if (cond && cond->kind != TY_LOGICAL) {
		Diag *d = diag_add(c->diags, DIAG_E0405, e->u.sel.cond->loc,
				   "the condition of an if-else is %s; it must be logical",
				   tstr(c, cond));
		if (is_tensor(cond))
			diag_hint(c->diags, d,
				  "the condition is evaluated at compile time; to choose between tensors element by element, use select(condition, a, b)");
		return NULL;
	}
	if (!cond || !a || !b)
		return NULL;
	const Type *u = ty_common(a, b);
	if (!u) {
		Diag *d = diag_add(c->diags, DIAG_E0406, e->loc,
				   "the branches of this if-else are %s and %s, which have no common type",
				   tstr(c, a), tstr(c, b));
		mixing_hint(c, d, a, b);
		return NULL;
	}
	return set_type(e, u);
}

/* <subscript-expr> (spec 3.3.3 Arrays, Tuples, Strings). */
static const Type *check_subscript(Ctx *c, AstExpr *e)
{
	const Type *seq = sema_expr(c, e->u.sub.seq, false);
	AstExpr *ix[2] = { e->u.sub.index, e->u.sub.end };
	if (seq && seq->kind == TY_TUPLE) {
		/* tuple items: an integer literal index only */
		AstExpr *i0 = ix[0];
		if (e->u.sub.is_range || !i0 || i0->kind != AST_INT ||
		    i0->parens) {
			diag_add(c->diags, DIAG_E0410,
				 i0 && !e->u.sub.is_range ? i0->loc : e->loc,
				 "a tuple is indexed by an integer literal, not a range or an expression");
			return NULL;
		}
		set_type(i0, prim(c, TY_INTEGER));
		if (i0->u.ival < 0 || (uint64_t)i0->u.ival >= seq->n) {
			diag_add(c->diags, DIAG_E0410, i0->loc,
				 "index %lld is out of range for a tuple of %zu items",
				 (long long)i0->u.ival, seq->n);
			return NULL;
		}
		return set_type(e, seq->items[i0->u.ival]);
	}
	bool failed = !seq;
	for (int k = 0; k < 2; k++) {
		if (!ix[k])
			continue;
		const Type *t = sema_expr(c, ix[k], false);
		if (!t) {
			failed = true;
		} else if (t->kind != TY_INTEGER) {
			diag_add(c->diags, DIAG_E0409, ix[k]->loc,
				 "%s is an integer, not %s",
				 e->u.sub.is_range ? "a range bound" : "an index",
				 tstr(c, t));
			failed = true;
		}
	}
	if (failed)
		return NULL;
	if (seq->kind == TY_STRING)
		return set_type(e, seq);
	if (seq->kind == TY_ARRAY)
		return set_type(e, e->u.sub.is_range ? seq : seq->item);
	Diag *d = diag_add(c->diags, DIAG_E0408, e->u.sub.seq->loc,
			   "a value of type %s cannot be subscripted",
			   tstr(c, seq));
	if (is_tensor(seq))
		diag_hint(c->diags, d,
			  "tensors are not arrays; use slice() to cut a tensor");
	else if (seq->kind == TY_EMPTY_ARRAY)
		diag_hint(c->diags, d, "the empty array has no items");
	return NULL;
}

static void push_iter(Ctx *c, const char *name, const Type *t, Loc loc)
{
	ARRAY_RESERVE(c->iters, c->niters, c->capiters, 8);
	Binding *b = &c->iters[c->niters++];
	memset(b, 0, sizeof(*b));
	b->name = name;
	b->kind = BIND_ITER;
	b->defined = true;
	b->type = t;
	bind_set_decl(b, loc);
}

/* <comprehension-expr> (spec 3.3.3 Compile-time Looping). */
static const Type *check_comprehension(Ctx *c, AstExpr *e)
{
	size_t base = c->niters;
	bool failed = false;
	for (size_t i = 0; i < e->u.comp.niters; i++) {
		const AstIter *it = &e->u.comp.iters[i];
		/* iterables see only the enclosing scope and earlier
		 * iterators */
		const Type *t = sema_expr(c, it->iterable, false);
		const Type *item = NULL;
		if (t && t->kind == TY_ARRAY) {
			item = t->item;
		} else if (t) {
			diag_add(c->diags, DIAG_E0411, it->iterable->loc,
				 "a comprehension iterates over an array, not %s",
				 tstr(c, t));
			failed = true;
		} else {
			failed = true;
		}
		const Binding *old = find_iter(c, it->name);
		if (!old)
			old = sema_env_find(&c->env, it->name);
		if (old) {
			Diag *d = diag_add(c->diags, DIAG_E0713, it->name_loc,
					   "the loop iterator '%s' hides another identifier of the same name",
					   it->name);
			diag_note(c->diags, d, bind_decl(c, old), false,
				  "'%s' is declared here", it->name);
			failed = true;
		}
		push_iter(c, it->name, item, it->name_loc);
		if (!item)
			c->iters[c->niters - 1].type = NULL;
	}
	/* an iterator of unknown type stays quiet (defined, no type) */
	const Type *cond = NULL, *value = NULL;
	if (!failed && e->u.comp.cond) {
		cond = sema_expr(c, e->u.comp.cond, false);
		if (cond && cond->kind != TY_LOGICAL) {
			diag_add(c->diags, DIAG_E0412, e->u.comp.cond->loc,
				 "the condition of a comprehension is %s; it must be logical",
				 tstr(c, cond));
			failed = true;
		}
		failed |= cond == NULL;
	}
	if (!failed)
		value = sema_expr(c, e->u.comp.value, false);
	c->niters = base;
	if (failed || !value)
		return NULL;
	return set_type(e, ty_array(c->tt, value));
}

/* <builtin-expr> (spec 3.3.3 Built-in Functions). */
static const Type *check_builtin(Ctx *c, AstExpr *e)
{
	const Type *t = sema_expr(c, e->u.bi.arg, false);
	if (!t)
		return NULL;
	AstBuiltin which = (AstBuiltin)e->u.bi.which;
	const char *name = ast_builtin_name(which);
	bool ok = false;
	const Type *result = NULL;
	const char *takes = "";
	switch (which) {
	case AST_BI_SHAPE_OF:
		ok = is_tensor(t) || ty_is_primitive(t);
		result = ty_array(c->tt, prim(c, TY_INTEGER));
		takes = "a tensor";
		if (ok && !c->in_stdlib) {
			Diag *d = diag_add(c->diags, DIAG_W0414, e->loc,
					   "shape_of is deprecated");
			diag_hint(c->diags, d,
				  "the specification discourages it: shapes are not defined by the syntax; pass shapes as attributes instead");
		}
		break;
	case AST_BI_LENGTH_OF:
	case AST_BI_RANGE_OF:
		ok = t->kind == TY_ARRAY || t->kind == TY_EMPTY_ARRAY ||
		     t->kind == TY_STRING;
		result = which == AST_BI_LENGTH_OF
				 ? prim(c, TY_INTEGER)
				 : ty_array(c->tt, prim(c, TY_INTEGER));
		takes = "an array or a string";
		break;
	case AST_BI_INTEGER:
	case AST_BI_SCALAR:
	case AST_BI_LOGICAL:
	case AST_BI_STRING:
		ok = ty_is_primitive(t);
		result = prim(c, which == AST_BI_INTEGER   ? TY_INTEGER
				 : which == AST_BI_SCALAR  ? TY_SCALAR
				 : which == AST_BI_LOGICAL ? TY_LOGICAL
							   : TY_STRING);
		takes = "a value of primitive type";
		break;
	}
	if (ok)
		return set_type(e, result);
	Diag *d = diag_add(c->diags, DIAG_E0413, e->u.bi.arg->loc,
			   "%s() takes %s, not %s", name, takes, tstr(c, t));
	if (is_tensor(t) && which >= AST_BI_INTEGER)
		diag_hint(c->diags, d,
			  "to convert the items of a tensor, use cast<%s>(...)",
			  name);
	return NULL;
}

/* ---- invocations ------------------------------------------------------ */

/* The state of checking one invocation, shared by the steps below. */
typedef struct Invocation {
	AstExpr *e;
	const char *name;         /* the callee's name (interned) */
	const SemaFrag *f;        /* the callee */
	const AstExpr **argv;     /* per parameter: its argument, or NULL */
	bool *positional;         /* per parameter: given by position */
	const Type *binding;      /* the generic type, once known */
	bool deduce;              /* the generic type comes from the arguments */
	const char *bound_by;     /* the parameter whose argument deduced it */
	size_t npos;              /* positional arguments matched so far */
	const AstArg *first_named; /* the first argument given by name */
	bool reported_excess;     /* E0602 was reported */
	bool misplaced;           /* a positional argument after named ones */
	bool ok;                  /* no error so far */
} Invocation;

static const SemaParam *find_param(const SemaFrag *f, const char *name,
				   size_t *index)
{
	bool found;
	uintptr_t i = (uintptr_t)pmap_get(&f->param_index, name, &found);
	if (!found)
		return NULL;
	*index = i - 1;
	return &f->params[i - 1];
}

static const char *suggest_fragment(Ctx *c, const char *name)
{
	const char **cands = util_malloc(c->prog->nfrags * sizeof(*cands) + 1);
	for (size_t i = 0; i < c->prog->nfrags; i++)
		cands[i] = c->prog->frags[i]->name;
	const char *s = sema_suggest(name, cands, c->prog->nfrags);
	util_free(cands);
	return s;
}

static const char *suggest_param(const SemaFrag *f, const char *name)
{
	const char *cands[64];
	size_t n = f->nparams < 64 ? f->nparams : 64;
	for (size_t i = 0; i < n; i++)
		cands[i] = f->params[i].name;
	return sema_suggest(name, cands, n);
}

/* An extension of the document that nnefkit does not know (a vendor's,
 * such as tract_core) and that may define the operation `op`: the one
 * whose name begins op's ("tract_core" for "tract_core_gelu"), else the
 * first when `any`; NULL when there is none. */
static const char *vendor_extension(const Ctx *c, const char *op, bool any)
{
	const AstDoc *doc = c->prog->doc;
	const char *first = NULL;
	for (size_t i = 0; i < doc->nexts; i++) {
		const char *n = doc->exts[i]->name;
		size_t len = strlen(n);
		if (strcmp(n, "KHR_enable_fragment_definitions") == 0 ||
		    strcmp(n, "KHR_enable_operator_expressions") == 0)
			continue;
		if (strncmp(op, n, len) == 0 && (op[len] == '_' || !op[len]))
			return n;
		if (!first && !parse_vendor_directive(n))
			first = n;
	}
	return any ? first : NULL;
}

/* The registry of tract's dialect whose name begins op's
 * ("tract_transformers" for "tract_transformers_sdpa"), or NULL. */
static const char *registry_of(Ctx *c, const char *op)
{
	const char *last = strrchr(op, '_');
	for (size_t n = last ? (size_t)(last - op) : 0; n > 0; n--) {
		if (op[n] != '_')
			continue;
		char *name = arena_strndup(c->arena, op, n);
		SourceFile *f = sema_registry_source(name);
		if (f) {
			source_free(f);
			return name;
		}
	}
	return NULL;
}

/* The arguments of an invocation of an unknown operation are still
 * checked for their own errors. */
static void check_args_only(Ctx *c, AstExpr *e)
{
	for (size_t i = 0; i < e->u.inv.nargs; i++)
		sema_expr(c, e->u.inv.args[i].value, false);
}

/* The callee of an invocation: a declared operation whose declaration
 * has no error (spec 3.3.2 Invocations). NULL after reporting an unknown
 * one, or for a declaration in error; the arguments are then checked on
 * their own. */
static const SemaFrag *resolve_callee(Ctx *c, AstExpr *e)
{
	const char *name = e->u.inv.name;
	const SemaFrag *f = sema_lookup(c->prog, name);
	const char *ext = f ? NULL : vendor_extension(c, name, false);
	if (ext && c->opt->lenient) {
		/* taken as a custom operation (its arguments checked there) */
		const SemaFrag *assumed = sema_assume_declaration(c, e, ext);
		if (assumed)
			return assumed;
	}
	if (ext) {
		/* one error for all the calls to vendor operations; under
		 * --lenient the first call may have been assumed (a warning),
		 * so a call that cannot be is an error of its own */
		if (sema_vendor_use(c, VENDOR_OPERATION, e->loc, name) || c->opt->lenient) {
			Diag *d = diag_add(c->diags, DIAG_E0601, e->loc, "unknown operation '%s' of the vendor extension '%s'", name, ext);
			diag_hint(c->diags, d, "give its declaration with --declarations FILE ('fragment %s(...) -> (...);') to check the rest of the document", name);
		}
		if (!c->opt->lenient) /* else checked by the assumption */
			check_args_only(c, e);
		return NULL;
	}
	if (!f) {
		Diag *d = diag_add(c->diags, DIAG_E0601, e->loc,
				   "unknown operation '%s'", name);
		const char *s = suggest_fragment(c, name);
		const char *vendor = vendor_extension(c, name, true);
		const char *reg = sema_tract(c) ? registry_of(c, name) : NULL;
		if (reg)
			diag_hint(c->diags, d, "it would be an operation of tract's registry '%s', which the document does not name: add 'extension tract_registry %s;'", reg, reg);
		else if (s)
			diag_hint(c->diags, d, "did you mean '%s'?", s);
		else if (vendor)
			diag_hint(c->diags, d,
				  "it may belong to the extension '%s', which nnefkit does not know; declare it with 'fragment %s(...) -> (...);' to check the rest of the document",
				  vendor, name);
		else
			diag_hint(c->diags, d,
				  "custom operations are declared with 'fragment %s(...) -> (...);' (extension KHR_enable_fragment_definitions)",
				  name);
		check_args_only(c, e);
		return NULL;
	}
	if (f->bad) {
		/* its declaration was reported; checking the call against it
		 * would only repeat that */
		check_args_only(c, e);
		return NULL;
	}
	return f;
}

/* Where the call may stand (spec 3.3.2): 'external', 'variable' and
 * 'update' only in the graph, and the result of 'external' assigned whole
 * to a graph parameter. */
static void check_call_site(Ctx *c, Invocation *inv, bool whole_rhs)
{
	const char *name = inv->name;
	if (c->frag && !c->in_stdlib &&
	    (sema_is_external(c, name) || name == c->variable || name == c->update)) {
		diag_add(c->diags, DIAG_E0708, inv->e->loc,
			 "'%s' may be used only in the graph, not inside the fragment '%s'",
			 name, c->frag->name);
		inv->ok = false;
	}
	if (sema_is_external(c, name) && !c->frag && !whole_rhs) {
		Diag *d = diag_add(c->diags, DIAG_E0707, inv->e->loc,
				   "the result of '%s' must be assigned to a graph parameter", name);
		diag_hint(c->diags, d,
			  "write 'name = external(...);' with 'name' listed among the graph's parameters");
		inv->ok = false;
	}
}

/* The generic type of the call (spec 3.3.2 Generic Types): given
 * explicitly, else the callee's default, else deduced from the
 * arguments (inv->deduce). */
static void choose_generic(Ctx *c, Invocation *inv)
{
	const AstExpr *e = inv->e;
	const SemaFrag *f = inv->f;
	if (e->u.inv.has_generic) {
		AstTypeName g = (AstTypeName)e->u.inv.generic;
		if (!f->is_generic) {
			diag_add(c->diags, DIAG_E0610, e->loc,
				 "'%s' is not generic and takes no <%s>",
				 inv->name, ast_typename_spelling(g));
			inv->ok = false;
		} else if (g == AST_TN_GENERIC &&
			   !(c->frag && c->frag->is_generic)) {
			Diag *d = diag_add(c->diags, DIAG_E0417, e->loc,
					   "'%s<?>' passes on a generic type, but this is not the body of a generic fragment",
					   inv->name);
			diag_hint(c->diags, d,
				  "name the type, as in '%s<scalar>(...)'",
				  inv->name);
			inv->ok = false;
		} else {
			inv->binding = ty_from_typename(c->tt, g);
		}
	} else if (f->is_generic && f->generic_default) {
		inv->binding = f->generic_default;
	} else if (f->is_generic) {
		inv->deduce = true;
	}
}

/* A positional argument: the next parameter, which must be a tensor, and
 * before any named argument (spec 3.3.2 Invocations). Returns the
 * parameter whose type the argument must have, NULL when it is not
 * checked further (after an error). */
static const SemaParam *match_positional(Ctx *c, Invocation *inv,
					 const AstArg *a)
{
	const SemaFrag *f = inv->f;
	if (inv->first_named) {
		Diag *d = diag_add(c->diags, DIAG_E0604, a->value->loc,
				   "positional argument after the named argument '%s'",
				   inv->first_named->name);
		diag_hint(c->diags, d, "positional arguments come first");
		inv->ok = false;
		inv->misplaced = true;
		return NULL;
	}
	if (inv->npos >= f->nparams) {
		if (!inv->reported_excess)
			diag_add(c->diags, DIAG_E0602, a->value->loc,
				 "too many arguments: '%s' has %zu parameter%s",
				 inv->name, f->nparams,
				 f->nparams == 1 ? "" : "s");
		inv->reported_excess = true;
		inv->ok = false;
		return NULL;
	}
	size_t pi = inv->npos++;
	const SemaParam *p = &f->params[pi];
	inv->argv[pi] = a->value;
	inv->positional[pi] = true;
	/* tract takes attributes by position too, all before them given so */
	if (ty_is_attribute(p->type) && !sema_tract(c)) {
		Diag *d = diag_add(c->diags, DIAG_E0608, a->value->loc,
				   "'%s' of '%s' is an attribute and must be passed by name",
				   p->name, inv->name);
		diag_hint(c->diags, d, "write '%s = ...'", p->name);
		inv->ok = false;
		return NULL;
	}
	return p;
}

/* A named argument: a parameter of the callee not given yet; a tensor
 * given by name is deprecated (spec 3.3.2 Invocations), and since real
 * exporters do it throughout a document, that is said once, with a
 * count. Returns the parameter, NULL after an error. */
static const SemaParam *match_named(Ctx *c, Invocation *inv, const AstArg *a)
{
	if (!inv->first_named)
		inv->first_named = a;
	size_t pi = 0;
	const SemaParam *p = find_param(inv->f, a->name, &pi);
	if (!p) {
		Diag *d = diag_add(c->diags, DIAG_E0605, a->name_loc,
				   "'%s' has no parameter named '%s'",
				   inv->name, a->name);
		const char *s = suggest_param(inv->f, a->name);
		if (s)
			diag_hint(c->diags, d, "did you mean '%s'?", s);
		inv->ok = false;
		return NULL;
	}
	if (inv->argv[pi]) {
		if (inv->positional[pi])
			diag_add(c->diags, DIAG_E0607, a->name_loc,
				 "'%s' is already given by position", a->name);
		else
			diag_add(c->diags, DIAG_E0606, a->name_loc,
				 "'%s' is given twice", a->name);
		inv->ok = false;
		return NULL;
	}
	if (!ty_is_attribute(p->type) && !c->in_stdlib && !sema_tract(c)) {
		if (!c->named_tensor_warning) {
			c->named_tensor_warning = diag_add(
				c->diags, DIAG_W0613, a->name_loc,
				"the tensor parameter '%s' of '%s' is given by name, which is deprecated",
				a->name, inv->name);
			diag_hint(c->diags, c->named_tensor_warning,
				  "pass tensors by position and attributes by name");
		} else {
			c->named_tensor_more++;
		}
	}
	inv->argv[pi] = a->value;
	return p;
}

/* E0609: an argument whose type t does not cast to its parameter's. */
static void report_mismatch(Ctx *c, const Invocation *inv,
			    const AstExpr *value, const SemaParam *p,
			    const Type *t)
{
	const SemaFrag *f = inv->f;
	const Type *want = inv->deduce ? p->type
				       : ty_bind(c->tt, p->type, inv->binding);
	Diag *d = diag_add(c->diags, DIAG_E0609, value->loc,
			   "argument '%s' of '%s' must be %s, not %s",
			   p->name, inv->name, tstr(c, want), tstr(c, t));
	if (is_numeric(t) && want->kind != TY_TENSOR &&
	    (want->kind == TY_INTEGER || want->kind == TY_SCALAR))
		diag_hint(c->diags, d,
			  "integers and scalars do not cast to each other; write %s",
			  want->kind == TY_SCALAR ? "a real literal such as 1.0"
						  : "an integer literal");
	else if (f->is_generic && f->generic_default &&
		 !inv->e->u.inv.has_generic)
		diag_hint(c->diags, d,
			  "without <type>, '%s' uses its default type %s; write '%s<...>(...)' for another",
			  inv->name, tstr(c, f->generic_default), inv->name);
}

/* An argument of type t (NULL after its own error) against its parameter
 * p: it must cast to p's type with the generic type bound, or, while the
 * generic type is deduced, bind it consistently (spec 3.3.2 Generic
 * Types). */
static void check_argument(Ctx *c, Invocation *inv, const AstExpr *value,
			   const SemaParam *p, const Type *t)
{
	if (!t) {
		inv->ok = false;
		return;
	}
	/* the generic type is unknown after an error: skip what depends
	 * on it */
	if (inv->f->is_generic && !inv->deduce && !inv->binding &&
	    p->type->has_generic)
		return;
	const Type *conflict = NULL;
	bool castable;
	if (inv->deduce) {
		const Type *before = inv->binding;
		castable = sema_castable(c, t, p->type, &inv->binding, &conflict);
		if (castable && !before && inv->binding)
			inv->bound_by = p->name;
	} else {
		castable = sema_castable(c, t, ty_bind(c->tt, p->type, inv->binding),
					 NULL, NULL);
	}
	if (castable)
		return;
	inv->ok = false;
	if (!conflict) {
		report_mismatch(c, inv, value, p, t);
		return;
	}
	Diag *d = diag_add(c->diags, DIAG_E0611, value->loc,
			   "the generic type of '%s' is ambiguous: %s from '%s' or %s from '%s'",
			   inv->name, tstr(c, inv->binding), inv->bound_by,
			   tstr(c, conflict), p->name);
	diag_hint(c->diags, d,
		  "give the type explicitly, as in '%s<%s>(...)', and make the arguments agree",
		  inv->name, tstr(c, inv->binding));
	inv->deduce = false; /* report once */
	inv->binding = NULL;
}

/* tract's dialect: the arguments where tract introduces a new symbol for
 * an unknown identifier (its deserializers read them allowing new
 * symbols): operation, parameter. */
static const char *const symbol_sites[][2] = {
	{ "external", "shape" },
	{ "tract_core_external", "shape" },
	{ "slice", "begin" },
	{ "slice", "end" },
	{ "tract_core_broadcast", "shape" },
	{ "tract_pulse_mask", "end" },
	{ "tract_pulse_pulse_pad", "after" },
	{ "tract_pulse_pulse_pad", "end_input" },
	{ "tract_transformers_dyn_kv_cache", "past_sequence_shape" },
	{ "tract_transformers_dyn_kv_cache", "input_sequence_shape" },
	{ "tract_transformers_quantized_dyn_kv_cache", "past_sequence_shape" },
	{ "tract_transformers_quantized_dyn_kv_cache", "input_sequence_shape" },
};

/* Whether argument a (the i-th) of inv is one of symbol_sites. */
static bool symbol_site(const Invocation *inv, const AstArg *a, size_t i)
{
	const char *param = a->name ? a->name
			  : i < inv->f->nparams ? inv->f->params[i].name : NULL;
	for (size_t k = 0; param && k < UTIL_ARRAY_LEN(symbol_sites); k++)
		if (strcmp(inv->name, symbol_sites[k][0]) == 0 &&
		    strcmp(param, symbol_sites[k][1]) == 0)
			return true;
	return false;
}

/* Every argument in order: matched to its parameter, by position or by
 * name, then checked against it. */
static void match_arguments(Ctx *c, Invocation *inv)
{
	size_t n = inv->f->nparams ? inv->f->nparams : 1;
	inv->argv = ARENA_ARRAY(c->arena, const AstExpr *, n);
	inv->positional = ARENA_ARRAY(c->arena, bool, n);
	for (size_t i = 0; i < inv->e->u.inv.nargs; i++) {
		const AstArg *a = &inv->e->u.inv.args[i];
		const AstExpr *site = c->symbol_site;
		bool intro = c->symbol_intro;
		c->symbol_site = a->value;
		c->symbol_intro = sema_tract(c) && symbol_site(inv, a, i);
		const Type *t = sema_expr(c, a->value, false);
		c->symbol_site = site;
		c->symbol_intro = intro;
		const SemaParam *p = a->name ? match_named(c, inv, a)
					     : match_positional(c, inv, a);
		if (p)
			check_argument(c, inv, a->value, p, t);
	}
}

/* Parameters without an argument need a default value (spec 3.3.2
 * Invocations); not said after a misplaced positional argument, which
 * was probably meant for one of them. */
static void check_missing(Ctx *c, Invocation *inv)
{
	const SemaFrag *f = inv->f;
	StrBuf missing;
	sb_init(&missing);
	size_t nmissing = 0;
	for (size_t i = 0; i < f->nparams; i++) {
		if (inv->argv[i])
			continue;
		if (!f->params[i].def) {
			sb_printf(&missing, "%s'%s'", nmissing ? ", " : "",
				  f->params[i].name);
			nmissing++;
		}
	}
	if (nmissing && !inv->misplaced) {
		diag_add(c->diags, DIAG_E0603, inv->e->loc,
			 "missing argument%s %s of '%s'",
			 nmissing == 1 ? "" : "s", sb_str(&missing), inv->name);
		inv->ok = false;
	}
	sb_free(&missing);
}

/* After the arguments: a deduced generic type must have been found, and
 * the default values of the parameters left out must suit the bound type
 * (spec 3.3.2 Generic Types). */
static void check_deduction(Ctx *c, Invocation *inv)
{
	const SemaFrag *f = inv->f;
	if (inv->deduce && !inv->binding && inv->ok) {
		Diag *d = diag_add(c->diags, DIAG_E0612, inv->e->loc,
				   "the generic type of '%s' cannot be deduced from its arguments",
				   inv->name);
		diag_hint(c->diags, d,
			  "give it explicitly, as in '%s<scalar>(...)'",
			  inv->name);
		inv->ok = false;
	}
	for (size_t i = 0; inv->ok && inv->binding && i < f->nparams; i++) {
		const SemaParam *p = &f->params[i];
		if (inv->argv[i] || !p->def || !p->type->has_generic)
			continue;
		const Type *dt = p->def->type;
		if (dt && !sema_castable(c, dt, ty_bind(c->tt, p->type, inv->binding),
					 NULL, NULL) && !sema_absent(c, p->def)) {
			Diag *d = diag_add(c->diags, DIAG_E0609, inv->e->loc,
					   "the default value of '%s' (%s) does not suit '%s' with ? = %s",
					   p->name, tstr(c, dt), inv->name,
					   tstr(c, inv->binding));
			diag_note(c->diags, d, p->def->loc, false,
				  "the default value is here");
			diag_hint(c->diags, d, "pass '%s' explicitly", p->name);
			inv->ok = false;
		}
	}
}

/* The type of a checked call: the callee's results with the generic type
 * bound; inside an expression, a single tensor (spec 3.3.2 Invocations).
 * Records how the call resolved (SemaCall) for flattening. */
static const Type *call_result(Ctx *c, Invocation *inv, bool whole_rhs)
{
	const SemaFrag *f = inv->f;
	const Type *result = ty_bind(c->tt, f->result_type, inv->binding);
	if (!whole_rhs && !is_tensor(result)) {
		Diag *d = diag_add(c->diags, DIAG_E0614, inv->e->loc,
				   "'%s' returns %s; only an invocation that returns a single tensor can be used inside an expression",
				   inv->name, tstr(c, result));
		diag_hint(c->diags, d,
			  "assign its results first, as in '[a, b] = %s(...);'",
			  inv->name);
		return NULL;
	}
	SemaCall *call = ARENA_NEW(c->arena, SemaCall);
	call->callee = f;
	call->generic = f->is_generic ? inv->binding : NULL;
	call->args = inv->argv;
	inv->e->u.inv.call = call;
	return set_type(inv->e, result);
}

/* <invocation> (spec 3.3.2 Invocations and Generic Types): the callee,
 * where it is called, its generic type, the arguments, then the result. */
static const Type *check_invoke(Ctx *c, AstExpr *e, bool whole_rhs)
{
	const SemaFrag *f = resolve_callee(c, e);
	if (!f)
		return NULL;
	Invocation inv = { .e = e, .name = e->u.inv.name, .f = f, .ok = true };
	check_call_site(c, &inv, whole_rhs);
	choose_generic(c, &inv);
	match_arguments(c, &inv);
	check_missing(c, &inv);
	check_deduction(c, &inv);
	if (!inv.ok)
		return NULL;
	return call_result(c, &inv, whole_rhs);
}

/* ---- dispatch --------------------------------------------------------- */

const Type *sema_expr(Ctx *c, AstExpr *e, bool whole_rhs)
{
	switch (ast_kind(e)) {
	case AST_IDENT:
		return check_ident(c, e);
	case AST_INT:
		return set_type(e, prim(c, TY_INTEGER));
	case AST_REAL:
		return set_type(e, prim(c, TY_SCALAR));
	case AST_STRING:
		return set_type(e, prim(c, TY_STRING));
	case AST_BOOL:
		return set_type(e, prim(c, TY_LOGICAL));
	case AST_ARRAY:
		return check_array(c, e);
	case AST_TUPLE:
		return check_tuple(c, e);
	case AST_UNARY:
		return check_unary(c, e);
	case AST_BINARY:
		return check_binary(c, e);
	case AST_SUBSCRIPT:
		return check_subscript(c, e);
	case AST_IFELSE:
		return check_ifelse(c, e);
	case AST_COMPREHENSION:
		return check_comprehension(c, e);
	case AST_BUILTIN:
		return check_builtin(c, e);
	case AST_INVOKE:
		return check_invoke(c, e, whole_rhs && !e->parens);
	}
	return NULL;
}

const Type *sema_literal(Ctx *c, AstExpr *e)
{
	/* default values hold literals only (checked by the parser), so no
	 * identifier lookup happens */
	return sema_expr(c, e, false);
}
