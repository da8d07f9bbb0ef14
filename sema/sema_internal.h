/*
 * sema_internal.h - state shared by the files of the semantic analysis.
 */
#ifndef NNEF_SEMA_INTERNAL_H
#define NNEF_SEMA_INTERNAL_H

#include "sema/sema.h"

/* What an identifier in a body is. */
typedef enum BindKind {
	BIND_PARAM,        /* fragment parameter */
	BIND_RESULT,       /* fragment result */
	BIND_LOCAL,        /* assigned in the body */
	BIND_GRAPH_PARAM,  /* graph parameter (defined by external) */
	BIND_GRAPH_RESULT, /* graph result */
	BIND_ITER,         /* comprehension loop iterator */
} BindKind;

/* 24 bytes: the graph's body may bind millions. */
typedef struct Binding {
	const char *name;  /* interned */
	const Type *type;  /* defined: its type (NULL when in error); a
			      fragment result not assigned yet: the declared
			      type; else NULL */
	uint32_t decl_off; /* where it was declared or first assigned, in
			      the body's file (bind_decl) */
	uint16_t decl_len; /* the identifier's length there (a note under
			      one of 64 KiB or more underlines its start) */
	uint8_t kind;      /* BindKind */
	bool defined;      /* has a value at this point of the body */
} Binding;

static inline void bind_set_decl(Binding *b, Loc loc)
{
	b->decl_off = loc.off;
	b->decl_len = loc.len > UINT16_MAX ? UINT16_MAX : (uint16_t)loc.len;
}

/* Identifiers of one body: name (interned) -> Binding, which stays at its
 * address until sema_env_free. The graph's body, which may name millions, keeps
 * a pointer to each Binding in its name's IDATA_SEMA_GRAPH slot instead of
 * the map, and the Bindings themselves in blocks, in the order they were
 * added (to clear the slots at the end, and for suggestions). */
enum { ENV_BLOCK = 4096 };
typedef struct Env {
	PtrMap map;
	Arena arena;
	bool on_names;            /* the graph's: bindings in the names' slots */
	Binding **blocks;         /* on_names: ENV_BLOCK bindings each */
	size_t nbound, capblocks; /* bindings added; blocks allocated */
} Env;

/* The i-th binding added to an Env on names (i < nbound). */
static inline Binding *env_bound(const Env *env, size_t i)
{
	return &env->blocks[i / ENV_BLOCK][i % ENV_BLOCK];
}

typedef struct Ctx {
	SemaProgram *prog;
	TypeTable *tt;
	Arena *arena;
	Interner *interner;
	DiagList *diags;
	const SemaOptions *opt;
	bool in_stdlib;          /* checking the standard library */
	const SemaFrag *frag;    /* the fragment whose body is checked;
				    NULL for the graph */
	const SourceFile *file;  /* the file of the body checked */
	Env env;
	Env assigned;            /* every identifier the body assigns, with
				    its first assignment (for "used before
				    it is assigned") */
	Binding *iters;          /* comprehension iterators in scope */
	size_t niters, capiters;
	const char *external, *variable, *update; /* interned names */
	const char *tract_external;  /* tract_core_external */
	Diag *reassigned;        /* W0311, given once per document */
	size_t reassigned_more;
	Diag *named_tensor_warning; /* W0613, given once per document */
	size_t named_tensor_more;
	/* calls to vendor operations and uses of symbols (vendor.c):
	 * counted, the first of each kind reported */
	AstVendorUse vendor[VENDOR_NKINDS];
	const AstAssign *stmt;   /* the assignment being checked */
	Diag *assumed_warning;   /* W0309 on the first operation assumed */
	/* --lenient: where a symbol (extension tract_symbol T;) may stand, an
	 * extent of unknown value: an argument, or an item of an argument's
	 * array (shape = [T, 4]) */
	const AstExpr *symbol_site;
	bool symbol_warned;      /* W0309 given for symbols */
	bool symbol_intro;       /* tract's dialect: in an argument where an
				    unknown identifier is a new symbol */
} Ctx;

/* Whether the document is read in tract's dialect (nnef-tract(7)). */
static inline bool sema_tract(const Ctx *c)
{
	return c->prog->doc->dialect == DIALECT_TRACT;
}

/* ty_castable, and in tract's dialect ty_castable_tract (conflict is
 * then never set). */
bool sema_castable(const Ctx *c, const Type *from, const Type *to,
		   const Type **binding, const Type **conflict);
/* tract's dialect: whether a default value is `false`, tract's mark of an
 * optional argument left out (castable to any type). */
static inline bool sema_absent(const Ctx *c, const AstExpr *def)
{
	return sema_tract(c) && def && def->kind == AST_BOOL && !def->u.bval;
}

/* Whether name is an operation that introduces a graph input: external,
 * or tract_core_external in tract's dialect. */
bool sema_is_external(const Ctx *c, const char *name);

/* --lenient: the custom operation a call e to an undeclared operation of
 * the vendor extension ext is taken as, declared after the call (once
 * per name); NULL when its arguments do not allow it (their errors, if
 * any, reported). */
const SemaFrag *sema_assume_declaration(Ctx *c, const AstExpr *e,
					const char *ext);

/* A use of a vendor construct of kind k at loc (name: its operation or
 * symbol): counted; true when it is the first, to be reported. */
bool sema_vendor_use(Ctx *c, AstVendorKind k, Loc loc, const char *name);

/* env.c-like helpers (body.c) */
/* Where b was declared or first assigned. */
static inline Loc bind_decl(const struct Ctx *c, const Binding *b)
{
	return loc_make(c->file, b->decl_off, b->decl_len);
}

Binding *sema_env_find(Env *env, const char *name);
/* An empty table of bindings in a map (not the graph's), and its end. */
void sema_env_init(Env *env);
void sema_env_free(Env *env);

/* expr.c: the type of an expression (NULL after an error, which has
 * been reported). `whole_rhs`: e is the whole right-hand side of an
 * assignment, where an invocation may return several results. */
const Type *sema_expr(Ctx *c, AstExpr *e, bool whole_rhs);
/* The type of a literal expression (a default value). */
const Type *sema_literal(Ctx *c, AstExpr *e);

/* body.c: checks the body of a fragment (c->frag == f) or of the graph
 * (c->frag == NULL, f its declaration). */
void sema_body(Ctx *c, const SemaFrag *f);
/* The same in steps, for a body handed over one assignment at a time:
 * begin (the identifiers of the declaration, and those the body's
 * statements assign, if it has them), each assignment, end (what must
 * have been assigned). */
void sema_body_begin(Ctx *c, const SemaFrag *f);
void sema_body_stmt(Ctx *c, AstAssign *s);
void sema_body_end(Ctx *c, const SemaFrag *f);

#endif
