/*
 * data_check.c - the model's data against its graph (spec chapter 6, step 4:
 * "Loading serialized tensor data ... may result in conflicting tensor
 * shapes"): every .dat file's header is validated (spec 5.2); each
 * variable finds its file by label (5.1: label 'conv1/filter' is
 * conv1/filter.dat; labels compare ignoring case, as 4.1.3 compares
 * them), whose shape must be the variable's and whose item type must fit
 * its data type (5.2.1); files named after a graph input or output are
 * sample data and are compared with it; other .dat files nothing uses
 * are reported; graph.quant is checked against the graph (quant_check.c).
 */
#include "model/model_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The files of the model by name: exact, and lower-cased. */
typedef struct FileIndex {
	PtrMap exact;          /* interned name -> ModelFile * */
	PtrMap folded;         /* interned lower-cased name -> how many */
} FileIndex;

static const char *fold(Model *m, StrBuf *b, const char *s, size_t n)
{
	sb_clear(b);
	for (size_t i = 0; i < n; i++)
		sb_putc(b, (char)tolower((unsigned char)s[i]));
	return intern_bytes(&m->interner, sb_str(b), b->len);
}

static void index_files(Model *m, FileIndex *ix)
{
	pmap_init(&ix->exact);
	pmap_init(&ix->folded);
	StrBuf b;
	sb_init(&b);
	for (size_t i = 0; i < m->nfiles; i++) {
		ModelFile *f = &m->files[i];
		pmap_put(&ix->exact, intern_cstr(&m->interner, f->name), f);
		void **slot = pmap_ref(&ix->folded,
				       fold(m, &b, f->name, strlen(f->name)));
		*slot = (void *)((uintptr_t)*slot + 1);
	}
	sb_free(&b);
}

/* The file of label (plus ".dat"): the exact name, or the one file equal
 * to it ignoring case. *several is set when more than one matches. */
static ModelFile *find_file(Model *m, FileIndex *ix, const char *label,
			    size_t len, bool *several)
{
	StrBuf want, tmp;
	sb_init(&want);
	sb_init(&tmp);
	sb_putn(&want, label, len);
	sb_puts(&want, ".dat");
	*several = false;
	bool found;
	ModelFile *f = pmap_get(&ix->exact, intern_cstr(&m->interner, sb_str(&want)), &found);
	if (!f) {
		const char *key = fold(m, &tmp, want.data, want.len);
		uintptr_t n = (uintptr_t)pmap_get(&ix->folded, key, &found);
		*several = n > 1;
		for (size_t i = 0; n == 1 && i < m->nfiles && !f; i++)
			if (fold(m, &tmp, m->files[i].name, strlen(m->files[i].name)) == key)
				f = &m->files[i];
	}
	sb_free(&want);
	sb_free(&tmp);
	return f;
}

/* tract's dialect: the datum type of the tensor file of the variable
 * labelled label[0..len) (tract keeps the file's item type: an f16 file
 * makes an f16 variable), DT_NONE when it has none or it is not readable
 * (the data checks report that). The flattener asks it of each variable
 * (FlattenOptions.var_datum). */
DType model_var_datum(void *ctx, const char *label, size_t len)
{
	Model *m = ctx;
	const ModelFile *f = NULL;
	for (int pass = 0; pass < 2 && !f; pass++)
		for (size_t i = 0; i < m->nfiles && !f; i++) {
			const char *n = m->files[i].name;
			if (strlen(n) != len + 4 || strcmp(n + len, ".dat") != 0)
				continue;
			if (pass ? strncasecmp(n, label, len) == 0
				 : strncmp(n, label, len) == 0)
				f = &m->files[i];
		}
	if (!f || f->type != MEMBER_FILE)
		return DT_NONE;
	DiagList quiet;
	diag_list_init(&quiet, 0);
	DatHeader h;
	bool ok = dat_read_header(f->head, f->nhead, f->size, f->name, true,
				  &h, &quiet);
	diag_list_free(&quiet);
	return ok ? h.dtype : DT_NONE;
}

/* ---- headers ------------------------------------------------------------------ */

/* Names f as the file the diagnostics without position added since mark
 * are about. */
static void name_file(Model *m, DiagMark mark, const ModelFile *f)
{
	char *path = model_file_path(m, f->name);
	diag_name_file(&m->diags, mark, path);
	util_free(path);
}

