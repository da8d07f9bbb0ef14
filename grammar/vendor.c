/*
 * vendor.c - the vendor extensions whose constructs nnefkit recognizes
 * (spec 3.2.4: a vendor extension is named VENDOR_extension_name). Real
 * exporters declare them on extension lines that carry arguments: tract
 * writes "extension tract_registry tract_core;" for the operations of a
 * registry, "extension tract_symbol T;" for a symbol (an extent whose
 * value is known only when the model runs) and "extension tract_assert
 * T >= 1;" for an assertion about symbols. The parser reads such lines,
 * and the checks count what a document uses of them (grammar/ast.h,
 * AstVendor); the first diagnostic of a document that uses them says so
 * in one place.
 */
#include "grammar/parse.h"

#include <string.h>

static const VendorDirective directives[] = {
	{ "tract_registry", "tract", VENDOR_ARGS_REGISTRIES },
	{ "tract_symbol", "tract", VENDOR_ARGS_SYMBOLS },
	{ "tract_assert", "tract", VENDOR_ARGS_EXPRESSION },
};

const VendorDirective *parse_vendor_directive(const char *name)
{
	for (size_t i = 0; i < sizeof(directives) / sizeof(directives[0]); i++)
		if (strcmp(directives[i].name, name) == 0)
			return &directives[i];
	return NULL;
}

void parse_vendor_directive_list(StrBuf *out)
{
	size_t n = sizeof(directives) / sizeof(directives[0]);
	for (size_t i = 0; i < n; i++)
		sb_printf(out, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
			  directives[i].name);
}

/* ---- tract_assert: tract's grammar of assertions ------------------------- */

/* A reader of an assertion's text, as tract's parser of symbolic
 * expressions reads it (sema/tract/TRACT-NOTES.md B.5):
 *   assertion := expr ("==" | "<=" | ">=" | "<" | ">") expr
 *   expr := sum ("#" sum)?        sum := diff ("+" diff)?
 *   diff := prod ("-" prod)?      prod := quot ("*" quot)?
 *   quot := atom ("/" digits)?
 *   atom := digits | ("min" | "max") "(" expr ("," expr)* ")" | symbol
 *         | "-" atom | "(" expr ")"
 * (each level takes one operator at most: tract reads a+b+c as an error),
 * optionally after "SCENARIO:". */
typedef struct Reader {
	const char *p, *end;
	int depth;
} Reader;

static void skip_ws(Reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t'))
		r->p++;
}

static bool take(Reader *r, const char *s)
{
	skip_ws(r);
	size_t n = strlen(s);
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, s, n) != 0)
		return false;
	r->p += n;
	return true;
}

static bool is_ident_char(char c, bool first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

static bool read_expr(Reader *r);

static bool read_digits(Reader *r)
{
	skip_ws(r);
	const char *start = r->p;
	while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
		r->p++;
	return r->p > start;
}

static bool read_atom(Reader *r)
{
	skip_ws(r);
	if (r->p >= r->end || ++r->depth > 100)
		return false;
	bool ok;
	if (take(r, "-")) {
		ok = read_atom(r);
	} else if (take(r, "(")) {
		ok = read_expr(r) && take(r, ")");
	} else if (*r->p >= '0' && *r->p <= '9') {
		ok = read_digits(r);
	} else if (take(r, "min(") || take(r, "max(")) {
		ok = read_expr(r);
		while (ok && take(r, ","))
			ok = read_expr(r);
		ok = ok && take(r, ")");
	} else if (is_ident_char(*r->p, true)) {
		while (r->p < r->end && is_ident_char(*r->p, false))
			r->p++;
		ok = true;
	} else {
		ok = false;
	}
	r->depth--;
	return ok;
}

/* One level: its operand, and one more after op when op follows. */
static bool read_level(Reader *r, int level)
{
	static const char ops[] = "#+-*";
	if (level == 4) {
		if (!read_atom(r))
			return false;
		return !take(r, "/") || read_digits(r);
	}
	if (!read_level(r, level + 1))
		return false;
	skip_ws(r);
	if (r->p < r->end && *r->p == ops[level]) {
		r->p++;
		return read_level(r, level + 1);
	}
	return true;
}

static bool read_expr(Reader *r)
{
	return read_level(r, 0);
}

bool parse_vendor_assertion(const char *text, size_t len, size_t *bad)
{
	Reader r = { text, text + len, 0 };
	/* "SCENARIO: EXPR" */
	const char *colon = memchr(text, ':', len);
	if (colon)
		r.p = colon + 1;
	bool ok = read_expr(&r);
	if (ok) {
		static const char *const cmps[] = { "==", "<=", ">=", "<", ">" };
		bool cmp = false;
		for (size_t i = 0; i < 5 && !cmp; i++)
			cmp = take(&r, cmps[i]);
		ok = cmp && read_expr(&r);
	}
	skip_ws(&r);
	ok = ok && r.p == r.end;
	*bad = (size_t)(r.p - text);
	return ok;
}
