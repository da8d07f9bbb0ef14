/*
 * sema.h - semantic analysis (spec 3.3.1 - 3.3.2): the standard library,
 * types and casts, fragment declarations, invocations and generic
 * deduction, assignments and the rules of identifier usage.
 *
 * sema_check resolves every fragment (standard and the document's),
 * type-checks every body, and annotates the AST: each expression's
 * `type`, and each invocation's `u.inv.call` (callee, generic binding,
 * argument for each parameter). The next stage (flattening) reads these.
 */
#ifndef NNEF_SEMA_H
#define NNEF_SEMA_H

#include "grammar/parse.h"
#include "sema/types.h"
#include "util/diag.h"

typedef struct SemaParam {
	const char *name;
	Loc loc;
	const Type *type;
	const AstExpr *def;       /* default value, NULL when none */
} SemaParam;

/* A declared operation: primitive (no body) or compound. */
typedef struct SemaFrag {
	const char *name;
	const AstDef *def;        /* declaration (and body) */
	bool is_std;              /* from the standard library */
	bool is_registry;         /* from a registry of tract's dialect
				     (sema/tract/): without body, a primitive
				     of the op table */
	bool is_generic;
	const Type *generic_default; /* <? = type>; NULL when none */
	SemaParam *params;
	size_t nparams;
	SemaParam *results;
	size_t nresults;
	const Type *result_type;  /* the single result's type, or the tuple of
				     all results' types */
	bool bad;                 /* its declaration has errors: calls to it
				     are not checked further */
	bool name_clash;          /* a name is both parameter and result: the
				     body is not checked */
	PtrMap param_index;       /* parameter name -> index + 1 */
	PtrMap result_index;      /* result name -> index + 1 */
} SemaFrag;

/* How an invocation resolved (AstExpr.u.inv.call). */
typedef struct SemaCall {
	const SemaFrag *callee;
	const Type *generic;      /* the binding of the callee's '?' (a
				     primitive, or '?' itself inside a generic
				     fragment); NULL when not generic */
	const AstExpr **args;     /* per callee parameter: its argument, or
				     NULL where the default applies */
} SemaCall;

typedef struct SemaOptions {
	bool lenient;             /* known harmless deviations: warnings */
	const AstDoc *const *declarations; /* fragments added to the
				     standard library (--declarations,
				     parsed in PARSE_FRAGMENTS mode),
				     registered before the document's own */
	size_t ndeclarations;
	size_t nregistries;       /* the first declarations are those of
				     tract's registries (their operations
				     are primitives of the op table) */
} SemaOptions;

typedef struct SemaProgram {
	TypeTable types;
	SemaFrag **frags;         /* every operation: standard ones first */
	size_t nfrags;
	PtrMap table;             /* name (interned) -> SemaFrag * */
	const AstDoc *doc;
	const AstDoc *stdlib;
	SourceFile **assumed;     /* declarations assumed for undeclared
				     vendor operations (--lenient) */
	size_t nassumed;
	PtrMap implicit_symbols;  /* tract's dialect: symbols a document
				     introduces by using them where tract
				     allows it (a set of interned names) */
} SemaProgram;

/* The standard library's source (sema/stdlib.nnef, embedded at build
 * time) as a source file named "stdlib.nnef". */
SourceFile *sema_stdlib_source(void);

/* The declarations of the tract registry `name` (tract_core,
 * tract_transformers, ...; sema/registries.def) as a source file named
 * "<name>.nnef" (free with source_free), or NULL when there is no such
 * registry. */
SourceFile *sema_registry_source(const char *name);
/* Appends "tract_core, tract_transformers, ... and tract_resource". */
void sema_registry_list(StrBuf *out);
/* The registry a document names `name` (as tract does: its own name, or
 * an alias such as "pulse"): its name, "" for the standard library's
 * ("tract_nnef", read anyway), NULL when tract has none of that name. */
const char *sema_registry_name(const char *name);

/* Checks doc (whose parse had no syntax errors) against the standard
 * library stdlib (parsed in PARSE_FRAGMENTS mode). Returns true when no
 * error was reported. prog stays valid until sema_free. */
bool sema_check(SemaProgram *prog, const AstDoc *doc, const AstDoc *stdlib,
		Arena *arena, Interner *interner, DiagList *diags,
		const SemaOptions *opt);
/* The same in steps, for a graph body handed over one assignment at a
 * time (parse_document_streamed): sema_begin checks everything but the
 * graph's body (doc->graph's statements, if it has any, are only noted
 * for the wording of "used before it is assigned"); sema_stmt checks
 * and annotates one assignment of the body (the annotations in scratch,
 * which must live until the statement is flattened, or in the
 * program's arena when scratch is NULL); sema_end checks what must
 * have been assigned, frees the state and returns true when no error was
 * reported since sema_begin. */
typedef struct SemaGraph SemaGraph;
SemaGraph *sema_begin(SemaProgram *prog, const AstDoc *doc,
		      const AstDoc *stdlib, Arena *arena, Interner *interner,
		      DiagList *diags, const SemaOptions *opt);
void sema_stmt(SemaGraph *sg, AstAssign *s, Arena *scratch);
bool sema_end(SemaGraph *sg);
const SemaFrag *sema_lookup(const SemaProgram *prog, const char *name);
/* Whether the interned name is a symbol: declared (extension tract_symbol
 * S;) or, in tract's dialect, introduced by its use. */
bool sema_is_symbol(const SemaProgram *prog, const char *name);
void sema_free(SemaProgram *prog);

/* Checks the entries of a quantization file (doc, parsed in PARSE_QUANT
 * mode; spec 5.3) against the program: each names a quantization
 * operation (a standard one of 4.9.5, or one the document or its
 * declarations define: a tensor first parameter, one tensor result),
 * gives every other parameter once by name, each a compile-time
 * expression (no identifier but a comprehension's) of the parameter's
 * type; a tensor parameter takes a value of its data type or a (nested)
 * array of them (1.0.5: per channel). An entry that passes is annotated
 * as a call is (its call's u.inv.call, args[0] NULL: the tensor); one
 * that fails is reported (E1201, E1203, E1204) and left with a NULL
 * call. Returns true when every entry passed. */
bool sema_check_quant(SemaProgram *prog, const AstDoc *doc, Arena *arena,
		      Interner *interner, DiagList *diags);
/* Whether f is a standard quantization operation (spec 4.9.5). */
bool sema_standard_quantizer(const char *name);

/* The candidate closest to name by edit distance, for a "did you mean"
 * hint: within 1 edit for names of 3 characters or fewer, 2 up to 6, 3
 * beyond; NULL when none is that close (a candidate that is name
 * itself, the same interned pointer, is passed over). */
const char *sema_suggest(const char *name, const char *const *candidates,
			 size_t n);

#endif
