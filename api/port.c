/*
 * port.c - portability reports (nnef_port): after a valid check, the
 * model is read once more per target with the compounds that target has
 * kept whole, and each operation of that graph is looked up in the
 * target's table (port/port.h). Operations of one name are counted
 * together; problems are counted per distinct message, with the first
 * location.
 */
#include "api/api_internal.h"
#include "port/port.h"
#include "shapes/shapes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct PortUse {
	const char *op;       /* the NNEF operation */
	const PortRow *row;   /* NULL: not in the table (custom, or a later
				 ONNX operator set) */
	unsigned earliest;    /* the first ONNX operator set with a row */
	const char *problem;  /* NULL in a mapping */
	size_t count;
	nnef_location first;
} PortUse;

struct nnef_port {
	char name[24];        /* as asked: "onnx:13" */
	const PortTarget *t;
	unsigned version;
	bool failed;          /* the graph did not flatten again */
	size_t ops, portable;
	PortUse *maps, *probs;
	size_t nmaps, nprobs;
};

const char *nnef_target_check(const char *name)
{
	unsigned v;
	if (name && strlen(name) < sizeof(((nnef_port *)0)->name) && port_target_find(name, &v))
		return NULL;
	return "must be openvx, openvino, coreml or onnx:N (an ONNX operator set from 1 to 23)";
}

/* The standard compounds t has whole at version v. */
static const char **native_compounds(const PortTarget *t, unsigned v, size_t *n)
{
	const char **names = util_calloc(t->nrows + 1, sizeof(*names));
	*n = 0;
	for (size_t i = 0; i < t->nrows; i++) {
		const PortRow *r = port_row(t, v, t->rows[i].op, NULL);
		if (r == &t->rows[i] && r->kind == PORT_MAP && shape_op_lookup(r->op) == SHAPE_OP_NONE)
			names[(*n)++] = r->op;
	}
	return names;
}

static nnef_location copy_location(nnef_location l)
{
	if (l.file)
		l.file = util_strdup(l.file);
	return l;
}

/* The use of (op, problem) in list, counted; a new one at location l. */
static PortUse *count_use(PortUse **list, size_t *n, const char *op,
			  const char *problem, nnef_location l)
{
	for (size_t i = 0; i < *n; i++) {
		PortUse *u = &(*list)[i];
		if (strcmp(u->op, op) == 0 && (problem ? u->problem && strcmp(u->problem, problem) == 0 : !u->problem)) {
			u->count++;
			return u;
		}
	}
	*list = util_realloc(*list, (*n + 1) * sizeof(**list));
	PortUse *u = &(*list)[(*n)++];
	*u = (PortUse){ util_strdup(op), NULL, 0, problem ? util_strdup(problem) : NULL, 1, copy_location(l) };
	return u;
}

/* What stops op (of mapping m, its row) from being portable to p, in
 * buf; false when nothing. */
static bool op_problem(const nnef_port *p, const nnef_op *op,
		       const PortUse *m, char *buf, size_t size)
{
	const PortRow *r = m->row;
	if (!r && m->earliest)
		snprintf(buf, size, "needs ONNX operator set %u or later", m->earliest);
	else if (!r)
		snprintf(buf, size, "not a standard operation: %s has no operation for it", p->t->name);
	else if (r->kind == PORT_NONE)
		snprintf(buf, size, "not expressible: %s", r->note);
	else if (r->kind == PORT_EXPAND)
		snprintf(buf, size, "table: a compound to expand reached the report");
	else
		return port_check(r->checks, api_op(op), p->t->name, buf, size);
	return true;
}

static void survey(nnef_port *p, const nnef_graph *g)
{
	char buf[256];
	for (size_t i = 0; i < nnef_graph_op_count(g); i++) {
		const nnef_op *op = nnef_graph_op(g, i);
		const char *name = nnef_op_name(op);
		nnef_location l = nnef_op_location(op);
		PortUse *m = count_use(&p->maps, &p->nmaps, name, NULL, l);
		if (m->count == 1) /* the row of a name is looked up once */
			m->row = port_row(p->t, p->version, name, &m->earliest);
		bool bad = op_problem(p, op, m, buf, sizeof(buf));
		if (bad)
			count_use(&p->probs, &p->nprobs, name, buf, l)->row = m->row;
		p->ops++;
		p->portable += !bad;
	}
}

/* One report: the model at path (or text) read again with t's compounds
 * kept whole. */
static nnef_port *make_port(const char *target, const char *path,
			    const char *text, size_t len, const nnef_options *o)
{
	nnef_port *p = util_calloc(1, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", target);
	p->t = port_target_find(target, &p->version);
	nnef_options again = *o;
	again.targets = NULL;
	again.n_targets = 0;
	again.no_data = true;
	again.keep_standard = false;
	again.max_errors = 1;
	again.keep = native_compounds(p->t, p->version, &again.n_keep);
	nnef_model *m = text ? nnef_model_load_text(path, text, len, &again) : nnef_model_load(path, &again);
	util_free((void *)again.keep);
	if (!m)
		util_oom();
	const nnef_graph *g = nnef_model_status(m) == NNEF_VALID ? nnef_model_graph(m) : NULL;
	p->failed = !g;
	if (g)
		survey(p, g);
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
	return p->t->title;
}

bool nnef_port_failed(const nnef_port *p)
{
	return p->failed;
}

size_t nnef_port_operations(const nnef_port *p)
{
	return p->ops;
}

size_t nnef_port_portable(const nnef_port *p)
{
	return p->portable;
}

size_t nnef_port_mapping_count(const nnef_port *p)
{
	return p->nmaps;
}

size_t nnef_port_problem_count(const nnef_port *p)
{
	return p->nprobs;
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
	out.first = u->first;
	out.problem = u->problem;
	out.target_op = r && r->kind == PORT_MAP ? r->target_op : NULL;
	out.note = r && r->kind == PORT_MAP && !u->problem ? r->note : NULL;
	out.cite = r ? r->cite : NULL;
	return out;
}

nnef_port_use nnef_port_mapping(const nnef_port *p, size_t i)
{
	return use(p->maps, p->nmaps, i);
}

nnef_port_use nnef_port_problem(const nnef_port *p, size_t i)
{
	return use(p->probs, p->nprobs, i);
}

static void render_use_location(StrBuf *out, nnef_location l)
{
	if (l.file)
		sb_printf(out, "%s:%u:%u: ", l.file, l.line, l.column);
}

static void render(StrBuf *out, const void *ctx)
{
	const nnef_port *p = ctx;
	if (p->t->versioned)
		sb_printf(out, "%s: %s %u\n", p->name, p->t->title, p->version);
	else
		sb_printf(out, "%s: %s\n", p->name, p->t->title);
	if (p->failed) {
		sb_printf(out, "%s: no report: the graph did not check again with the compounds of %s kept whole\n", p->name, p->name);
		return;
	}
	for (size_t i = 0; i < p->nmaps; i++) {
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
	for (size_t i = 0; i < p->nprobs; i++) {
		nnef_port_use u = nnef_port_problem(p, i);
		sb_puts(out, "  ");
		render_use_location(out, u.first);
		sb_printf(out, "%s: %s: %zu operation%s\n", u.op, u.problem, u.count, u.count == 1 ? "" : "s");
	}
	size_t bad = p->ops - p->portable;
	sb_printf(out, "%s: %zu/%zu operations portable; %zu need%s rewriting\n", p->name, p->portable, p->ops, bad, bad == 1 ? "s" : "");
}

char *nnef_port_render(const nnef_port *p)
{
	return api_print(render, p);
}
