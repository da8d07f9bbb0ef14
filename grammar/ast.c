/*
 * ast.c - AST constructors and an S-expression printer (used by the tests
 * to check the shape of parsed expressions: precedence, associativity).
 *
 *   a + b * c          (+ a (* b c))
 *   x[1:]              (slice x 1 _)
 *   y if c else z      (if c y z)
 *   f<scalar>(a, k=1)  (call f<scalar> a (k= 1))
 */
#include "grammar/ast.h"
#include "lexer/lexer.h"

#include <string.h>

AstExpr *ast_expr(Arena *a, AstExprKind kind, Loc loc)
{
	AstExpr *e = ARENA_NEW(a, AstExpr);
	e->kind = (uint8_t)kind;
	e->loc = loc;
	e->depth = 1;
	return e;
}

AstType *ast_type(Arena *a, AstTypeKind kind, Loc loc)
{
	AstType *t = ARENA_NEW(a, AstType);
	t->kind = kind;
	t->loc = loc;
	t->depth = 1;
	return t;
}

void ast_visit_children(const AstExpr *e,
			void (*fn)(const AstExpr *child, void *ctx), void *ctx)
{
	switch (ast_kind(e)) {
	case AST_IDENT:
	case AST_INT:
	case AST_REAL:
	case AST_STRING:
	case AST_BOOL:
		return;
	case AST_ARRAY:
	case AST_TUPLE:
		for (size_t i = 0; i < e->u.list.n; i++)
			fn(e->u.list.items[i], ctx);
		return;
	case AST_UNARY:
		fn(e->u.bin.a, ctx);
		return;
	case AST_BINARY:
		fn(e->u.bin.a, ctx);
		fn(e->u.bin.b, ctx);
		return;
	case AST_SUBSCRIPT:
		fn(e->u.sub.seq, ctx);
		if (e->u.sub.index)
			fn(e->u.sub.index, ctx);
		if (e->u.sub.end)
			fn(e->u.sub.end, ctx);
		return;
	case AST_IFELSE:
		fn(e->u.sel.value, ctx);
		fn(e->u.sel.cond, ctx);
		fn(e->u.sel.other, ctx);
		return;
	case AST_COMPREHENSION:
		for (size_t i = 0; i < e->u.comp.niters; i++)
			fn(e->u.comp.iters[i].iterable, ctx);
		if (e->u.comp.cond)
			fn(e->u.comp.cond, ctx);
		fn(e->u.comp.value, ctx);
		return;
	case AST_BUILTIN:
		fn(e->u.bi.arg, ctx);
		return;
	case AST_INVOKE:
		for (size_t i = 0; i < e->u.inv.nargs; i++)
			fn(e->u.inv.args[i].value, ctx);
		return;
	}
}

const char *ast_op_spelling(AstOp op)
{
	switch (op) {
	case AST_OP_PLUS: return "+";
	case AST_OP_MINUS: return "-";
	case AST_OP_MUL: return "*";
	case AST_OP_DIV: return "/";
	case AST_OP_POW: return "^";
	case AST_OP_LT: return "<";
	case AST_OP_LE: return "<=";
	case AST_OP_GT: return ">";
	case AST_OP_GE: return ">=";
	case AST_OP_EQ: return "==";
	case AST_OP_NE: return "!=";
	case AST_OP_AND: return "&&";
	case AST_OP_OR: return "||";
	case AST_OP_NOT: return "!";
	case AST_OP_IN: return "in";
	}
	return "?";
}

const char *ast_builtin_name(AstBuiltin b)
{
	switch (b) {
	case AST_BI_SHAPE_OF: return "shape_of";
	case AST_BI_LENGTH_OF: return "length_of";
	case AST_BI_RANGE_OF: return "range_of";
	case AST_BI_INTEGER: return "integer";
	case AST_BI_SCALAR: return "scalar";
	case AST_BI_LOGICAL: return "logical";
	case AST_BI_STRING: return "string";
	}
	return "?";
}

const char *ast_typename_spelling(AstTypeName t)
{
	switch (t) {
	case AST_TN_INTEGER: return "integer";
	case AST_TN_SCALAR: return "scalar";
	case AST_TN_LOGICAL: return "logical";
	case AST_TN_STRING: return "string";
	case AST_TN_GENERIC: return "?";
	}
	return "?";
}

