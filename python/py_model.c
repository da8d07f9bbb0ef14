/*
 * py_model.c - nnefkit.load and nnefkit.Model: a model read and checked
 * by nnef_model_load, its verdict, diagnostics, graph (inputs, outputs,
 * shapes, data types, operations), flat document and portability reports.
 *
 * A Model keeps what load was given, to read the model again where an
 * option is a load option of the library: with graph.quant applied
 * (Model.run(quantize=True), read once, when graph.quant names tensors)
 * and with a portability target (Model.portability). The graph it shows
 * is nnef-check's and nnef-flatten's: graph.quant checked, not applied.
 */
#include "python/py_nnefkit.h"

#include <errno.h>
#include <string.h>

/* What load was given: the options, their strings held by the bytes
 * objects of keep. */
typedef struct PyLoadArgs {
	PyObject *path;        /* bytes (os.fsencode) */
	nnef_options o;
	PyObject *keep;        /* list of the bytes the options point into */
	const char **strings;  /* declarations, then keep */
	nnef_input_shape *shapes;
	int64_t *dims;
} PyLoadArgs;

/* tract's dialect: runnable[k] read again with the shapes of the arrays
 * given for the inputs whose shapes hold symbols, as nnef-run binds them
 * (the last such shapes kept, with their runner). */
typedef struct PyBound {
	nnef_model *m;
	PyRunCache *run;
	int k;                 /* the runnable it was read as */
	nnef_input_shape *shapes; /* the options' input shapes, then these */
	size_t n;
	int64_t *dims;         /* the extents the new ones point into */
} PyBound;

static void py_bound_free(PyBound *b)
{
	py_run_cache_free(b->run);
	nnef_model_free(b->m);
	PyMem_Free(b->shapes);
	PyMem_Free(b->dims);
	memset(b, 0, sizeof(*b));
}

typedef struct PyModel {
	PyObject_HEAD
	nnef_model *m;         /* graph.quant checked (nnef-check's) */
	/* the models to run, read again on first use: [1] graph.quant
	 * applied, [2] variables without data allowed (random weights),
	 * [3] both; [0] is m */
	nnef_model *runnable[4];
	PyRunCache *run[4];    /* their runners */
	PyBound bound;         /* tract's symbols bound by the last inputs */
	PyLoadArgs args;
	PyObject *diagnostics; /* the list, made on first use */
} PyModel;

static void py_load_args_free(PyLoadArgs *a)
{
	Py_CLEAR(a->path);
	Py_CLEAR(a->keep);
	PyMem_Free(a->strings);
	PyMem_Free(a->shapes);
	PyMem_Free(a->dims);
	a->strings = NULL;
	a->shapes = NULL;
	a->dims = NULL;
}

/* The strings of the iterable obj (str or os.PathLike each) into
 * strings[*n...], their bytes kept in a->keep. */
static bool py_strings(PyLoadArgs *a, PyObject *obj, const char *what, size_t *n)
{
	if (PyUnicode_Check(obj) || PyBytes_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "%s: give a sequence of names, not one string", what);
		return false;
	}
	PyObject *seq = PySequence_Fast(obj, what);
	if (!seq)
		return false;
	Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
	const char **grown = PyMem_Realloc(a->strings, (*n + (size_t)len + 1) * sizeof(*grown));
	if (!grown) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return false;
	}
	a->strings = grown;
	for (Py_ssize_t i = 0; i < len; i++) {
		PyObject *b = NULL;
		if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(seq, i), &b) || PyList_Append(a->keep, b) < 0) {
			Py_XDECREF(b);
			Py_DECREF(seq);
			return false;
		}
		a->strings[(*n)++] = PyBytes_AS_STRING(b);
		Py_DECREF(b);
	}
	Py_DECREF(seq);
	return true;
}

/* input_shapes: {name: (d0, d1, ...)} as --input-shape. */
static bool py_input_shapes(PyLoadArgs *a, PyObject *obj)
{
	if (obj == Py_None)
		return true;
	if (!PyDict_Check(obj)) {
		PyErr_SetString(PyExc_TypeError, "input_shapes: give a dict {name: (d0, d1, ...)}");
		return false;
	}
	Py_ssize_t n = PyDict_Size(obj), pos = 0, total = 0;
	PyObject *k, *v;
	a->shapes = PyMem_Calloc((size_t)n + 1, sizeof(*a->shapes));
	a->dims = PyMem_Calloc(64 * ((size_t)n + 1), sizeof(*a->dims));
	if (!a->shapes || !a->dims) {
		PyErr_NoMemory();
		return false;
	}
	for (size_t i = 0; PyDict_Next(obj, &pos, &k, &v); i++) {
		PyObject *b = PyUnicode_Check(k) ? PyUnicode_AsUTF8String(k) : NULL;
		PyObject *seq = b ? PySequence_Fast(v, "input_shapes: a shape is a sequence of extents") : NULL;
		if (!b && !PyErr_Occurred())
			PyErr_SetString(PyExc_TypeError, "input_shapes: the keys are the names of inputs (str)");
		if (!seq || PyList_Append(a->keep, b) < 0) {
			Py_XDECREF(b);
			Py_XDECREF(seq);
			return false;
		}
		Py_ssize_t rank = PySequence_Fast_GET_SIZE(seq);
		a->shapes[i] = (nnef_input_shape){ PyBytes_AS_STRING(b), a->dims + total, (size_t)rank };
		Py_DECREF(b);
		for (Py_ssize_t d = 0; d < rank && d < 64; d++) {
			long long x = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, d));
			if (x <= 0) {
				Py_DECREF(seq);
				if (!PyErr_Occurred())
					PyErr_Format(PyExc_ValueError, "input_shapes: the extents of '%s' must be positive, not %lld", a->shapes[i].name, x);
				return false;
			}
			a->dims[total + d] = x;
		}
		Py_DECREF(seq);
		if (rank > 64) {
			PyErr_Format(PyExc_ValueError, "input_shapes: '%s' has rank %zd; at most 64", a->shapes[i].name, rank);
			return false;
		}
		total += 64;
	}
	a->o.input_shapes = a->shapes;
	a->o.n_input_shapes = (size_t)n;
	return true;
}

