/*
 * k_tensor.c - the kernels of spec 4.1 (tensor-introducing operations:
 * external, constant, variable) and 4.8 (update, whose value the executor
 * gives the variable when the cycle ends).
 */
#include "interp/interp_internal.h"

#include <string.h>

bool kern_external(Interp *it, const Step *s)
{
	if (s->out[0]->data)
		return true;
	const FlatTensor *ft = s->op->results[0]->u.t;
	interp_fail(it, s, DIAG_E1303, "the input '%s' was given no data", ft->name);
	return false;
}

/* "output is filled with values such that its row-major ordering equals
 * the items in value" (a single value is repeated). */
bool kern_constant(Interp *it, const Step *s)
{
	ITensor *t = s->out[0];
	const Value *v = karg(s, 1);
	size_t n = v->n;
	for (size_t i = 0; i < t->count; i++) {
		const Value *x = v->u.items[n == 1 ? 0 : i];
		switch (t->dtype) {
		case TY_SCALAR:
			if (it->rsize == 4)
				((float *)t->data)[i] = (float)x->u.s;
			else
				((double *)t->data)[i] = x->u.s;
			break;
		case TY_INTEGER:
			((int64_t *)t->data)[i] = x->u.i;
			break;
		case TY_LOGICAL:
		case TY_STRING:
		case TY_GENERIC:
		case TY_TENSOR:
		case TY_ARRAY:
		case TY_TUPLE:
		case TY_EMPTY_ARRAY:
			((uint8_t *)t->data)[i] = x->u.b;
			break;
		}
	}
	return true;
}

bool kern_variable(Interp *it, const Step *s)
{
	IVar *v = &it->vars[s->var];
	if (!v->value.data) {
		interp_fail(it, s, DIAG_E1303, "variable '%s' was given no data", v->label);
		return false;
	}
	s->out[0]->data = v->value.data;
	return true;
}

bool kern_update(Interp *it, const Step *s)
{
	const ITensor *val = s->in[1].t;
	ITensor *r = s->out[0];
	memcpy(r->data, val->data, r->count * interp_item_size(it, r->dtype));
	if (it->nupdates % 16 == 0)
		it->updates = util_realloc(it->updates, (it->nupdates + 16) * sizeof(*it->updates));
	it->updates[it->nupdates++] = (IUpdate){ s->var, r };
	return true;
}
