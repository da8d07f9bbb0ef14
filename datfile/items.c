/*
 * items.c - packing and unpacking tensor file items (spec 5.2; the bit
 * order is drawn at the top of codec.c, tract's Q4_0 blocks in tract.c),
 * IEEE half floats, and the real values of quantized items (spec 5.2,
 * linear and logarithmic quantization).
 */
#include "datfile/codec_internal.h"

#include <math.h>
#include <string.h>

/* ---- raw bit patterns -------------------------------------------------------- */

/* Item i as an unsigned bit pattern of h->bits bits. */
static uint64_t get_raw(const unsigned char *data, uint32_t bits, uint64_t i)
{
	if (bits % 8 == 0) {
		const unsigned char *p = data + i * (bits / 8);
		uint64_t v = 0;
		for (uint32_t k = bits / 8; k-- > 0;)
			v = v << 8 | p[k];
		return v;
	}
	uint64_t pos = i * bits, v = 0;
	for (uint32_t k = 0; k < bits; k++, pos++)
		v = v << 1 | ((data[pos / 8] >> (7 - pos % 8)) & 1u);
	return v;
}

static void put_raw(unsigned char *data, uint32_t bits, uint64_t i, uint64_t v)
{
	if (bits % 8 == 0) {
		unsigned char *p = data + i * (bits / 8);
		for (uint32_t k = 0; k < bits / 8; k++, v >>= 8)
			p[k] = (unsigned char)v;
		return;
	}
	uint64_t pos = i * bits + bits;
	for (uint32_t k = 0; k < bits; k++, v >>= 1) {
		pos--;
		unsigned char mask = (unsigned char)(1u << (7 - pos % 8));
		if (v & 1)
			data[pos / 8] |= mask;
		else
			data[pos / 8] &= (unsigned char)~mask;
	}
}

/* ---- half floats (IEEE 754 binary16) ------------------------------------------- */

double dat_half_to_double(uint16_t h)
{
	int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
	double v;
	if (exp == 0)
		v = ldexp(frac, -24); /* zero or subnormal */
	else if (exp == 31)
		v = frac ? NAN : INFINITY;
	else
		v = ldexp(frac | 0x400, exp - 25);
	return sign ? -v : v;
}

/* Rounds to the nearest half, ties to even. */
uint16_t dat_double_to_half(double d)
{
	uint16_t sign = signbit(d) ? 0x8000 : 0;
	d = fabs(d);
	if (isnan(d))
		return sign | 0x7e00;
	if (d >= 65520.0) /* rounds to infinity */
		return sign | 0x7c00;
	if (d < ldexp(1.0, -14)) { /* subnormal: units of 2^-24 */
		double m = nearbyint(ldexp(d, 24));
		return sign | (uint16_t)m; /* 1024 becomes the smallest normal */
	}
	int e;
	double f = frexp(d, &e); /* d = f * 2^e, f in [0.5, 1) */
	double m = nearbyint(ldexp(f, 11)); /* 11 significant bits */
	if (m >= 2048.0) {
		m /= 2;
		e++;
	}
	return sign | (uint16_t)((e + 14) << 10) | ((uint16_t)m & 0x3ff);
}

/* ---- items ---------------------------------------------------------------------- */

static bool is_signed(DatItemType t)
{
	return t == DAT_SINT || t == DAT_QSINT;
}

void dat_decode(const DatHeader *h, const unsigned char *data, uint64_t first,
		size_t n, DatItem *out)
{
	uint32_t b = h->bits;
	if (h->type == DAT_VENDOR) {
		if (dat_decodable(h))
			dat_q40_decode(h, data, first, n, out);
		else
			memset(out, 0, n * sizeof(*out)); /* not to be called */
		return;
	}
	for (size_t k = 0; k < n; k++) {
		uint64_t raw = get_raw(data, b, first + k);
		if (h->type == DAT_FLOAT) {
			if (b == 16) {
				out[k].f = dat_half_to_double((uint16_t)raw);
			} else if (b == 32) {
				uint32_t u = (uint32_t)raw;
				float f;
				memcpy(&f, &u, sizeof(f));
				out[k].f = f;
			} else {
				memcpy(&out[k].f, &raw, sizeof(double));
			}
		} else if (is_signed(h->type) && b < 64 && (raw >> (b - 1)) & 1) {
			out[k].i = (int64_t)(raw | (~(uint64_t)0 << b));
		} else if (h->type == DAT_LOGICAL) {
			out[k].u = raw != 0;
		} else {
			out[k].u = raw;
		}
	}
}

void dat_encode(const DatHeader *h, unsigned char *data, uint64_t first,
		size_t n, const DatItem *in)
{
	uint32_t b = h->bits;
	if (h->type == DAT_VENDOR)
		return; /* not to be called */
	uint64_t mask = b == 64 ? ~(uint64_t)0 : ((uint64_t)1 << b) - 1;
	for (size_t k = 0; k < n; k++) {
		uint64_t raw;
		if (h->type == DAT_FLOAT && b == 16) {
			raw = dat_double_to_half(in[k].f);
		} else if (h->type == DAT_FLOAT && b == 32) {
			float f = (float)in[k].f;
			uint32_t u;
			memcpy(&u, &f, sizeof(u));
			raw = u;
		} else if (h->type == DAT_FLOAT) {
			memcpy(&raw, &in[k].f, sizeof(raw));
		} else if (h->type == DAT_LOGICAL) {
			raw = in[k].u != 0;
		} else {
			raw = in[k].u & mask;
		}
		put_raw(data, b, first + k, raw);
	}
}