static const char *const py_load_kw[] = {
	"path", "dialect", "lenient", "declarations", "input_shapes", "check_data", "max_errors",
	"max_depth", "max_nesting", "max_operations", "max_value_bytes", "max_archive_bytes",
	"max_member_bytes", "max_members", "keep", "keep_standard", NULL,
};

/* The options of load's arguments into a; false with an exception set. */
static bool py_load_args(PyLoadArgs *a, PyObject *args, PyObject *kw)
{
	PyObject *path = NULL, *dialect = Py_None, *decls = NULL, *shapes = Py_None, *keep = NULL;
	int lenient = 0, check_data = 1, keep_standard = 0;
	Py_ssize_t max_errors = 20, max_depth = 0, max_nesting = 0, max_operations = 0;
	unsigned long long max_value = 0, max_archive = 0, max_member = 0, max_members = 0;
	nnef_options_init(&a->o);
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|$OpOOpnnnnKKKKOp:load", (char **)py_load_kw,
					 PyUnicode_FSConverter, &path, &dialect, &lenient, &decls, &shapes,
					 &check_data, &max_errors, &max_depth, &max_nesting, &max_operations,
					 &max_value, &max_archive, &max_member, &max_members, &keep, &keep_standard))
		return false;
	a->path = path;
	a->keep = PyList_New(0);
	if (!a->keep)
		return false;
	if (dialect != Py_None) {
		const char *name = PyUnicode_Check(dialect) ? PyUnicode_AsUTF8(dialect) : NULL;
		if (!name || !nnef_dialect_parse(name, &a->o.dialect)) {
			if (!PyErr_Occurred())
				PyErr_Format(PyExc_ValueError, "dialect: %R is not a dialect; give 'khronos' or 'tract'", dialect);
			return false;
		}
	}
	if (max_errors < 0 || max_errors > 10000 || max_depth < 0 || max_nesting < 0 || max_operations < 0) {
		PyErr_SetString(PyExc_ValueError, "max_errors (0 to 10000), max_depth, max_nesting and max_operations are counts, not negative");
		return false;
	}
	a->o.lenient = lenient;
	a->o.no_data = !check_data;
	a->o.max_errors = (size_t)max_errors;
	a->o.max_depth = (size_t)max_depth;
	a->o.max_nesting = max_nesting > 10000 ? 10000 : (uint32_t)max_nesting;
	a->o.max_operations = (size_t)max_operations;
	a->o.max_value_bytes = max_value;
	a->o.max_archive_bytes = max_archive;
	a->o.max_member_bytes = max_member;
	a->o.max_members = max_members;
	a->o.keep_standard = keep_standard;
	size_t n = 0;
	if (decls && !py_strings(a, decls, "declarations", &n))
		return false;
	a->o.n_declarations = n;
	if (keep && !py_strings(a, keep, "keep", &n))
		return false;
	a->o.n_keep = n - a->o.n_declarations;
	a->o.declarations = a->strings;
	a->o.keep = a->strings ? a->strings + a->o.n_declarations : NULL;
	return py_input_shapes(a, shapes);
}

/* The model at a's path read with o; NULL with an exception set when the
 * path cannot be read (OSError) or memory ran out. */
static nnef_model *py_read(PyLoadArgs *a, const nnef_options *o)
{
	nnef_model *m;
	const char *path = PyBytes_AS_STRING(a->path);
	Py_BEGIN_ALLOW_THREADS
	m = nnef_model_load(path, o);
	Py_END_ALLOW_THREADS
	if (!m)
		return (nnef_model *)PyErr_NoMemory();
	if (nnef_model_status(m) != NNEF_IO_ERROR)
		return m;
	/* unreadable (nnef-check's exit 2): OSError, nnefkit.Error for
	 * E0008 (out of memory) */
	py_raise_unreadable(nnef_model_diags(m), path);
	nnef_model_free(m);
	return NULL;
}