static void ast_print_type(StrBuf *out, const AstType *t)
{
	switch (t->kind) {
	case AST_TYPE_NAME:
		sb_puts(out, ast_typename_spelling(t->name));
		return;
	case AST_TYPE_TENSOR:
		sb_printf(out, "tensor<%s>",
			  t->has_item ? ast_typename_spelling(t->name) : "");
		return;
	case AST_TYPE_ARRAY:
		ast_print_type(out, t->item);
		sb_puts(out, "[]");
		return;
	case AST_TYPE_TUPLE:
		sb_putc(out, '(');
		for (size_t i = 0; i < t->nitems; i++) {
			if (i)
				sb_putc(out, ',');
			ast_print_type(out, t->items[i]);
		}
		sb_putc(out, ')');
		return;
	}
}

static void print_string(StrBuf *out, const char *s, size_t n)
{
	sb_putc(out, '\'');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'' || s[i] == '\\')
			sb_putc(out, '\\');
		sb_putc(out, s[i]);
	}
	sb_putc(out, '\'');
}

static void print_opt(StrBuf *out, const AstExpr *e)
{
	if (e)
		ast_print_expr(out, e);
	else
		sb_putc(out, '_');
}

void ast_print_expr(StrBuf *out, const AstExpr *e)
{
	char buf[32];
	switch (ast_kind(e)) {
	case AST_IDENT:
		sb_puts(out, e->u.ident);
		return;
	case AST_INT:
		sb_printf(out, "%lld", (long long)e->u.ival);
		return;
	case AST_REAL:
		util_format_real(buf, e->u.rval);
		sb_puts(out, buf);
		return;
	case AST_STRING:
		print_string(out, e->u.str.s, e->u.str.len);
		return;
	case AST_BOOL:
		sb_puts(out, e->u.bval ? "true" : "false");
		return;
	case AST_ARRAY:
	case AST_TUPLE:
		sb_puts(out, e->kind == AST_ARRAY ? "[" : "(tuple");
		for (size_t i = 0; i < e->u.list.n; i++) {
			if (i || e->kind == AST_TUPLE)
				sb_putc(out, ' ');
			ast_print_expr(out, e->u.list.items[i]);
		}
		sb_puts(out, e->kind == AST_ARRAY ? "]" : ")");
		return;
	case AST_UNARY:
		sb_printf(out, "(%s ", ast_op_spelling((AstOp)e->op));
		ast_print_expr(out, e->u.bin.a);
		sb_putc(out, ')');
		return;
	case AST_BINARY:
		sb_printf(out, "(%s ", ast_op_spelling((AstOp)e->op));
		ast_print_expr(out, e->u.bin.a);
		sb_putc(out, ' ');
		ast_print_expr(out, e->u.bin.b);
		sb_putc(out, ')');
		return;
	case AST_SUBSCRIPT:
		sb_puts(out, e->u.sub.is_range ? "(slice " : "(index ");
		ast_print_expr(out, e->u.sub.seq);
		sb_putc(out, ' ');
		print_opt(out, e->u.sub.index);
		if (e->u.sub.is_range) {
			sb_putc(out, ' ');
			print_opt(out, e->u.sub.end);
		}
		sb_putc(out, ')');
		return;
	case AST_IFELSE:
		sb_puts(out, "(if ");
		ast_print_expr(out, e->u.sel.cond);
		sb_putc(out, ' ');
		ast_print_expr(out, e->u.sel.value);
		sb_putc(out, ' ');
		ast_print_expr(out, e->u.sel.other);
		sb_putc(out, ')');
		return;
	case AST_COMPREHENSION:
		sb_puts(out, "(for");
		for (size_t i = 0; i < e->u.comp.niters; i++) {
			sb_printf(out, " (%s ", e->u.comp.iters[i].name);
			ast_print_expr(out, e->u.comp.iters[i].iterable);
			sb_putc(out, ')');
		}
		if (e->u.comp.cond) {
			sb_puts(out, " (if ");
			ast_print_expr(out, e->u.comp.cond);
			sb_putc(out, ')');
		}
		sb_puts(out, " (yield ");
		ast_print_expr(out, e->u.comp.value);
		sb_puts(out, "))");
		return;
	case AST_BUILTIN:
		sb_printf(out, "(%s ",
			  ast_builtin_name((AstBuiltin)e->u.bi.which));
		ast_print_expr(out, e->u.bi.arg);
		sb_putc(out, ')');
		return;
	case AST_INVOKE:
		sb_printf(out, "(call %s", e->u.inv.name);
		if (e->u.inv.has_generic)
			sb_printf(out, "<%s>",
				  ast_typename_spelling(
					  (AstTypeName)e->u.inv.generic));
		for (size_t i = 0; i < e->u.inv.nargs; i++) {
			const AstArg *arg = &e->u.inv.args[i];
			sb_putc(out, ' ');
			if (arg->name) {
				sb_printf(out, "(%s= ", arg->name);
				ast_print_expr(out, arg->value);
				sb_putc(out, ')');
			} else {
				ast_print_expr(out, arg->value);
			}
		}
		sb_putc(out, ')');
		return;
	}
}

