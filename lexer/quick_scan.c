/*
 * quick_scan.c - the common tokens of NNEF text (spec 3.1 Lexical
 * Elements) read by hand, beside the flex rules of lexer.l: lex_next and
 * lex_run.
 *
 * Most of a large document is identifiers, integers, plain strings and
 * punctuation. quick_scan reads those straight from flex's buffer, with
 * the actions flex would run, and leaves the buffer as flex leaves it
 * after a token; anything else (reals with an exponent, escapes, a
 * comment or token that runs to the end of the buffer, stray bytes...)
 * it leaves to the flex tables: it returns TK_COUNT at the token's start,
 * and lex_next asks flex (lex_flex_scan). It must give exactly the tokens
 * of the rules of lexer.l: check_lexer compares both ways of reading over
 * every test document. Keywords and punctuation come from tokens.def,
 * as the rules' do.
 */
#include "lexer/lexer_internal.h"

#include <limits.h>
#include <pthread.h>
#include <string.h>

/* The spelling of each token, and its length (meaningless for classes). */
static const char *const spelling[] = {
#define TOKEN(kind, spelling, desc, reader) spelling,
#include "lexer/tokens.def"
#undef TOKEN
};

static const unsigned char spelling_len[] = {
#define TOKEN(kind, spelling, desc, reader) sizeof(spelling) - 1,
#include "lexer/tokens.def"
#undef TOKEN
};

_Static_assert(sizeof(spelling) / sizeof(spelling[0]) == TK_COUNT,
	       "spelling table out of sync");

/* Q_SKIP: what may begin white space, a CRLF line end or a comment */
enum { Q_ID = 1, Q_IDSTART = 2, Q_DIGIT = 4, Q_WS = 8, Q_SKIP = 16 };

static const unsigned char qclass[256] = {
	[' '] = Q_WS | Q_SKIP, ['\t'] = Q_WS | Q_SKIP, ['\v'] = Q_WS | Q_SKIP,
	['\f'] = Q_WS | Q_SKIP, ['\n'] = Q_WS | Q_SKIP, ['\r'] = Q_SKIP,
	['#'] = Q_SKIP,
	['0'] = Q_ID | Q_DIGIT, ['1'] = Q_ID | Q_DIGIT, ['2'] = Q_ID | Q_DIGIT,
	['3'] = Q_ID | Q_DIGIT, ['4'] = Q_ID | Q_DIGIT, ['5'] = Q_ID | Q_DIGIT,
	['6'] = Q_ID | Q_DIGIT, ['7'] = Q_ID | Q_DIGIT, ['8'] = Q_ID | Q_DIGIT,
	['9'] = Q_ID | Q_DIGIT, ['_'] = Q_ID | Q_IDSTART,
#define Q_LETTERS(c) [c] = Q_ID | Q_IDSTART, [c + 32] = Q_ID | Q_IDSTART
	Q_LETTERS('A'), Q_LETTERS('B'), Q_LETTERS('C'), Q_LETTERS('D'),
	Q_LETTERS('E'), Q_LETTERS('F'), Q_LETTERS('G'), Q_LETTERS('H'),
	Q_LETTERS('I'), Q_LETTERS('J'), Q_LETTERS('K'), Q_LETTERS('L'),
	Q_LETTERS('M'), Q_LETTERS('N'), Q_LETTERS('O'), Q_LETTERS('P'),
	Q_LETTERS('Q'), Q_LETTERS('R'), Q_LETTERS('S'), Q_LETTERS('T'),
	Q_LETTERS('U'), Q_LETTERS('V'), Q_LETTERS('W'), Q_LETTERS('X'),
	Q_LETTERS('Y'), Q_LETTERS('Z'),
#undef Q_LETTERS
};

#define QC(c) qclass[(unsigned char)(c)]

/* The keywords (and true, false) by a hash of their length and first
 * and last characters: the keyword of each slot, TK_COUNT where there is
 * none, and KW_SCAN where two share it (none do with today's keywords;
 * one added to tokens.def may). Built once, from tokens.def. */
