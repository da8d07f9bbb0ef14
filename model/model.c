/*
 * model.c - locating a model's graph and running the checks over it.
 * A path is a graph file, or a directory holding graph.nnef (spec 5.1
 * Container Organization). Archives (.tar, .tgz) are recognized by their
 * magic bytes and refused with E0003 until the container reader exists.
 */
#include "model/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool looks_like_archive(const SourceFile *f)
{
	const unsigned char *p = (const unsigned char *)f->text;
	if (f->len >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return true; /* gzip */
	if (f->len >= 262 && memcmp(p + 257, "ustar", 5) == 0)
		return true; /* tar */
	return false;
}

static void model_init(Model *m, const ModelOptions *opt)
{
	memset(m, 0, sizeof(*m));
	arena_init(&m->arena);
	intern_init(&m->interner, &m->arena);
	diag_list_init(&m->diags, MODEL_COLLECT_LIMIT);
	m->max_shown = opt->max_errors;
}

/* Parsing and semantic analysis of m->graph_src. */
static ModelStatus check_graph(Model *m, const ModelOptions *opt)
{
	m->parse = parse_document(m->graph_src, PARSE_DOCUMENT, opt->lenient,
				  &m->arena, &m->interner, &m->diags);
	if (m->parse.syntax_ok && !diag_limit_reached(&m->diags)) {
		m->stdlib_src = sema_stdlib_source();
		m->stdlib = parse_document(m->stdlib_src, PARSE_FRAGMENTS, false,
					   &m->arena, &m->interner, &m->diags);
		SemaOptions so = { .lenient = opt->lenient };
		sema_check(&m->prog, m->parse.doc, m->stdlib.doc, &m->arena,
			   &m->interner, &m->diags, &so);
		m->checked = true;
	}
	if (m->checked && m->diags.nerrors == 0 && m->parse.doc->graph) {
		FlattenOptions fo = opt->flatten;
		if (!fo.max_depth)
			fo.max_depth = FLATTEN_DEFAULT_MAX_DEPTH;
		m->flat = flatten_graph(&m->prog, &m->arena, &m->interner,
					&m->diags, &fo);
	}
	diag_sort(&m->diags);
	m->status = m->diags.nerrors ? MODEL_INVALID : MODEL_VALID;
	return m->status;
}

ModelStatus model_check_text(Model *m, const char *name, const char *text,
			     size_t len, const ModelOptions *opt)
{
	model_init(m, opt);
	m->graph_src = source_from_memory(name, text, len);
	return check_graph(m, opt);
}

ModelStatus model_check(Model *m, const char *path, const ModelOptions *opt)
{
	model_init(m, opt);

	const char *graph_path = path;
	char *joined = NULL;
	struct stat st;
	if (stat(path, &st) != 0) {
		diag_add(&m->diags, DIAG_E0001, loc_make(NULL, 0, 0),
			 "cannot read '%s': %s", path, strerror(errno));
		return m->status = MODEL_IO_ERROR;
	}
	if (S_ISDIR(st.st_mode)) {
		size_t n = strlen(path);
		joined = util_malloc(n + sizeof("/graph.nnef"));
		memcpy(joined, path, n);
		strcpy(joined + n, n && path[n - 1] == '/' ? "graph.nnef"
							   : "/graph.nnef");
		if (stat(joined, &st) != 0) {
			diag_add(&m->diags, DIAG_E0002, loc_make(NULL, 0, 0),
				 "'%s' is a directory without graph.nnef",
				 path);
			free(joined);
			return m->status = MODEL_IO_ERROR;
		}
		graph_path = joined;
	}

	const char *err = NULL;
	m->graph_src = source_read(graph_path, &err);
	if (!m->graph_src) {
		diag_add(&m->diags, DIAG_E0001, loc_make(NULL, 0, 0),
			 "cannot read '%s': %s", graph_path, err);
		free(joined);
		return m->status = MODEL_IO_ERROR;
	}
	free(joined);
	if (looks_like_archive(m->graph_src)) {
		Diag *d = diag_add(&m->diags, DIAG_E0003, loc_make(NULL, 0, 0),
				   "'%s' is a tar or gzip archive; this version "
				   "reads a graph file or a directory",
				   path);
		diag_hint(&m->diags, d,
			  "extract the archive and pass its directory");
		return m->status = MODEL_IO_ERROR;
	}

	return check_graph(m, opt);
}

void model_free(Model *m)
{
	if (m->checked)
		sema_free(&m->prog);
	source_free(m->stdlib_src);
	diag_list_free(&m->diags);
	intern_free(&m->interner);
	arena_free(&m->arena);
	source_free(m->graph_src);
	memset(m, 0, sizeof(*m));
}

size_t model_shown_errors(const Model *m)
{
	if (m->max_shown && m->diags.nerrors > m->max_shown)
		return m->max_shown;
	return m->diags.nerrors;
}

bool model_errors_hidden(const Model *m)
{
	return m->diags.dropped_errors || model_shown_errors(m) < m->diags.nerrors;
}

void model_render_diags(const Model *m, const char *prog, StrBuf *out,
			bool color, bool show_warnings)
{
	DiagRenderOpts o = { .color = color,
			     .show_warnings = show_warnings,
			     .show_source = true };
	size_t shown = model_shown_errors(m), errors = 0;
	for (size_t i = 0; i < m->diags.len; i++) {
		const Diag *d = m->diags.items[i];
		if (d->level == DIAG_ERROR && errors++ == shown)
			break; /* the sorted list is cut after the last shown */
		if (d->level != DIAG_ERROR && !show_warnings)
			continue;
		if (!d->loc.file)
			sb_printf(out, "%s: ", prog);
		diag_render(d, out, &o);
	}
	size_t more = m->diags.nerrors - shown + m->diags.dropped_errors;
	if (more)
		sb_printf(out, "%s: %s%zu more error%s not shown (raise the limit with --max-errors)\n", prog, m->diags.dropped_errors ? "at least " : "", more, more == 1 ? "" : "s");
}
