/*
 * datfile.h - storing network data (spec chapter 5): the tensor file codec
 * (5.2, with the vendor item types of Sonos' tract), NumPy's .npy files
 * and .npz bundles, the containers a model arrives in (5.1: a directory,
 * a .tar, a gzip-compressed .tar, or a bare graph file), and the names of
 * data files.
 *
 * Nothing outside this module sees libtar, libzip or zlib. Problems become
 * diagnostics without a source position; their messages name the file
 * or the member (and, in a .npy header, the byte).
 */
#ifndef NNEF_DATFILE_H
#define NNEF_DATFILE_H

#include "util/diag.h"

/* ---- tensor files (spec 5.2) ------------------------------------------- */

#define DAT_HEADER_SIZE 128
#define DAT_OLD_HEADER_SIZE 132 /* an old NNEF-Tools bug wrote 4 more */
/* The file_size to give dat_read_header and npy_read_header when it is
 * not known yet (a stream read as it comes): the sizes the header
 * declares are checked against each other, not against the file's, and
 * a .dat header is taken as 128 bytes. */
#define DAT_SIZE_UNKNOWN UINT64_MAX
#define DAT_MAX_RANK 8

/* The item types of spec 5.2: the 1.0.3+ codes (vendor 0, type 0-5) and
 * the 1.0.2 codes that differ (0x10, 0x11). */
typedef enum DatItemType {
	DAT_FLOAT,   /* 0: IEEE float of 16, 32 or 64 bits */
	DAT_UINT,    /* 1: unsigned integer (1.0.2: 0x01 with params[0] == 0) */
	DAT_QUINT,   /* 2: quantized unsigned integer (parameters in
			graph.quant) */
	DAT_QSINT,   /* 3: quantized signed integer */
	DAT_SINT,    /* 4: signed integer (1.0.2: 0x01, params[0] != 0) */
	DAT_LOGICAL, /* 5: bool, 1 or 8 bits */
	DAT_LINEAR,  /* 0x10 (1.0.2): linear quantization; qmin, qmax */
	DAT_LOG,     /* 0x11 (1.0.2): logarithmic quantization; qmin, qmax */
	DAT_VENDOR,  /* a vendor's code (vendor != 0): tract's (DatTract),
			or another vendor's, not decoded */
} DatItemType;

/* tract's vendor code: 'T' << 8 | 'R', stored little-endian at offset 50
 * as the bytes 0x52 0x54 ("RT"). */
#define DAT_TRACT_VENDOR 0x5452u

/* The item types of tract's vendor code (tract's nnef/src/tensors.rs),
 * for a DAT_VENDOR header; tract.c draws their data. */
typedef enum DatTract {
	DAT_TR_NONE,       /* not one of tract's codes */
	DAT_TR_STRING,     /* 0x1000, bits 0xFFFF or 0xFFFFFFFF: strings,
			      each a 4-byte length and its UTF-8 bytes */
	DAT_TR_Q40,        /* 0x2040, bits 0xFFFFFFFF: Q4_0 blocks, tract's
			      nibble order */
	DAT_TR_Q40_GGML,   /* 0x3040, bits 0xFFFFFFFF: Q4_0 blocks, GGML's
			      nibble order */
	DAT_TR_COMPLEX_F,  /* 0x0000, bits 32, 64, 128: complex numbers of
			      two floats (tract's feature "complex") */
	DAT_TR_COMPLEX_I,  /* 0x0004, bits 32, 64, 128: of two signed
			      integers */
} DatTract;

/* Q4_0: 32 items a block, 18 bytes a block (tract_items.c). */
#define DAT_Q40_ITEMS 32
#define DAT_Q40_BYTES 18

typedef struct DatHeader {
	uint8_t major, minor;    /* version */
	uint32_t data_length;    /* bytes of data after the header */
	uint32_t rank;
	uint32_t extents[DAT_MAX_RANK];
	uint32_t bits;           /* bits per item */
	uint32_t code;           /* the 4-byte item-type code as stored */
	DatItemType type;
	float qmin, qmax;        /* DAT_LINEAR, DAT_LOG */
	uint8_t params[32];      /* as stored (deprecated since 1.0.4) */
	uint32_t header_size;    /* 128, or 132 (old NNEF-Tools files) */
	DatTract tract;          /* DAT_VENDOR of vendor 'TR': which type */
	DType dtype;             /* the datum type tract gives the items
				    (util/dtypes.def); DT_NONE when they are
				    not decoded (complex, other vendors) */
} DatHeader;

