/*
 * data.c - the interpreter's data: variables from the model's tensor files
 * (spec 5.2; quantized items dequantized with graph.quant, 5.3), inputs
 * from tensor files or a pseudo-random generator, and results written as
 * tensor files (through a temporary file renamed when complete).
 */
#include "interp/interp_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Items decoded per chunk (a multiple of 8, so that chunks of sub-byte
 * items start on a byte). */
#define CHUNK_ITEMS 65536

typedef long (*ReadFn)(void *ctx, void *buf, size_t n);

/* ---- dequantization of item types 2 and 3 (graph.quant, spec 5.3) ---------- */

/* A quantization parameter: values broadcast to the tensor (1.0.5
 * per-channel arrays; a single value otherwise). */
typedef struct QParam {
	double *v;
	int64_t dims[INTERP_MAX_RANK];
	size_t rank;
} QParam;

typedef struct Dequant {
	int kind;              /* 0: none, 1: zero point, 2: min-max */
	QParam a, b;           /* zero_point and scale, or min and max */
	double p, r;           /* min-max: offset and steps */
} Dequant;

static bool qvalue_real(const QuantValue *v, double *out)
{
	switch (v->kind) {
	case QV_INT: *out = (double)v->u.i; return true;
	case QV_REAL: *out = v->u.r; return true;
	case QV_BOOL: *out = v->u.b; return true;
	default: return false;
	}
}

/* Flattens a (nested) array literal, row-major. */
static bool qparam_fill(const QuantValue *v, QParam *q, size_t depth,
			size_t *n)
{
	if (v->kind != QV_ARRAY) {
		q->v = util_realloc(q->v, (*n + 1) * sizeof(double));
		return qvalue_real(v, &q->v[(*n)++]);
	}
	if (depth >= INTERP_MAX_RANK)
		return false;
	if (depth == q->rank) {
		q->dims[q->rank++] = (int64_t)v->u.list.n;
	}
	for (size_t i = 0; i < v->u.list.n; i++)
		if (!qparam_fill(v->u.list.items[i], q, depth + 1, n))
			return false;
	return true;
}

/* The parameter's value for item i of a tensor of shape t (NNEF
 * broadcasting: the parameter's missing trailing dimensions are 1). */
static double qparam_at(const QParam *q, const ITensor *t, size_t i)
{
	if (q->rank == 0)
		return q->v[0];
	int64_t idx = 0, rest = (int64_t)i, coords[INTERP_MAX_RANK];
	for (size_t d = t->rank; d-- > 0;) {
		coords[d] = rest % t->dims[d];
		rest /= t->dims[d];
	}
	for (size_t d = 0; d < q->rank; d++)
		idx = idx * q->dims[d] + (q->dims[d] == 1 || d >= t->rank ? 0 : coords[d]);
	return q->v[idx];
}

static const QuantArg *quant_arg(const QuantEntry *e, const char *name)
{
	for (size_t i = 0; i < e->nargs; i++)
		if (strcmp(e->args[i].name, name) == 0)
			return &e->args[i];
	return NULL;
}

static bool qparam_of(const QuantEntry *e, const char *name, QParam *q)
{
	const QuantArg *a = quant_arg(e, name);
	size_t n = 0;
	memset(q, 0, sizeof(*q));
	return a && qparam_fill(a->value, q, 0, &n) && n > 0;
}

static bool qflag(const QuantEntry *e, const char *name, bool dflt)
{
	const QuantArg *a = quant_arg(e, name);
	return a && a->value->kind == QV_BOOL ? a->value->u.b : dflt;
}

/* The dequantization of variable v's codes from its graph.quant entry
 * (by the variable's identifier). False when there is none usable. */
