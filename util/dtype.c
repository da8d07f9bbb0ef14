/*
 * dtype.c - the datum types of util/dtypes.def: names, widths, classes,
 * and reading a datum type as tract spells it.
 */
#include "util/util.h"

#include <string.h>

static const struct {
	const char *name;
	unsigned bits;
	DTypeClass cls;
} dtypes[DT_COUNT] = {
	[DT_NONE] = { "none", 0, DTC_FLOAT },
#define DTYPE(id, name, bits, cls) [DT_##id] = { name, bits, cls },
#include "util/dtypes.def"
#undef DTYPE
};

const char *dtype_name(DType t)
{
	return t < DT_COUNT ? dtypes[t].name : "?";
}

unsigned dtype_bits(DType t)
{
	return t < DT_COUNT ? dtypes[t].bits : 0;
}

DTypeClass dtype_class(DType t)
{
	return t < DT_COUNT ? dtypes[t].cls : DTC_FLOAT;
}

bool dtype_is_integer(DType t)
{
	if (t == DT_NONE)
		return false;
	DTypeClass c = dtype_class(t);
	return c == DTC_UNSIGNED || c == DTC_SIGNED || c == DTC_DIM ||
	       c == DTC_QUANTIZED;
}

/* tract's capitalized spellings beside the lower-case ones ("F32",
 * "Bool", "String", "TDim"): the first letter in upper case, and TDim. */
static bool capitalized_is(const char *s, size_t len, const char *name)
{
	if (strcmp(name, "tdim") == 0)
		return len == 4 && memcmp(s, "TDim", 4) == 0;
	size_t n = strlen(name);
	return len == n && n > 0 && s[0] == name[0] - 'a' + 'A' &&
	       memcmp(s + 1, name + 1, n - 1) == 0;
}

DType dtype_parse(const char *name, size_t len)
{
	for (int t = DT_NONE + 1; t < DT_COUNT; t++) {
		if (dtypes[t].cls == DTC_QUANTIZED)
			continue;
		const char *n = dtypes[t].name;
		if ((strlen(n) == len && memcmp(n, name, len) == 0) ||
		    capitalized_is(name, len, n))
			return (DType)t;
	}
	return DT_NONE;
}

void dtype_list(StrBuf *out)
{
	bool first = true;
	for (int t = DT_NONE + 1; t < DT_COUNT; t++) {
		if (dtypes[t].cls == DTC_QUANTIZED)
			continue;
		sb_printf(out, "%s%s", first ? "" : ", ", dtypes[t].name);
		first = false;
	}
}