/* The header of f, read once; false when it is not usable. */
static bool file_header(Model *m, ModelFile *f, const ModelOptions *opt,
			DatHeader *h, bool *reported)
{
	DiagMark mark = diag_mark(&m->diags);
	if (f->type != MEMBER_FILE) {
		if (!*reported)
			diag_add(&m->diags, DIAG_E0005, loc_make(NULL, 0, 0), "'%s' is a link or a special file; links in a model are never followed", f->name);
		*reported = true;
		name_file(m, mark, f);
		return false;
	}
	DiagList quiet;
	diag_list_init(&quiet, 0);
	bool ok = dat_read_header(f->head, f->nhead, f->size, f->name,
				  opt->lenient, h, *reported ? &quiet : &m->diags);
	diag_list_free(&quiet);
	*reported = true;
	name_file(m, mark, f);
	return ok;
}

/* Whether items of h can hold the data type (spec 5.2.1 Mapping
 * data-types to item-types). */
static bool type_fits(const DatHeader *h, TypeKind dtype)
{
	switch (h->type) {
	case DAT_FLOAT:
	case DAT_QUINT:
	case DAT_QSINT:
	case DAT_LINEAR:
	case DAT_LOG:
		return dtype == TY_SCALAR;
	case DAT_UINT:
	case DAT_SINT:
		return dtype == TY_INTEGER;
	case DAT_LOGICAL:
		return dtype == TY_LOGICAL;
	case DAT_VENDOR: /* tract's Q4_0 decodes to reals; others are not
			    decoded: nothing to compare */
		return !dat_decodable(h) || dtype == TY_SCALAR;
	}
	return false;
}

static bool same_shape(const DatHeader *h, const Shape *s)
{
	if (!s->known || h->rank != s->rank)
		return false;
	for (uint32_t i = 0; i < h->rank; i++)
		if ((int64_t)h->extents[i] != s->dims[i])
			return false;
	return true;
}

/* Whether h fits a shape given with symbols (--lenient): its rank, and
 * every extent that is not a symbol. */
static bool fits_symbolic(const DatHeader *h, const Value *shape)
{
	if (shape->kind != VAL_ARRAY || h->rank != shape->n)
		return false;
	for (uint32_t i = 0; i < h->rank; i++) {
		const Value *d = shape->u.items[i];
		if (d->kind == VAL_INT && (int64_t)h->extents[i] != d->u.i)
			return false;
	}
	return true;
}

/* "[S,4]": a shape given with symbols, as shape_print writes shapes. */
static void put_symbolic_shape(StrBuf *b, const Value *shape)
{
	sb_putc(b, '[');
	for (size_t i = 0; shape->kind == VAL_ARRAY && i < shape->n; i++) {
		if (i)
			sb_putc(b, ',');
		flat_print_value(b, shape->u.items[i]);
	}
	sb_putc(b, ']');
}

static void put_dat_shape(StrBuf *b, const DatHeader *h)
{
	sb_putc(b, '[');
	for (uint32_t i = 0; i < h->rank; i++)
		sb_printf(b, i ? ",%u" : "%u", (unsigned)h->extents[i]);
	sb_putc(b, ']');
}

/* ---- variables ------------------------------------------------------------------ */

/* One variable against its file; v records the file and its header. */
static void check_variable(Model *m, FileIndex *ix, ModelVar *v,
			   const ModelOptions *opt, bool *reported)
{
	const FlatOp *op = v->op;
	const FlatTensor *t = op->results[0]->u.t;
	const char *name = t->name;
	bool several;
	ModelFile *f = find_file(m, ix, v->label, v->label_len, &several);
	if (several) {
		StrBuf list, tmp;
		sb_init(&list);
		sb_init(&tmp);
		const char *key = fold(m, &tmp, v->label, v->label_len);
		for (size_t i = 0; i < m->nfiles; i++) {
			ModelFile *g = &m->files[i];
			size_t n = strlen(g->name) - 4;
			if (fold(m, &tmp, g->name, n) == key) {
				sb_printf(&list, "%s'%s'", list.len ? ", " : "", g->name);
				g->used = true;
			}
		}
		diag_add(&m->diags, DIAG_E1105, flat_op_loc(op), "the label '%.*s' of variable '%s' matches several data files ignoring case: %s", (int)v->label_len, v->label, name, sb_str(&list));
		sb_free(&list);
		sb_free(&tmp);
		return;
	}
	if (!f) {
		if (opt->missing_data_ok)
			return;
		Diag *d = diag_add(&m->diags, DIAG_E1101, flat_op_loc(op), "variable '%s' has no data file: the model holds no '%.*s.dat'", name, (int)v->label_len, v->label);
		diag_hint(&m->diags, d, "the data of a variable labelled 'a/b' is the tensor file a/b.dat in the model (spec 5.1)");
		return;
	}
	f->used = true;
	v->file = f;
	DatHeader h;
	if (!file_header(m, f, opt, &h, &reported[f - m->files]) ||
	    !dat_decodable(&h))
		return;
	StrBuf a, b;
	sb_init(&a);
	sb_init(&b);
	Shape shape = flat_tensor_shape(t);
	if (t->known ? !same_shape(&h, &shape) : !fits_symbolic(&h, flat_op_args(op)[0])) {
		put_dat_shape(&a, &h);
		if (t->known)
			shape_print(&b, &shape);
		else
			put_symbolic_shape(&b, flat_op_args(op)[0]);
		diag_add(&m->diags, DIAG_E1102, flat_op_loc(op), "the data file '%s' holds a tensor of shape %s, but variable '%s' has shape %s", f->name, sb_str(&a), name, sb_str(&b));
	} else if (m->dialect != DIALECT_TRACT && /* tract keeps the file's type */
		   !type_fits(&h, flat_tensor_kind(t))) {
		char tn[32];
		ty_print(&b, flat_tensor_dtype(t, &m->prog.types));
		Diag *d = diag_add(&m->diags, DIAG_E1103, flat_op_loc(op), "the data file '%s' holds %s items, which cannot hold the %s variable '%s'", f->name, dat_type_name(&h, tn), sb_str(&b), name);
		diag_hint(&m->diags, d, "scalar data is stored as float or quantized items, integer data as integers, logical data as bools (spec 5.2.1)");
	} else {
		DatHeader *usable = ARENA_NEW(&m->arena, DatHeader);
		*usable = h;
		v->header = usable;
	}
	sb_free(&a);
	sb_free(&b);
}