static bool dequant_init(const Interp *it, const IVar *v, Dequant *dq)
{
	memset(dq, 0, sizeof(*dq));
	const char *name = v->ft->name;
	const QuantEntry *e = NULL;
	for (size_t i = 0; i < it->m->quant.n && !e; i++)
		if (strcmp(it->m->quant.entries[i].tensor, name) == 0)
			e = &it->m->quant.entries[i];
	if (!e)
		return false;
	if (strcmp(e->op, "zero_point_linear_quantize") == 0) {
		dq->kind = 1;
		return qparam_of(e, "zero_point", &dq->a) && qparam_of(e, "scale", &dq->b);
	}
	if (strcmp(e->op, "min_max_linear_quantize") != 0 &&
	    strcmp(e->op, "linear_quantize") != 0)
		return false;
	/* spec 1.0.5 4.9.5: r = 2^bits - 1 - int(signed && symmetric),
	 * p = 2^(bits-1) - int(symmetric) when signed; the stored code is
	 * q, and y = (q + p) / r * (max - min) + min */
	dq->kind = 2;
	const QuantArg *bits = quant_arg(e, "bits");
	bool sgn = qflag(e, "signed", false), sym = qflag(e, "symmetric", false);
	if (!bits || bits->value->kind != QV_INT || bits->value->u.i < 1 ||
	    bits->value->u.i > 62)
		return false;
	int64_t nb = bits->value->u.i;
	dq->r = (double)(((int64_t)1 << nb) - 1 - (sgn && sym));
	dq->p = sgn ? (double)(((int64_t)1 << (nb - 1)) - sym) : 0;
	return qparam_of(e, "min", &dq->a) && qparam_of(e, "max", &dq->b);
}

static double dequant(const Dequant *dq, const ITensor *t, size_t i, double q)
{
	double a = qparam_at(&dq->a, t, i), b = qparam_at(&dq->b, t, i);
	if (dq->kind == 1)
		return (q - a) * b;
	return (q + dq->p) / dq->r * (b - a) + a;
}

/* ---- decoding --------------------------------------------------------------------- */

static bool host_little_endian(void)
{
	const uint16_t one = 1;
	return *(const unsigned char *)&one == 1;
}

/* Stores item i of t from its decoded value. */
static void store_item(const Interp *it, ITensor *t, size_t i,
		       const DatHeader *h, DatItem v, const Dequant *dq)
{
	switch (t->dtype) {
	case TY_SCALAR: {
		double x = dat_real(h, v);
		if (dq && dq->kind)
			x = dequant(dq, t, i, x);
		if (it->rsize == 4)
			((float *)t->data)[i] = (float)x;
		else
			((double *)t->data)[i] = x;
		break;
	}
	case TY_INTEGER:
		((int64_t *)t->data)[i] = h->type == DAT_UINT ? (int64_t)v.u : v.i;
		break;
	default:
		((uint8_t *)t->data)[i] = v.u != 0;
		break;
	}
}

/* Reads the packed data of h (after its header) from rd and decodes it
 * into t. Returns false on a short read (the caller reports). */
static bool decode_stream(const Interp *it, const DatHeader *h, ITensor *t,
			  const Dequant *dq, ReadFn rd, void *ctx)
{
	size_t per = CHUNK_ITEMS;
	uint64_t bytes;
	dat_packed_size(h, per, &bytes);
	unsigned char *buf = util_malloc((size_t)bytes);
	DatItem *items = util_malloc(per * sizeof(DatItem));
	bool fast = h->type == DAT_FLOAT && h->bits == 32 && t->dtype == TY_SCALAR &&
		    it->rsize == 4 && host_little_endian();
	bool ok = true;
	for (size_t first = 0; first < t->count && ok; first += per) {
		size_t n = t->count - first < per ? t->count - first : per;
		uint64_t need;
		dat_packed_size(h, n, &need);
		unsigned char *dst = fast ? (unsigned char *)t->data + first * 4 : buf;
		for (size_t got = 0; got < need && ok;) {
			long k = rd(ctx, dst + got, (size_t)need - got);
			ok = k > 0;
			got += k > 0 ? (size_t)k : 0;
		}
		if (!ok || fast)
			continue;
		dat_decode(h, buf, 0, n, items);
		for (size_t i = 0; i < n; i++)
			store_item(it, t, first + i, h, items[i], dq);
	}
	util_free(buf);
	util_free(items);
	return ok;
}

/* ---- variables ---------------------------------------------------------------------- */

/* Deterministic pseudo-random numbers (splitmix64). */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uniform01(uint64_t *state)
{
	return (double)(next_random(state) >> 11) * 0x1.0p-53;
}

/* Fills t: scalars uniform in [lo, hi) or standard normal (Box-Muller),
 * integers 0..9, logicals 0 or 1. Every scalar is drawn in double the
 * same way whatever the precision, then rounded for a float run, so a
 * seed gives the same values (to float rounding) in both. */
