/*
 * bundle.c - nnef_bundle: NumPy .npz bundles (a zip archive of NAME.npy
 * arrays) read in place and written whole, through datfile/npz.c.
 *
 * A bundle remembers its path, limits and array names; each array read
 * opens the archive again (its directory checked again), so that a
 * bundle holds no file and no state between calls.
 */
#include "api/api_internal.h"

#include <stdlib.h>
#include <string.h>

static ContLimits limits_of(const nnef_options *o)
{
	ContLimits lim = { 0, 0, 0 };
	if (o) {
		lim.max_bytes = o->max_archive_bytes;
		lim.max_member = o->max_member_bytes;
		lim.max_members = o->max_members;
	}
	return lim;
}

void nnef_bundle_free(nnef_bundle *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		free(b->names[i]);
		free(b->members[i]);
	}
	free(b->names);
	free(b->members);
	free(b->path);
	free(b);
}

typedef struct Opening {
	const char *path;
	nnef_diags *ds;
	nnef_bundle *b;
	bool ok;
} Opening;

/* Lists the arrays of the archive into o->b (malloc'd copies). */
static void open_bundle(void *arg)
{
	Opening *o = arg;
	nnef_bundle *b = o->b;
	NpzFile *z = npz_open(o->path, &b->lim, o->ds->dl);
	if (!z)
		return;
	size_t n = npz_count(z);
	b->names = calloc(n ? n : 1, sizeof(char *));
	b->members = calloc(n ? n : 1, sizeof(char *));
	o->ok = b->names && b->members;
	for (size_t i = 0; o->ok && i < n; i++) {
		b->names[i] = strdup(npz_name(z, i));
		b->members[i] = strdup(npz_member(z, i));
		b->n = i + 1;
		o->ok = b->names[i] && b->members[i];
	}
	npz_close(z);
	if (!o->ok)
		util_oom();
}

nnef_bundle *nnef_bundle_open(const char *path, const nnef_options *o,
			      nnef_diags *ds)
{
	nnef_bundle *b = calloc(1, sizeof(*b));
	if (!b || !(b->path = strdup(path))) {
		free(b);
		api_out_of_memory(ds, "opening a bundle");
		return NULL;
	}
	b->lim = limits_of(o);
	Opening op = { path, ds, b, false };
	if (!api_in_temp_heap(open_bundle, &op))
		api_out_of_memory(ds, "opening a bundle");
	if (!op.ok) {
		nnef_bundle_free(b);
		return NULL;
	}
	return b;
}

size_t nnef_bundle_count(const nnef_bundle *b)
{
	return b->n;
}

const char *nnef_bundle_name(const nnef_bundle *b, size_t i)
{
	return i < b->n ? b->names[i] : NULL;
}

bool nnef_bundle_find(const nnef_bundle *b, const char *name, size_t *i)
{
	for (size_t k = 0; k < b->n; k++)
		if (strcmp(b->names[k], name) == 0) {
			*i = k;
			return true;
		}
	return false;
}

nnef_tensor *api_bundle_read(const nnef_bundle *b, size_t i, nnef_diags *ds,
			     UtilCleanup *tcl)
{
	NpzFile *z = npz_open(b->path, &b->lim, ds->dl);
	size_t k = 0;
	nnef_tensor *t = NULL;
	if (z && !npz_find(z, b->names[i], &k))
		diag_add(ds->dl, DIAG_E1412, loc_make(NULL, 0, 0), "'%s' no longer holds the array '%s'", b->path, b->names[i]);
	else if (z && npz_select(z, k))
		t = api_read_npy(npz_read, z, npz_size(z, k), npz_member(z, k), ds, tcl);
	npz_close(z);
	return t;
}

typedef struct Missing {
	const nnef_bundle *b;
	const char *name;
	nnef_diags *ds;
} Missing;

static void say_missing(void *arg)
{
	Missing *m = arg;
	Diag *d = diag_add(m->ds->dl, DIAG_E1412, loc_make(NULL, 0, 0), "'%s' has no array '%s'", m->b->path, m->name);
	StrBuf list;
	sb_init(&list);
	for (size_t i = 0; i < m->b->n && i < 8; i++)
		sb_printf(&list, "%s'%s'", i ? ", " : "", m->b->names[i]);
	if (m->b->n > 8)
		sb_puts(&list, ", ...");
	if (m->b->n)
		diag_hint(m->ds->dl, d, "its arrays: %s", sb_str(&list));
	else
		diag_hint(m->ds->dl, d, "it holds no arrays");
	sb_free(&list);
}

typedef struct Getting {
	const nnef_bundle *b;
	size_t i;
	nnef_diags *ds;
	nnef_tensor *t;
} Getting;

static void get_array(void *arg)
{
	Getting *g = arg;
	UtilCleanup tcl;
	g->t = api_bundle_read(g->b, g->i, g->ds, &tcl);
}

nnef_tensor *nnef_bundle_get(nnef_bundle *b, size_t i, nnef_diags *ds)
{
	if (i >= b->n)
		return NULL;
	Getting g = { b, i, ds, NULL };
	if (!api_in_temp_heap(get_array, &g)) { /* the tensor given back */
		api_out_of_memory(ds, "reading a bundle");
		return NULL;
	}
	return g.t;
}

nnef_tensor *nnef_bundle_read(nnef_bundle *b, const char *name,
			      nnef_diags *ds)
{
	size_t i;
	if (nnef_bundle_find(b, name, &i))
		return nnef_bundle_get(b, i, ds);
	Missing m = { b, name, ds };
	if (!api_in_temp_heap(say_missing, &m))
		api_out_of_memory(ds, "reading a bundle");
	return NULL;
}

/* ---- writing ------------------------------------------------------------------ */

bool api_write_npz(const char *path, const char *const *names,
		   StrBuf *images, size_t n, bool deflate, DiagList *dl)
{
	NpzMember *m = util_calloc(n ? n : 1, sizeof(*m));
	for (size_t i = 0; i < n; i++)
		m[i] = (NpzMember){ names[i], (const unsigned char *)images[i].data, images[i].len };
	bool ok = npz_write(path, m, n, deflate, dl);
	util_free(m);
	return ok;
}

typedef struct Writing {
	const char *path;
	const char *const *names;
	const nnef_tensor *const *tensors;
	size_t n;
	unsigned flags;
	nnef_diags *ds;
	bool ok;
} Writing;

static void write_bundle(void *arg)
{
	Writing *w = arg;
	StrBuf *images = util_calloc(w->n ? w->n : 1, sizeof(*images));
	bool ok = true;
	for (size_t i = 0; ok && i < w->n; i++) {
		ok = api_tensor_npy(w->tensors[i], w->flags, &images[i]);
		if (!ok)
			diag_add(w->ds->dl, DIAG_E1307, loc_make(NULL, 0, 0), "cannot write '%s': the array '%s' has more than 32 dimensions", w->path, w->names[i]);
	}
	w->ok = ok && api_write_npz(w->path, w->names, images, w->n, w->flags & NNEF_WRITE_DEFLATE, w->ds->dl);
	for (size_t i = 0; i < w->n; i++)
		sb_free(&images[i]);
	util_free(images);
}

bool nnef_bundle_write(const char *path, const char *const *names,
		       const nnef_tensor *const *tensors, size_t n,
		       unsigned flags, nnef_diags *ds)
{
	Writing w = { path, names, tensors, n, flags, ds, false };
	if (!api_in_temp_heap(write_bundle, &w)) { /* no temporary file is left */
		api_out_of_memory(ds, "writing a bundle");
		return false;
	}
	return w.ok;
}
