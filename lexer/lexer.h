/*
 * lexer.h - the NNEF scanner (spec 3.1 Lexical Elements).
 *
 * Reads a SourceFile and hands out tokens with byte-offset locations.
 * Identifiers are interned; string literals are decoded (escapes \' \" \\)
 * into the arena. Lexical errors are appended to the DiagList: a token
 * that cannot be repaired comes out as TK_ERROR (the parser does not
 * report it again), a repairable one (bad escape, literal out of range)
 * as the intended token.
 */
#ifndef NNEF_LEXER_H
#define NNEF_LEXER_H

#include "util/diag.h"
#include "util/util.h"

typedef enum TokKind {
#define TOKEN(kind, spelling, desc, reader) kind,
#include "lexer/tokens.def"
#undef TOKEN
	TK_COUNT
} TokKind;

typedef struct Token {
	TokKind kind;
	Loc loc;
	/* TK_INT written as 9223372036854775808: valid only as the magnitude
	 * of the literal -9223372036854775808 (v.i holds INT64_MIN) */
	bool int_min;
	bool quoted;        /* TK_IDENT written i"..." (a vendor extension) */
	union {
		const char *ident;  /* TK_IDENT: interned spelling */
		int64_t i;          /* TK_INT */
		double r;           /* TK_REAL */
		struct {
			const char *s; /* TK_STRING: decoded, NUL-terminated */
			size_t len;
		} str;
	} v;
} Token;

typedef struct Lexer Lexer;

Lexer *lex_new(const SourceFile *file, Arena *arena, Interner *interner,
	       DiagList *diags);
void lex_free(Lexer *lx);
/* The next token; TK_EOF at the end (and forever after). */
void lex_next(Lexer *lx, Token *tok);
/* Up to max tokens into toks, as lex_next would give them, up to the
 * first ';' (included); fewer, or none, where one is for the flex tables
 * (lex_next reads on from there). A lexical error is never reported here
 * ahead of the tokens before it: a token that could be one is left. */
size_t lex_run(Lexer *lx, Token *toks, size_t max);
/* Whether lex_next reads the common tokens by hand (the default) or
 * every token with the flex tables: the same tokens either way; tests
 * compare the two. */
void lex_set_quick(Lexer *lx, bool quick);

/* Identifiers written i"..." read so far: how many, and the first. */
size_t lex_quoted(const Lexer *lx, Loc *first);

/* "')'", "identifier", "'version'"... for messages. */
const char *lex_token_desc(TokKind kind);
/* The fixed spelling of a keyword or punctuator, NULL for classes. */
const char *lex_token_spelling(TokKind kind);
/* True for the keywords of spec 3.1 (not for true/false). */
bool lex_is_keyword(TokKind kind);
/* Whether s reads as an identifier when written as it is (spec 3.1):
 * else it is written i"..." (a vendor extension). */
bool lex_is_plain_identifier(const char *s);

#endif
