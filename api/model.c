/*
 * model.c - nnef_model: loading and checking a model, printing it, and
 * reading its flat graph.
 */
#include "api/api_internal.h"

#include <stdlib.h>
#include <string.h>

const char *nnef_version(void)
{
	return NNEF_VERSION;
}

const char *nnef_dialect_name(nnef_dialect d)
{
	switch (d) {
	case NNEF_DIALECT_KHRONOS:
		return "khronos";
	case NNEF_DIALECT_TRACT:
		return "tract";
	}
	return NULL;
}

bool nnef_dialect_parse(const char *name, nnef_dialect *out)
{
	for (int d = NNEF_DIALECT_KHRONOS; d <= NNEF_DIALECT_TRACT; d++)
		if (strcmp(name, nnef_dialect_name((nnef_dialect)d)) == 0) {
			*out = (nnef_dialect)d;
			return true;
		}
	return false;
}

nnef_dialect nnef_model_dialect(const nnef_model *m)
{
	return m->m.dialect == DIALECT_TRACT ? NNEF_DIALECT_TRACT : NNEF_DIALECT_KHRONOS;
}

void nnef_options_init(nnef_options *o)
{
	memset(o, 0, sizeof(*o));
	o->max_errors = 20;
}

/* The model options of o (its input shapes copied into mm). */
static ModelOptions model_options(nnef_model *mm, const nnef_options *o)
{
	ModelOptions mo = { .dialect = o->dialect == NNEF_DIALECT_TRACT ? DIALECT_TRACT : DIALECT_KHRONOS,
			    .max_errors = o->max_errors,
			    .lenient = o->lenient,
			    .no_data = o->no_data,
			    .missing_data_ok = o->missing_data_ok };
	mo.limits.max_bytes = o->max_archive_bytes;
	mo.limits.max_member = o->max_member_bytes;
	mo.limits.max_members = o->max_members;
	mo.flatten.max_depth = o->max_depth;
	mo.max_nesting = o->max_nesting;
	mo.flatten.max_value_bytes = o->max_value_bytes;
	mo.flatten.max_ops = o->max_operations;
	mo.flatten.keep_standard = o->keep_standard;
	mo.flatten.keep = o->keep;
	mo.flatten.nkeep = o->n_keep;
	mo.flatten.quantize = o->quantize;
	mo.declarations = o->declarations;
	mo.ndeclarations = o->n_declarations;
	if (o->n_input_shapes) {
		mm->shapes = util_calloc(o->n_input_shapes, sizeof(*mm->shapes));
		for (size_t i = 0; i < o->n_input_shapes; i++) {
			mm->shapes[i].name = o->input_shapes[i].name;
			mm->shapes[i].dims = o->input_shapes[i].dims;
			mm->shapes[i].rank = o->input_shapes[i].rank;
		}
		mm->nshapes = o->n_input_shapes;
	}
	mo.flatten.input_shapes = mm->shapes;
	mo.flatten.ninput_shapes = mm->nshapes;
	return mo;
}

static nnef_model *finish(nnef_model *mm, const nnef_options *o)
{
	mm->diags.dl = &mm->m.diags;
	mm->diags.max_shown = o->max_errors;
	return mm;
}

/* What is left of a model whose check ran out of memory: everything it
 * allocated given back, an unreadable model whose one diagnostic says
 * so, or NULL if even that cannot be had. */
static nnef_model *out_of_memory(nnef_model *mm, const char *path,
				 const nnef_options *o)
{
	util_heap_release(&mm->heap);
	memset(&mm->m, 0, sizeof(mm->m));
	mm->text = NULL;
	mm->shapes = NULL;
	mm->nshapes = 0;
	UtilRecover rec;
	util_recover_push(&rec, &mm->heap);
	if (setjmp(rec.jb)) {
		util_heap_release(&mm->heap);
		free(mm);
		return NULL;
	}
	diag_list_init(&mm->m.diags, MODEL_COLLECT_LIMIT);
	mm->m.path = util_strdup(path);
	mm->m.status = MODEL_IO_ERROR;
	diag_add(&mm->m.diags, DIAG_E0008, loc_make(NULL, 0, 0), "'%s': out of memory: checking it needs more memory than the system gave", path);
	util_recover_pop(&rec);
	return finish(mm, o);
}

/* Checks the document text (len bytes), or the model at path when text
 * is NULL. */
