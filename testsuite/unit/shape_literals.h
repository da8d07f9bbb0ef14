/*
 * shape_literals.h - a small reader of the literals the shape tests
 * (check_shapes.c, check_tract_shapes.c) write arguments in, made into
 * Values and Shapes in an arena:
 *   <1,3,224,224>    the shape of a tensor argument (<> rank 0, <?> not
 *                    known); an extent may be a symbol or a sum of
 *                    multiples of symbols (<1,S,2*S+1>), with a DimTable
 *   <2,3>:f16        ... whose datum type is f16
 *   <2>=[3,4]        ... whose items are known: 3 and 4
 *   {<1,2>,<1,3>}    the shapes of a tensor-array argument (an item may
 *                    have a datum type; the first one's is the array's)
 *   [1,2] (0,1) 3 -1 1.0 true 'constant' S 2*S+1
 *                    attribute values (a symbol or an expression of them
 *                    is a VAL_SYMBOL, with a DimTable)
 * A malformed literal fails the test (ck_assert).
 */
#ifndef NNEF_SHAPE_LITERALS_H
#define NNEF_SHAPE_LITERALS_H

#include "shapes/shapes.h"

enum { LIT_MAX_ITEMS = 16 };

/* Where literals are made: the arena, and the table of symbols (NULL
 * when the literals hold none). Symbol names are kept once per reader,
 * so that a name is always the same pointer (dim_symbol needs that). */
typedef struct LitReader {
	Arena *arena;
	DimTable *dims;
	const char *names[LIT_MAX_ITEMS];
	size_t nnames;
} LitReader;

/* One argument as read. */
typedef struct LitArg {
	const Value *value; /* an attribute's value; VAL_TENSOR for a tensor,
			       an array of them for a tensor array */
	ShapeIn in;         /* the tensors' shapes (none for an attribute) */
	DType dtype;        /* ":type", else DT_NONE */
	ShapeKnown known;   /* "=items", else items NULL */
} LitArg;

/* An attribute value, advancing *p. */
const Value *lit_value(LitReader *L, const char **p);
/* A shape <...>, advancing *p. */
Shape lit_shape(LitReader *L, const char **p);
/* One whole argument. */
void lit_arg(LitReader *L, const char *text, LitArg *out);
/* The extent of the symbol `name` (made in L->dims). */
int64_t lit_symbol(LitReader *L, const char *name);

#endif
