/*
 * datfile.h - storing network data (spec chapter 5): the tensor file codec
 * (5.2), the containers a model arrives in (5.1: a directory, a .tar, a
 * gzip-compressed .tar, or a bare graph file), and the names of data
 * files.
 *
 * Nothing outside this module sees libtar or zlib. Problems become
 * diagnostics without a source position; their messages name the file
 * or the member.
 */
#ifndef NNEF_DATFILE_H
#define NNEF_DATFILE_H

#include "util/diag.h"

/* ---- tensor files (spec 5.2) ------------------------------------------- */

#define DAT_HEADER_SIZE 128
#define DAT_OLD_HEADER_SIZE 132 /* an old NNEF-Tools bug wrote 4 more */
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
	DAT_VENDOR,  /* a vendor's code (vendor != 0): not decoded */
} DatItemType;

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
} DatHeader;

/* The name of an item type for messages and tables ("float32",
 * "int8", "uint4", "qint8", "quint8", "bool1", "linear8", "vendor 0x..."). */
const char *dat_type_name(const DatHeader *h, char buf[32]);
/* The number of items (the volume of the extents); false if it does not
 * fit in 64 bits. */
bool dat_items(const DatHeader *h, uint64_t *out);
/* The size of the packed data for n items of h's width; false if it
 * does not fit in 64 bits. */
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
 * DAT_LINEAR and DAT_LOG, which dat_decode_real maps to reals. */
typedef union DatItem {
	double f;
	int64_t i;
	uint64_t u;
} DatItem;

/* Decodes items [first, first + n) of the packed data (which must hold
 * them); see DatItem for the value of each type. Not for DAT_VENDOR. */
void dat_decode(const DatHeader *h, const unsigned char *data, uint64_t first,
		size_t n, DatItem *out);
/* Encodes n items at index first into data (which must be large enough;
 * bytes shared with neighbouring items are preserved). Integers keep
 * their low `bits` bits: the caller makes sure they are in range. */
void dat_encode(const DatHeader *h, unsigned char *data, uint64_t first,
		size_t n, const DatItem *in);
/* The real value an item stands for: floats as they are, integers and
 * logicals converted, DAT_LINEAR and DAT_LOG dequantized with qmin/qmax
 * (spec 5.2); quantized types 2 and 3 give their integer code (their
 * parameters live in graph.quant). */
double dat_real(const DatHeader *h, DatItem v);
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

/* ---- the quantization file (spec 5.3) ------------------------------------- */

typedef enum QuantValKind {
	QV_INT,     /* u.i */
	QV_REAL,    /* u.r */
	QV_BOOL,    /* u.b */
	QV_STRING,  /* u.str */
	QV_ARRAY,   /* u.list (1.0.5: per-channel values) */
} QuantValKind;

typedef struct QuantValue QuantValue;
struct QuantValue {
	QuantValKind kind;
	Loc loc;
	union {
		int64_t i;
		double r;
		bool b;
		struct {
			const char *s;
			size_t len;
		} str;
		struct {
			QuantValue **items;
			size_t n;
		} list;
	} u;
};

typedef struct QuantArg {
	const char *name;      /* interned */
	Loc loc;               /* the name */
	QuantValue *value;
} QuantArg;

/* "tensor": op(name = value, ...); */
typedef struct QuantEntry {
	const char *tensor;    /* the quoted name */
	Loc tensor_loc;
	const char *op;        /* interned */
	Loc op_loc;
	QuantArg *args;
	size_t nargs;
} QuantEntry;

typedef struct QuantFile {
	QuantEntry *entries;
	size_t n;
} QuantFile;

/* Parses graph.quant: each entry a quoted tensor name, ':', an operation
 * with named literal arguments (numbers, logicals, strings, arrays), ';'.
 * Errors are E1201 at their position; a broken entry is skipped to its
 * ';'. Everything lives in the arena. Returns false after an error. */
bool quant_parse(const SourceFile *f, Arena *arena, Interner *interner,
		 DiagList *diags, QuantFile *out);

#endif