/* Each name of input_shapes is an external of the model, else
 * ValueError with nnef-check's message (false). */
static bool py_check_input_shapes(const nnef_model *m, const nnef_options *o)
{
	size_t np = nnef_model_param_count(m);
	if (!np && nnef_model_status(m) != NNEF_VALID)
		return true; /* nothing to compare with: the model is broken */
	for (size_t i = 0; i < o->n_input_shapes; i++) {
		bool found = false;
		for (size_t k = 0; k < np && !found; k++)
			found = strcmp(nnef_model_param_name(m, k), o->input_shapes[i].name) == 0;
		if (found)
			continue;
		PyObject *names = PyUnicode_FromString(np ? "" : " none");
		for (size_t k = 0; names && k < np; k++) {
			PyObject *t = PyUnicode_FromFormat("%U %s", names, nnef_model_param_name(m, k));
			Py_DECREF(names);
			names = t;
		}
		if (names)
			PyErr_Format(PyExc_ValueError, "input_shapes: '%s' is not an external of this model; its inputs are:%U", o->input_shapes[i].name, names);
		Py_XDECREF(names);
		return false;
	}
	return true;
}

PyObject *py_load(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	PyModel *o = PyObject_New(PyModel, &py_model_type);
	if (!o)
		return NULL;
	o->m = NULL;
	o->diagnostics = NULL;
	memset(o->runnable, 0, sizeof(o->runnable));
	memset(o->run, 0, sizeof(o->run));
	memset(&o->bound, 0, sizeof(o->bound));
	memset(&o->args, 0, sizeof(o->args));
	if (!py_load_args(&o->args, args, kw) || !(o->m = py_read(&o->args, &o->args.o)) ||
	    !py_check_input_shapes(o->m, &o->args.o)) {
		Py_DECREF(o);
		return NULL;
	}
	return (PyObject *)o;
}

static void py_model_dealloc(PyObject *self)
{
	PyModel *o = (PyModel *)self;
	for (int k = 0; k < 4; k++) {
		py_run_cache_free(o->run[k]);
		if (k)
			nnef_model_free(o->runnable[k]);
	}
	nnef_model_free(o->m);
	py_bound_free(&o->bound);
	Py_XDECREF(o->diagnostics);
	py_load_args_free(&o->args);
	PyObject_Free(self);
}

/* ---- properties ---------------------------------------------------------- */

static PyObject *py_model_repr(PyObject *self)
{
	PyModel *o = (PyModel *)self;
	static const char *const verdicts[] = { "valid", "invalid", "unreadable" };
	return PyUnicode_FromFormat("<nnefkit.Model '%s': %s>", nnef_model_path(o->m), verdicts[nnef_model_status(o->m)]);
}

static PyObject *py_model_valid(PyObject *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(nnef_model_status(((PyModel *)self)->m) == NNEF_VALID);
}

static PyObject *py_model_status(PyObject *self, void *closure)
{
	(void)closure;
	static const char *const verdicts[] = { "valid", "invalid", "unreadable" };
	return PyUnicode_FromString(verdicts[nnef_model_status(((PyModel *)self)->m)]);
}

static PyObject *py_model_path(PyObject *self, void *closure)
{
	(void)closure;
	return PyUnicode_DecodeFSDefault(nnef_model_path(((PyModel *)self)->m));
}

static PyObject *py_model_diagnostics(PyObject *self, void *closure)
{
	(void)closure;
	PyModel *o = (PyModel *)self;
	if (!o->diagnostics)
		o->diagnostics = py_diags_list(nnef_model_diags(o->m));
	if (!o->diagnostics)
		return NULL;
	return PyList_GetSlice(o->diagnostics, 0, PyList_GET_SIZE(o->diagnostics));
}

static PyObject *py_model_errors(PyObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromSize_t(nnef_diags_errors(nnef_model_diags(((PyModel *)self)->m)));
}

static PyObject *py_model_graph_name(PyObject *self, void *closure)
{
	(void)closure;
	const nnef_graph *g = nnef_model_graph(((PyModel *)self)->m);
	if (!g)
		Py_RETURN_NONE;
	return PyUnicode_FromString(nnef_graph_name(g));
}

/* The names of the graph's inputs (or outputs), in order. */
static PyObject *py_model_ends(PyObject *self, void *outputs)
{
	const nnef_graph *g = nnef_model_graph(((PyModel *)self)->m);
	size_t n = !g ? 0 : outputs ? nnef_graph_output_count(g) : nnef_graph_input_count(g);
	PyObject *t = PyTuple_New((Py_ssize_t)n);
	for (size_t i = 0; t && i < n; i++) {
		const nnef_tensor_info *ti = outputs ? nnef_graph_output(g, i) : nnef_graph_input(g, i);
		PyObject *s = PyUnicode_FromString(nnef_tensor_info_name(ti));
		if (!s) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
	}
	return t;
}

