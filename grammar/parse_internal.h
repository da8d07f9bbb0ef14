/*
 * parse_internal.h - state shared by the bison grammar (grammar.y), its
 * token feed and node helpers (token_feed.c) and the checks after parsing
 * (parse.c). Not part of the public interface.
 */
#ifndef NNEF_PARSE_INTERNAL_H
#define NNEF_PARSE_INTERNAL_H

#include "grammar/ast.h"
#include "grammar/parse.h"
#include "lexer/lexer.h"
#include "util/diag.h"

#include <string.h>

/* A list under construction: a malloc'd buffer growing by doubling. When
 * its rule completes, ast_vec_finish moves it into the arena at its exact
 * size; a list dropped by error recovery is freed by ast_vec_drop (the
 * grammar's %destructor). A list may start in a buffer of its caller
 * (AVEC_IN), and moves to the heap only when it outgrows it. */
typedef struct AVec {
	void *data;
	size_t len, cap;    /* in items */
	bool borrowed;      /* data is the caller's buffer */
} AVec;

#define AVEC_IN(buf) ((AVec){ (buf), 0, sizeof(buf) / sizeof((buf)[0]), true })

/* Room for one more item of v (ast_vec_push when it is full). */
void ast_vec_grow(AVec *v, size_t size);

static inline void ast_vec_push(AVec *v, const void *elem, size_t size)
{
	if (v->len == v->cap)
		ast_vec_grow(v, size);
	memcpy((char *)v->data + v->len * size, elem, size);
	v->len++;
}
/* Copies the items into the arena (NULL when empty) and frees v. */
void *ast_vec_finish(Arena *a, AVec *v, size_t size);
void ast_vec_drop(AVec *v);

/* An open bracket, for "expected ')' to close '(' at 4:18". */
typedef struct OpenBracket {
	TokKind kind;
	Loc loc;
	uint32_t depth;  /* '(' and '[' open, this one included */
} OpenBracket;

typedef enum BracketAction {
	BR_NONE,
	BR_PUSH,          /* an opening bracket was read */
	BR_POP,           /* a matching closing bracket was read */
	BR_TO_BRACE,      /* ';': drop brackets above the innermost '{' */
	BR_THROUGH_BRACE, /* '}': drop up to and including the innermost '{' */
	BR_CLEAR,         /* a top-level keyword: drop everything */
} BracketAction;

typedef struct ParseState {
	const SourceFile *file;
	Arena *arena;
	Interner *interner;
	DiagList *diags;
	Lexer *lx;
	Dialect dialect;
	bool lenient;
	uint32_t max_nesting; /* E0216 beyond */

	Token cur;          /* the last token handed to the parser */
	Token prev;         /* the one before it */
	TokKind toplevel;   /* the last top-level keyword before cur */
	TokKind pending_toplevel; /* cur's, applied with pending */

	/* Recovery from a missing ';': the parser is handed a ';' at the
	 * insertion point, then the token it discarded, again. */
	bool inject_semi;
	bool quant_start;   /* PARSE_QUANT: TK_QUANT_FILE not yet handed */
	const char *frag_name; /* the identifier after the last 'fragment' */
	bool redeliver;
	bool redelivered;   /* cur is a redelivered token: an error right
			       there would only repeat the first one */
	Token held;

	OpenBracket *brackets;
	size_t nbrackets, capbrackets;
	BracketAction pending; /* applied when the next token is read */

	AVec items;         /* AstItem, in source order */
	bool too_deep;      /* E0216 was reported */
	size_t int_min_pending; /* 2^63 literals not (yet) negated */
	bool syntax_errors; /* a lexical or syntax error was reported */

	/* A streamed parse (parse_document_streamed): from the graph's
	 * body on, each statement is built in `scratch`, checked, handed to
	 * the stream and dropped. */
	const ParseStream *stream;
	bool streaming;     /* in the graph's body, handing statements over */
	bool streamed;      /* the whole body was handed over */
	bool operators;     /* KHR_enable_operator_expressions is on */
	size_t diags_before; /* diag_count when the parse began */
	Arena *main_arena;  /* the document's arena, while arena is scratch */
	Arena scratch;

	/* Tokens read ahead by plain_statements.c for an assignment it
	 * declined: handed to the parser, from ahead_pos on, before the
	 * lexer is read again. */
	Token *ahead;
	size_t nahead, capahead, ahead_pos;
	bool tables_only;   /* ParseOptions.tables_only: no plain_statements.c */
	bool fast_stop;     /* the stream declined what plain_statements.c
			       handed over */
	size_t fast_stmts;  /* assignments plain_statements.c handed over */
	size_t nquoted;     /* identifiers written i"..." (once the lexer is
			       freed) */
	Loc first_quoted;
	Loc ext_expr;       /* the expression read_extension_line took off
			       the extension line being parsed */
	size_t forgotten;   /* the text before this offset was given back
			       (source_forget) */
} ParseState;

