/*
 * parse.h - from source text to a checked AST.
 *
 * parse_document runs the scanner and the bison parser (spec Appendix A.2,
 * the compositional grammar, which contains the flat one), then the
 * syntax-level checks the grammar alone cannot express:
 *   - left-hand sides are <lvalue-expr>s, default values <literal-expr>s;
 *   - the document structure of spec 3.2.4: one version statement first,
 *     extensions next, then fragment definitions, then exactly one graph;
 *   - extension gating: fragment definitions need
 *     KHR_enable_fragment_definitions (3.2.2); everything beyond the flat
 *     grammar of A.1 needs KHR_enable_operator_expressions (3.2.3).
 * Errors go to the DiagList; the returned AST is usable even when errors
 * were reported (erroneous statements are left out).
 */
#ifndef NNEF_PARSE_H
#define NNEF_PARSE_H

#include "grammar/ast.h"
#include "util/diag.h"

typedef enum ParseMode {
	/* A whole document: version, extensions, fragments, one graph. */
	PARSE_DOCUMENT,
	/* Fragment definitions only, every extension enabled (the embedded
	 * standard library). */
	PARSE_FRAGMENTS,
	/* A quantization file (spec 5.3 graph.quant): entries
	 * '"tensor": op(name = expr, ...);', as AST_ITEM_QUANT items whose
	 * invocations have named arguments only (E1201 otherwise). */
	PARSE_QUANT,
} ParseMode;

/* Deepest nesting of expressions and types accepted (E0216): brackets
 * open at once, operators, invocations. Later stages recurse on
 * expressions, so this bounds their stack use: the default leaves room
 * on any stack, the bound (ParseOptions.max_nesting) on the 8 MiB of a
 * usual one. */
#define PARSE_DEFAULT_NESTING 1000
#define PARSE_MAX_NESTING 10000

/* ---- vendor extensions nnefkit recognizes (vendor.c) ----------------- */

typedef enum VendorArgs {
	VENDOR_ARGS_REGISTRIES, /* the names after it are extensions whose
				   operations the document calls */
	VENDOR_ARGS_SYMBOLS,    /* the names after it are symbols */
	VENDOR_ARGS_EXPRESSION, /* an expression follows: an assertion */
} VendorArgs;

typedef struct VendorDirective {
	const char *name;       /* "tract_registry" */
	const char *vendor;     /* "tract" */
	VendorArgs args;
} VendorDirective;

/* The directive called name, or NULL. */
const VendorDirective *parse_vendor_directive(const char *name);
/* Appends "tract_registry, tract_symbol and tract_assert". */
void parse_vendor_directive_list(StrBuf *out);
/* Whether text[0..len) is an assertion as tract reads them (extension
 * tract_assert S >= 1;); when not, *bad is the offset where reading
 * stopped. */
bool parse_vendor_assertion(const char *text, size_t len, size_t *bad);

typedef struct ParseOptions {
	Dialect dialect;      /* DIALECT_KHRONOS by default */
	bool lenient;         /* report known harmless deviations of real
				 producers (extension names separated by
				 commas) as warnings instead of errors */
	uint32_t max_nesting; /* 0: PARSE_DEFAULT_NESTING; at most
				 PARSE_MAX_NESTING */
	bool tables_only;     /* a streamed parse reads every statement
				 through the parser tables, none by the
				 faster reader of plain assignments (the
				 tests compare the two) */
} ParseOptions;

/* NNEF_REFERENCE_PARSER=1 in the environment (read at the first parse)
 * forces the reference path on every parse, for debugging: each
 * statement through the parser tables (as tables_only) and each token
 * through the flex rules (lex_set_quick false). The results are the
 * same, only slower; ParseResult.fast_stmts is then 0. */

typedef struct ParseResult {
	AstDoc *doc;          /* never NULL */
	bool fragment_defs;   /* KHR_enable_fragment_definitions present */
	bool operator_exprs;  /* KHR_enable_operator_expressions present */
	bool syntax_ok;       /* no lexical or syntax error */
	bool streamed;        /* parse_document_streamed: the graph's body
				 went to the stream */
	size_t fast_stmts;    /* of those, the assignments read without the
				 parser tables (grammar/plain_statements.c) */
} ParseResult;

/* opt NULL: the defaults. */
ParseResult parse_document(const SourceFile *file, ParseMode mode,
			   const ParseOptions *opt, Arena *arena,
			   Interner *interner, DiagList *diags);

/* A document whose graph body is handed over one statement at a time, so
 * that a huge flat graph is never held as a tree. Once the graph's
 * declaration is read, the document so far (version, extensions,
 * fragments, the graph without body) is checked as parse_document checks
 * a whole one; when that reports nothing, begin is called with it, then
 * stmt with each assignment of the graph's body, checked too. A
 * statement's nodes live until stmt returns. The parse stops (returning
 * streamed false) at the first diagnostic, or when begin or stmt returns
 * false: the caller then parses the document again with parse_document
 * for the full diagnostics. */
typedef struct ParseStream {
	bool (*begin)(void *ctx, const ParseResult *so_far);
	/* scratch: the arena of the statement's nodes, for what the
	 * consumer attaches to them (freed with them) */
	bool (*stmt)(void *ctx, AstAssign *s, Arena *scratch);
	void *ctx;
	/* Optional: the statements outlive stmt. Before each statement
	 * (once begin has returned true, then each time stmt has), the
	 * arena its nodes go to, which the parser never resets; NULL
	 * stops the parse. stmt's scratch is then that arena. */
	Arena *(*arena)(void *ctx);
} ParseStream;

/* A document parsed with a stream; res.streamed tells whether the graph's
 * whole body went to it (its AstBody then has no statements). */
ParseResult parse_document_streamed(const SourceFile *file,
				    const ParseOptions *opt, Arena *arena,
				    Interner *interner, DiagList *diags,
				    const ParseStream *stream);

/* Whether a fragment's body uses anything beyond the flat grammar (A.1),
 * i.e. needs KHR_enable_operator_expressions. */
bool parse_body_needs_operators(const AstBody *body);

#endif