/* A tensor's shape: a tuple, None for an extent known only at run time;
 * None when the shape is not known. */
static PyObject *py_shape(const nnef_tensor_info *t)
{
	if (!nnef_tensor_info_shape_known(t))
		Py_RETURN_NONE;
	size_t rank = nnef_tensor_info_rank(t);
	PyObject *s = PyTuple_New((Py_ssize_t)rank);
	for (size_t d = 0; s && d < rank; d++) {
		int64_t x = nnef_tensor_info_dim(t, d);
		PyObject *e = x < 0 ? (Py_INCREF(Py_None), Py_None) : PyLong_FromLongLong(x);
		if (!e) {
			Py_CLEAR(s);
			break;
		}
		PyTuple_SET_ITEM(s, (Py_ssize_t)d, e);
	}
	return s;
}

/* The NNEF data type of a tensor: in tract's dialect, that of its datum
 * type ("i64" and "tdim" integer, "bool" logical, "f32" scalar), as the
 * runner takes its inputs (nnef_runner_input_dtype). */
static PyObject *py_dtype_name(const nnef_tensor_info *t)
{
	const char *datum = nnef_tensor_info_datum_type(t);
	if (datum && strcmp(datum, "bool") == 0)
		return PyUnicode_FromString("logical");
	if (datum && (datum[0] == 'i' || datum[0] == 'u' || strcmp(datum, "tdim") == 0))
		return PyUnicode_FromString("integer");
	if (datum && datum[0] == 'f')
		return PyUnicode_FromString("scalar");
	switch (nnef_tensor_info_dtype(t)) {
	case NNEF_SCALAR:
		return PyUnicode_FromString("scalar");
	case NNEF_INTEGER:
		return PyUnicode_FromString("integer");
	case NNEF_LOGICAL:
		return PyUnicode_FromString("logical");
	}
	return PyUnicode_FromString("scalar");
}

/* {name: shape} or {name: dtype} of the tensors the document names. */
static PyObject *py_model_tensors(PyObject *self, void *dtypes)
{
	const nnef_graph *g = nnef_model_graph(((PyModel *)self)->m);
	PyObject *d = PyDict_New();
	for (size_t i = 0; d && g && i < nnef_graph_tensor_count(g); i++) {
		const nnef_tensor_info *t = nnef_graph_tensor(g, i);
		if (!nnef_tensor_info_named(t))
			continue;
		PyObject *v = dtypes ? py_dtype_name(t) : py_shape(t);
		if (!v || PyDict_SetItemString(d, nnef_tensor_info_name(t), v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
}

/* ---- operations ------------------------------------------------------------ */

static PyTypeObject py_operation_type;

static PyStructSequence_Field py_operation_fields[] = {
	{ "name", "the operation ('conv'); a primitive unless kept or custom" },
	{ "inputs", "dict: each parameter given tensors -> its tensor's name, or a list of names" },
	{ "outputs", "dict: each result -> its tensor's name, or a list of names" },
	{ "attributes", "dict: each other parameter -> its value (int, float, bool, str, list, tuple)" },
	{ "compound", "the compound whose expansion made it, as written in the graph, or None" },
	{ NULL, NULL },
};

static PyStructSequence_Desc py_operation_desc = {
	"nnefkit.Operation",
	"An operation of the flat graph (Model.operations), in an order of execution.",
	py_operation_fields, 5,
};

/* A value of the flat graph as Python's: tensors by name. */
static PyObject *py_value(const nnef_value *v)
{
	size_t len, n;
	const char *s;
	PyObject *r;
	switch (nnef_value_kind_of(v)) {
	case NNEF_VALUE_INTEGER:
		return PyLong_FromLongLong(nnef_value_integer(v));
	case NNEF_VALUE_SCALAR:
		return PyFloat_FromDouble(nnef_value_scalar(v));
	case NNEF_VALUE_LOGICAL:
		return PyBool_FromLong(nnef_value_logical(v));
	case NNEF_VALUE_STRING:
	case NNEF_VALUE_SYMBOL:
		s = nnef_value_string(v, &len);
		return PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "replace");
	case NNEF_VALUE_TENSOR:
		return PyUnicode_FromString(nnef_tensor_info_name(nnef_value_tensor(v)));
	case NNEF_VALUE_ARRAY:
	case NNEF_VALUE_TUPLE:
		n = nnef_value_item_count(v);
		r = nnef_value_kind_of(v) == NNEF_VALUE_ARRAY ? PyList_New((Py_ssize_t)n) : PyTuple_New((Py_ssize_t)n);
		for (size_t i = 0; r && i < n; i++) {
			PyObject *x = py_value(nnef_value_item(v, i));
			if (!x) {
				Py_CLEAR(r);
				break;
			}
			if (PyList_Check(r))
				PyList_SET_ITEM(r, (Py_ssize_t)i, x);
			else
				PyTuple_SET_ITEM(r, (Py_ssize_t)i, x);
		}
		return r;
	}
	Py_RETURN_NONE;
}

/* Whether v is, or holds, a tensor. */
static bool py_holds_tensor(const nnef_value *v)
{
	nnef_value_kind k = nnef_value_kind_of(v);
	if (k == NNEF_VALUE_TENSOR)
		return true;
	if (k != NNEF_VALUE_ARRAY && k != NNEF_VALUE_TUPLE)
		return false;
	for (size_t i = 0; i < nnef_value_item_count(v); i++)
		if (py_holds_tensor(nnef_value_item(v, i)))
			return true;
	return false;
}

/* The dicts of an operation: inputs and attributes (args), or outputs. */
static bool py_op_dicts(const nnef_op *op, PyObject *inputs, PyObject *attrs, PyObject *outputs)
{
	for (size_t i = 0; i < nnef_op_arg_count(op); i++) {
		const nnef_value *v = nnef_op_arg(op, i);
		PyObject *x = py_value(v);
		if (!x || PyDict_SetItemString(py_holds_tensor(v) ? inputs : attrs, nnef_op_arg_name(op, i), x) < 0) {
			Py_XDECREF(x);
			return false;
		}
		Py_DECREF(x);
	}
	for (size_t i = 0; i < nnef_op_result_count(op); i++) {
		PyObject *x = py_value(nnef_op_result(op, i));
		if (!x || PyDict_SetItemString(outputs, nnef_op_result_name(op, i), x) < 0) {
			Py_XDECREF(x);
			return false;
		}
		Py_DECREF(x);
	}
	return true;
}

static PyObject *py_operation(const nnef_op *op)
{
	PyObject *items[5] = { PyUnicode_FromString(nnef_op_name(op)), PyDict_New(), PyDict_New(), PyDict_New(), NULL };
	const char *compound = nnef_op_compound(op);
	items[4] = compound ? PyUnicode_FromString(compound) : (Py_INCREF(Py_None), Py_None);
	PyObject *r = NULL;
	if (items[0] && items[1] && items[2] && items[3] && items[4] && py_op_dicts(op, items[1], items[3], items[2]))
		r = PyStructSequence_New(&py_operation_type);
	for (int k = 0; k < 5; k++) {
		if (r)
			PyStructSequence_SetItem(r, k, items[k]);
		else
			Py_XDECREF(items[k]);
	}
	return r;
}

static PyObject *py_model_operations(PyObject *self, void *closure)
{
	(void)closure;
	const nnef_graph *g = nnef_model_graph(((PyModel *)self)->m);
	size_t n = g ? nnef_graph_op_count(g) : 0;
	PyObject *list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++) {
		PyObject *op = py_operation(nnef_graph_op(g, i));
		if (!op) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, op);
	}
	return list;
}

