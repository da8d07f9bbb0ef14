/*
 * dtype.c - the datum types of util/dtypes.def: names, widths, classes,
 * and reading a datum type as tract spells it.
 */
#include "util/util.h"

#include <math.h>
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

/* d rounded to the nearest half-precision value (ties to even: the
 * default rounding of nearbyint), infinite beyond its largest. */
static double round_f16(double d)
{
	double a = fabs(d);
	if (!isfinite(d) || a == 0)
		return d;
	if (a >= 65520.0) /* halfway past 65504, the largest half */
		return copysign(INFINITY, d);
	int e;
	frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
	int exponent = e - 1 < -14 ? -14 : e - 1; /* subnormals below 2^-14 */
	double step = ldexp(1.0, exponent - 10);   /* 11 significant bits */
	return copysign(nearbyint(a / step) * step, d);
}

double dtype_round(DType t, double d)
{
	return t == DT_F32 ? (double)(float)d : t == DT_F16 ? round_f16(d) : d;
}

int64_t dtype_wrap(DType t, int64_t i)
{
	unsigned bits = dtype_bits(t);
	DTypeClass c = dtype_class(t);
	if (t == DT_NONE || bits == 0 || bits >= 64 ||
	    (c != DTC_SIGNED && c != DTC_UNSIGNED && c != DTC_QUANTIZED))
		return i;
	uint64_t mask = ((uint64_t)1 << bits) - 1, u = (uint64_t)i & mask;
	if (c != DTC_UNSIGNED && t != DT_QU8 && (u >> (bits - 1)))
		u |= ~mask; /* sign-extended */
	return (int64_t)u;
}

int64_t dtype_real_to_int(double d)
{
	d = trunc(d);
	return isnan(d) ? 0 : d >= 9.2233720368547758e18 ? INT64_MAX
	       : d <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)d;
}

int64_t dtype_real_to(DType t, double d)
{
	int64_t i = dtype_real_to_int(d);
	unsigned bits = dtype_bits(t);
	DTypeClass c = dtype_class(t);
	if (bits == 0 || bits >= 64 || (c != DTC_SIGNED && c != DTC_UNSIGNED))
		return i;
	int64_t hi = c == DTC_UNSIGNED ? ((int64_t)1 << bits) - 1 : ((int64_t)1 << (bits - 1)) - 1;
	int64_t lo = c == DTC_UNSIGNED ? 0 : -hi - 1;
	return i < lo ? lo : i > hi ? hi : i;
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
