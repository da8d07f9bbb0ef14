/*
 * stages.c - reading a model's container and running the checks over it.
 * A path is a directory holding graph.nnef (spec 5.1 Container
 * Organization), a tar or gzip-compressed tar archive of the same (its
 * members may all sit in one top folder), or a bare graph file. The
 * container is read in one pass: graph.nnef and graph.quant whole, the
 * first bytes of each .dat file, nothing else, so memory does not grow
 * with the weights.
 */
#include "model/model_internal.h"

#include <stdlib.h>
#include <string.h>

static void model_init(Model *m, const ModelOptions *opt)
{
	memset(m, 0, sizeof(*m));
	arena_init(&m->arena);
	arena_init(&m->names);
	arena_init(&m->syntax);
	intern_init(&m->interner, &m->names);
	diag_list_init(&m->diags, MODEL_COLLECT_LIMIT);
	m->max_shown = opt->max_errors;
	m->lenient = opt->lenient;
	m->dialect = opt->dialect;
	m->limits = opt->limits;
}

static const FlatGraph *submodel(void *ctx, const char *label, size_t len,
				 Loc at, bool *invalid);

/* Parsing, semantic analysis and flattening. */
static void check_document(Model *m, const ModelOptions *opt)
{
	/* the one pass reads Khronos NNEF only: tract's dialect is
	 * checked whole */
	if (!opt->whole && opt->dialect == DIALECT_KHRONOS &&
	    model_check_streamed(m, opt))
		return;
	ParseOptions po = { .dialect = opt->dialect, .lenient = opt->lenient,
			    .max_nesting = opt->max_nesting };
	m->parse = parse_document(m->graph_src, PARSE_DOCUMENT, &po,
				  &m->arena, &m->interner, &m->diags);
	if (m->parse.syntax_ok && !diag_limit_reached(&m->diags)) {
		SemaOptions so = { .lenient = opt->lenient };
		model_libraries(m, &so);
		sema_check(&m->prog, m->parse.doc, m->stdlib.doc, &m->arena,
			   &m->interner, &m->diags, &so);
		m->checked = true;
	}
	if (m->checked && m->diags.nerrors == 0 && m->parse.doc->graph) {
		FlattenOptions fo = opt->flatten;
		if (!fo.max_depth)
			fo.max_depth = FLATTEN_DEFAULT_MAX_DEPTH;
		fo.lenient = opt->lenient;
		fo.quant = model_parse_quant(m);
		if (opt->dialect == DIALECT_TRACT) {
			fo.var_datum = model_var_datum;
			fo.model_ctx = m;
			if (m->path && m->kind != CONT_FILE)
				fo.submodel = submodel;
		}
		m->flat = flatten_graph(&m->prog, &m->arena, &m->interner,
					&m->diags, &fo);
	}
}

typedef struct DeepCheck {
	Model *m;
	const ModelOptions *opt;
} DeepCheck;

static void check_document_deep(void *ctx)
{
	DeepCheck *dc = ctx;
	check_document(dc->m, dc->opt);
}

/* The stages, then the data checks. Every stage recurses on expressions:
 * the default nesting limit fits any thread's stack, a higher one is
 * given the evaluator's deep stack. */
static ModelStatus check_graph(Model *m, const ModelOptions *opt)
{
	m->opt = opt;
	if (!model_read_declarations(m, opt)) {
		diag_sort(&m->diags);
		return m->status = MODEL_IO_ERROR;
	}
	if (opt->max_nesting > PARSE_DEFAULT_NESTING) {
		DeepCheck dc = { m, opt };
		flatten_run_deep(check_document_deep, &dc);
	} else {
		check_document(m, opt);
	}
	if (m->flat) {
		model_collect_variables(m);
		model_check_data(m, opt);
	}
	diag_sort(&m->diags);
	m->status = m->diags.nerrors ? MODEL_INVALID : MODEL_VALID;
	m->opt = NULL;
	return m->status;
}

ModelStatus model_check_text(Model *m, const char *name, const char *text,
			     size_t len, const ModelOptions *opt)
{
	model_init(m, opt);
	m->kind = CONT_FILE;
	m->graph_src = source_from_memory(name, text, len);
	return check_graph(m, opt);
}

/* ---- reading the container ------------------------------------------------ */

/* A member read whole: graph.nnef or graph.quant, at the root or one
 * folder down. */
typedef struct Whole {
	char *name;
	char *text;
	size_t len;
	ContMemberType type;
	bool mapped;           /* text is mapped from the file (cont_map) */
} Whole;

