/*
 * testutil.c - helpers shared by the Check suites.
 */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void tdoc_parse(TestDoc *t, const char *text, ParseMode mode)
{
	memset(t, 0, sizeof(*t));
	arena_init(&t->arena);
	intern_init(&t->interner, &t->arena);
	diag_list_init(&t->diags, 100);
	t->src = source_from_memory("test.nnef", text, strlen(text));
	t->res = parse_document(t->src, mode, NULL, &t->arena, &t->interner,
				&t->diags);
	diag_sort(&t->diags);
	sb_init(&t->rendered);
	DiagRenderOpts o = { .color = false, .show_warnings = true,
			     .show_source = true };
	diag_render_all(&t->diags, &t->rendered, &o);
}

void tdoc_free(TestDoc *t)
{
	sb_free(&t->rendered);
	diag_list_free(&t->diags);
	intern_free(&t->interner);
	arena_free(&t->arena);
	source_free(t->src);
}

size_t tdoc_count(const TestDoc *t, DiagCode code)
{
	size_t n = 0;
	for (size_t i = 0; i < t->diags.len; i++)
		n += t->diags.items[i]->code == code;
	return n;
}

const Diag *tdoc_find(const TestDoc *t, DiagCode code)
{
	for (size_t i = 0; i < t->diags.len; i++)
		if (t->diags.items[i]->code == code)
			return t->diags.items[i];
	return NULL;
}

const char *tdoc_pos(const Diag *d)
{
	static char buf[32];
	unsigned line, col;
	source_linecol(d->loc.file, d->loc.off, &line, &col);
	snprintf(buf, sizeof(buf), "%u:%u", line, col);
	return buf;
}

const char *test_srcdir(void)
{
	static char buf[4096];
	const char *root = getenv("NNEF_SRCDIR");
	snprintf(buf, sizeof(buf), "%s/testsuite", root ? root : ".");
	return buf;
}

const char *test_corpus(void)
{
	const char *dir = getenv("NNEF_CORPUS");
	struct stat st;
	if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	return dir;
}

/* The tests added with TEST_ADD_CORPUS and TEST_ADD_CORPUS_PART. */
static size_t corpus_whole, corpus_part;

void test_count_corpus_test(bool whole)
{
	if (whole)
		corpus_whole++;
	else
		corpus_part++;
}

bool test_corpus_report(FILE *f, const char *lead)
{
	if (test_corpus() || corpus_whole + corpus_part == 0)
		return false;
	const char *dir = getenv("NNEF_CORPUS");
	/* CK_RUN_SUITE or CK_RUN_CASE: some of those counted may not be run */
	const char *upto = getenv("CK_RUN_SUITE") || getenv("CK_RUN_CASE") ? "up to " : "";
	if (dir && *dir)
		fprintf(f, "%scorpus not found at %s (set NNEF_CORPUS): ", lead, dir);
	else
		fprintf(f, "%scorpus not found (NNEF_CORPUS unset): ", lead);
	fprintf(f, "%s%zu corpus test%s not run, %s%zu run without the corpus\n",
		upto, corpus_whole, corpus_whole == 1 ? "" : "s", upto, corpus_part);
	return true;
}

char *test_read_source_file(const char *relpath)
{
	const char *root = getenv("NNEF_SRCDIR");
	StrBuf path;
	sb_init(&path);
	sb_printf(&path, "%s/%s", root ? root : ".", relpath);
	const char *err;
	SourceFile *f = source_read(sb_str(&path), &err);
	sb_free(&path);
	if (!f)
		return NULL;
	char *s = malloc(f->len + 1);
	memcpy(s, f->text, f->len);
	s[f->len] = '\0';
	source_free(f);
	return s;
}

size_t test_each_entry(const char *dir, const char *suffix,
		       bool (*fn)(const char *path, void *ctx), void *ctx,
		       size_t *bad)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t n = 0, sl = strlen(suffix);
	struct dirent *e;
	char path[4096];
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.')
			continue;
		if (strcmp(suffix, "/") == 0)
			snprintf(path, sizeof(path), "%s/%s/", dir, e->d_name);
		else if (len > sl && strcmp(e->d_name + len - sl, suffix) == 0)
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		else
			continue;
		n++;
		if (!fn(path, ctx))
			(*bad)++;
	}
	closedir(d);
	return n;
}

bool test_same_text(const char *what, const char *how, const char *name_a,
		    const StrBuf *a, const char *name_b, const StrBuf *b)
{
	if (a->len == b->len && memcmp(sb_str(a), sb_str(b), a->len) == 0)
		return true;
	size_t i = 0;
	while (i < a->len && i < b->len && sb_str(a)[i] == sb_str(b)[i])
		i++;
	size_t from = i > 100 ? i - 100 : 0;
	fprintf(stderr, "%s: %s differ at byte %zu:\n--- %s\n%.300s\n--- %s\n%.300s\n", what, how, i, name_a, sb_str(a) + from, name_b, sb_str(b) + from);
	return false;
}