/* ---- methods ------------------------------------------------------------------- */

/* Raises ValueError unless the model is valid; false then. */
static bool py_need_valid(const PyModel *o, const char *what)
{
	if (nnef_model_status(o->m) == NNEF_VALID)
		return true;
	PyErr_Format(PyExc_ValueError, "'%s' is not a valid model (see Model.diagnostics): %s", nnef_model_path(o->m), what);
	return false;
}

static PyObject *py_model_flatten(PyObject *self, PyObject *args, PyObject *kw)
{
	static const char *const kwlist[] = { "annotate_shapes", NULL };
	int annotate = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|$p:flatten", (char **)kwlist, &annotate))
		return NULL;
	PyModel *o = (PyModel *)self;
	if (!py_need_valid(o, "it has no flat document"))
		return NULL;
	char *text = nnef_model_print_flat(o->m, annotate ? NNEF_PRINT_SHAPES : 0);
	if (!text)
		return PyErr_NoMemory();
	PyObject *s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
	free(text);
	return s;
}

static PyTypeObject py_portability_type;

static PyStructSequence_Field py_portability_fields[] = {
	{ "target", "the target as named ('openvino', 'onnx:13')" },
	{ "title", "the target's title ('OpenVINO opset1')" },
	{ "failed", "True when the graph did not check again with the target's compounds kept whole" },
	{ "operations", "operations of the graph at the target's level" },
	{ "portable", "those the target expresses as they are" },
	{ "mappings", "list of dicts (op, target_op, cite, note, count, file, line, column), one per operation name" },
	{ "problems", "list of dicts (op, problem, cite, note, count, file, line, column), one per distinct problem" },
	{ "text", "the report as nnef-check --target prints it" },
	{ NULL, NULL },
};

static PyStructSequence_Desc py_portability_desc = {
	"nnefkit.Portability",
	"A portability report of a valid model for one target (Model.portability).",
	py_portability_fields, 8,
};

static PyObject *py_port_use(nnef_port_use u)
{
	PyObject *d = Py_BuildValue("{s:s,s:z,s:z,s:z,s:n,s:z,s:I,s:I}", "op", u.op, "target_op", u.target_op,
				    "cite", u.cite, "note", u.note, "count", (Py_ssize_t)u.count,
				    "file", u.first.file, "line", u.first.line, "column", u.first.column);
	if (d && u.problem) {
		PyObject *p = PyUnicode_FromString(u.problem);
		if (!p || PyDict_SetItemString(d, "problem", p) < 0)
			Py_CLEAR(d);
		Py_XDECREF(p);
	}
	return d;
}

