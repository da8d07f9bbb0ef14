/*
 * ast.h - the abstract syntax tree of an NNEF document (spec 3.2,
 * Appendix A.2). The parser builds it; every node carries a Loc. Nodes
 * live in the document's arena. Later stages annotate expressions through
 * the `type` and `u.inv.call` fields.
 */
#ifndef NNEF_AST_H
#define NNEF_AST_H

#include "util/util.h"

typedef struct AstExpr AstExpr;

/* The dialect of NNEF a document is read in: Khronos NNEF as its
 * specification defines it, or the dialect of Sonos' tract engine (and
 * torch-to-nnef), which tract itself defines (man nnef-tract(7)). */
typedef enum Dialect {
	DIALECT_KHRONOS,
	DIALECT_TRACT,
} Dialect;
typedef struct AstType AstType;

/* Filled in by semantic analysis (sema/). */
struct Type;
struct SemaCall;
struct SemaFrag;

/* Primitive type names, and '?' (spec 3.2.2 <type-name>). */
typedef enum AstTypeName {
	AST_TN_INTEGER,
	AST_TN_SCALAR,
	AST_TN_LOGICAL,
	AST_TN_STRING,
	AST_TN_GENERIC, /* '?' */
} AstTypeName;

typedef enum AstTypeKind {
	AST_TYPE_NAME,   /* name */
	AST_TYPE_TENSOR, /* has_item, name (tensor<> when !has_item) */
	AST_TYPE_ARRAY,  /* item */
	AST_TYPE_TUPLE,  /* items, nitems >= 2 */
} AstTypeKind;

/* <type-spec> */
struct AstType {
	AstTypeKind kind;
	Loc loc;
	AstTypeName name;  /* AST_TYPE_NAME; AST_TYPE_TENSOR when has_item */
	bool has_item;     /* AST_TYPE_TENSOR */
	AstType *item;     /* AST_TYPE_ARRAY */
	AstType **items;   /* AST_TYPE_TUPLE */
	size_t nitems;
	uint32_t depth;    /* 1 + depth of the deepest item type */
};

typedef enum AstExprKind {
	AST_IDENT,         /* u.ident */
	AST_INT,           /* u.ival */
	AST_REAL,          /* u.rval */
	AST_STRING,        /* u.str */
	AST_BOOL,          /* u.bval */
	AST_ARRAY,         /* u.list */
	AST_TUPLE,         /* u.list */
	AST_UNARY,         /* op, u.bin.a */
	AST_BINARY,        /* op, u.bin */
	AST_SUBSCRIPT,     /* u.sub */
	AST_IFELSE,        /* u.sel */
	AST_COMPREHENSION, /* u.comp */
	AST_BUILTIN,       /* u.bi */
	AST_INVOKE,        /* u.inv */
} AstExprKind;

typedef enum AstOp {
	AST_OP_PLUS,  /* unary + or binary + */
	AST_OP_MINUS, /* unary - or binary - */
	AST_OP_MUL,
	AST_OP_DIV,
	AST_OP_POW,
	AST_OP_LT,
	AST_OP_LE,
	AST_OP_GT,
	AST_OP_GE,
	AST_OP_EQ,
	AST_OP_NE,
	AST_OP_AND,
	AST_OP_OR,
	AST_OP_NOT,
	AST_OP_IN,
} AstOp;
enum { AST_NOPS = AST_OP_IN + 1 };

typedef enum AstBuiltin {
	AST_BI_SHAPE_OF,
	AST_BI_LENGTH_OF,
	AST_BI_RANGE_OF,
	AST_BI_INTEGER,
	AST_BI_SCALAR,
	AST_BI_LOGICAL,
	AST_BI_STRING,
} AstBuiltin;

/* One argument of an invocation: positional when name == NULL. */
typedef struct AstArg {
	const char *name;  /* interned; NULL for positional */
	Loc name_loc;
	AstExpr *value;
} AstArg;

/* <loop-iter> of a comprehension: name in expr. */
typedef struct AstIter {
	const char *name;
	Loc name_loc;
	AstExpr *iterable;
} AstIter;

