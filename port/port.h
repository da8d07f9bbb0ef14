/*
 * port.h - the portability report: for each operation of a valid graph,
 * whether a target runtime (OpenVX NN 1.3, OpenVINO opset1, CoreML
 * NeuralNetwork layers, an ONNX operator set) expresses it, as which of
 * its operations, and what it cannot express.
 *
 * What each target can do lives in one table per target (port/TARGET.def,
 * data, not code): a row per standard NNEF operation, citing the section
 * of the target's specification it comes from. A row is one of
 *
 *   PORT_MAP     the target has the operation, as target_op, provided the
 *                conditions in `checks` hold; a compound mapped so is kept
 *                whole (not expanded) before the report looks at it;
 *   PORT_EXPAND  (compounds only) the target has no such operation; the
 *                report looks at the primitives of its body instead;
 *   PORT_NONE    the target cannot express it; `note` says why.
 *
 * `checks` is a list of conditions separated by spaces, each about the
 * operation's arguments (by parameter name) or tensors:
 *
 *   dtype=T[,T...]     every tensor argument and result has one of the
 *                      types scalar, integer, logical
 *   rank=A..B | rank=A[,B...]   the rank of the first tensor argument and
 *                      of the first result
 *   NAME=V[,V...]      every item of argument NAME (through arrays and
 *                      tuples) is one of the values: a string ('border'),
 *                      a number or true/false; an empty array passes.
 *                      'border' is not looked at when 'padding' is given
 *                      and all zero
 *   count:NAME=N[,N...]  argument NAME (an array) has one of these lengths
 *   sym:NAME           every (before, after) pair of NAME is symmetric
 *   spatial:NAME       the first two items of NAME are neutral (1, or
 *                      (0, 0) for padding): the window does not cover the
 *                      batch and channel axes
 *   trailing:NAME      the axes NAME are the last axes, in order
 *   swap2:NAME         the permutation NAME exchanges at most two axes
 *   axis1:NAME         the items of NAME but the second (the channel axis)
 *                      are neutral: a window across channels only
 *   const:NAME         argument NAME is a constant, not a tensor computed
 *                      by the graph
 *   bcast=none         the tensor arguments have equal shapes
 *   bcast=numpy        broadcasting is expressible where NNEF's (which
 *                      aligns shapes at their first axis, spec 2.2) and
 *                      NumPy's (at the last) agree: equal ranks, or a
 *                      tensor of one item
 *   bcast=unidir       as numpy, and only later arguments broadcast to
 *                      the first
 *
 * Checks needing a shape are skipped for tensors whose shape is unknown.
 *
 * A report (port_survey) looks each operation of a flat graph up in a
 * table; the graph is flattened beforehand with the compounds the target
 * has kept whole (port_native_compounds).
 */
#ifndef NNEF_PORT_H
#define NNEF_PORT_H

#include <stdbool.h>
#include <stddef.h>

#include "flatten/flatten.h"

typedef enum PortKind {
	PORT_MAP,
	PORT_EXPAND,
	PORT_NONE,
} PortKind;

typedef struct PortRow {
	const char *op;        /* the NNEF operation */
	unsigned since;        /* onnx: first opset of the row; 0 elsewhere */
	PortKind kind;
	const char *target_op; /* PORT_MAP: the target's operation */
	const char *cite;      /* where the target's specification says so */
	const char *checks;    /* PORT_MAP: conditions, as above */
	const char *note;      /* PORT_NONE: why; else a remark or NULL */
} PortRow;

/* The last ONNX operator set the table knows. */
#define PORT_ONNX_MAX 23

typedef struct PortTarget {
	const char *name;      /* "openvx" */
	const char *title;     /* "OpenVX Neural Network Extension 1.3" */
	bool versioned;        /* named NAME:N (onnx) */
	unsigned min_version, max_version;
	const PortRow *rows;
	size_t nrows;
} PortTarget;

/* The targets, and the one named (NULL when none is). */
extern const PortTarget port_targets[];
extern const size_t port_ntargets;
const PortTarget *port_target_find(const char *name, unsigned *version);

/* The row of op for a target at a version (onnx: the latest row whose
 * `since` is at most version), NULL when the table has none. *earliest,
 * when not NULL, gets the smallest `since` of op's rows (0 if none). */
const PortRow *port_row(const PortTarget *t, unsigned version,
			const char *op, unsigned *earliest);

/* The first condition of checks that op (an operation of a flat graph)
 * breaks, as a message of at most size bytes in buf; false when every
 * condition holds. A condition the engine does not know, or naming a
 * parameter op does not have, is a message starting "table:" (the unit
 * test keeps tables free of them). */
bool port_check(const char *checks, const FlatOp *op, const char *target,
		char *buf, size_t size);

/* Whether checks is malformed, or names a parameter not among the n of
 * params: true with the reason in buf. */
bool port_lint(const char *checks, const char *const *params, size_t n,
	       char *buf, size_t size);

/* ---- a report: the operations of a flat graph looked up in a table ---- */

/* Where an operation is written, copied so that it outlives its graph. */
typedef struct PortLoc {
	char *file;            /* NULL when there is no position */
	unsigned line, column; /* from 1; column in bytes */
	unsigned end_line, end_column; /* just past the range */
} PortLoc;

/* A kind of operation of the graph (a mapping), or one distinct problem
 * of such operations. */
typedef struct PortUse {
	const char *op;        /* the NNEF operation */
	const PortRow *row;    /* NULL: not in the table (custom, or a later
				  ONNX operator set) */
	unsigned earliest;     /* the first ONNX operator set with a row */
	const char *problem;   /* NULL in a mapping */
	size_t count;          /* operations counted */
	PortLoc first;         /* the first of them */
} PortUse;

/* The operations of a graph on target t at version. Operations of one
 * name are counted together; problems are counted per distinct message,
 * with the first location. Lists in the order of their first operation. */
typedef struct PortReport {
	const PortTarget *t;
	unsigned version;
	size_t ops, portable;  /* operations, and those with no problem */
	PortUse *maps, *probs;
	size_t nmaps, nprobs;
} PortReport;

/* The standard compounds t has whole at version v, to keep whole when the
 * graph is flattened for its report: *n names, in a block of util_calloc. */
const char **port_native_compounds(const PortTarget *t, unsigned v,
				   size_t *n);

/* Looks up each operation of g in r->t's table at r->version, adding it
 * to r's counts (memory of util_malloc: the current heap's). */
void port_survey(PortReport *r, const FlatGraph *g);

#endif