static PyObject *py_port_uses(const nnef_port *p, bool problems)
{
	size_t n = problems ? nnef_port_problem_count(p) : nnef_port_mapping_count(p);
	PyObject *list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++) {
		PyObject *u = py_port_use(problems ? nnef_port_problem(p, i) : nnef_port_mapping(p, i));
		if (!u) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, u);
	}
	return list;
}

static PyObject *py_portability_new(const nnef_port *p)
{
	char *text = nnef_port_render(p);
	if (!text)
		return PyErr_NoMemory();
	PyObject *items[8] = { PyUnicode_FromString(nnef_port_target(p)), PyUnicode_FromString(nnef_port_title(p)),
			       PyBool_FromLong(nnef_port_failed(p)), PyLong_FromSize_t(nnef_port_operations(p)),
			       PyLong_FromSize_t(nnef_port_portable(p)), py_port_uses(p, false), py_port_uses(p, true),
			       PyUnicode_FromString(text) };
	free(text);
	bool all = true;
	for (int k = 0; k < 8; k++)
		all = all && items[k];
	PyObject *r = all ? PyStructSequence_New(&py_portability_type) : NULL;
	for (int k = 0; k < 8; k++) {
		if (r)
			PyStructSequence_SetItem(r, k, items[k]);
		else
			Py_XDECREF(items[k]);
	}
	return r;
}

static PyObject *py_model_portability(PyObject *self, PyObject *args)
{
	const char *target;
	if (!PyArg_ParseTuple(args, "s:portability", &target))
		return NULL;
	PyModel *o = (PyModel *)self;
	const char *why = nnef_target_check(target);
	if (why) {
		PyErr_Format(PyExc_ValueError, "portability: %s", why);
		return NULL;
	}
	if (!py_need_valid(o, "it has no portability report"))
		return NULL;
	nnef_options opt = o->args.o;
	opt.targets = &target;
	opt.n_targets = 1;
	nnef_model *m = py_read(&o->args, &opt);
	if (!m)
		return NULL;
	PyObject *r = NULL;
	if (nnef_model_port_count(m) == 1)
		r = py_portability_new(nnef_model_port(m, 0));
	else
		py_raise_diags(nnef_model_diags(m), NULL);
	nnef_model_free(m);
	return r;
}

/* The values the arrays give the symbols, and which input gave each. */
typedef struct PySymbols {
	struct { const char *symbol, *input; long long value; } items[64];
	size_t n;
} PySymbols;

/* The extents of input t from shape (a tuple), checked as nnef-run checks
 * them: its rank, the extents the graph declares, each symbol one value
 * (tracked in syms); false with ValueError set. */
static bool py_bind_dims(const nnef_tensor_info *t, PyObject *shape, int64_t *dims, PySymbols *syms)
{
	const char *name = nnef_tensor_info_name(t);
	size_t rank = nnef_tensor_info_rank(t);
	if ((size_t)PyTuple_Size(shape) != rank) {
		PyErr_Format(PyExc_ValueError, "the data given for the input '%s' has rank %zd, but the graph declares rank %zu", name, PyTuple_Size(shape), rank);
		return false;
	}
	for (size_t d = 0; d < rank; d++) {
		long long want = nnef_tensor_info_dim(t, d), got = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, d));
		const char *sym = nnef_tensor_info_dim_text(t, d);
		dims[d] = got;
		if (want >= 0 && want != got) {
			PyErr_Format(PyExc_ValueError, "the data given for the input '%s' has extent %lld along axis %zu, but the graph declares %lld", name, got, d, want);
			return false;
		}
		size_t k = 0;
		while (want < 0 && sym && k < syms->n && strcmp(syms->items[k].symbol, sym) != 0)
			k++;
		if (want >= 0 || !sym || (k == syms->n && syms->n == 64))
			continue;
		if (k == syms->n) {
			syms->items[syms->n].symbol = sym;
			syms->items[syms->n].input = name;
			syms->items[syms->n++].value = got;
		} else if (syms->items[k].value != got) {
			PyErr_Format(PyExc_ValueError, "the data given for the input '%s' makes the symbol %s %lld along axis %zu, but the input '%s' makes it %lld", name, sym, got, d, syms->items[k].input, syms->items[k].value);
			return false;
		}
	}
	return true;
}

/* The shapes of the arrays inputs gives for m's inputs whose shapes
 * hold symbols (the options' own input shapes first): b's shapes, n and
 * dims; 0 when there is none such, -1 with an exception set. */
