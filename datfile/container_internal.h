/*
 * container_internal.h - the state of an open container, shared by the
 * container API and directories (container.c) and the tar reader
 * (tar.c). Only these files include zlib or libtar.
 */
#ifndef NNEF_CONTAINER_INTERNAL_H
#define NNEF_CONTAINER_INTERNAL_H

#include "datfile/datfile.h"

#include <stdio.h>

typedef bool (*ContVisit)(void *ctx, Container *c, const ContMember *m);

struct Container {
	ContKind kind;
	char *path;
	ContLimits lim;
	DiagList *diags;
	bool failed;            /* an error has been reported */
	/* AppleDouble members skipped (W0009 at the end of the scan), and
	 * the first one's name */
	uint64_t apple_double;
	char *first_apple_double;
	bool mute_skips;        /* cont_mute_skips: no W0009 */
	/* the current member */
	const ContMember *cur;
	uint64_t left;          /* bytes of its data not read yet */
	FILE *fp;               /* a directory's or bare file's member */
	int fd;                 /* the file until the archive reader has it */
	/* archives (tar.c) */
	struct TarState *tar;
	UtilCleanup cl;         /* closes all that when an allocation fails */
};

/* Reports a problem of the container: "path: message". Returns false. */
bool cont_fail(Container *c, DiagCode code, const char *fmt, ...)
	UTIL_PRINTF(3, 4);

/* Whether member name (normalized) is macOS's metadata of a file, an
 * AppleDouble file ('._' then the file's name, which macOS's tar and
 * copies to other file systems add): counted, to be skipped unread. */
bool cont_skip_apple_double(Container *c, const char *name);

/* Validates and normalizes an archive member name in place (strips
 * "./" parts and a trailing '/'); false after reporting why it is
 * refused. */
bool cont_check_name(Container *c, char *name);

/* tar.c */
bool cont_tar_open_stream(Container *c, int fd, bool gzip);
bool cont_tar_scan(Container *c, ContVisit visit, void *ctx);
long cont_tar_read(Container *c, void *buf, size_t n);
void cont_tar_close_stream(Container *c);
/* Closes the archive's files, frees nothing (what util_oom runs). */
void cont_tar_release_stream(Container *c);

#endif