typedef struct Scan {
	Model *m;
	Whole *whole;
	size_t nwhole;
	size_t capfiles;
	size_t seen;           /* members visited */
	char *top;             /* the first member's first folder */
	bool one_top;          /* every member lies in folder `top` */
	bool failed;
	const char *under;     /* a model inside the container: the members
				  of this folder ("nnet2/"), the folder's name
				  taken off (NULL: the whole container) */
	char **graphs;         /* the names of the members X/graph.nnef (or
				  T/X/graph.nnef): the models inside */
	size_t ngraphs;
} Scan;

static const char *base_name(const char *name)
{
	const char *slash = strrchr(name, '/');
	return slash ? slash + 1 : name;
}

static void note_top(Scan *sc, const char *name)
{
	const char *slash = strchr(name, '/');
	size_t n = slash ? (size_t)(slash - name) : 0;
	if (sc->seen++ == 0 && slash) {
		sc->top = util_malloc(n + 1);
		memcpy(sc->top, name, n);
		sc->top[n] = '\0';
		sc->one_top = true;
	} else if (!slash || !sc->top || strlen(sc->top) != n ||
		   memcmp(sc->top, name, n) != 0) {
		sc->one_top = false;
	}
}

/* Reads a member whole (graph.nnef or graph.quant). */
SourceFile *model_source(const char *path, char *text, size_t len,
			 bool mapped)
{
	if (mapped) /* read-only: not scanned in place */
		return source_from_mapping(path, text, len);
	return source_from_buffer(path, text, len);
}

char *model_read_document(Model *m, Container *c, const ContMember *mem,
			  size_t *len, bool *mapped)
{
	*len = 0;
	*mapped = false;
	if (mem->size > SOURCE_MAX_BYTES) {
		if (cont_kind(c) == CONT_FILE) /* the file given is the document */
			diag_add(&m->diags, DIAG_E0006, loc_make(NULL, 0, 0), "%s has %llu bytes; nnefkit reads documents of at most 1 GiB", cont_path(c), (unsigned long long)mem->size);
		else
			diag_add(&m->diags, DIAG_E0006, loc_make(NULL, 0, 0), "%s: '%s' has %llu bytes; nnefkit reads documents of at most 1 GiB", cont_path(c), mem->name, (unsigned long long)mem->size);
		return NULL;
	}
	/* a large document is mapped: its pages are read as the parse goes
	 * and leave memory behind it (source_forget) */
	char *text = mem->size >= MODEL_MAP_BYTES ? cont_map(c, len) : NULL;
	if (text) {
		*mapped = true;
		return text;
	}
	text = util_malloc((size_t)mem->size + 2); /* two NULs: scanned in place */
	util_prefault(text, (size_t)mem->size + 2); /* all written: at once */
	for (long got; *len < mem->size; *len += (size_t)got) {
		got = cont_read(c, text + *len, (size_t)mem->size - *len);
		if (got <= 0) {
			util_free(text);
			return NULL;
		}
	}
	text[*len] = text[*len + 1] = '\0';
	return text;
}

static bool read_whole(Scan *sc, Container *c, const ContMember *mem)
{
	Whole *w;
	sc->whole = util_realloc(sc->whole, (sc->nwhole + 1) * sizeof(*sc->whole));
	w = &sc->whole[sc->nwhole++];
	memset(w, 0, sizeof(*w));
	w->name = util_strdup(mem->name);
	w->type = mem->type;
	if (mem->type != MEMBER_FILE)
		return true;
	w->text = model_read_document(sc->m, c, mem, &w->len, &w->mapped);
	return w->text != NULL;
}

static bool visit(void *ctx, Container *c, const ContMember *mem);

/* The members of a model inside the container, its folder's name taken
 * off: the others are not its own. */
static bool visit_under(void *ctx, Container *c, const ContMember *mem)
{
	Scan *sc = ctx;
	size_t n = strlen(sc->under);
	if (strncmp(mem->name, sc->under, n) != 0 || !mem->name[n])
		return true;
	ContMember own = *mem;
	own.name = mem->name + n;
	const char *under = sc->under;
	sc->under = NULL;
	bool go = visit(ctx, c, &own);
	sc->under = under;
	return go;
}

