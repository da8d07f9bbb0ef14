/*
 * lexer_internal.h - what the flex scanner (lexer.l) and the hand scanner
 * of common tokens (quick_scan.c) share: the scanner's state, the actions
 * that give a number its value, and a view of flex's buffer, which both
 * read (spec 3.1 Lexical Elements). Not for other modules.
 */
#ifndef NNEF_LEXER_INTERNAL_H
#define NNEF_LEXER_INTERNAL_H

#include "lexer/lexer.h"

/* What the actions of the rules read and write (flex's yyextra). */
struct LexState {
	const SourceFile *file;
	Arena *arena;
	Interner *interner;
	InternCache names;  /* in front of the interner */
	DiagList *diags;
	size_t pos;       /* byte offset of the next unread byte */
	size_t tok_start; /* byte offset of the current match */
	Token *tok;       /* where the current action stores its value */
	size_t nquoted;   /* identifiers written i"..." so far */
	Loc first_quoted;
	size_t fed;       /* bytes of a mapped text handed to flex so far */
};

/* flex's buffer as the hand scanner reads it: the addresses of the fields
 * of flex's state that say where it stands (lex_new takes them), so that
 * a token read by hand costs no call into lexer.l. Flex ends the text of
 * its last token with a NUL, keeping the byte it replaced in *hold. */
typedef struct LexFlexView {
	char **cur;       /* yy_c_buf_p: the next byte to read */
	char *hold;       /* yy_hold_char: the byte under flex's NUL */
	int *n_chars;     /* yy_n_chars: the bytes in the buffer */
	char **buf;       /* the buffer's yy_ch_buf (it may move) */
	int *init;        /* yy_init: flex has loaded the buffer */
} LexFlexView;

struct Lexer {
	void *scanner;    /* flex's yyscan_t */
	struct LexState st;
	void *buffer;     /* flex's YY_BUFFER_STATE, the only one */
	LexFlexView flex;
	bool at_eof;
	bool slow;        /* every token through the flex tables */
};

/* The next token by the flex rules (lexer.l), its value in *st->tok. */
TokKind lex_flex_scan(void *scanner);

/* The actions of the rules for a decimal integer and a real (lexer.l):
 * the value of text[0..len) into st->tok, or a diagnostic. */
TokKind lex_scan_int(struct LexState *st, const char *text, size_t len);
TokKind lex_scan_real(struct LexState *st, const char *text, size_t len);

/* The hand scanner's tables (quick_scan.c), built once from tokens.def:
 * lex_new calls it. */
void lex_quick_init(void);

#endif
