/*
 * tensor_io.c - the interpreter's tensors in and out: variables from its
 * host (InterpHost: the model's tensor files, decoded outside interp/)
 * or from a pseudo-random generator, inputs from tensor files (spec 5.2)
 * or the generator, and results written as tensor files (through a
 * temporary file renamed when complete).
 */
#include "interp/interp_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- decoding --------------------------------------------------------------------- */

/* Where a tensor's items go when decoded. */
static DatInto into_of(const Interp *it, const ITensor *t)
{
	if (t->dtype == TY_SCALAR)
		return it->rsize == 4 ? DAT_INTO_F32 : DAT_INTO_F64;
	return t->dtype == TY_INTEGER ? DAT_INTO_I64 : DAT_INTO_BOOL;
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

/* Scale of generated weights: uniform with variance 1 / fan-in, the
 * fan-in being the volume over the first extent. */
static double weight_bound(const ITensor *t)
{
	double fan = t->rank ? (double)t->count / (double)t->dims[0] : 1.0;
	if (fan < 1)
		fan = 1;
	return sqrt(3.0 / fan);
}

/* Generated data of a variable: scalars uniform within weight_bound;
 * integers and logicals 0 and false, for an integer variable is most
 * often an index or a count, and 0 is valid wherever any index is (a
 * random one is not: an index into an axis of extent 3). */
static void generate_weight(const Interp *it, ITensor *t, uint64_t seed)
{
	if (t->dtype != TY_SCALAR) {
		memset(t->data, 0, t->count * interp_item_size(it, t->dtype));
		return;
	}
	double b = weight_bound(t);
	fill_random(it, t, seed, false, -b, b);
}

/* Gives the host the variables that have data, to fill; false after
 * reporting. */
static bool host_load(Interp *it)
{
	InterpVarSlot *slots = util_calloc(it->nvars ? it->nvars : 1, sizeof(*slots));
	for (size_t i = 0; i < it->nvars; i++)
		slots[i] = (InterpVarSlot){ &it->vars[i].value, it->vars[i].loaded };
	bool ok = it->host.load_variables(it->host.ctx, slots, it->nvars, it->rsize, &it->int_bits, it->diags);
	for (size_t i = 0; i < it->nvars; i++)
		it->vars[i].loaded = slots[i].loaded;
	util_free(slots);
	return ok;
}

bool interp_load_variables(Interp *it, bool random_missing, uint64_t seed)
{
	bool need_files = false;
	for (size_t i = 0; i < it->nvars; i++) {
		IVar *v = &it->vars[i];
		if (!interp_alloc(it, &v->value))
			return false;
		if (it->host.has_data && it->host.has_data(it->host.ctx, i)) {
			need_files = true;
		} else if (random_missing) {
			generate_weight(it, &v->value, seed + 0x1000 * (i + 1));
			v->loaded = true;
		}
	}
	if (need_files && !host_load(it))
		return false;
	bool ok = true;
	for (size_t i = 0; i < it->nvars; i++)
		if (!it->vars[i].loaded) {
			const IVar *v = &it->vars[i];
			Diag *d = diag_add(it->diags, DIAG_E1303, flat_op_loc(v->op), "variable '%s' has no data to run with", v->label);
			if (it->host.no_data_hint)
				diag_hint(it->diags, d, "%s", it->host.no_data_hint(it->host.ctx, i));
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
	case DAT_QUINT:
	case DAT_QSINT:
	case DAT_VENDOR:
		return false;
	}
	return false; /* not reached: every item type is a case */
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

/* The header of input file path (size bytes) against input i; false
 * after reporting. */
static bool input_header(Interp *it, size_t i, const char *path, FILE *fp,
			 uint64_t size, DatHeader *h)
{
	unsigned char head[DAT_OLD_HEADER_SIZE];
	size_t n = fread(head, 1, sizeof(head), fp);
	if (!dat_read_header(head, n, size, path, it->host.lenient, h, it->diags))
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

bool interp_read_input_from(Interp *it, size_t i, const char *name,
			    FILE *fp, uint64_t size)
{
	DatHeader h;
	ITensor *t = interp_input(it, i);
	bool ok = t->data && input_header(it, i, name, fp, size, &h);
	if (ok && t->dtype == TY_INTEGER && (int)h.bits > it->int_bits)
		it->int_bits = (int)h.bits;
	if (ok && !dat_read_items(&h, into_of(it, t), t->data, t->count, file_reader, fp, NULL, NULL)) {
		diag_add(it->diags, DIAG_E1009, loc_make(NULL, 0, 0), "'%s' ended before its data did", name);
		ok = false;
	}
	return ok;
}

bool interp_read_input(Interp *it, size_t i, const char *path)
{
	UtilCleanup cl;
	FILE *fp = util_fopen(path, "rb", &cl);
	struct stat st;
	if (!fp || fstat(fileno(fp), &st) != 0) {
		diag_add(it->diags, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': %s", path, strerror(errno));
		if (fp)
			util_fclose(fp, &cl);
		return false;
	}
	bool ok = interp_read_input_from(it, i, path, fp, (uint64_t)st.st_size);
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

/* ---- statistics ------------------------------------------------------------------- */

/* Items [first, first + n) of t into st, a chunk at a time. */
static void stats_range(const Interp *it, const ITensor *t, size_t first,
			size_t n, UtilStats *st)
{
	double buf[UTIL_STATS_CHUNK];
	for (size_t i = first; i < first + n; i += UTIL_STATS_CHUNK) {
		size_t m = first + n - i < UTIL_STATS_CHUNK ? first + n - i : UTIL_STATS_CHUNK;
		if (t->dtype == TY_SCALAR && it->rsize == 8) {
			util_stats_add(st, (const double *)t->data + i, m);
			continue;
		}
		if (t->dtype == TY_SCALAR) {
			util_stats_add_f32(st, (const float *)t->data + i, m);
			continue;
		}
		if (t->dtype == TY_INTEGER)
			for (size_t k = 0; k < m; k++)
				buf[k] = (double)((const int64_t *)t->data)[i + k];
		else
			for (size_t k = 0; k < m; k++)
				buf[k] = ((const uint8_t *)t->data)[i + k];
		util_stats_add(st, buf, m);
	}
}

typedef struct StatsJob {
	const Interp *it;
	const ITensor *t;
	UtilStats *parts;      /* one per UTIL_STATS_PART items */
	size_t nparts;
} StatsJob;

/* Parts [part, part + 1) * nparts / parts of the job. */
static void stats_part(void *ctx, int part, int parts)
{
	StatsJob *j = ctx;
	size_t lo = j->nparts * (size_t)part / (size_t)parts, hi = j->nparts * (size_t)(part + 1) / (size_t)parts;
	for (size_t p = lo; p < hi; p++) {
		size_t first = p * UTIL_STATS_PART;
		size_t n = j->t->count - first < UTIL_STATS_PART ? j->t->count - first : UTIL_STATS_PART;
		stats_range(j->it, j->t, first, n, &j->parts[p]);
	}
}

void interp_stats_add(Interp *it, const ITensor *t, UtilStats *st)
{
	size_t nparts = (t->count + UTIL_STATS_PART - 1) / UTIL_STATS_PART;
	if (!t->data || nparts == 0)
		return;
	if (nparts == 1) {
		UtilStats one = { 0 };
		stats_range(it, t, 0, t->count, &one);
		util_stats_merge(st, &one);
		return;
	}
	StatsJob j = { it, t, util_calloc(nparts, sizeof(UtilStats)), nparts };
	int threads = interp_threads(it);
	interp_parallel(it, (size_t)threads < nparts ? threads : (int)nparts, stats_part, &j);
	for (size_t p = 0; p < nparts; p++)
		util_stats_merge(st, &j.parts[p]);
	util_free(j.parts);
}

const UtilStats *interp_tensor_stats(const Interp *it, size_t i)
{
	return it->stats && i < it->g->ntensors && it->stats_taken[i] ? &it->stats[i] : NULL;
}