static bool visit(void *ctx, Container *c, const ContMember *mem)
{
	Scan *sc = ctx;
	Model *m = sc->m;
	if (sc->under)
		return visit_under(ctx, c, mem);
	note_top(sc, mem->name);
	const char *base = base_name(mem->name);
	size_t depth = 0;
	for (const char *p = mem->name; *p; p++)
		depth += *p == '/';
	/* graph.nnef and graph.quant at the root, or in the folder of the
	 * first member (the only top folder that can hold the model): at
	 * most four documents are kept, whatever the archive holds */
	bool in_top = depth == 1 && sc->top &&
		      strncmp(mem->name, sc->top, strlen(sc->top)) == 0 &&
		      mem->name[strlen(sc->top)] == '/';
	if ((depth == 0 || in_top) && (strcmp(base, "graph.nnef") == 0 ||
				       strcmp(base, "graph.quant") == 0))
		return read_whole(sc, c, mem);
	if ((depth == 1 || depth == 2) && strcmp(base, "graph.nnef") == 0) {
		/* a model inside: tract_core_submodel runs it */
		sc->graphs = util_realloc(sc->graphs, (sc->ngraphs + 1) * sizeof(*sc->graphs));
		sc->graphs[sc->ngraphs++] = util_strdup(mem->name);
	}
	size_t len = strlen(mem->name);
	if (len < 4 || strcmp(mem->name + len - 4, ".dat") != 0)
		return true;
	if (m->nfiles == sc->capfiles) {
		sc->capfiles = sc->capfiles ? 2 * sc->capfiles : 64;
		m->files = util_realloc(m->files, sc->capfiles * sizeof(*m->files));
	}
	ModelFile *f = &m->files[m->nfiles++];
	memset(f, 0, sizeof(*f));
	f->name = util_strdup(mem->name);
	f->type = mem->type;
	f->size = mem->size;
	f->is_dat = true;
	while (mem->type == MEMBER_FILE && f->nhead < sizeof(f->head)) {
		long got = cont_read(c, f->head + f->nhead, sizeof(f->head) - f->nhead);
		if (got < 0)
			return false;
		if (got == 0)
			break;
		f->nhead += (size_t)got;
	}
	return true;
}

/* The member `name` read whole, or NULL. */
static Whole *find_whole(Scan *sc, const char *name)
{
	for (size_t i = 0; i < sc->nwhole; i++)
		if (strcmp(sc->whole[i].name, name) == 0)
			return &sc->whole[i];
	return NULL;
}

/* graph.nnef at the root, or in the one top folder of an archive or a
 * directory (a folder holding the model's folder is read as an archive
 * of it is); the top folder is then removed from every name. */
static const char *find_root(Scan *sc, Container *c)
{
	Model *m = sc->m;
	if (find_whole(sc, "graph.nnef"))
		return "";
	if (sc->one_top && sc->top) {
		StrBuf b;
		sb_init(&b);
		sb_printf(&b, "%s/graph.nnef", sc->top);
		bool found = find_whole(sc, sb_str(&b)) != NULL;
		sb_free(&b);
		if (found) {
			size_t n = strlen(sc->top) + 1;
			for (size_t i = 0; i < m->nfiles; i++)
				memmove(m->files[i].name, m->files[i].name + n,
					strlen(m->files[i].name + n) + 1);
			return sc->top;
		}
	}
	if (cont_kind(c) == CONT_DIR)
		diag_add(&m->diags, DIAG_E0002, loc_make(NULL, 0, 0), "'%s' is a directory without graph.nnef (in it or in its one folder)", cont_path(c));
	else
		diag_add(&m->diags, DIAG_E0002, loc_make(NULL, 0, 0), "'%s' is an archive without graph.nnef (at its root or in one top folder)", cont_path(c));
	return NULL;
}

/* Takes the text of member prefix + base, reporting a link. */
static char *take_text(Scan *sc, Container *c, const char *prefix,
		       const char *base, size_t *len, bool *mapped)
{
	StrBuf b;
	sb_init(&b);
	sb_printf(&b, "%s%s%s", prefix, *prefix ? "/" : "", base);
	Whole *w = find_whole(sc, sb_str(&b));
	char *text = NULL;
	if (w && w->type != MEMBER_FILE)
		diag_add(&sc->m->diags, DIAG_E0005, loc_make(NULL, 0, 0), "%s: '%s' is a link or a special file; links in a model are never followed", cont_path(c), sb_str(&b));
	else if (w) {
		text = w->text;
		*len = w->len;
		*mapped = w->mapped;
		w->text = NULL;
	}
	sb_free(&b);
	return text;
}

/* The path of a member in messages: "dir/graph.nnef", "m.tgz/graph.nnef"
 * (p the container's path, prefix the model's folder in it). */
