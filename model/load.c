/*
 * load.c - the data of a model's variables for running it: each
 * variable's tensor file read again from the container (spec 5.2) and
 * its items decoded into the plain arrays the caller gives (scalars as
 * float or double, integers as int64_t, logicals as uint8_t); quantized
 * items (item types 2 and 3) dequantized with graph.quant (5.3). The
 * interpreter's host (api/interp_host.c) hands them to interp/, which
 * knows nothing of containers.
 */
#include "model/model_internal.h"

#include <string.h>

/* Dimensions of a tensor or a quantization parameter at most: those of
 * the tensors the interpreter runs (it refuses any other before
 * loading). */
#define MODEL_MAX_RANK 32

/* The result of variable v's operations: the tensor its file fills. */
static const FlatTensor *var_tensor(const ModelVar *v)
{
	return v->op->results[0]->u.t;
}

/* ---- dequantization of item types 2 and 3 (graph.quant, spec 5.3) ---------- */

/* A quantization parameter: values broadcast to the tensor (1.0.5
 * per-channel arrays; a single value otherwise). */
typedef struct QParam {
	double *v;
	int64_t dims[MODEL_MAX_RANK];
	size_t rank;
} QParam;

typedef struct Dequant {
	int kind;              /* 0: none, 1: zero point, 2: min-max */
	QParam a, b;           /* zero_point and scale, or min and max */
	double p, r;           /* min-max: offset and steps */
} Dequant;

static bool value_real(const Value *v, double *out)
{
	switch (v->kind) {
	case VAL_INT: *out = (double)v->u.i; return true;
	case VAL_SCALAR: *out = v->u.s; return true;
	case VAL_BOOL: *out = v->u.b; return true;
	case VAL_STR:
	case VAL_SYMBOL:
	case VAL_ARRAY:
	case VAL_TUPLE:
	case VAL_TENSOR: return false;
	}
	return false; /* not reached: every kind is a case */
}

/* Flattens a (nested) array, row-major (flatten/quant_apply.c has checked it
 * rectangular). */
static bool qparam_fill(const Value *v, QParam *q, size_t depth, size_t *n)
{
	if (v->kind != VAL_ARRAY) {
		q->v = util_realloc(q->v, (*n + 1) * sizeof(double));
		return value_real(v, &q->v[(*n)++]);
	}
	if (depth >= MODEL_MAX_RANK)
		return false;
	if (depth == q->rank)
		q->dims[q->rank++] = (int64_t)v->n;
	for (size_t i = 0; i < v->n; i++)
		if (!qparam_fill(v->u.items[i], q, depth + 1, n))
			return false;
	return true;
}

/* The parameter's value for item i of a tensor of shape t (NNEF
 * broadcasting: the parameter's missing trailing dimensions are 1). */
static double qparam_at(const QParam *q, const ModelVarItems *t, size_t i)
{
	if (q->rank == 0)
		return q->v[0];
	int64_t idx = 0, rest = (int64_t)i, coords[MODEL_MAX_RANK];
	for (size_t d = t->rank; d-- > 0;) {
		coords[d] = rest % t->dims[d];
		rest /= t->dims[d];
	}
	for (size_t d = 0; d < q->rank; d++)
		idx = idx * q->dims[d] + (q->dims[d] == 1 || d >= t->rank ? 0 : coords[d]);
	return q->v[idx];
}

/* The value of the entry's argument `name`, NULL when it has none. */
static const Value *quant_arg(const FlatQuant *e, const char *name)
{
	for (size_t p = 1; p < e->op->nparams; p++)
		if (strcmp(e->op->params[p].name, name) == 0)
			return e->args[p];
	return NULL;
}

static bool qparam_of(const FlatQuant *e, const char *name, QParam *q)
{
	const Value *a = quant_arg(e, name);
	size_t n = 0;
	memset(q, 0, sizeof(*q));
	return a && qparam_fill(a, q, 0, &n) && n > 0;
}

static bool qflag(const FlatQuant *e, const char *name, bool dflt)
{
	const Value *a = quant_arg(e, name);
	return a && a->kind == VAL_BOOL ? a->u.b : dflt;
}

/* The dequantization of variable v's codes from its graph.quant entry
 * (by the variable's identifier). False when there is none usable. */
static bool dequant_init(const Model *m, const ModelVar *v, Dequant *dq)
{
	memset(dq, 0, sizeof(*dq));
	const char *name = var_tensor(v)->name;
	const FlatQuant *e = NULL;
	for (size_t i = 0; i < m->flat->nquant && !e; i++)
		if (m->flat->quant[i]->tensor == name)
			e = m->flat->quant[i];
	if (!e)
		return false;
	const char *op = e->op->name;
	if (strcmp(op, "zero_point_linear_quantize") == 0) {
		dq->kind = 1;
		return qparam_of(e, "zero_point", &dq->a) && qparam_of(e, "scale", &dq->b);
	}
	if (strcmp(op, "min_max_linear_quantize") != 0 &&
	    strcmp(op, "linear_quantize") != 0)
		return false;
	/* spec 1.0.5 4.9.5: r = 2^bits - 1 - int(signed && symmetric),
	 * p = 2^(bits-1) - int(symmetric) when signed; the stored code is
	 * q, and y = (q + p) / r * (max - min) + min */
	dq->kind = 2;
	const Value *bits = quant_arg(e, "bits");
	bool sgn = qflag(e, "signed", false), sym = qflag(e, "symmetric", false);
	if (!bits || bits->kind != VAL_INT || bits->u.i < 1 || bits->u.i > 62)
		return false;
	int64_t nb = bits->u.i;
	dq->r = (double)(((int64_t)1 << nb) - 1 - (sgn && sym));
	dq->p = sgn ? (double)(((int64_t)1 << (nb - 1)) - sym) : 0;
	return qparam_of(e, "min", &dq->a) && qparam_of(e, "max", &dq->b);
}

