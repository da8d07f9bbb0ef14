/*
 * api_port.c - portability reports (nnef_port) through nnef.h: after a
 * valid check, the model is read once more per target with the compounds
 * that target has kept whole, and port/ looks each operation of that
 * graph up in the target's table (port_survey). This file hands the
 * report out as the types of nnef.h, and writes it as text.
 */
#include "api/api_internal.h"
#include "port/port.h"

#include <stdio.h>
#include <string.h>

struct nnef_port {
	char name[24];        /* as asked: "onnx:13" */
	bool failed;          /* the graph did not flatten again */
	PortReport r;
};

const char *nnef_target_check(const char *name)
{
	unsigned v;
	if (name && strlen(name) < sizeof(((nnef_port *)0)->name) && port_target_find(name, &v))
		return NULL;
	return "must be openvx, openvino, coreml or onnx:N (an ONNX operator set from 1 to 23)";
}

/* One report: the model at path (or text) read again with t's compounds
 * kept whole. */
static nnef_port *make_port(const char *target, const char *path,
			    const char *text, size_t len, const nnef_options *o)
{
	nnef_port *p = util_calloc(1, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", target);
	p->r.t = port_target_find(target, &p->r.version);
	nnef_options again = *o;
	again.targets = NULL;
	again.n_targets = 0;
	again.no_data = true;
	again.keep_standard = false;
	again.max_errors = 1;
	again.keep = port_native_compounds(p->r.t, p->r.version, &again.n_keep);
	nnef_model *m = text ? nnef_model_load_text(path, text, len, &again) : nnef_model_load(path, &again);
	util_free((void *)again.keep);
	if (!m)
		util_oom();
	const nnef_graph *g = nnef_model_status(m) == NNEF_VALID ? nnef_model_graph(m) : NULL;
	p->failed = !g;
	if (g)
		port_survey(&p->r, api_graph(g));
	nnef_model_free(m);
	return p;
}

void api_port_reports(nnef_model *mm, const char *path, const char *text,
		      size_t len, const nnef_options *o)
{
	if (!o->n_targets || mm->m.status != MODEL_VALID)
		return;
	mm->ports = util_calloc(o->n_targets, sizeof(*mm->ports));
	for (size_t i = 0; i < o->n_targets; i++)
		if (!nnef_target_check(o->targets[i]))
			mm->ports[mm->nports++] = make_port(o->targets[i], path, text, len, o);
}

size_t nnef_model_port_count(const nnef_model *m)
{
	return m->nports;
}

const nnef_port *nnef_model_port(const nnef_model *m, size_t i)
{
	return i < m->nports ? m->ports[i] : NULL;
}

const char *nnef_port_target(const nnef_port *p)
{
	return p->name;
}

const char *nnef_port_title(const nnef_port *p)
{
	return p->r.t->title;
}

bool nnef_port_failed(const nnef_port *p)
{
	return p->failed;
}

size_t nnef_port_operations(const nnef_port *p)
{
	return p->r.ops;
}

size_t nnef_port_portable(const nnef_port *p)
{
	return p->r.portable;
}

size_t nnef_port_mapping_count(const nnef_port *p)
{
	return p->r.nmaps;
}

size_t nnef_port_problem_count(const nnef_port *p)
{
	return p->r.nprobs;
}

/* Where port/ says an operation is written, as nnef.h gives it. */
static nnef_location location(PortLoc l)
{
	nnef_location out = { l.file, l.line, l.column, l.end_line, l.end_column };
	return out;
}

/* Item i of a list of uses as nnef.h gives it ({0} past the end). */
static nnef_port_use use(const PortUse *list, size_t n, size_t i)
{
	nnef_port_use out = { 0 };
	if (i >= n)
		return out;
	const PortUse *u = &list[i];
	const PortRow *r = u->row;
	out.op = u->op;
	out.count = u->count;
	out.first = location(u->first);
	out.problem = u->problem;
	out.target_op = r && r->kind == PORT_MAP ? r->target_op : NULL;
	out.note = r && r->kind == PORT_MAP && !u->problem ? r->note : NULL;
	out.cite = r ? r->cite : NULL;
	return out;
}

nnef_port_use nnef_port_mapping(const nnef_port *p, size_t i)
{
	return use(p->r.maps, p->r.nmaps, i);
}

nnef_port_use nnef_port_problem(const nnef_port *p, size_t i)
{
	return use(p->r.probs, p->r.nprobs, i);
}

static void render_use_location(StrBuf *out, nnef_location l)
{
	if (l.file)
		sb_printf(out, "%s:%u:%u: ", l.file, l.line, l.column);
}

static void render(StrBuf *out, const void *ctx)
{
	const nnef_port *p = ctx;
	if (p->r.t->versioned)
		sb_printf(out, "%s: %s %u\n", p->name, p->r.t->title, p->r.version);
	else
		sb_printf(out, "%s: %s\n", p->name, p->r.t->title);
	if (p->failed) {
		sb_printf(out, "%s: no report: the graph did not check again with the compounds of %s kept whole\n", p->name, p->name);
		return;
	}
	for (size_t i = 0; i < p->r.nmaps; i++) {
		nnef_port_use u = nnef_port_mapping(p, i);
		if (!u.target_op)
			continue;
		sb_printf(out, "  %-28s %6zu  %s", u.op, u.count, u.target_op);
		if (u.cite && strcmp(u.cite, u.target_op) != 0)
			sb_printf(out, " [%s]", u.cite);
		if (u.note)
			sb_printf(out, ": %s", u.note);
		sb_putc(out, '\n');
	}
	for (size_t i = 0; i < p->r.nprobs; i++) {
		nnef_port_use u = nnef_port_problem(p, i);
		sb_puts(out, "  ");
		render_use_location(out, u.first);
		sb_printf(out, "%s: %s: %zu operation%s\n", u.op, u.problem, u.count, u.count == 1 ? "" : "s");
	}
	size_t bad = p->r.ops - p->r.portable;
	sb_printf(out, "%s: %zu/%zu operations portable; %zu need%s rewriting\n", p->name, p->r.portable, p->r.ops, bad, bad == 1 ? "s" : "");
}

char *nnef_port_render(const nnef_port *p)
{
	return api_print(render, p);
}