/* The name of an item type for messages and tables ("float32",
 * "int8", "uint4", "qint8", "quint8", "bool1", "linear8", tract's
 * "string", "q4_0", "q4_0_ggml", "complex_f32", ..., "vendor 0x..."). */
const char *dat_type_name(const DatHeader *h, char buf[32]);
/* Whether dat_decode gives the items: every Khronos type, and tract's
 * Q4_0 (as reals); not strings, complex numbers or other vendors' types. */
bool dat_decodable(const DatHeader *h);
/* The number of items (the volume of the extents); false if it does not
 * fit in 64 bits. */
bool dat_items(const DatHeader *h, uint64_t *out);
/* The size of the packed data for n items of h's width (Q4_0: the whole
 * blocks that hold them); false if it does not fit in 64 bits, or for
 * strings (their size is in their data). */
bool dat_packed_size(const DatHeader *h, uint64_t n, uint64_t *out);

/* Reads and validates the header in bytes[0..n) (132 bytes, or all the
 * file has, so that the 4 extra bytes of an old header can be seen) of a
 * file of file_size bytes, named `name` in messages. Every problem is a diagnostic: errors make the header
 * unusable; a header of the 132-byte kind is an error, or with lenient a
 * warning and read at its true size. Returns false after an error. */
bool dat_read_header(const unsigned char *bytes, size_t n, uint64_t file_size,
		     const char *name, bool lenient, DatHeader *h,
		     DiagList *diags);

/* Fills a header for a tensor of the given type, bits and shape (the
 * data length computed); false when the combination is invalid. */
bool dat_make_header(DatHeader *h, DatItemType type, uint32_t bits,
		     const uint32_t *extents, uint32_t rank);
/* Writes h as the 128 bytes of a header. */
void dat_write_header(const DatHeader *h, unsigned char out[DAT_HEADER_SIZE]);

/* Items as values: a float type as double; an integer (or the code of a
 * quantized type) as int64_t (signed) or uint64_t (unsigned); a logical
 * as 0 or 1. Quantized types decode to their integer codes, except
 * DAT_LINEAR and DAT_LOG, which dat_decode_real maps to reals; tract's
 * Q4_0 items decode to their reals, (q - 8) d (f). */
typedef union DatItem {
	double f;
	int64_t i;
	uint64_t u;
} DatItem;

/* Decodes items [first, first + n) of the packed data (which must hold
 * them); see DatItem for the value of each type. Only where
 * dat_decodable. */
void dat_decode(const DatHeader *h, const unsigned char *data, uint64_t first,
		size_t n, DatItem *out);
/* Encodes n items at index first into data (which must be large enough;
 * bytes shared with neighbouring items are preserved). Integers keep
 * their low `bits` bits: the caller makes sure they are in range. Not for
 * DAT_VENDOR. */
void dat_encode(const DatHeader *h, unsigned char *data, uint64_t first,
		size_t n, const DatItem *in);
/* The real value an item stands for: floats as they are, integers and
 * logicals converted, DAT_LINEAR and DAT_LOG dequantized with qmin/qmax
 * (spec 5.2); quantized types 2 and 3 give their integer code (their
 * parameters live in graph.quant). */
double dat_real(const DatHeader *h, DatItem v);
/* Where dat_read_items puts the items it decodes: reals (dat_real) as
 * float or double, integers as int64_t (unsigned ones reinterpreted),
 * logicals as uint8_t 0 or 1. */
typedef enum DatInto {
	DAT_INTO_F32,
	DAT_INTO_F64,
	DAT_INTO_I64,
	DAT_INTO_BOOL,
} DatInto;

/* Reads the packed data of h (its bytes after the header) for count
 * items from rd, which returns how many bytes it gave (<= 0: the data
 * ended), and decodes them into out as `into` says. With map, each real
 * item i becomes map(map_ctx, i, x) (graph.quant's codes decoded). Only
 * where dat_decodable. Returns false when the data ended too soon. */
