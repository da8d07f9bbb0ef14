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

const VendorDirective *vendor_directive(const char *name)
{
	for (size_t i = 0; i < sizeof(directives) / sizeof(directives[0]); i++)
		if (strcmp(directives[i].name, name) == 0)
			return &directives[i];
	return NULL;
}

void vendor_directive_list(StrBuf *out)
{
	size_t n = sizeof(directives) / sizeof(directives[0]);
	for (size_t i = 0; i < n; i++)
		sb_printf(out, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
			  directives[i].name);
}