static int py_symbol_shapes(const PyModel *o, const nnef_model *m, PyObject *inputs, PyBound *b)
{
	const nnef_graph *g = nnef_model_graph(m);
	if (!g || !inputs || nnef_model_status(m) != NNEF_VALID)
		return 0; /* nothing to bind; run says why it cannot run */
	size_t given = o->args.o.n_input_shapes, n = given, ndims = 0;
	b->shapes = PyMem_Calloc(given + nnef_graph_input_count(g) + 1, sizeof(*b->shapes));
	b->dims = PyMem_Calloc(64 * nnef_graph_input_count(g) + 1, sizeof(*b->dims));
	PyObject *numpy = PyImport_ImportModule("numpy");
	if (!b->shapes || !b->dims || !numpy) {
		Py_XDECREF(numpy);
		return PyErr_Occurred() ? -1 : (PyErr_NoMemory(), -1);
	}
	if (given)
		memcpy(b->shapes, o->args.o.input_shapes, given * sizeof(*b->shapes));
	PySymbols syms = { .n = 0 };
	for (size_t i = 0; i < nnef_graph_input_count(g); i++) {
		const nnef_tensor_info *t = nnef_graph_input(g, i);
		bool symbolic = false;
		for (size_t d = 0; nnef_tensor_info_shape_known(t) && d < nnef_tensor_info_rank(t); d++)
			symbolic |= nnef_tensor_info_dim(t, d) < 0;
		PyObject *x = symbolic ? PyDict_GetItemString(inputs, nnef_tensor_info_name(t)) : NULL;
		PyObject *shape = x ? PyObject_CallMethod(numpy, "shape", "O", x) : NULL;
		if (x && !shape)
			break;
		if (shape && py_bind_dims(t, shape, b->dims + ndims, &syms)) {
			b->shapes[n++] = (nnef_input_shape){ nnef_tensor_info_name(t), b->dims + ndims, nnef_tensor_info_rank(t) };
			ndims += nnef_tensor_info_rank(t);
		}
		Py_XDECREF(shape);
		if (PyErr_Occurred())
			break;
	}
	Py_DECREF(numpy);
	b->n = n;
	return PyErr_Occurred() ? -1 : n > given;
}

/* Whether two lists of input shapes are the same. */
static bool py_same_shapes(const PyBound *a, const PyBound *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->shapes[i].name, b->shapes[i].name) != 0 || a->shapes[i].rank != b->shapes[i].rank ||
		    memcmp(a->shapes[i].dims, b->shapes[i].dims, a->shapes[i].rank * sizeof(int64_t)) != 0)
			return false;
	return true;
}

/* runnable[k] with its symbols bound by the arrays of inputs, or itself
 * when none is; NULL with an exception set (ValueError when the arrays
 * give a symbol two values, or shapes the graph cannot take). */
static nnef_model *py_model_bind(PyModel *o, int k, PyObject *inputs, PyRunCache ***cache)
{
	PyBound b;
	memset(&b, 0, sizeof(b));
	int st = py_symbol_shapes(o, o->runnable[k], inputs, &b);
	if (st <= 0) {
		PyMem_Free(b.shapes);
		PyMem_Free(b.dims);
		return st < 0 ? NULL : o->runnable[k];
	}
	if (o->bound.m && o->bound.k == k && py_same_shapes(&o->bound, &b)) {
		PyMem_Free(b.shapes);
		PyMem_Free(b.dims);
	} else {
		nnef_options opt = o->args.o;
		opt.quantize = k & 1;
		opt.missing_data_ok = k & 2;
		opt.input_shapes = b.shapes;
		opt.n_input_shapes = b.n;
		b.k = k;
		b.m = py_read(&o->args, &opt);
		py_bound_free(&o->bound);
		o->bound = b;
		if (!b.m)
			return NULL;
	}
	*cache = &o->bound.run;
	if (nnef_model_status(o->bound.m) == NNEF_VALID)
		return o->bound.m;
	const nnef_diags *ds = nnef_model_diags(o->bound.m);
	for (size_t i = 0; i < nnef_diags_count(ds); i++)
		if (nnef_diag_level(nnef_diags_get(ds, i)) == NNEF_ERROR) {
			char *text = nnef_diag_render(nnef_diags_get(ds, i), PY_PROG, 0);
			PyErr_Format(PyExc_ValueError, "the shapes of the arrays given bind the graph's symbols so: %s", text ? text : "(out of memory)");
			free(text);
			return NULL;
		}
	return o->bound.m;
}

nnef_model *py_model_get(PyObject *self, bool quantize, bool random_weights, PyObject *inputs,
			 PyRunCache ***cache)
{
	PyModel *o = (PyModel *)self;
	const nnef_graph *g = nnef_model_graph(o->m);
	bool applied;
	int k = (quantize && g && nnef_graph_quant_count(g, &applied) ? 1 : 0) | (random_weights ? 2 : 0);
	o->runnable[0] = o->m;
	if (!o->runnable[k]) {
		nnef_options opt = o->args.o;
		opt.quantize = k & 1;
		opt.missing_data_ok = k & 2;
		nnef_model *m = py_read(&o->args, &opt);
		/* another thread may have read it meanwhile (py_read lets
		 * go of the GIL) */
		if (m && o->runnable[k])
			nnef_model_free(m);
		else if (m)
			o->runnable[k] = m;
		if (!m)
			return NULL;
	}
	*cache = &o->run[k];
	return py_model_bind(o, k, inputs, cache);
}