bool dat_read_items(const DatHeader *h, DatInto into, void *out, size_t count,
		    long (*rd)(void *ctx, void *buf, size_t n), void *rd_ctx,
		    double (*map)(void *ctx, size_t i, double x), void *map_ctx);
/* IEEE 754 binary16: the exact value of a half, and the half nearest to
 * d (ties to even). */
double dat_half_to_double(uint16_t h);
uint16_t dat_double_to_half(double d);

/* The data of a tract string tensor, checked as it is read (in chunks of
 * any size): each item a 4-byte little-endian length and that many bytes
 * of UTF-8, the items filling the data exactly (E1016). */
typedef struct DatStrings {
	uint64_t total;        /* strings of the tensor */
	uint64_t begun;        /* strings begun (the current one is the last) */
	uint64_t offset;       /* bytes of data seen */
	uint64_t left;         /* bytes of the current string to come */
	uint32_t len;          /* its length, as read so far */
	unsigned nlen;         /* bytes of its length read (4: complete) */
	unsigned cont;         /* UTF-8 continuation bytes still expected */
	unsigned char lo, hi;  /* the range of the next continuation byte */
	bool failed;
} DatStrings;
void dat_strings_begin(DatStrings *s, const DatHeader *h);
/* The next n bytes of data; false after reporting a problem (name: the
 * file, in the message). */
bool dat_strings_feed(DatStrings *s, const unsigned char *p, size_t n,
		      const char *name, DiagList *diags);
/* The end of the data: false after reporting that strings are missing. */
bool dat_strings_end(DatStrings *s, const char *name, DiagList *diags);

/* Items [first, first + n) of a tensor being written, into out. */
typedef void (*DatItemsFn)(void *ctx, uint64_t first, size_t n, DatItem *out);
/* Writes the tensor file path: header h, then its items as get gives
 * them, through a temporary file renamed when complete (on failure,
 * E1307 in diags and nothing left behind). */
bool dat_write_file(const char *path, const DatHeader *h, DatItemsFn get,
		    void *ctx, DiagList *diags);
/* Writes len bytes to path the same way (any file: a flat document). */
bool dat_write_bytes(const char *path, const void *data, size_t len,
		     DiagList *diags);
/* The file writing to path replaces: path, or through symbolic links (at
 * most 40) the file they lead to (util_malloc'd). */
char *dat_final_path(const char *path);

/* ---- NumPy arrays (.npy, npy.c) ------------------------------------------- */

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_PREAMBLE 12        /* bytes that give the header's size */
#define NPY_MAX_RANK 32        /* NumPy's own bound (NPY_MAXDIMS) */
#define NPY_MAX_HEADER 65536   /* header text nnefkit reads at most */

/* The header of a .npy file (versions 1.0, 2.0, 3.0): the data types
 * nnefkit reads, in C order, either byte order. */
typedef struct NpyHeader {
	uint8_t major, minor;    /* format version */
	uint64_t data_offset;    /* magic, version, length and header text */
	char descr[4];           /* "<f4", "|b1", ... */
	DType dtype;             /* BOOL, U8 to U64, I8 to I64, F16 to F64 */
	unsigned item_bytes;     /* 1, 2, 4 or 8 */
	bool big_endian;
	uint32_t rank;           /* 0 to NPY_MAX_RANK */
	uint64_t extents[NPY_MAX_RANK];
	uint64_t items;          /* the volume of the extents (0 possible) */
	uint64_t data_bytes;     /* items times item_bytes */
} NpyHeader;

/* Whether bytes[0..n) start with the .npy magic. */
bool npy_is_npy(const unsigned char *bytes, size_t n);
/* The size of the preamble and header text (h->data_offset to be) from
 * the first NPY_PREAMBLE bytes of a file (or all it has): false after
 * E1401 (not a .npy), E1402 (version) or E1403 (a header too long). */
bool npy_header_size(const unsigned char *bytes, size_t n, const char *name,
		     uint64_t *size, DiagList *diags);
/* Reads and validates the header in bytes[0..n) (n the size
 * npy_header_size gave) of a file of file_size bytes, named `name` in
 * messages: the header text (E1403, at its byte), its keys and values
 * (E1404), the data type (E1405), C order (E1406), and the file size
 * against shape and type (E1407). Returns false after an error. */