/* An expression: a small header and one union member per kind. */
struct AstExpr {
	uint8_t kind;      /* AstExprKind */
	uint8_t op;        /* AstOp, for AST_UNARY and AST_BINARY; for
			      AST_INT, 1 marks the magnitude 2^63, which is
			      only valid negated (-9223372036854775808) */
	bool parens;       /* written inside ( ) (not for tuples) */
	uint32_t depth;    /* 1 + depth of the deepest child */
	Loc loc;           /* the whole expression, parentheses included */
	union {
		const char *ident;  /* AST_IDENT (interned) */
		int64_t ival;       /* AST_INT */
		double rval;        /* AST_REAL */
		bool bval;          /* AST_BOOL */
		struct {            /* AST_STRING: decoded text */
			const char *s;
			size_t len;
		} str;
		struct {            /* AST_ARRAY (n >= 0), AST_TUPLE (n >= 2) */
			AstExpr **items;
			size_t n;
		} list;
		struct {            /* AST_UNARY (a), AST_BINARY (a op b) */
			AstExpr *a, *b;
		} bin;
		struct {            /* AST_SUBSCRIPT: seq[index] or seq[begin:end] */
			AstExpr *seq;
			AstExpr *index; /* index, or range begin (NULL: open) */
			AstExpr *end;   /* range end (NULL: open) */
			bool is_range;
		} sub;
		struct {            /* AST_IFELSE: value if cond else other */
			AstExpr *value, *cond, *other;
		} sel;
		struct {            /* AST_COMPREHENSION */
			AstIter *iters;
			uint32_t niters;
			AstExpr *cond;  /* NULL without 'if' */
			AstExpr *value; /* the yielded expression */
		} comp;
		struct {            /* AST_BUILTIN: name(arg) */
			uint8_t which;  /* AstBuiltin */
			AstExpr *arg;
		} bi;
		struct {            /* AST_INVOKE: name<generic>(args) */
			const char *name; /* interned */
			AstArg *args;
			uint32_t nargs;
			bool has_generic;
			uint8_t generic; /* AstTypeName, when has_generic */
			const struct SemaCall *call; /* how it resolved */
		} inv;
	} u;
	const struct Type *type; /* its type, after semantic analysis */
};

/* <assignment>: lhs = rhs; (lhs validated to be an <lvalue-expr>) */
typedef struct AstAssign {
	AstExpr *lhs;
	AstExpr *rhs;
	Loc loc;           /* from the start of lhs to the ';' */
} AstAssign;

typedef struct AstParam {
	const char *name;
	Loc loc;           /* the name */
	AstType *type;     /* NULL for graph parameters */
	AstExpr *def;      /* default value, NULL when none */
} AstParam;

typedef struct AstBody {
	AstAssign *stmts;
	size_t nstmts;
	Loc loc;           /* '{' to '}' */
} AstBody;

/* <fragment-definition> or <graph-definition>. */
typedef struct AstDef {
	bool is_graph;
	const char *name;
	Loc name_loc;
	Loc keyword_loc;   /* 'fragment' or 'graph' */
	Loc loc;           /* the whole definition */
	bool is_generic;   /* fragment name<?...> */
	bool has_generic_default;
	AstTypeName generic_default;
	Loc generic_loc;
	AstParam *params;
	size_t nparams;
	AstParam *results;
	size_t nresults;
	AstBody *body;     /* NULL for a declaration without body */
	bool broken;       /* the declaration had a syntax error; only the
			      body was parsed (name is "?") */
	bool no_params;    /* written with an empty parameter list "()" (tract's
			      dialect only), at params_loc */
	Loc params_loc;
} AstDef;

typedef struct AstExtension {
	const char *name;
	Loc loc;
	bool after_comma;  /* written after a ',' (not valid syntax) */
	Loc comma_loc;
} AstExtension;

/* One top-level statement, in source order. */
typedef enum AstItemKind {
	AST_ITEM_VERSION,
	AST_ITEM_EXTENSION,
	AST_ITEM_DEF,
	AST_ITEM_QUANT,  /* an entry of graph.quant (PARSE_QUANT) */
} AstItemKind;