enum { KW_SLOTS = 64, KW_SCAN = TK_COUNT + 1 };
static unsigned char kw_slot[KW_SLOTS];

_Static_assert(KW_SCAN <= UCHAR_MAX, "kw_slot holds token kinds in a byte");

static unsigned kw_hash(const char *s, size_t n)
{
	unsigned first = (unsigned char)s[0], last = (unsigned char)s[n - 1];
	return (unsigned)(n + first * 7u + last) & (KW_SLOTS - 1);
}

/* The keyword (or true, false) spelled s[0..n) (n > 0), else TK_IDENT:
 * most names are looked up in one slot, without a comparison. */
static TokKind quick_keyword(const char *s, size_t n)
{
	unsigned k = kw_slot[kw_hash(s, n)];
	if (k == TK_COUNT)
		return TK_IDENT;
	if (k != KW_SCAN)
		return spelling_len[k] == n && memcmp(spelling[k], s, n) == 0 ? (TokKind)k : TK_IDENT;
	for (k = TK_TRUE; k <= TK_KW_ELSE; k++)
		if (spelling_len[k] == n && memcmp(spelling[k], s, n) == 0)
			return (TokKind)k;
	return TK_IDENT;
}

/* Whether a type name of the generic rule ("<"/{WS}*{TYPENAME}{WS}*">")
 * follows '<' at p: 1, 0, or -1 when the buffer ends first. */
static int quick_generic(const char *p, const char *end)
{
	static const TokKind names[] = { TK_KW_INTEGER, TK_KW_SCALAR, TK_KW_LOGICAL, TK_KW_STRING, TK_QUESTION };
	while (p < end && (QC(*p) & Q_WS))
		p++;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *s = spelling[names[i]];
		size_t n = spelling_len[names[i]];
		if ((size_t)(end - p) <= n)
			return -1; /* too close to the end to tell */
		if (memcmp(p, s, n) != 0)
			continue;
		const char *q = p + n;
		while (q < end && (QC(*q) & Q_WS))
			q++;
		return q == end ? -1 : *q == '>';
	}
	return 0;
}

/* The punctuation of the token table, by first character: the token of
 * that one character, and the two-character one it may start (the table
 * has at most one for each first character); TK_COUNT where there is
 * none. Built once, from tokens.def. */
static struct {
	unsigned char one, two, second;
} punct[256];

/* kw_slot and punct, from tokens.def */
static void quick_build(void)
{
	memset(kw_slot, TK_COUNT, sizeof(kw_slot));
	for (int k = TK_TRUE; k <= TK_KW_ELSE; k++) {
		unsigned char *slot = &kw_slot[kw_hash(spelling[k], spelling_len[k])];
		*slot = *slot == TK_COUNT ? (unsigned char)k : KW_SCAN;
	}
	for (int c = 0; c < 256; c++)
		punct[c].one = punct[c].two = TK_COUNT;
	for (int k = 0; k < TK_COUNT; k++) {
		const char *s = spelling[k];
		/* '<' of a generic type is told from '<' by look-ahead */
		if (!s || (QC(*s) & Q_ID) || k == TK_GENERIC_LT)
			continue;
		unsigned char c = (unsigned char)s[0];
		if (spelling_len[k] == 1) {
			punct[c].one = (unsigned char)k;
		} else {
			punct[c].two = (unsigned char)k;
			punct[c].second = (unsigned char)s[1];
		}
	}
}

_Static_assert(TK_COUNT <= UCHAR_MAX, "punct holds token kinds in a byte");

void lex_quick_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, quick_build);
}

/* Punctuation at p (end: the buffer's end); *n its length; TK_COUNT for
 * what flex reads. */
static inline __attribute__((always_inline))
TokKind quick_punct(const char *p, const char *end, size_t *n)
{
	unsigned char c = (unsigned char)*p;
	if (punct[c].two != TK_COUNT) {
		if (p + 1 >= end)
			return TK_COUNT; /* its second character may follow */
		if ((unsigned char)p[1] == punct[c].second) {
			*n = 2;
			return (TokKind)punct[c].two;
		}
	}
	*n = 1;
	if (c == '<') {
		int g = quick_generic(p + 1, end);
		return g < 0 ? TK_COUNT : g ? TK_GENERIC_LT : TK_LT;
	}
	return (TokKind)punct[c].one;
}