static char *path_in(const char *p, const char *prefix, const char *base)
{
	size_t n = strlen(p);
	StrBuf b;
	sb_init(&b);
	sb_printf(&b, "%s%s%s%s%s", p, n && p[n - 1] == '/' ? "" : "/", prefix, *prefix ? "/" : "", base);
	char *r = util_strdup(sb_str(&b));
	sb_free(&b);
	return r;
}

static char *member_path(Container *c, const char *prefix, const char *base)
{
	return path_in(cont_path(c), prefix, base);
}

char *model_file_path(const Model *m, const char *name)
{
	return path_in(m->path, m->prefix ? m->prefix : "", name);
}

static void scan_free(Scan *sc)
{
	for (size_t i = 0; i < sc->ngraphs; i++)
		util_free(sc->graphs[i]);
	util_free(sc->graphs);
	for (size_t i = 0; i < sc->nwhole; i++) {
		util_free(sc->whole[i].name);
		util_free(sc->whole[i].text);
	}
	util_free(sc->whole);
	util_free(sc->top);
}

/* The models inside the model (tract's dialect: a folder X holding
 * X/graph.nnef, which tract_core_submodel(label = "X") runs): their labels
 * in m->sublabels, and their files taken out of the model's own. */
static void find_submodels(Model *m, Scan *sc, const char *prefix)
{
	size_t np = strlen(prefix);
	for (size_t i = 0; i < sc->ngraphs; i++) {
		const char *g = sc->graphs[i];
		if (np && (strncmp(g, prefix, np) != 0 || g[np] != '/'))
			continue;
		const char *rel = np ? g + np + 1 : g;
		const char *slash = strchr(rel, '/');
		if (!slash || strcmp(slash, "/graph.nnef") != 0)
			continue;
		m->sublabels = util_realloc(m->sublabels, (m->nsubs + 1) * sizeof(*m->sublabels));
		m->subs = util_realloc(m->subs, (m->nsubs + 1) * sizeof(*m->subs));
		m->sublabels[m->nsubs] = util_strdup(rel);
		m->sublabels[m->nsubs][slash - rel] = '\0';
		m->subs[m->nsubs++] = NULL;
	}
	size_t kept = 0;
	for (size_t i = 0; i < m->nfiles; i++) {
		bool inside = false;
		for (size_t k = 0; k < m->nsubs && !inside; k++) {
			size_t n = strlen(m->sublabels[k]);
			inside = strncmp(m->files[i].name, m->sublabels[k], n) == 0 &&
				 m->files[i].name[n] == '/';
		}
		if (inside)
			util_free(m->files[i].name);
		else
			m->files[kept++] = m->files[i];
	}
	m->nfiles = kept;
}

/* What a failed read makes of the model: unreadable, or invalid when
 * every error is a limit exceeded (E0006: the model is rejected under the
 * limits in force, as when a compile-time limit is exceeded). */
static ModelStatus read_failure(const Model *m)
{
	for (size_t i = 0; i < m->diags.len; i++) {
		const Diag *d = m->diags.items[i];
		if (d->level == DIAG_ERROR && diag_code_unreadable(d->code))
			return MODEL_IO_ERROR;
	}
	return m->diags.nerrors ? MODEL_INVALID : MODEL_IO_ERROR;
}

/* Reads the container: m->graph_src, m->quant_src and m->files (of the
 * model inside it at m->under, when set). */
