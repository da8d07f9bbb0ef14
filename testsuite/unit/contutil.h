/*
 * contutil.h - what the tests of the containers (check_container_*.c)
 * share: tar archives built byte by byte (ustar headers with their
 * checksums, octal and base-256 sizes, GNU long names, pax headers),
 * temporary files and folders, a scan recording every member and what
 * reading it gave, and the expectations on that record. contutil.c
 * defines them.
 */
#ifndef NNEF_CONTUTIL_H
#define NNEF_CONTUTIL_H

#include "datfile/datfile.h"
#include "testutil.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { BLK = 512 };

typedef struct Bytes {
	unsigned char *p;
	size_t len, cap;
} Bytes;


/* Appends n bytes of src (NULL: zeros). */
void bytes_put(Bytes *b, const void *src, size_t n);
void bytes_free(Bytes *b);
/* 1 MiB of deterministic, incompressible bytes (xorshift). */
const unsigned char *pat(void);
/* A small valid graph.nnef with one variable, 'conv1/filter'. */
extern const char GRAPH[];

/* ---- tar headers ---------------------------------------------------------------- */

typedef enum SizeForm { SIZE_OCTAL, SIZE_BASE256, SIZE_RAW } SizeForm;

typedef struct Hdr {
	const char *name;      /* into the 100-byte field (no NUL when full) */
	const char *prefix;    /* ustar prefix, or NULL */
	const char *linkname;  /* or NULL */
	char type;             /* typeflag; 0 stands for '0' */
	uint64_t size;
	SizeForm form;
	const unsigned char *raw; /* SIZE_RAW: the 12 bytes of the size field */
	const char *mtime;     /* the 12 bytes of mtime, or NULL */
	bool v7;               /* no "ustar" magic */
	int sum_delta;         /* added to the stored checksum */
} Hdr;

/* digits octal digits of v, then a NUL. */
void put_octal(unsigned char *f, size_t digits, uint64_t v);
/* One 512-byte header block, its checksum computed (then sum_delta added). */
void put_header(Bytes *b, const Hdr *h);
/* Data then zeros up to the next block. */
void put_data(Bytes *b, const void *data, size_t n);
/* A regular file member: its header and data. */
void put_file(Bytes *b, const char *name, const void *data, size_t n);
/* A folder entry ('5'). */
void put_dir(Bytes *b, const char *name);
/* The two zero blocks that end an archive. */
void put_end(Bytes *b);
/* A GNU long name ('L') or long link ('K') entry: n bytes of name, and a
 * NUL counted in the size when nul is true. */
void put_long(Bytes *b, char type, const char *name, size_t n, bool nul);
/* One pax record "LEN key=value\n", LEN counting itself. */
void pax_record(Bytes *rec, const char *key, const char *val, size_t vlen);
/* A pax extended header ('x', or 'g' for a global one) holding records. */
void put_pax(Bytes *b, char type, const void *records, size_t n);
/* A small model: graph.nnef, a label folder, .dat files (one empty, one
 * with ".." inside a name part); the end blocks when end is true. */
void model_tar(Bytes *b, bool end);

/* Members around the 256 KiB stream buffer, and one bigger than it (a
 * plain tar skips it by seeking), then the end blocks. */
void big_members(Bytes *b);

/* ---- files ---------------------------------------------------------------------- */

/* The gzip (zlib's gzwrite) of in. */
void gzip_of(const Bytes *in, Bytes *out);
/* A new temporary folder (free the path; remove it with remove_tree). */
char *make_temp_dir(void);
/* dir/rel made as a file holding data[0..n), a folder, a symbolic link. */
void file_at(const char *dir, const char *rel, const void *data, size_t n);
void dir_at(const char *dir, const char *rel);
void link_at(const char *dir, const char *rel, const char *target);
/* rm -r, never following links. */
void remove_tree(const char *path);
/* The unchecked fixture of every container test case: a folder for the
 * case's temporary files, made and removed by the parent process. */
void root_setup(void);
void root_teardown(void);

/* ---- scanning ------------------------------------------------------------------- */

typedef enum ReadMode { READ_ALL, READ_NONE, READ_SOME } ReadMode;

typedef struct Member {
	char *name;
	ContMemberType type;
	uint64_t size;
	Bytes data;   /* what cont_read gave */
	long last;    /* the last cont_read result (1 before any) */
} Member;

typedef struct Run {
	/* what to do */
	ContLimits lim;
	ReadMode mode;
	size_t chunk;       /* bytes per cont_read (0: 4096) */
	size_t some;        /* READ_SOME: bytes read before the rest is skipped */
	size_t stop_after;  /* visit returns false after this many (0: never) */
	/* what happened */
	bool opened;
	ContKind kind;
	bool ok;            /* cont_scan's result */
	Member *m;
	size_t n;
	DiagList diags;
	double seconds;     /* open, scan and close */
	long vm_growth_kb;  /* growth of VmPeak over the same; -1 unknown */
} Run;
/* Opens path with r->lim, scans it as r says (recording each member) and
 * closes it, timing the whole. */
void run_path(Run *r, const char *path);
/* Writes the archive (gzip-compressed when gz), opens and scans it. */
void run_bytes(Run *r, const void *data, size_t n, bool gz);
void run_free(Run *r);

/* ---- expectations --------------------------------------------------------------- */

/* Every diagnostic, for failure messages (static buffer). */
const char *diags_text(const Run *r);
/* Case-insensitive search of one of the '|'-separated words. */
bool has_word(const char *msg, const char *words);
/* A clean success listing n members. */
void expect_ok(const Run *r, ContKind kind, size_t n);
/* A clean refusal: an error with this code whose message holds one of
 * the words (and the archive's name, which every message carries). */
void expect_fail(const Run *r, DiagCode code, const char *words);
/* Member i is named name, of this type and size. */
void expect_member(const Run *r, size_t i, const char *name,
		   ContMemberType type, uint64_t size);
/* The data read back is exactly data[0..n), and reading ended with 0. */
void expect_data(const Run *r, size_t i, const void *data, size_t n);
/* A link or special member: its data never given. */
void expect_no_data(const Run *r, size_t i);
/* Scans one archive built in memory and expects a refusal. */
void refuse_bytes(const Bytes *b, bool gz, ReadMode mode, DiagCode code,
		  const char *words);

#endif
