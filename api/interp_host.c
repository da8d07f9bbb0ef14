/*
 * interp_host.c - the interpreter's host over a checked model: the plain
 * facts and the functions of InterpHost (interp/interp.h), each a call
 * to model/. This is where interp/ and model/ meet, so that neither
 * includes the other: model/ decodes a variable's tensor file into a
 * plain array (model/load.c), the interpreter allocates that array as
 * its tensor.
 */
#include "api/api_internal.h"

static bool host_has_data(void *ctx, size_t i)
{
	return model_var_has_data(ctx, i);
}

static const char *host_no_data_hint(void *ctx, size_t i)
{
	return model_var_no_data_hint(ctx, i);
}

static bool host_load_variables(void *ctx, InterpVarSlot *vars, size_t n,
				size_t real_size, int *int_bits,
				DiagList *diags)
{
	const Model *m = ctx;
	ModelVarItems *items = util_calloc(n ? n : 1, sizeof(*items));
	for (size_t i = 0; i < n; i++) {
		const ITensor *t = vars[i].value;
		items[i] = (ModelVarItems){ .data = t->data, .dtype = t->dtype, .rank = t->rank, .dims = t->dims, .count = t->count, .loaded = vars[i].loaded };
	}
	bool ok = model_load_variables(m, items, real_size, int_bits, diags);
	for (size_t i = 0; i < n; i++)
		vars[i].loaded = items[i].loaded;
	util_free(items);
	return ok;
}

static const SemaFrag *host_fragment(void *ctx, const char *name, size_t len)
{
	return model_fragment(ctx, name, len);
}

static FlatGraph *host_flatten_fragment(void *ctx, const SemaFrag *f,
					const FlatParam *params, Loc at,
					Arena *arena, DiagList *diags)
{
	return model_flatten_fragment(ctx, f, params, at, arena, diags);
}

static void api_interp_host(const Model *m, InterpHost *host);

static const FlatGraph *host_submodel(void *ctx, const char *label,
				      size_t len, InterpHost *host)
{
	const Model *sub = model_submodel(ctx, label, len);
	if (!sub || !sub->flat || sub->status != MODEL_VALID)
		return NULL;
	api_interp_host(sub, host);
	return sub->flat;
}

/* The host of an interpreter of m's graph: m's facts, its variables'
 * data, fragments and models inside (m must outlive the interpreter). */
static void api_interp_host(const Model *m, InterpHost *host)
{
	*host = (InterpHost){
		.dialect = m->dialect,
		.lenient = m->lenient,
		.ctx = (void *)m, /* read only; model_fragment interns into
				     its table of names, a cache */
		.has_data = host_has_data,
		.no_data_hint = host_no_data_hint,
		.load_variables = host_load_variables,
		.fragment = host_fragment,
		.flatten_fragment = host_flatten_fragment,
		.submodel = host_submodel,
	};
}

Interp *api_interp_new(const Model *m, const InterpOptions *opt,
		       DiagList *diags)
{
	if (!m->flat || m->status != MODEL_VALID)
		return NULL;
	InterpHost host;
	api_interp_host(m, &host);
	return interp_new(m->flat, &host, opt, diags);
}