static void fill_random(const Interp *it, ITensor *t, uint64_t seed,
			bool normal, double lo, double hi)
{
	uint64_t st = seed;
	size_t n = t->count;
	if (t->dtype == TY_INTEGER) {
		for (size_t i = 0; i < n; i++)
			((int64_t *)t->data)[i] = (int64_t)(next_random(&st) % 10);
		return;
	}
	if (t->dtype == TY_LOGICAL) {
		for (size_t i = 0; i < n; i++)
			((uint8_t *)t->data)[i] = (uint8_t)(next_random(&st) >> 63);
		return;
	}
	float *f = it->rsize == 4 ? t->data : NULL;
	double *d = it->rsize == 4 ? NULL : t->data;
	double w = hi - lo;
	if (!normal && d) {
		for (size_t i = 0; i < n; i++)
			d[i] = lo + w * uniform01(&st);
		return;
	}
	if (!normal) {
		/* a value just below hi may round up to it in float: the float
		 * below it instead keeps the range half-open */
		float fhi = (float)hi, below = nextafterf(fhi, (float)lo);
		for (size_t i = 0; i < n; i++) {
			double x = lo + w * uniform01(&st);
			float y = (float)x;
			f[i] = y >= fhi && x < hi ? below : y;
		}
		return;
	}
	for (size_t i = 0; i < n; i++) {
		double u = uniform01(&st), v = uniform01(&st);
		double x = sqrt(-2 * log(1 - u)) * cos(6.283185307179586 * v);
		if (f)
			f[i] = (float)x;
		else
			d[i] = x;
	}
}

typedef struct Loader {
	Interp *it;
	bool failed;
} Loader;

static long cont_reader(void *ctx, void *buf, size_t n)
{
	return cont_read(ctx, buf, n);
}

static bool skip_bytes(ReadFn rd, void *ctx, size_t n)
{
	unsigned char tmp[256];
	while (n) {
		long k = rd(ctx, tmp, n < sizeof(tmp) ? n : sizeof(tmp));
		if (k <= 0)
			return false;
		n -= (size_t)k;
	}
	return true;
}

/* Reads the file of every variable that uses f. */
static bool load_file(void *ctx, const ModelFile *f, Container *c)
{
	Loader *ld = ctx;
	Interp *it = ld->it;
	IVar *v = NULL;
	for (size_t i = 0; i < it->nvars && !v; i++)
		if (it->vars[i].mv->file == f && it->vars[i].mv->header &&
		    !it->vars[i].loaded)
			v = &it->vars[i];
	if (!v)
		return true;
	const DatHeader *h = v->mv->header;
	Dequant dq;
	bool quant = h->type == DAT_QUINT || h->type == DAT_QSINT;
	if (quant && !dequant_init(it, v, &dq)) {
		diag_add(it->diags, DIAG_E1306, flat_op_loc(v->mv->op), "variable '%s': '%s' holds quantized codes, but graph.quant gives no linear quantization for '%s' to decode them with", v->label, f->name, v->ft->name);
		ld->failed = true;
		return false;
	}
	if (v->value.dtype == TY_INTEGER && (int)h->bits > it->int_bits)
		it->int_bits = (int)h->bits;
	bool ok = skip_bytes(cont_reader, c, h->header_size) &&
		  decode_stream(it, h, &v->value, quant ? &dq : NULL, cont_reader, c);
	if (quant) {
		util_free(dq.a.v);
		util_free(dq.b.v);
	}
	if (!ok) {
		diag_add(it->diags, DIAG_E1303, flat_op_loc(v->mv->op), "variable '%s': '%s' ended before its data did", v->label, f->name);
		ld->failed = true;
		return false;
	}
	v->loaded = true;
	return true;
}

/* Scale of generated weights: uniform with variance 1 / fan-in, the
 * fan-in being the volume over the first extent. */
static double weight_bound(const ITensor *t)
{
	double fan = t->rank ? (double)t->count / (double)t->dims[0] : 1.0;
	if (fan < 1)
		fan = 1;
	return sqrt(3.0 / fan);
}

/* Why a variable has no data: its file cannot be decoded, the model is a
 * bare graph, or --no-data left the tensor files unread. */
