/*
 * declarations.c - the operations a document is checked against: the standard
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

/* tract's dialect: the registries the document names on its extension
 * lines ("extension tract_registry tract_core;"), each read once, in
 * order; a name that is not a registry is an error at the line. */
static void read_registries(Model *m, const AstDoc *doc)
{
	const AstVendor *v = &doc->vendor;
	for (size_t i = 0; i < v->nregistries; i++) {
		const AstExtension *e = v->registries[i];
		const char *name = sema_registry_name(e->name);
		bool dup = name && !*name; /* the standard library's */
		for (size_t k = 0; k < i && name && !dup; k++) {
			const char *other = sema_registry_name(v->registries[k]->name);
			dup = other && strcmp(other, name) == 0;
		}
		if (dup)
			continue;
		SourceFile *f = name ? sema_registry_source(name) : NULL;
		if (!f) {
			StrBuf known;
			sb_init(&known);
			sema_registry_list(&known);
			Diag *d = diag_add(&m->diags, DIAG_E0310, e->loc, "'%s' is not a registry of tract's dialect", e->name);
			diag_hint(&m->diags, d, "tract's registries are %s", sb_str(&known));
			sb_free(&known);
			continue;
		}
		m->reg_src = util_realloc(m->reg_src, (m->nreg + 1) * sizeof(*m->reg_src));
		m->reg_src[m->nreg++] = f;
	}
}

void model_libraries(Model *m, SemaOptions *so)
{
	if (!m->stdlib_src)
		m->stdlib_src = sema_stdlib_source();
	m->stdlib = parse_document(m->stdlib_src, PARSE_FRAGMENTS, NULL,
				   &m->arena, &m->interner, &m->diags);
	if (m->dialect == DIALECT_TRACT && m->parse.doc)
		read_registries(m, m->parse.doc);
	/* the registries first, then the --declarations files */
	size_t n = m->nreg + m->ndecl;
	util_free(m->decl_docs);
	m->decl_docs = util_calloc(n ? n : 1, sizeof(*m->decl_docs));
	ParseOptions po = { .dialect = m->dialect, .lenient = so->lenient };
	for (size_t i = 0; i < n; i++)
		m->decl_docs[i] = parse_document(
			i < m->nreg ? m->reg_src[i] : m->decl_src[i - m->nreg],
			PARSE_FRAGMENTS, &po, &m->arena, &m->interner,
			&m->diags).doc;
	so->declarations = m->decl_docs;
	so->ndeclarations = n;
	so->nregistries = m->nreg;
}