typedef struct AstItem {
	AstItemKind kind;
	Loc loc;
	/* AST_ITEM_VERSION */
	Loc version_loc;     /* the number */
	bool version_is_int; /* written as an integer literal */
	/* AST_ITEM_EXTENSION */
	AstExtension *exts;
	size_t nexts;
	Loc expr;            /* what follows the names when it is not a name
				(tract_assert T >= 0;), len 0 when nothing */
	/* AST_ITEM_DEF */
	AstDef *def;
	/* AST_ITEM_QUANT: "tensor": call; (spec 5.3) */
	const char *tensor;  /* the quoted name, interned */
	Loc tensor_loc;
	AstExpr *call;       /* an invocation, its arguments named */
} AstItem;

/* What a document uses of the vendor extensions nnefkit recognizes
 * (grammar/vendor.c): filled by the parse, and by sema for the uses it
 * finds (calls to vendor operations, symbols). */
typedef enum AstVendorKind {
	VENDOR_QUOTED,     /* identifiers written i"..." */
	VENDOR_OPERATION,  /* calls to undeclared operations named after a
			      declared extension (tract_core_gelu) */
	VENDOR_SYMBOL,     /* uses of symbols (extension tract_symbol T;) */
	VENDOR_ASSERT,     /* expressions on extension lines */
	VENDOR_NKINDS
} AstVendorKind;

typedef struct AstVendorUse {
	size_t count;
	Loc first;
	const char *name;  /* the first one's operation or symbol */
} AstVendorUse;

typedef struct AstVendor {
	AstVendorUse use[VENDOR_NKINDS];
	AstExtension **symbols;  /* declared with a symbol directive */
	size_t nsymbols;
	AstExtension **registries; /* named by a registry directive
				    (extension tract_registry tract_core;),
				    in order, each line's */
	size_t nregistries;
	Loc first_line;          /* the first extension line that declares a
				    vendor extension (len 0: none) */
	size_t nextensions;      /* vendor extension names declared */
} AstVendor;

/* <document> */
typedef struct AstDoc {
	const SourceFile *file;
	Dialect dialect;      /* the dialect it was read in */
	AstItem *items;
	size_t nitems;
	/* Filled by the structure check (parse_document): */
	int version_major, version_minor; /* -1 when missing or malformed */
	AstDef **fragments;
	size_t nfragments;
	AstDef *graph;        /* the first graph definition, or NULL */
	AstExtension **exts;  /* every extension name, in order (the
				 arguments of a vendor directive that are
				 symbols aside) */
	size_t nexts;
	AstVendor vendor;     /* what it uses of vendor extensions */
} AstDoc;

/* ---- constructors (used by the grammar) ----------------------------- */

AstExpr *ast_expr(Arena *a, AstExprKind kind, Loc loc);
static inline AstExprKind ast_kind(const AstExpr *e)
{
	return (AstExprKind)e->kind;
}
AstType *ast_type(Arena *a, AstTypeKind kind, Loc loc);

/* Calls fn on each direct sub-expression of e, in source order (for
 * comprehensions: iterables, condition, yielded value; for invocations:
 * argument values). */
void ast_visit_children(const AstExpr *e,
			void (*fn)(const AstExpr *child, void *ctx), void *ctx);

/* ---- printing ------------------------------------------------------- */

/* S-expression form for tests, e.g. (+ a (* b c)). */
void ast_print_expr(StrBuf *out, const AstExpr *e);
void ast_print_doc(StrBuf *out, const AstDoc *doc);
/* A name as NNEF source spells it: as it is when it reads as an
 * identifier (not a keyword), else i"..." (a vendor extension). */
void ast_print_name(StrBuf *out, const char *name);
/* Whether the interned name is declared a symbol of the document
 * (extension tract_symbol T;). */
bool ast_is_symbol(const AstDoc *doc, const char *name);

const char *ast_op_spelling(AstOp op);
const char *ast_builtin_name(AstBuiltin b);
const char *ast_typename_spelling(AstTypeName t);

/* The operation an operator on tensors stands for (spec 3.3.3, Table 1):
 * "add", "neg"...; NULL for 'in'. */
const char *ast_op_fragment(AstOp op, bool unary);

#endif