/* Bison's interface (grammar.y). */
typedef struct ParseState ParseState;

/* Node helpers used by the grammar actions. */
AstExpr *parse_expr(ParseState *ps, AstExprKind kind, Loc loc);
/* Records a child's depth in a parent; reports E0216 once when the
 * nesting limit is exceeded and returns false then. */
bool parse_depth(ParseState *ps, AstExpr *parent, const AstExpr *child);
/* The same for type specifications (integer[][]...). */
bool parse_type_depth(ParseState *ps, AstType *parent, const AstType *child);
AstExpr *parse_unary(ParseState *ps, AstOp op, AstExpr *a, Loc loc);
AstExpr *parse_binary(ParseState *ps, AstOp op, AstExpr *a, AstExpr *b, Loc loc);
/* These take ownership of the lists they are given. */
AstExpr *parse_list(ParseState *ps, AstExprKind kind, AVec *items, Loc loc);
AstExpr *parse_invoke(ParseState *ps, Loc loc, const char *name, AVec *args);
AstExpr *parse_comprehension(ParseState *ps, Loc loc, AVec *iters,
			     AstExpr *cond, AstExpr *value);
AstBody *parse_body(ParseState *ps, Loc loc, AVec *stmts);
void parse_version(ParseState *ps, Loc loc, Loc number, bool is_int);
void parse_extension(ParseState *ps, Loc loc, AVec *names);
void parse_def(ParseState *ps, Loc loc, AstDef *def);
void parse_quant_entry(ParseState *ps, Loc loc, const Token *tensor,
		       AstExpr *call);
/* The graph's declaration is read (its body follows): in a streamed
 * parse, checks the document so far and starts the stream. False: stop
 * parsing (the stream declined, or the document so far has a
 * diagnostic). */
bool parse_graph_begin(ParseState *ps, AstDef *graph);
/* An assignment of a body: added to stmts, or, while streaming, checked
 * and handed to the stream. False: stop parsing. */
bool parse_stmt(ParseState *ps, AVec *stmts, AstAssign *s);

/* At the start of an assignment of a streamed body: reads a plain
 * assignment (plain_statements.c), hands it over like parse_stmt and returns
 * true with a TK_STMT token in *out; or returns false, the tokens it read
 * waiting in ps->ahead. */
bool parse_plain_stmt(ParseState *ps, Token *out);

/* Reads the next token for the parser, keeping the bracket stack and the
 * previous token up to date. */
void parse_next_token(ParseState *ps, Token *out);
/* Reports a syntax error at the current token, given the tokens the
 * parser would have accepted there. */
void parse_syntax_error(ParseState *ps, const TokKind *expected, size_t n);
/* Reports E0216 (once). */
void parse_too_deep(ParseState *ps, Loc loc);
int parse_yyparse(ParseState *ps);

#endif