bool npy_read_header(const unsigned char *bytes, size_t n, uint64_t file_size,
		     const char *name, NpyHeader *h, DiagList *diags);
/* The type's name as nnef-datinfo shows it, in .dat terms: "float32",
 * "int64", "uint8", "bool8". */
const char *npy_type_name(const NpyHeader *h);
/* Decodes n items of the data at p (items of h): floats to .f, signed to
 * .i, unsigned to .u, bools to .u as 0 or 1. */
void npy_decode(const NpyHeader *h, const unsigned char *p, size_t n,
		DatItem *out);
/* The real value of an item npy_decode gave. */
double npy_real(const NpyHeader *h, DatItem v);

/* Fills h for a little-endian array of dtype (BOOL, U8 to U64, I8 to
 * I64, F16 to F64) and shape; false for another type or rank. */
bool npy_make_header(NpyHeader *h, DType dtype, const uint64_t *extents,
		     uint32_t rank);
/* Appends the preamble and header text of h (version 1.0, 2.0 when the
 * text needs more than 65535 bytes), padded to a multiple of 64 bytes
 * with spaces and a newline, as NumPy writes it; sets h->data_offset. */
void npy_write_header(NpyHeader *h, StrBuf *out);
/* Encodes n items into out (n times item_bytes). */
void npy_encode(const NpyHeader *h, const DatItem *in, size_t n,
		unsigned char *out);

/* Where the bytes of a .npy come from (a file, a member of a .npz): up to
 * n bytes, 0 at the end, -1 after reporting an error. */
typedef long (*NpyReadFn)(void *ctx, void *buf, size_t n);
/* Reads a .npy's header from rd (size bytes in all): false after an
 * error. rd is left at the data. */
bool npy_read_stream(NpyReadFn rd, void *ctx, uint64_t size, const char *name,
		     NpyHeader *h, DiagList *diags);
/* Reads the data after npy_read_stream in chunks of items, giving each to
 * put (first: the index of its first item), then asks for one byte more,
 * which must not come (a .npz member's CRC is checked at its end); false
 * after an error (reported: E1407 for data cut short or going on). */
typedef void (*NpyPutFn)(void *ctx, uint64_t first, size_t n,
			 const DatItem *items);
bool npy_read_items(NpyReadFn rd, void *ctx, const NpyHeader *h,
		    const char *name, NpyPutFn put, void *pctx,
		    DiagList *diags);

/* ---- containers (spec 5.1) ------------------------------------------------- */

typedef enum ContKind {
	CONT_DIR,   /* a directory holding graph.nnef and label folders */
	CONT_TAR,   /* a plain tar archive */
	CONT_TGZ,   /* a gzip-compressed tar archive (known by its magic) */
	CONT_FILE,  /* a bare graph file: one member, graph.nnef */
} ContKind;

typedef enum ContMemberType {
	MEMBER_FILE,   /* a regular file */
	MEMBER_LINK,   /* a symbolic or hard link: never followed */
	MEMBER_OTHER,  /* a device, a fifo...: never read */
} ContMemberType;

typedef struct ContMember {
	const char *name;      /* relative, '/'-separated, without "./" */
	ContMemberType type;
	uint64_t size;         /* bytes of data (0 for links) */
} ContMember;

/* Bounds on what an archive may make the reader do; 0 takes the
 * default. */
typedef struct ContLimits {
	uint64_t max_bytes;    /* decompressed bytes in all (default 64 GiB) */
	uint64_t max_member;   /* bytes of one member (default 16 GiB) */
	uint64_t max_members;  /* entries (default 100000) */
} ContLimits;

#define CONT_DEFAULT_MAX_BYTES ((uint64_t)64 << 30)
#define CONT_DEFAULT_MAX_MEMBER ((uint64_t)16 << 30)
#define CONT_DEFAULT_MAX_MEMBERS 100000

typedef struct Container Container;

/* Opens the model at path: a directory, a tar or gzip-compressed tar
 * archive (recognized by its bytes, not its name), or a graph file.
 * Returns NULL after reporting why (E0001). */