static double dequant(const Dequant *dq, const ModelVarItems *t, size_t i, double q)
{
	double a = qparam_at(&dq->a, t, i), b = qparam_at(&dq->b, t, i);
	if (dq->kind == 1)
		return (q - a) * b;
	return (q + dq->p) / dq->r * (b - a) + a;
}

/* ---- decoding --------------------------------------------------------------------- */

/* The dequantization of variable t's item i, for dat_read_items. */
typedef struct DequantOf {
	const Dequant *dq;
	const ModelVarItems *t;
} DequantOf;

static double dequant_item(void *ctx, size_t i, double q)
{
	const DequantOf *d = ctx;
	return dequant(d->dq, d->t, i, q);
}

static long container_reader(void *ctx, void *buf, size_t n)
{
	return cont_read(ctx, buf, n);
}

/* Reads the packed data of h (after its header) from c and decodes it
 * into t. Returns false on a short read (the caller reports). */
static bool decode_stream(size_t real_size, const DatHeader *h,
			  ModelVarItems *t, const Dequant *dq, Container *c)
{
	DatInto into = t->dtype == TY_SCALAR ? (real_size == 4 ? DAT_INTO_F32 : DAT_INTO_F64)
		     : t->dtype == TY_INTEGER ? DAT_INTO_I64 : DAT_INTO_BOOL;
	DequantOf d = { dq, t };
	return dat_read_items(h, into, t->data, t->count, container_reader, c,
			      dq && dq->kind ? dequant_item : NULL, &d);
}

/* ---- variables ---------------------------------------------------------------------- */

typedef struct Loader {
	const Model *m;
	ModelVarItems *vars;
	size_t real_size;
	int *int_bits;
	DiagList *diags;
	bool failed;
} Loader;

static bool skip_bytes(Container *c, size_t n)
{
	unsigned char tmp[256];
	while (n) {
		long k = cont_read(c, tmp, n < sizeof(tmp) ? n : sizeof(tmp));
		if (k <= 0)
			return false;
		n -= (size_t)k;
	}
	return true;
}

/* Reads the file of the first variable not yet loaded that uses f. */
static bool load_file(void *ctx, const ModelFile *f, Container *c)
{
	Loader *ld = ctx;
	const Model *m = ld->m;
	const ModelVar *v = NULL;
	ModelVarItems *t = NULL;
	for (size_t i = 0; i < m->nvars && !v; i++)
		if (m->vars[i].file == f && m->vars[i].header && !ld->vars[i].loaded) {
			v = &m->vars[i];
			t = &ld->vars[i];
		}
	if (!v)
		return true;
	const DatHeader *h = v->header;
	Dequant dq;
	bool quant = h->type == DAT_QUINT || h->type == DAT_QSINT;
	if (quant && !dequant_init(m, v, &dq)) {
		diag_add(ld->diags, DIAG_E1306, flat_op_loc(v->op), "variable '%.*s': '%s' holds quantized codes, but graph.quant gives no linear quantization for '%s' to decode them with", (int)v->label_len, v->label, f->name, var_tensor(v)->name);
		ld->failed = true;
		return false;
	}
	if (t->dtype == TY_INTEGER && (int)h->bits > *ld->int_bits)
		*ld->int_bits = (int)h->bits;
	bool ok = skip_bytes(c, h->header_size) &&
		  decode_stream(ld->real_size, h, t, quant ? &dq : NULL, c);
	if (quant) {
		util_free(dq.a.v);
		util_free(dq.b.v);
	}
	if (!ok) {
		diag_add(ld->diags, DIAG_E1303, flat_op_loc(v->op), "variable '%.*s': '%s' ended before its data did", (int)v->label_len, v->label, f->name);
		ld->failed = true;
		return false;
	}
	t->loaded = true;
	return true;
}

bool model_load_variables(const Model *m, ModelVarItems *vars,
			  size_t real_size, int *int_bits, DiagList *diags)
{
	Loader ld = { m, vars, real_size, int_bits, diags, false };
	return model_read_files(m, load_file, &ld, diags) && !ld.failed;
}

bool model_var_has_data(const Model *m, size_t i)
{
	const ModelVar *v = &m->vars[i];
	return v->file && v->header && dat_decodable(v->header);
}

/* Why a variable has no data: its file cannot be decoded, the model is a
 * bare graph, or --no-data left the tensor files unread. */
const char *model_var_no_data_hint(const Model *m, size_t i)
{
	if (m->vars[i].file)
		return "its data file holds items nnef-run cannot decode";
	if (m->kind == CONT_FILE)
		return "a bare graph has no data files: --random-weights generates them";
	if (!m->data_checked)
		return "--no-data leaves the model's tensor files unread: drop it, or generate weights with --random-weights";
	return "the model holds no tensor file for it: --random-weights generates one";
}