/* A file named after a graph input or output holds sample data for it
 * (as the conformance cases store their inputs and reference outputs). */
static void check_sample(Model *m, FileIndex *ix, const FlatTensor *t,
			 const ModelOptions *opt, bool *reported)
{
	bool several;
	ModelFile *f = find_file(m, ix, t->name, strlen(t->name), &several);
	if (!f || f->used)
		return;
	f->used = true;
	DatHeader h;
	Shape shape = flat_tensor_shape(t);
	if (!file_header(m, f, opt, &h, &reported[f - m->files]) ||
	    !dat_decodable(&h) || !t->known || same_shape(&h, &shape))
		return;
	StrBuf a, b;
	sb_init(&a);
	sb_init(&b);
	put_dat_shape(&a, &h);
	shape_print(&b, &shape);
	DiagMark mark = diag_mark(&m->diags);
	diag_add(&m->diags, DIAG_W1106, loc_make(NULL, 0, 0), "'%s' holds a tensor of shape %s, but the graph's '%s' has shape %s (sample data for it?)", f->name, sb_str(&a), t->name, sb_str(&b));
	name_file(m, mark, f);
	sb_free(&a);
	sb_free(&b);
}

void model_collect_variables(Model *m)
{
	/* flattening found the first variable of each label (4.1.3) */
	const FlatGraph *g = m->flat;
	m->nvars = g->nvars;
	m->vars = util_calloc(g->nvars ? g->nvars : 1, sizeof(*m->vars));
	for (size_t i = 0; i < g->nvars; i++) {
		const Value *label = flat_op_args(g->vars[i])[1];
		m->vars[i].op = g->vars[i];
		m->vars[i].label = label->u.str;
		m->vars[i].label_len = label->n;
	}
}

void model_check_data(Model *m, const ModelOptions *opt)
{
	if (m->kind == CONT_FILE || opt->no_data)
		return;
	m->data_checked = true;
	FileIndex ix;
	index_files(m, &ix);
	bool *reported = util_calloc(m->nfiles ? m->nfiles : 1, sizeof(bool));
	const FlatGraph *g = m->flat;
	for (size_t i = 0; i < m->nvars; i++)
		check_variable(m, &ix, &m->vars[i], opt, reported);
	for (size_t i = 0; i < g->ninputs; i++)
		if (g->inputs[i])
			check_sample(m, &ix, g->inputs[i], opt, reported);
	for (size_t i = 0; i < g->noutputs; i++)
		if (g->outputs[i] && g->outputs[i]->kind == VAL_TENSOR)
			check_sample(m, &ix, g->outputs[i]->u.t, opt, reported);
	for (size_t i = 0; i < m->nfiles; i++) {
		ModelFile *f = &m->files[i];
		DatHeader h;
		DiagMark mark = diag_mark(&m->diags);
		if (!f->used && file_header(m, f, opt, &h, &reported[i]))
			diag_add(&m->diags, DIAG_W1104, loc_make(NULL, 0, 0), "'%s' is not the data of any variable (a variable labelled '%.*s' would use it)", f->name, (int)(strlen(f->name) - 4), f->name);
		name_file(m, mark, f);
	}
	model_check_quant(m);
	pmap_free(&ix.exact);
	pmap_free(&ix.folded);
	util_free(reported);
}