static ModelStatus read_container(Model *m, Container *c)
{
	Scan sc = { .m = m, .under = m->under };
	m->kind = cont_kind(c);
	ModelStatus st = MODEL_IO_ERROR;
	if (!cont_scan(c, visit, &sc))
		goto done;
	const char *prefix = m->kind == CONT_FILE ? "" : find_root(&sc, c);
	if (!prefix)
		goto done;
	size_t len = 0, qlen = 0;
	bool mapped = false, qmapped = false;
	m->prefix = util_strdup(prefix);
	m->graph_text = take_text(&sc, c, prefix, "graph.nnef", &len, &mapped);
	if (!m->graph_text)
		goto done;
	const char *foreign = m->kind == CONT_FILE
				      ? cont_foreign_kind((const unsigned char *)m->graph_text, len)
				      : NULL;
	if (foreign) { /* said as such, not as thousands of lexical errors */
		diag_add(&m->diags, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': it is %s, which nnefkit does not read; a model is a directory, a .tar or a gzip-compressed .tar (.tgz, .tar.gz): extract it, or pack it as one of those", cont_path(c), foreign);
		goto done;
	}
	char *path = m->kind == CONT_FILE ? util_strdup(cont_path(c))
					  : member_path(c, prefix, "graph.nnef");
	m->graph_src = model_source(path, m->graph_text, len, mapped);
	util_free(path);
	find_submodels(m, &sc, prefix);
	m->quant_text = take_text(&sc, c, prefix, "graph.quant", &qlen, &qmapped);
	if (m->quant_text) {
		path = member_path(c, prefix, "graph.quant");
		m->quant_src = model_source(path, m->quant_text, qlen, qmapped);
		util_free(path);
	}
	st = m->diags.nerrors ? MODEL_IO_ERROR : MODEL_VALID;
done:
	scan_free(&sc);
	return st == MODEL_IO_ERROR ? read_failure(m) : st;
}

ModelStatus model_check(Model *m, const char *path, const ModelOptions *opt)
{
	model_init(m, opt);
	m->path = util_strdup(path);
	Container *c = cont_open(path, &opt->limits, &m->diags);
	if (!c)
		return m->status = read_failure(m);
	ModelStatus st = read_container(m, c);
	cont_close(c);
	if (st != MODEL_VALID) {
		diag_sort(&m->diags);
		return m->status = st;
	}
	return check_graph(m, opt);
}

void model_free(Model *m)
{
	flat_graph_free(m->flat);
	for (size_t i = 0; i < m->nsubs; i++) {
		if (m->subs[i])
			model_free(m->subs[i]);
		util_free(m->subs[i]);
		util_free(m->sublabels[i]);
	}
	util_free(m->subs);
	util_free(m->sublabels);
	util_free(m->under);
	if (m->checked)
		sema_free(&m->prog);
	for (size_t i = 0; i < m->nfiles; i++)
		util_free(m->files[i].name);
	util_free(m->files);
	util_free(m->vars);
	util_free(m->path);
	util_free(m->prefix);
	source_free(m->quant_src);
	util_free(m->quant_text);
	util_free(m->graph_text);
	source_free(m->stdlib_src);
	for (size_t i = 0; i < m->ndecl; i++)
		source_free(m->decl_src[i]);
	for (size_t i = 0; i < m->nreg; i++)
		source_free(m->reg_src[i]);
	util_free(m->reg_src);
	util_free(m->decl_src);
	util_free(m->decl_docs);
	diag_list_free(&m->diags);
	intern_free(&m->interner);
	arena_free(&m->arena);
	arena_free(&m->names);
	arena_free(&m->syntax);
	source_free(m->graph_src);
	memset(m, 0, sizeof(*m));
}

/* ---- models inside the model (tract_core_submodel) -------------------------- */

/* Copies d into to, with a note saying which model it is of. */
static void copy_diag(DiagList *to, const Diag *d, const char *label, Loc at)
{
	Diag *c = diag_add_level(to, d->level, d->code, d->loc, "%s", d->msg);
	if (!c)
		return;
	if (d->hint)
		diag_hint(to, c, "%s", d->hint);
	if (d->path)
		diag_set_path(to, c, d->path);
	for (size_t i = 0; i < d->nnotes; i++) {
		diag_note(to, c, d->notes[i].loc, d->notes[i].show_source, "%s", d->notes[i].msg);
		c->notes[c->nnotes - 1].at = d->notes[i].at;
	}
	diag_note(to, c, at, false, "in the model '%s' inside this one, which tract_core_submodel runs here", label);
}

/* Reads and checks the model inside m in folder label (once). */
static Model *check_submodel(Model *m, size_t k, Loc at)
{
	if (m->subs[k])
		return m->subs[k];
	Model *s = util_try_aligned(sizeof(*s), _Alignof(Model)); /* its
								     DiagList is aligned */
	if (!s)
		util_oom();
	m->subs[k] = s;
	model_init(s, m->opt);
	s->path = util_strdup(m->path);
	StrBuf under;
	sb_init(&under);
	sb_puts(&under, m->under ? m->under : "");
	if (m->prefix && *m->prefix)
		sb_printf(&under, "%s/", m->prefix);
	sb_puts(&under, m->sublabels[k]);
	sb_putc(&under, '/');
	s->under = util_strdup(sb_str(&under));
	sb_free(&under);
	Container *c = cont_open(m->path, &m->limits, &s->diags);
	if (c)
		cont_mute_skips(c); /* the model's own reading said it */
	ModelStatus st = c ? read_container(s, c) : read_failure(s);
	if (c)
		cont_close(c);
	if (st == MODEL_VALID)
		check_graph(s, m->opt);
	diag_sort(&s->diags);
	for (size_t i = 0; i < s->diags.len; i++)
		copy_diag(&m->diags, s->diags.items[i], m->sublabels[k], at);
	return s;
}

/* FlattenOptions.submodel of a model with a container. */
static const FlatGraph *submodel(void *ctx, const char *label, size_t len,
				 Loc at, bool *invalid)
{
	Model *m = ctx;
	*invalid = false;
	for (size_t k = 0; k < m->nsubs; k++) {
		if (strlen(m->sublabels[k]) != len || memcmp(m->sublabels[k], label, len) != 0)
			continue;
		Model *s = check_submodel(m, k, at);
		*invalid = s->status != MODEL_VALID || !s->flat;
		return *invalid ? NULL : s->flat;
	}
	return NULL;
}

/* ---- reading the data again (the interpreter) ----------------------------- */

typedef struct Reread {
	const Model *m;
	const char *under;     /* a model inside: the folder of its members */
	PtrMap byname;         /* interned member name -> ModelFile * */
	Interner interner;
	size_t skip;           /* length of the top folder and its '/' */
	bool (*visit)(void *ctx, const ModelFile *f, Container *c);
	void *ctx;
} Reread;

static bool reread_member(void *ctx, Container *c, const ContMember *mem)
{
	Reread *r = ctx;
	if (strlen(mem->name) < r->skip ||
	    (r->under && strncmp(mem->name, r->under, r->skip) != 0))
		return true;
	const char *name = intern_cstr(&r->interner, mem->name + r->skip);
	bool found;
	const ModelFile *f = pmap_get(&r->byname, name, &found);
	return !f || r->visit(r->ctx, f, c);
}

bool model_read_files(const Model *m,
		      bool (*on_file)(void *ctx, const ModelFile *f, Container *c),
		      void *ctx, DiagList *diags)
{
	if (m->kind == CONT_FILE || !m->path)
		return true;
	Container *c = cont_open(m->path, &m->limits, diags);
	if (!c)
		return false;
	cont_mute_skips(c); /* the model's first reading said it */
	Arena arena;
	arena_init(&arena);
	Reread r = { .m = m, .visit = on_file, .ctx = ctx, .under = m->under };
	intern_init(&r.interner, &arena);
	pmap_init(&r.byname);
	for (size_t i = 0; i < m->nfiles; i++)
		pmap_put(&r.byname, intern_cstr(&r.interner, m->files[i].name),
			 &m->files[i]);
	r.skip = m->under ? strlen(m->under)
			  : m->prefix && *m->prefix ? strlen(m->prefix) + 1 : 0;
	bool ok = cont_scan(c, reread_member, &r);
	cont_close(c);
	pmap_free(&r.byname);
	intern_free(&r.interner);
	arena_free(&arena);
	return ok;
}

const ModelVar *model_variable(const Model *m, const FlatOp *op)
{
	return op->var && op->var <= m->nvars ? &m->vars[op->var - 1] : NULL;
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

/* ---- fragments flattened for the interpreter (tract_core_scan) ---------------- */

FlatGraph *model_flatten_fragment(const Model *m, const SemaFrag *f,
				  const FlatParam *params, Loc at,
				  Arena *arena, DiagList *diags)
{
	FlattenOptions fo;
	memset(&fo, 0, sizeof(fo));
	fo.max_depth = FLATTEN_DEFAULT_MAX_DEPTH;
	fo.lenient = m->lenient;
	if (m->dialect == DIALECT_TRACT) {
		fo.var_datum = model_var_datum;
		fo.model_ctx = (void *)m;
	}
	/* interning the body's names adds to the model's table of names,
	 * which is a cache of the model, not what it says */
	Model *mm = (Model *)m;
	return flatten_fragment(&m->prog, arena, &mm->interner, diags, &fo, f,
				params, at);
}

const Model *model_submodel(const Model *m, const char *label, size_t len)
{
	for (size_t k = 0; k < m->nsubs; k++)
		if (m->subs[k] && strlen(m->sublabels[k]) == len &&
		    memcmp(m->sublabels[k], label, len) == 0)
			return m->subs[k];
	return NULL;
}

const SemaFrag *model_fragment(const Model *m, const char *name, size_t len)
{
	Model *mm = (Model *)m; /* the table of names: a cache */
	return sema_lookup(&m->prog, intern_bytes(&mm->interner, name, len));
}