static const char *no_data_hint(const Model *m, const IVar *v)
{
	if (v->mv->file)
		return "its data file holds items nnef-run cannot decode";
	if (m->kind == CONT_FILE)
		return "a bare graph has no data files: --random-weights generates them";
	if (!m->data_checked)
		return "--no-data leaves the model's tensor files unread: drop it, or generate weights with --random-weights";
	return "the model holds no tensor file for it: --random-weights generates one";
}

bool interp_load_variables(Interp *it, const Model *m, bool random_missing,
			   uint64_t seed)
{
	(void)m;
	bool need_files = false;
	for (size_t i = 0; i < it->nvars; i++) {
		IVar *v = &it->vars[i];
		if (!interp_alloc(it, &v->value))
			return false;
		if (v->mv->file && v->mv->header && dat_decodable(v->mv->header)) {
			need_files = true;
		} else if (random_missing) {
			double b = weight_bound(&v->value);
			fill_random(it, &v->value, seed + 0x1000 * (i + 1), false, -b, b);
			v->loaded = true;
		}
	}
	if (need_files) {
		Loader ld = { it, false };
		if (!model_read_files(it->m, load_file, &ld, it->diags) || ld.failed)
			return false;
	}
	bool ok = true;
	for (size_t i = 0; i < it->nvars; i++)
		if (!it->vars[i].loaded) {
			const IVar *v = &it->vars[i];
			Diag *d = diag_add(it->diags, DIAG_E1303, flat_op_loc(v->mv->op), "variable '%s' has no data to run with", v->label);
			diag_hint(it->diags, d, "%s", no_data_hint(m, v));
			ok = false;
		}
	return ok && interp_load_nested(it, random_missing, seed);
}

/* ---- inputs ---------------------------------------------------------------------------- */

static long file_reader(void *ctx, void *buf, size_t n)
{
	size_t k = fread(buf, 1, n, ctx);
	return k ? (long)k : (ferror((FILE *)ctx) ? -1 : 0);
}

/* Whether items of h can hold data type k (spec 5.2.1). */
static bool item_fits(const DatHeader *h, TypeKind k)
{
	switch (h->type) {
	case DAT_FLOAT:
	case DAT_LINEAR:
	case DAT_LOG:
		return k == TY_SCALAR;
	case DAT_UINT:
	case DAT_SINT:
		return k == TY_INTEGER;
	case DAT_LOGICAL:
		return k == TY_LOGICAL;
	default:
		return false;
	}
}

/* Shapes equal up to trailing singleton dimensions (spec 2.2). */
static bool dat_shape_is(const DatHeader *h, const ITensor *t)
{
	uint32_t n = h->rank > t->rank ? h->rank : t->rank;
	for (uint32_t d = 0; d < n; d++) {
		int64_t a = d < h->rank ? (int64_t)h->extents[d] : 1;
		int64_t b = d < t->rank ? t->dims[d] : 1;
		if (a != b)
			return false;
	}
	return true;
}

static void put_dims(StrBuf *b, const int64_t *dims, size_t rank)
{
	sb_putc(b, '[');
	for (size_t i = 0; i < rank; i++)
		sb_printf(b, i ? ",%lld" : "%lld", (long long)dims[i]);
	sb_putc(b, ']');
}

static const char *kind_name(TypeKind k)
{
	return k == TY_SCALAR ? "scalar" : k == TY_INTEGER ? "integer" : "logical";
}