static nnef_model *load(const char *path, const char *text, size_t len,
			const nnef_options *o)
{
	/* aligned as its Model is (its DiagList is) */
	size_t align = _Alignof(nnef_model), size = (sizeof(nnef_model) + align - 1) / align * align;
	nnef_model *mm = aligned_alloc(align, size);
	if (!mm)
		return NULL;
	memset(mm, 0, sizeof(*mm));
	util_heap_init(&mm->heap);
	UtilRecover rec;
	util_recover_push(&rec, &mm->heap);
	if (setjmp(rec.jb))
		return out_of_memory(mm, path, o);
	ModelOptions mo = model_options(mm, o);
	if (text) {
		mm->text = util_malloc(len ? len : 1);
		memcpy(mm->text, text, len);
		model_check_text(&mm->m, path, mm->text, len, &mo);
	} else {
		model_check(&mm->m, path, &mo);
	}
	api_port_reports(mm, path, text ? mm->text : NULL, len, o);
	util_recover_pop(&rec);
	return finish(mm, o);
}

nnef_model *nnef_model_load(const char *path, const nnef_options *o)
{
	nnef_options dflt;
	nnef_options_init(&dflt);
	return load(path, NULL, 0, o ? o : &dflt);
}

nnef_model *nnef_model_load_text(const char *name, const char *text,
				 size_t len, const nnef_options *o)
{
	nnef_options dflt;
	nnef_options_init(&dflt);
	return load(name, text ? text : "", text ? len : 0, o ? o : &dflt);
}

void nnef_model_free(nnef_model *m)
{
	if (!m)
		return;
	/* everything the model holds is in its heap (it has no open files) */
	util_heap_release(&m->heap);
	free(m);
}

nnef_status nnef_model_status(const nnef_model *m)
{
	return (nnef_status)m->m.status;
}

const nnef_diags *nnef_model_diags(const nnef_model *m)
{
	return &m->diags;
}

const char *nnef_model_path(const nnef_model *m)
{
	return m->m.path ? m->m.path
	       : m->m.graph_src ? m->m.graph_src->path : "";
}

bool nnef_model_data_checked(const nnef_model *m)
{
	return m->m.data_checked;
}

bool nnef_model_has_operation(const nnef_model *m, const char *name)
{
	if (!m->m.checked)
		return true; /* not known: do not complain */
	const char *interned = intern_find(&m->m.interner, name);
	return interned && sema_lookup(&m->m.prog, interned) != NULL;
}

size_t nnef_model_param_count(const nnef_model *m)
{
	const AstDef *g = m->m.parse.doc ? m->m.parse.doc->graph : NULL;
	return g ? g->nparams : 0;
}

const char *nnef_model_param_name(const nnef_model *m, size_t i)
{
	return i < nnef_model_param_count(m) ? m->m.parse.doc->graph->params[i].name : NULL;
}

/* ---- printing ---------------------------------------------------------------- */

typedef struct GraphPrint {
	void (*print)(StrBuf *, const FlatGraph *, bool);
	const FlatGraph *g;
	bool flag;
} GraphPrint;

static void print_graph(StrBuf *out, const void *ctx)
{
	const GraphPrint *p = ctx;
	p->print(out, p->g, p->flag);
}

/* Prints m with print into a string of malloc's; NULL when out of
 * memory (whatever the printing allocated is given back). */
static char *print_with(const nnef_model *m,
			void (*print)(StrBuf *, const FlatGraph *, bool),
			bool flag)
{
	GraphPrint p = { print, m->m.flat, flag };
	return api_print(print_graph, &p);
}
static void print_flat(StrBuf *out, const FlatGraph *g, bool shapes)
{
	flat_print(out, g, shapes);
}

static void print_shapes(StrBuf *out, const FlatGraph *g, bool all)
{
	flat_print_shapes(out, g, all);
}

static void print_dot(StrBuf *out, const FlatGraph *g, bool fold_weights)
{
	flat_print_dot(out, g, fold_weights);
}

char *nnef_model_print_flat(const nnef_model *m, unsigned flags)
{
	if (m->m.status != MODEL_VALID || !m->m.flat)
		return NULL;
	return print_with(m, print_flat, flags & NNEF_PRINT_SHAPES);
}

char *nnef_model_print_shapes(const nnef_model *m, unsigned flags)
{
	return m->m.flat ? print_with(m, print_shapes, flags & NNEF_PRINT_ALL_TENSORS) : NULL;
}

char *nnef_model_print_dot(const nnef_model *m, unsigned flags)
{
	return m->m.flat ? print_with(m, print_dot, flags & NNEF_DOT_FOLD_WEIGHTS) : NULL;
}