Container *cont_open(const char *path, const ContLimits *limits,
		     DiagList *diags);
ContKind cont_kind(const Container *c);
const char *cont_path(const Container *c);

/* What the first n bytes at b are when they begin a compressed file or
 * an archive nnefkit does not read as a model ("a zip archive", "a
 * bzip2-compressed file (.bz2, .tbz2)", ...), by their magic bytes; NULL
 * when they begin none of these (a graph document, or something else to
 * be read as one). */
const char *cont_foreign_kind(const unsigned char *b, size_t n);

/* A scan of c says nothing of the macOS metadata files it skips (W0009):
 * for a second scan of a model, whose first said it. */
void cont_mute_skips(Container *c);

/* Calls visit for each member, in archive order (a directory's in name
 * order). Inside visit, cont_read reads the member's data; what it does
 * not read is skipped. visit returns false to stop. Returns false after
 * reporting a problem of the container (E0003-E0007): a corrupt or
 * truncated archive, a forbidden name, a limit reached. Member names
 * are validated: never absolute, never with "..". */
bool cont_scan(Container *c,
	       bool (*visit)(void *ctx, Container *c, const ContMember *m),
	       void *ctx);
/* Reads up to n bytes of the current member's data; returns the count,
 * 0 at its end (at once for links and special files), or -1 after
 * reporting an error. */
long cont_read(Container *c, void *buf, size_t n);
/* The current member's whole data mapped from its file (util_map_file:
 * followed by two NULs, pages read as they are used), *len its size; NULL
 * when it is not a whole regular file of a directory or the bare file
 * given, or cannot be mapped: then read it with cont_read. */
char *cont_map(Container *c, size_t *len);
void cont_close(Container *c);

/* ---- NumPy bundles (.npz, npz.c) --------------------------------------------- */

/* A .npz archive (a zip archive of NAME.npy members), read with libzip,
 * never extracted. */
typedef struct NpzFile NpzFile;

/* Whether bytes[0..n) start as a zip archive does. */
bool npz_is_zip(const unsigned char *bytes, size_t n);
/* Opens the .npz at path (a regular file) and checks its directory: the
 * member names (E1409: absolute or with '..'; E1410: twice), the limits
 * (E1411: members, a member's size, the sum of sizes, a compression ratio
 * deflate cannot give), stored or deflated members without encryption
 * (E1408); members that are not NAME.npy are left out (W1413). NULL after
 * reporting why (E0001: cannot read; E1408: not a zip archive, or
 * corrupt). */
NpzFile *npz_open(const char *path, const ContLimits *limits, DiagList *diags);
/* The same for an archive in memory (not copied: it must outlive the
 * NpzFile), named `name` in messages. */
NpzFile *npz_open_memory(const char *name, const void *data, size_t len,
			 const ContLimits *limits, DiagList *diags);
void npz_close(NpzFile *z);
/* The arrays, in archive order: their names (the member's without
 * ".npy"), "PATH/MEMBER" for messages, and their member's size. */
size_t npz_count(const NpzFile *z);
const char *npz_name(const NpzFile *z, size_t i);
const char *npz_member(const NpzFile *z, size_t i);
uint64_t npz_size(const NpzFile *z, size_t i);
/* The index of the array named name; false when there is none. */
bool npz_find(const NpzFile *z, const char *name, size_t *i);
/* Makes array i the one npz_read reads, from its start; false after
 * reporting why (E1408). */
bool npz_select(NpzFile *z, size_t i);
/* Reads up to n bytes of the selected array's member: the count, 0 at
 * its end (after checking that it ends where it declares and passes its
 * CRC), -1 after reporting an error (E1408). Fits NpyReadFn. */
long npz_read(void *z, void *buf, size_t n);

/* A member of an archive to write: NAME.npy with these bytes. */
typedef struct NpzMember {
	const char *name;            /* the array's name, without ".npy" */
	const unsigned char *data;   /* a whole .npy */
	size_t len;
} NpzMember;
/* Writes the .npz path (stored, or deflated members when deflate) through
 * a temporary file renamed when complete (E1307 on failure, nothing left
 * behind). */
bool npz_write(const char *path, const NpzMember *members, size_t n,
	       bool deflate, DiagList *diags);

#endif