/* The header of input file path against input i; false after reporting. */
static bool input_header(Interp *it, size_t i, const char *path, FILE *fp,
			 DatHeader *h)
{
	unsigned char head[DAT_OLD_HEADER_SIZE];
	struct stat st;
	size_t n = fread(head, 1, sizeof(head), fp);
	if (fstat(fileno(fp), &st) != 0 ||
	    !dat_read_header(head, n, (uint64_t)st.st_size, path, it->m->lenient, h, it->diags))
		return false;
	const ITensor *t = &it->t[it->inputs[i]];
	char tn[32];
	StrBuf a, b;
	sb_init(&a);
	sb_init(&b);
	int64_t dims[DAT_MAX_RANK];
	for (uint32_t d = 0; d < h->rank; d++)
		dims[d] = h->extents[d];
	put_dims(&a, dims, h->rank);
	put_dims(&b, t->dims, t->rank);
	bool ok = true;
	if (!dat_shape_is(h, t)) {
		diag_add(it->diags, DIAG_E1303, loc_make(NULL, 0, 0), "'%s' holds a tensor of shape %s, but the graph's input '%s' has shape %s", path, sb_str(&a), interp_input_name(it, i), sb_str(&b));
		ok = false;
	} else if (!item_fits(h, t->dtype)) {
		diag_add(it->diags, DIAG_E1303, loc_make(NULL, 0, 0), "'%s' holds %s items, but the graph's input '%s' is %s", path, dat_type_name(h, tn), interp_input_name(it, i), kind_name(t->dtype));
		ok = false;
	}
	sb_free(&a);
	sb_free(&b);
	return ok && fseek(fp, (long)h->header_size, SEEK_SET) == 0;
}

bool interp_read_input(Interp *it, size_t i, const char *path)
{
	UtilCleanup cl;
	FILE *fp = util_fopen(path, "rb", &cl);
	if (!fp) {
		diag_add(it->diags, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': %s", path, strerror(errno));
		return false;
	}
	DatHeader h;
	ITensor *t = interp_input(it, i);
	bool ok = t->data && input_header(it, i, path, fp, &h);
	if (ok && t->dtype == TY_INTEGER && (int)h.bits > it->int_bits)
		it->int_bits = (int)h.bits;
	if (ok && !decode_stream(it, &h, t, NULL, file_reader, fp)) {
		diag_add(it->diags, DIAG_E1009, loc_make(NULL, 0, 0), "'%s' ended before its data did", path);
		ok = false;
	}
	util_fclose(fp, &cl);
	return ok;
}

void interp_random_input(Interp *it, size_t i, InterpRandom kind,
			 uint64_t seed)
{
	ITensor *t = interp_input(it, i);
	if (t->data)
		fill_random(it, t, seed + 0x9e37 * (i + 1), kind == INTERP_NORMAL, 0, 1);
}

/* ---- writing --------------------------------------------------------------------------- */

/* The header for t; false when a tensor file cannot hold it. */
static bool header_for(const Interp *it, const ITensor *t, int int_bits,
		       DatHeader *h)
{
	uint32_t ext[DAT_MAX_RANK];
	if (t->rank > DAT_MAX_RANK)
		return false;
	for (uint32_t d = 0; d < t->rank; d++) {
		if (t->dims[d] > (int64_t)UINT32_MAX)
			return false;
		ext[d] = (uint32_t)t->dims[d];
	}
	if (t->dtype == TY_SCALAR)
		return dat_make_header(h, DAT_FLOAT, (uint32_t)(8 * it->rsize), ext, t->rank);
	if (t->dtype == TY_INTEGER)
		return dat_make_header(h, DAT_SINT, int_bits > 0 ? (uint32_t)int_bits : 64, ext, t->rank);
	return dat_make_header(h, DAT_LOGICAL, 8, ext, t->rank);
}

void interp_items(void *ctx, uint64_t first, size_t n, DatItem *out)
{
	const InterpItems *w = ctx;
	const ITensor *t = w->t;
	for (size_t i = 0; i < n; i++) {
		size_t k = (size_t)first + i;
		if (t->dtype == TY_SCALAR)
			out[i].f = interp_value(w->it, t, k);
		else if (t->dtype == TY_INTEGER)
			out[i].i = ((const int64_t *)t->data)[k];
		else
			out[i].u = ((const uint8_t *)t->data)[k];
	}
}

bool interp_write_tensor(const Interp *it, const ITensor *t, int int_bits,
			 const char *path, DiagList *diags)
{
	DatHeader h;
	if (!header_for(it, t, int_bits, &h)) {
		diag_add(diags, DIAG_E1307, loc_make(NULL, 0, 0), "cannot write '%s': a tensor file holds at most 8 dimensions of at most 2^32 - 1 items and 4 GiB of data", path);
		return false;
	}
	InterpItems w = { it, t };
	return dat_write_file(path, &h, interp_items, &w, diags);
}

int interp_integer_bits(const Interp *it)
{
	return it->int_bits ? it->int_bits : 64;
}
