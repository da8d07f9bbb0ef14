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

void nnef_options_init(nnef_options *o)
{
	memset(o, 0, sizeof(*o));
	o->max_errors = 20;
}

/* The model options of o (its input shapes copied into mm). */
static ModelOptions model_options(nnef_model *mm, const nnef_options *o)
{
	ModelOptions mo = { .max_errors = o->max_errors,
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
	if (o->n_input_shapes) {
		mm->shapes = calloc(o->n_input_shapes, sizeof(*mm->shapes));
		for (size_t i = 0; mm->shapes && i < o->n_input_shapes; i++) {
			mm->shapes[i].name = o->input_shapes[i].name;
			mm->shapes[i].dims = o->input_shapes[i].dims;
			mm->shapes[i].rank = o->input_shapes[i].rank;
		}
		mm->nshapes = mm->shapes ? o->n_input_shapes : 0;
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

nnef_model *nnef_model_load(const char *path, const nnef_options *o)
{
	nnef_options dflt;
	if (!o) {
		nnef_options_init(&dflt);
		o = &dflt;
	}
	nnef_model *mm = calloc(1, sizeof(*mm));
	if (!mm)
		return NULL;
	ModelOptions mo = model_options(mm, o);
	model_check(&mm->m, path, &mo);
	return finish(mm, o);
}

nnef_model *nnef_model_load_text(const char *name, const char *text,
				 size_t len, const nnef_options *o)
{
	nnef_options dflt;
	if (!o) {
		nnef_options_init(&dflt);
		o = &dflt;
	}
	nnef_model *mm = calloc(1, sizeof(*mm));
	if (!mm || !(mm->text = malloc(len ? len : 1))) {
		free(mm);
		return NULL;
	}
	memcpy(mm->text, text, len);
	ModelOptions mo = model_options(mm, o);
	model_check_text(&mm->m, name, mm->text, len, &mo);
	return finish(mm, o);
}

void nnef_model_free(nnef_model *m)
{
	if (!m)
		return;
	model_free(&m->m);
	free(m->shapes);
	free(m->text);
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

static char *take(StrBuf *out)
{
	char *s = strdup(sb_str(out));
	sb_free(out);
	return s;
}

char *nnef_model_print_flat(const nnef_model *m, unsigned flags)
{
	if (m->m.status != MODEL_VALID || !m->m.flat)
		return NULL;
	StrBuf out;
	sb_init(&out);
	flat_print(&out, m->m.flat, flags & NNEF_PRINT_SHAPES);
	return take(&out);
}

char *nnef_model_print_shapes(const nnef_model *m)
{
	if (!m->m.flat)
		return NULL;
	StrBuf out;
	sb_init(&out);
	flat_print_shapes(&out, m->m.flat);
	return take(&out);
}

char *nnef_model_print_dot(const nnef_model *m)
{
	if (!m->m.flat)
		return NULL;
	StrBuf out;
	sb_init(&out);
	flat_print_dot(&out, m->m.flat);
	return take(&out);
}
