/*
 * libs.c - the operations a document is checked against: the standard
 * library (sema/stdlib.nnef) and the fragment declarations given with
 * --declarations, files or directories of .nnef files (or archives of
 * them, read as models are). A declaration with a body is a compound
 * operation, expanded like any other; one without is a custom operation,
 * type-checked at every call. Each file is read once; its diagnostics
 * point into it.
 */
#include "model/model_internal.h"

#include <string.h>

typedef struct DeclScan {
	Model *m;
	bool ok;
} DeclScan;

static bool is_declarations(const Container *c, const ContMember *mem)
{
	size_t n = strlen(mem->name);
	if (mem->type != MEMBER_FILE)
		return false;
	if (cont_kind(c) == CONT_FILE)
		return true; /* the file given */
	return !strchr(mem->name, '/') && n > 5 &&
	       strcmp(mem->name + n - 5, ".nnef") == 0;
}

/* One file of declarations, read whole into m->decl_src. */
static bool visit_decl(void *ctx, Container *c, const ContMember *mem)
{
	DeclScan *sc = ctx;
	if (!is_declarations(c, mem))
		return true;
	size_t len;
	bool mapped;
	char *text = model_read_document(sc->m, c, mem, &len, &mapped);
	if (!text)
		return sc->ok = false;
	StrBuf path;
	sb_init(&path);
	if (cont_kind(c) == CONT_FILE)
		sb_puts(&path, cont_path(c));
	else
		sb_printf(&path, "%s/%s", cont_path(c), mem->name);
	SourceFile *f = model_source(sb_str(&path), text, len, mapped);
	f->owns_text = true;
	sb_free(&path);
	Model *m = sc->m;
	m->decl_src = util_realloc(m->decl_src, (m->ndecl + 1) * sizeof(*m->decl_src));
	m->decl_src[m->ndecl++] = f;
	return true;
}

bool model_read_declarations(Model *m, const ModelOptions *opt)
{
	DeclScan sc = { m, true };
	for (size_t i = 0; i < opt->ndeclarations && sc.ok; i++) {
		Container *c = cont_open(opt->declarations[i], &opt->limits,
					 &m->diags);
		if (!c)
			return false;
		sc.ok = cont_scan(c, visit_decl, &sc) && sc.ok;
		cont_close(c);
	}
	return sc.ok;
}

void model_libraries(Model *m, SemaOptions *so)
{
	if (!m->stdlib_src)
		m->stdlib_src = sema_stdlib_source();
	m->stdlib = parse_document(m->stdlib_src, PARSE_FRAGMENTS, NULL,
				   &m->arena, &m->interner, &m->diags);
	util_free(m->decl_docs);
	m->decl_docs = util_calloc(m->ndecl ? m->ndecl : 1, sizeof(*m->decl_docs));
	ParseOptions po = { .lenient = so->lenient };
	for (size_t i = 0; i < m->ndecl; i++)
		m->decl_docs[i] = parse_document(m->decl_src[i], PARSE_FRAGMENTS,
						 &po, &m->arena, &m->interner,
						 &m->diags).doc;
	so->declarations = m->decl_docs;
	so->ndeclarations = m->ndecl;
}