/* The string literal text[0..len), quotes included, of printable ASCII
 * without escapes: decode_string, without a check per character. */
static TokKind plain_string(struct LexState *st, const char *text,
			    size_t len)
{
	char *out = arena_alloc(st->arena, len);
	memcpy(out, text + 1, len - 2);
	out[len - 2] = '\0';
	st->tok->v.str.s = out;
	st->tok->v.str.len = len - 2;
	return TK_STRING;
}

/* The token at p, read as flex's action would, with *n its length (p's
 * white space and comments already skipped); TK_COUNT to leave to flex. */
static inline __attribute__((always_inline))
TokKind quick_token(struct LexState *st, char *p, char *end,
			   size_t *n)
{
	char *q = p + 1;
	if (QC(*p) & Q_IDSTART) {
		while (q < end && (QC(*q) & Q_ID))
			q++;
		*n = (size_t)(q - p);
		if (q == end || (*n == 1 && *p == 'i' && *q == '"'))
			return TK_COUNT; /* i"...": a quoted identifier */
		TokKind k = quick_keyword(p, *n);
		if (k == TK_IDENT)
			st->tok->v.ident = intern_cached(st->interner, &st->names, p, *n);
		return k;
	}
	if (QC(*p) & Q_DIGIT) {
		while (q < end && (QC(*q) & Q_DIGIT))
			q++;
		bool real = q + 1 < end && *q == '.' && (QC(q[1]) & Q_DIGIT);
		if (real)
			for (q += 2; q < end && (QC(*q) & Q_DIGIT); q++)
				;
		/* a letter, '_', '.' or an exponent next: flex's longer
		 * rules (bad numbers, exponents) */
		if (q == end || (QC(*q) & Q_ID) || *q == '.')
			return TK_COUNT;
		*n = (size_t)(q - p);
		if (!real)
			return lex_scan_int(st, p, *n);
		char after = *q;
		*q = '\0'; /* strtod reads up to here */
		TokKind k = lex_scan_real(st, p, *n);
		*q = after;
		return k;
	}
	if (*p == '\'' || *p == '"') {
		for (; q < end && *q != *p; q++)
			if (*q == '\\' || (unsigned char)*q < 0x20 ||
			    (unsigned char)*q >= 0x7f)
				return TK_COUNT; /* escapes, errors */
		if (q == end)
			return TK_COUNT;
		*n = (size_t)(q + 1 - p);
		return plain_string(st, p, *n);
	}
	return quick_punct(p, end, n);
}

/* A statement ends at p: asks for the interner's slot of the name that
 * begins the statement AHEAD_LINES lines on, if the buffer holds it. In a
 * large graph that name is new: its intern is a probe far away in
 * memory, which this starts a few statements ahead of it. Only a
 * prefetch: what is found here is never read as a token. */
enum { AHEAD_LINES = 2 };

static void prefetch_ahead(const struct LexState *st, const char *p,
			   const char *end)
{
	if (!intern_far(st->interner))
		return; /* the probe will be a hit in the caches */
	for (int i = 0; i < AHEAD_LINES; i++) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (!p)
			return;
		p++;
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	const char *q = p;
	while (q < end && (QC(*q) & Q_ID))
		q++;
	if (q < end && q > p && (QC(*p) & Q_IDSTART))
		intern_prefetch(st->interner, p, (size_t)(q - p));
}

/* The end of flex's buffer, its NUL taken back, for reading by hand;
 * NULL when flex is to read (nothing is changed then). */
static char *quick_begin(Lexer *lx)
{
	const LexFlexView *f = &lx->flex;
	/* flex loads its buffer at its first token */
	if (lx->slow || lx->at_eof || !*f->init || !*f->cur)
		return NULL;
	char *end = *f->buf + *f->n_chars;
	if (*f->cur > end)
		return NULL;
	**f->cur = *f->hold; /* flex ends yytext with a NUL */
	return end;
}