static PyGetSetDef py_model_getset[] = {
	{ "valid", py_model_valid, NULL, "True when the model breaks no rule of the specification (warnings allowed).", NULL },
	{ "status", py_model_status, NULL, "'valid' or 'invalid' (a model that cannot be read raises OSError in load).", NULL },
	{ "path", py_model_path, NULL, "The path given to load.", NULL },
	{ "diagnostics", py_model_diagnostics, NULL, "list of nnefkit.Diagnostic, sorted by file and position (errors past max_errors left out).", NULL },
	{ "errors", py_model_errors, NULL, "How many errors the model has, shown or not.", NULL },
	{ "graph_name", py_model_graph_name, NULL, "The graph's name, or None when the graph did not flatten.", NULL },
	{ "inputs", py_model_ends, NULL, "tuple of the names of the graph's inputs, in order (empty when the graph did not flatten).", NULL },
	{ "outputs", py_model_ends, NULL, "tuple of the names of the graph's outputs, in order.", (void *)1 },
	{ "shapes", py_model_tensors, NULL, "dict: each tensor the document names -> its shape, a tuple of ints (None for an extent known only when the model runs); None when not known.", NULL },
	{ "dtypes", py_model_tensors, NULL, "dict: each tensor the document names -> 'scalar', 'integer' or 'logical'.", (void *)1 },
	{ "operations", py_model_operations, NULL, "list of nnefkit.Operation: the flat graph, primitives only (and kept or custom operations), in an order of execution.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyMethodDef py_model_methods[] = {
	{ "flatten", (PyCFunction)(void (*)(void))py_model_flatten, METH_VARARGS | METH_KEYWORDS,
	  "flatten(*, annotate_shapes=False) -> str\n\nThe flat, primitives-only document (spec chapter 6), as nnef-flatten prints it;\nannotate_shapes ends each operation with a comment of its results' shapes.\nValueError when the model is not valid." },
	{ "portability", py_model_portability, METH_VARARGS,
	  "portability(target) -> nnefkit.Portability\n\nWhich operations of the graph target ('openvx', 'openvino', 'coreml',\n'onnx:N') expresses, as what, and what it cannot: nnef-check --target.\nValueError for an unknown target or a model that is not valid." },
	{ "run", (PyCFunction)(void (*)(void))py_model_run, METH_VARARGS | METH_KEYWORDS,
	  "run(inputs=None, *, precision='single', quantize=True, cycles=1, random=None, seed=None, threads=0,\n"
	  "    random_weights=False)\n"
	  "-> dict[str, numpy.ndarray]\n\n"
	  "Runs the graph as nnef-run does and gives its outputs by name, in order: float32\n"
	  "(float64 with precision='double'), int64 or bool arrays owning their memory.\n"
	  "inputs: {name: array-like}, each converted to the input's type without a change\n"
	  "of kind (ints for a scalar input are fine, floats for an integer one are not)\n"
	  "and of the input's shape, else ValueError with nnef-run's message. Inputs not\n"
	  "given are generated when random is 'uniform' ([0, 1)) or 'normal', from seed\n"
	  "(default 0); random_weights=True generates, from seed too, the variables that\n"
	  "have no tensor file (nnef-run --random-weights). quantize=False computes in\n"
	  "floating point what graph.quant quantizes (UserWarning W1311, as nnef-run\n"
	  "--no-quantize warns). cycles runs the graph that many times, the variables\n"
	  "carried from cycle to cycle; each call starts from the model's variables.\n"
	  "threads: 0 for one per processor. The GIL is released while the graph runs;\n"
	  "Ctrl-C stops it between operations (KeyboardInterrupt). A failure while\n"
	  "running raises nnefkit.Error." },
	{ NULL, NULL, 0, NULL },
};

PyTypeObject py_model_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "nnefkit.Model",
	.tp_basicsize = sizeof(PyModel),
	.tp_dealloc = py_model_dealloc,
	.tp_repr = py_model_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A model read and checked by nnefkit.load: its verdict, diagnostics and graph.",
	.tp_getset = py_model_getset,
	.tp_methods = py_model_methods,
};

bool py_model_init(PyObject *module)
{
	if (PyType_Ready(&py_model_type) < 0 || PyStructSequence_InitType2(&py_operation_type, &py_operation_desc) < 0 ||
	    PyStructSequence_InitType2(&py_portability_type, &py_portability_desc) < 0)
		return false;
	Py_INCREF(&py_model_type);
	Py_INCREF(&py_operation_type);
	Py_INCREF(&py_portability_type);
	return PyModule_AddObject(module, "Model", (PyObject *)&py_model_type) == 0 &&
	       PyModule_AddObject(module, "Operation", (PyObject *)&py_operation_type) == 0 &&
	       PyModule_AddObject(module, "Portability", (PyObject *)&py_portability_type) == 0;
}