/* ---- real values ------------------------------------------------------------------ */

/* Linear quantization: x = q / r * (max - min) + min, r = 2^b - 1. */
static double linear_real(const DatHeader *h, uint64_t q)
{
	double r = ldexp(1.0, (int)h->bits) - 1.0;
	return (double)q / r * ((double)h->qmax - h->qmin) + h->qmin;
}

/* Logarithmic quantization: x = 2^(q + m - r), m = ceil(log2 max), r =
 * 2^b - 1. When min = -max the values are signed: "a sign bit must be
 * allocated from the b bits"; nnefkit takes the most significant bit as
 * the sign (1 for negative) and the b - 1 others as the code. The
 * exponent's r - q is formed in integers: in doubles, a code of 53 bits
 * or more would lose its low bits. */
static double log_real(const DatHeader *h, uint64_t q)
{
	bool sign = h->qmin != 0.0f;
	uint32_t b = h->bits - (sign ? 1u : 0u);
	uint64_t mask = b >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << b) - 1;
	bool negative = sign && b < 64 && (q >> b) & 1;
	uint64_t below = mask - (q & mask); /* r - q, exact */
	double m = ceil(log2((double)h->qmax));
	double v = below > 4096 ? 0.0 : exp2(m - (double)below);
	return negative ? -v : v;
}

double dat_real(const DatHeader *h, DatItem v)
{
	switch (h->type) {
	case DAT_FLOAT:
		return v.f;
	case DAT_SINT:
	case DAT_QSINT:
		return (double)v.i;
	case DAT_VENDOR: /* Q4_0 decodes to reals */
		return dat_decodable(h) ? v.f : (double)v.u;
	case DAT_UINT:
	case DAT_QUINT:
	case DAT_LOGICAL:
		return (double)v.u;
	case DAT_LINEAR:
		return linear_real(h, v.u);
	case DAT_LOG:
		return log_real(h, v.u);
	}
	return 0.0;
}

/* ---- reading and decoding a stream of items ------------------------------------ */

/* Items decoded per chunk (a multiple of 8, so that chunks of sub-byte
 * items start on a byte). */
#define CHUNK_ITEMS 65536

static bool host_little_endian(void)
{
	const uint16_t one = 1;
	return *(const unsigned char *)&one == 1;
}

static void store_item(const DatHeader *h, DatInto into, void *out, size_t i,
		       DatItem v, double (*map)(void *, size_t, double), void *map_ctx)
{
	double x;
	switch (into) {
	case DAT_INTO_F32:
	case DAT_INTO_F64:
		x = dat_real(h, v);
		if (map)
			x = map(map_ctx, i, x);
		if (into == DAT_INTO_F32)
			((float *)out)[i] = (float)x;
		else
			((double *)out)[i] = x;
		break;
	case DAT_INTO_I64:
		((int64_t *)out)[i] = h->type == DAT_UINT ? (int64_t)v.u : v.i;
		break;
	case DAT_INTO_BOOL:
		((uint8_t *)out)[i] = v.u != 0;
		break;
	}
}

bool dat_read_items(const DatHeader *h, DatInto into, void *out, size_t count,
		    long (*rd)(void *ctx, void *buf, size_t n), void *rd_ctx,
		    double (*map)(void *ctx, size_t i, double x), void *map_ctx)
{
	size_t per = CHUNK_ITEMS;
	uint64_t bytes;
	dat_packed_size(h, per, &bytes);
	unsigned char *buf = util_malloc((size_t)bytes);
	DatItem *items = util_malloc(per * sizeof(DatItem));
	/* float32 items to floats on a little-endian host: read in place
	 * (graph.quant maps only quantized codes, never floats) */
	bool in_place = h->type == DAT_FLOAT && h->bits == 32 && into == DAT_INTO_F32 &&
			host_little_endian();
	bool ok = true;
	for (size_t first = 0; first < count && ok; first += per) {
		size_t n = count - first < per ? count - first : per;
		uint64_t need;
		dat_packed_size(h, n, &need);
		unsigned char *dst = in_place ? (unsigned char *)out + first * 4 : buf;
		for (size_t got = 0; got < need && ok;) {
			long k = rd(rd_ctx, dst + got, (size_t)need - got);
			ok = k > 0;
			got += k > 0 ? (size_t)k : 0;
		}
		if (!ok || in_place)
			continue;
		dat_decode(h, buf, 0, n, items);
		for (size_t i = 0; i < n; i++)
			store_item(h, into, out, first + i, items[i], map, map_ctx);
	}
	util_free(buf);
	util_free(items);
	return ok;
}
