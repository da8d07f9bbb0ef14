/*
 * tract_io.c - shapes of the operations of tract_core that introduce
 * tensors and change datum types (sema/tract/TRACT-NOTES.md, C.1):
 * tract_core_external, tract_core_shape_of, tract_core_cast.
 */
#include "shapes/shapes_internal.h"

#include <string.h>

bool shape_tract_dtype(ShapeCall *c, int p, DType *out)
{
	const Value *v = c->args[p];
	*out = dtype_parse(v->u.str, v->n);
	if (*out != DT_NONE)
		return true;
	StrBuf known;
	sb_init(&known);
	dtype_list(&known);
	shape_fail(c, DIAG_E0933, p, "'%s' is '%.*s', which is not a datum type of tract", shape_pname(c, p), (int)(v->n > 40 ? 40 : v->n), v->u.str);
	shape_hint(c, "tract's datum types are %s", sb_str(&known));
	sb_free(&known);
	return false;
}

/* tract_core_external(datum_type, shape): a graph input of that datum
 * type and shape, whose extents may be symbols (S) or expressions of
 * them; known extents must be positive. */
bool shape_tract_external(ShapeCall *c)
{
	DType dt;
	if (!shape_tract_dtype(c, 0, &dt) ||
	    !shape_check_items_min(c, 1, 1, DIAG_E0901))
		return false;
	const Value *shape = c->args[1];
	size_t n = shape_len(shape);
	int64_t *dims = shape_dims(c, n);
	for (size_t i = 0; i < n; i++)
		dims[i] = shape_item_dim(shape, i);
	c->dtypes[0] = dt;
	return shape_result(c, dims, n);
}

/* tract_core_shape_of(input): the extents of input as a tensor of rank
 * 1 (tdim: symbols stay symbols), known when the graph is built. */
bool shape_tract_shape_of(ShapeCall *c)
{
	c->dtypes[0] = DT_TDIM;
	if (!c->known)
		return shape_unknown(c);
	int64_t *dims = shape_dims(c, 1);
	dims[0] = shape_in(c, 0)->rank;
	return shape_result(c, dims, 1);
}

/* tract_core_cast(input, to): the same shape, datum type `to`. */
bool shape_tract_cast(ShapeCall *c)
{
	if (!shape_tract_dtype(c, 1, &c->dtypes[0]))
		return false;
	if (!c->known)
		return shape_unknown(c);
	return shape_result_as(c, shape_in(c, 0));
}

/* tract_core_scan and tract_core_submodel: their results are those of
 * another graph (a fragment of the document, a model inside the model),
 * which the flattener evaluates (flatten/scan.c) to give them their
 * shapes; the function is not called (SF_NESTED). */
bool shape_tract_nested(ShapeCall *c)
{
	return shape_unknown(c);
}