/* Leaves flex's buffer read up to p, as flex leaves it after a token. */
static void quick_end(Lexer *lx, char *p)
{
	*lx->flex.cur = p;
	*lx->flex.hold = *p;
	*p = '\0';
}

/* Past the white space, CRLF line ends and comments at p (counted in the
 * position); a comment that may go on past the buffer stays (flex's). */
static inline __attribute__((always_inline))
char *quick_space(struct LexState *st, char *p, const char *end)
{
	if (p < end && !(QC(*p) & Q_SKIP))
		return p; /* most tokens: none */
	char *start = p;
	for (;;) {
		while (p < end && (QC(*p) & Q_WS))
			p++;
		if (p + 1 < end && p[0] == '\r' && p[1] == '\n') {
			p += 2;
			continue;
		}
		if (p < end && *p == '#') {
			char *c = p + 1;
			while (c < end && *c != '\n' && *c != '\f')
				c++;
			if (c == end)
				break; /* it may go on past the buffer: flex's */
			p = c;
			continue;
		}
		break;
	}
	st->pos += (size_t)(p - start);
	return p;
}

/* The next token read by hand from flex's buffer, or TK_COUNT (nothing
 * of the token read) when it is for the flex tables. */
static TokKind quick_scan(Lexer *lx)
{
	struct LexState *st = &lx->st;
	char *end = quick_begin(lx);
	if (!end)
		return TK_COUNT;
	char *p = quick_space(st, *lx->flex.cur, end);
	TokKind k = TK_COUNT;
	size_t n = 0;
	if (p < end) {
		st->tok_start = st->pos;
		k = quick_token(st, p, end, &n);
		if (k == TK_COUNT)
			n = 0;
		else if (k == TK_SEMI)
			prefetch_ahead(st, p + 1, end);
	}
	p += n;
	st->pos += n;
	quick_end(lx, p);
	return k;
}

/* Whether the digits at p run for 19 or more: an integer, or a real's
 * whole part, that may be out of range (the only errors of the tokens
 * read by hand), which lex_run leaves to lex_next (lexer.h). */
static bool long_number(const char *p, const char *end)
{
	size_t n = 0;
	while (p + n < end && (QC(p[n]) & Q_DIGIT))
		n++;
	return n >= 19;
}

size_t lex_run(Lexer *lx, Token *toks, size_t max)
{
	struct LexState *st = &lx->st;
	char *end = quick_begin(lx);
	if (!end)
		return 0;
	char *p = *lx->flex.cur;
	size_t got = 0;
	while (got < max) {
		p = quick_space(st, p, end);
		if (p >= end || ((QC(*p) & Q_DIGIT) && long_number(p, end)))
			break;
		Token *tok = &toks[got];
		memset(tok, 0, sizeof(*tok));
		st->tok = tok;
		st->tok_start = st->pos;
		size_t n = 0;
		TokKind k = quick_token(st, p, end, &n);
		if (k == TK_COUNT)
			break;
		tok->kind = k;
		tok->loc = loc_make(st->file, st->tok_start, n);
		p += n;
		st->pos += n;
		got++;
		if (k == TK_SEMI) {
			prefetch_ahead(st, p, end);
			break;
		}
	}
	quick_end(lx, p);
	return got;
}

void lex_set_quick(Lexer *lx, bool quick)
{
	lx->slow = !quick;
}

void lex_next(Lexer *lx, Token *tok)
{
	memset(tok, 0, sizeof(*tok));
	if (lx->at_eof) {
		tok->kind = TK_EOF;
		tok->loc = loc_make(lx->st.file, lx->st.file->len, 0);
		return;
	}
	lx->st.tok = tok;
	TokKind k = quick_scan(lx);
	if (k == TK_COUNT)
		k = lex_flex_scan(lx->scanner);
	tok->kind = k;
	if (k == TK_EOF) {
		lx->at_eof = true;
		tok->loc = loc_make(lx->st.file, lx->st.file->len, 0);
	} else {
		tok->loc = loc_make(lx->st.file, lx->st.tok_start,
				    lx->st.pos - lx->st.tok_start);
	}
}