static void print_params(StrBuf *out, const AstParam *p, size_t n)
{
	sb_putc(out, '(');
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_putc(out, ' ');
		if (!p[i].type) {
			sb_puts(out, p[i].name);
			continue;
		}
		sb_printf(out, "(%s ", p[i].name);
		ast_print_type(out, p[i].type);
		if (p[i].def) {
			sb_puts(out, " = ");
			ast_print_expr(out, p[i].def);
		}
		sb_putc(out, ')');
	}
	sb_putc(out, ')');
}

static void print_def(StrBuf *out, const AstDef *d)
{
	sb_printf(out, "(%s %s", d->is_graph ? "graph" : "fragment", d->name);
	if (d->is_generic) {
		sb_puts(out, "<?");
		if (d->has_generic_default)
			sb_printf(out, "=%s",
				  ast_typename_spelling(d->generic_default));
		sb_putc(out, '>');
	}
	sb_putc(out, ' ');
	print_params(out, d->params, d->nparams);
	sb_puts(out, " -> ");
	print_params(out, d->results, d->nresults);
	if (d->body) {
		for (size_t i = 0; i < d->body->nstmts; i++) {
			const AstAssign *s = &d->body->stmts[i];
			sb_puts(out, "\n  (= ");
			ast_print_expr(out, s->lhs);
			sb_putc(out, ' ');
			ast_print_expr(out, s->rhs);
			sb_putc(out, ')');
		}
	} else {
		sb_puts(out, " ;");
	}
	sb_puts(out, ")\n");
}

void ast_print_doc(StrBuf *out, const AstDoc *doc)
{
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstItem *it = &doc->items[i];
		switch (it->kind) {
		case AST_ITEM_VERSION:
			sb_printf(out, "(version %.*s)\n",
				  (int)it->version_loc.len,
				  doc->file->text + it->version_loc.off);
			break;
		case AST_ITEM_EXTENSION:
			sb_puts(out, "(extension");
			for (size_t j = 0; j < it->nexts; j++)
				sb_printf(out, " %s", it->exts[j].name);
			sb_puts(out, ")\n");
			break;
		case AST_ITEM_DEF:
			print_def(out, it->def);
			break;
		case AST_ITEM_QUANT:
			sb_printf(out, "(quant \"%s\" ", it->tensor);
			ast_print_expr(out, it->call);
			sb_puts(out, ")\n");
			break;
		}
	}
}

/* One table: the operation each operator on tensors stands for (spec
 * 3.3.3, Table 1); NULL for 'in', which has no tensor form. */
const char *ast_op_fragment(AstOp op, bool unary)
{
	static const char *const binary[] = {
		[AST_OP_PLUS] = "add", [AST_OP_MINUS] = "sub",
		[AST_OP_MUL] = "mul",  [AST_OP_DIV] = "div",
		[AST_OP_POW] = "pow",  [AST_OP_LT] = "lt",
		[AST_OP_LE] = "le",    [AST_OP_GT] = "gt",
		[AST_OP_GE] = "ge",    [AST_OP_EQ] = "eq",
		[AST_OP_NE] = "ne",    [AST_OP_AND] = "and",
		[AST_OP_OR] = "or",    [AST_OP_NOT] = "not",
		[AST_OP_IN] = NULL,
	};
	if (unary)
		return op == AST_OP_MINUS  ? "neg"
		       : op == AST_OP_PLUS ? "copy"
					   : "not";
	return binary[op];
}

bool ast_is_symbol(const AstDoc *doc, const char *name)
{
	for (size_t i = 0; i < doc->vendor.nsymbols; i++)
		if (doc->vendor.symbols[i]->name == name)
			return true;
	return false;
}

void ast_print_name(StrBuf *out, const char *name)
{
	if (lex_is_plain_identifier(name)) {
		sb_puts(out, name);
		return;
	}
	sb_puts(out, "i\"");
	for (const char *p = name; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_putc(out, '\\');
		sb_putc(out, *p);
	}
	sb_putc(out, '"');
}
