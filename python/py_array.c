/*
 * py_array.c - tensors (nnef_tensor: scalars as double, integers as
 * int64_t, logicals as bool) as NumPy arrays and back, and the module's
 * functions on tensor files: read_tensor, read_tensor_info, write_tensor
 * (NNEF tensor files, spec 5.2, and NumPy's .npy).
 */
#include "python/py_nnefkit.h"

#include <string.h>

/* The NumPy type of a tensor file's item type, where NumPy has it. */
static const struct {
	const char *name;
	int npy;
} py_file_types[] = {
	{ "float16", NPY_FLOAT16 }, { "float32", NPY_FLOAT32 }, { "float64", NPY_FLOAT64 },
	{ "int8", NPY_INT8 },       { "int16", NPY_INT16 },     { "int32", NPY_INT32 },
	{ "int64", NPY_INT64 },     { "uint8", NPY_UINT8 },     { "uint16", NPY_UINT16 },
	{ "uint32", NPY_UINT32 },   { "uint64", NPY_UINT64 },   { "bool8", NPY_BOOL },
	{ "qint8", NPY_INT8 },      { "qint16", NPY_INT16 },    { "qint32", NPY_INT32 },
	{ "quint8", NPY_UINT8 },    { "quint16", NPY_UINT16 },  { "quint32", NPY_UINT32 },
};

/* The NumPy type of t's items: its file's where NumPy has it, else
 * float32 (float64 when wide), int64 or bool. */
static int py_npy_type(const nnef_tensor *t, bool wide)
{
	const char *ft = nnef_tensor_file_type(t);
	for (size_t i = 0; ft && i < sizeof(py_file_types) / sizeof(py_file_types[0]); i++)
		if (strcmp(ft, py_file_types[i].name) == 0)
			return py_file_types[i].npy;
	switch (nnef_tensor_dtype(t)) {
	case NNEF_SCALAR:
		return wide ? NPY_FLOAT64 : NPY_FLOAT32;
	case NNEF_INTEGER:
		return NPY_INT64;
	case NNEF_LOGICAL:
		return NPY_BOOL;
	}
	return NPY_FLOAT64;
}

PyObject *py_array_from_tensor(const nnef_tensor *t, bool wide)
{
	size_t rank = nnef_tensor_rank(t);
	npy_intp dims[64];
	if (rank > 64) {
		PyErr_Format(py_error, "a tensor of rank %zu: NumPy arrays have at most 64 dimensions", rank);
		return NULL;
	}
	for (size_t d = 0; d < rank; d++)
		dims[d] = (npy_intp)nnef_tensor_dim(t, d);
	PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew((int)rank, dims, py_npy_type(t, wide));
	if (!a)
		return NULL;
	size_t n = nnef_tensor_count(t);
	nnef_tensor *mt = (nnef_tensor *)t; /* the accessors take no const */
	void *out = PyArray_DATA(a);
	int type = PyArray_TYPE(a);
	if (type == NPY_FLOAT64 && nnef_tensor_dtype(t) == NNEF_SCALAR) {
		memcpy(out, nnef_tensor_scalars(mt), n * sizeof(double));
	} else if (type == NPY_FLOAT32) {
		const double *x = nnef_tensor_scalars(mt);
		for (size_t i = 0; i < n; i++)
			((float *)out)[i] = (float)x[i];
	} else if (type == NPY_INT64 && nnef_tensor_dtype(t) == NNEF_INTEGER) {
		memcpy(out, nnef_tensor_integers(mt), n * sizeof(int64_t));
	} else if (type == NPY_BOOL) {
		const bool *x = nnef_tensor_logicals(mt);
		for (size_t i = 0; i < n; i++)
			((npy_bool *)out)[i] = x[i] ? 1 : 0;
	} else { /* a file's narrower type: each item as its value */
		for (size_t i = 0; i < n; i++) {
			PyObject *v = PyFloat_FromDouble(nnef_tensor_get(t, i));
			if (!v || PyArray_SETITEM(a, (char *)out + i * (size_t)PyArray_ITEMSIZE(a), v) < 0) {
				Py_XDECREF(v);
				Py_DECREF(a);
				return NULL;
			}
			Py_DECREF(v);
		}
	}
	return (PyObject *)a;
}

/* Whether items of NumPy kind `kind` (its dtype.kind) and size go into a
 * tensor of dtype want without a change of kind. */
static bool py_kind_fits(char kind, int size, nnef_dtype want)
{
	switch (want) {
	case NNEF_SCALAR:
		return kind == 'f' || kind == 'i' || kind == 'u';
	case NNEF_INTEGER:
		return kind == 'i' || (kind == 'u' && size < 8);
	case NNEF_LOGICAL:
		return kind == 'b';
	}
	return false;
}

static const char *py_dtype_word(nnef_dtype d)
{
	switch (d) {
	case NNEF_SCALAR:
		return "scalar";
	case NNEF_INTEGER:
		return "integer";
	case NNEF_LOGICAL:
		return "logical";
	}
	return "scalar";
}

nnef_tensor *py_tensor_from_object(PyObject *obj, nnef_dtype want, const char *what)
{
	PyArrayObject *a = (PyArrayObject *)PyArray_FromAny(obj, NULL, 0, 0, 0, NULL);
	if (!a) {
		PyObject *type, *value, *tb;
		PyErr_Fetch(&type, &value, &tb);
		PyErr_Format(PyExc_ValueError, "%s is not an array: %S", what, value ? value : Py_None);
		Py_XDECREF(type);
		Py_XDECREF(value);
		Py_XDECREF(tb);
		return NULL;
	}
	PyArray_Descr *d = PyArray_DESCR(a);
	if (!py_kind_fits(d->kind, (int)d->elsize, want)) {
		PyErr_Format(PyExc_ValueError, "%s has dtype %S, but the graph's input is %s: give %s", what, (PyObject *)d,
			     py_dtype_word(want), want == NNEF_SCALAR ? "floats (float32)" : want == NNEF_INTEGER ? "integers (int64)" : "booleans (bool)");
		Py_DECREF(a);
		return NULL;
	}
	int ndim = PyArray_NDIM(a);
	int64_t dims[NPY_MAXDIMS];
	for (int k = 0; k < ndim; k++) {
		dims[k] = (int64_t)PyArray_DIM(a, k);
		if (dims[k] == 0) {
			PyErr_Format(PyExc_ValueError, "%s is empty (extent 0 along axis %d): a tensor has no empty extent", what, k);
			Py_DECREF(a);
			return NULL;
		}
	}
	int type = want == NNEF_SCALAR ? NPY_FLOAT64 : want == NNEF_INTEGER ? NPY_INT64 : NPY_BOOL;
	/* C order, aligned, native byte order, the tensor's item type */
	PyArrayObject *c = (PyArrayObject *)PyArray_FromArray(a, PyArray_DescrFromType(type),
							      NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST);
	Py_DECREF(a);
	if (!c)
		return NULL;
	nnef_tensor *t = nnef_tensor_new(want, dims, (size_t)ndim);
	if (!t) {
		Py_DECREF(c);
		PyErr_NoMemory();
		return NULL;
	}
	size_t n = nnef_tensor_count(t);
	if (want == NNEF_SCALAR) {
		memcpy(nnef_tensor_scalars(t), PyArray_DATA(c), n * sizeof(double));
	} else if (want == NNEF_INTEGER) {
		memcpy(nnef_tensor_integers(t), PyArray_DATA(c), n * sizeof(int64_t));
	} else {
		const npy_bool *x = PyArray_DATA(c);
		bool *y = nnef_tensor_logicals(t);
		for (size_t i = 0; i < n; i++)
			y[i] = x[i] != 0;
	}
	Py_DECREF(c);
	return t;
}

/* ---- tensor files ---------------------------------------------------------- */

/* The tensor file at path; NULL with an exception set. */
static nnef_tensor *py_read_file(PyObject *args, PyObject *kw, const char *fname)
{
	static const char *const kwlist[] = { "path", "lenient", NULL };
	PyObject *path = NULL;
	int lenient = 0;
	char fmt[32];
	snprintf(fmt, sizeof(fmt), "O&|$p:%s", fname);
	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, (char **)kwlist, PyUnicode_FSConverter, &path, &lenient))
		return NULL;
	nnef_diags *ds = nnef_diags_new();
	if (!ds) {
		Py_DECREF(path);
		return (nnef_tensor *)PyErr_NoMemory();
	}
	nnef_tensor *t;
	const char *p = PyBytes_AS_STRING(path);
	Py_BEGIN_ALLOW_THREADS
	t = nnef_tensor_read(p, lenient ? NNEF_READ_LENIENT : 0, ds);
	Py_END_ALLOW_THREADS
	if (!t)
		py_raise_diags(ds, p);
	nnef_diags_free(ds);
	Py_DECREF(path);
	return t;
}

PyObject *py_read_tensor(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	nnef_tensor *t = py_read_file(args, kw, "read_tensor");
	if (!t)
		return NULL;
	PyObject *a = py_array_from_tensor(t, true);
	nnef_tensor_free(t);
	return a;
}

PyObject *py_read_tensor_info(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	nnef_tensor *t = py_read_file(args, kw, "read_tensor_info");
	if (!t)
		return NULL;
	size_t rank = nnef_tensor_rank(t);
	PyObject *shape = PyTuple_New((Py_ssize_t)rank);
	for (size_t d = 0; shape && d < rank; d++) {
		PyObject *x = PyLong_FromLongLong(nnef_tensor_dim(t, d));
		if (!x)
			Py_CLEAR(shape);
		else
			PyTuple_SET_ITEM(shape, (Py_ssize_t)d, x);
	}
	double lo, hi;
	PyObject *range = nnef_tensor_file_range(t, &lo, &hi) ? Py_BuildValue("{s:d,s:d}", "min", lo, "max", hi)
							      : Py_NewRef(Py_None);
	PyObject *r = shape && range ? Py_BuildValue("{s:z,s:s,s:O,s:O}", "item_type", nnef_tensor_file_type(t), "dtype",
						     py_dtype_word(nnef_tensor_dtype(t)), "shape", shape,
						     "quantization", range) : NULL;
	Py_XDECREF(range);
	Py_XDECREF(shape);
	nnef_tensor_free(t);
	return r;
}

/* The flags of nnef_tensor_write for an array of dtype d; -1 with
 * ValueError set when it has none. */
static int py_write_flags(PyArray_Descr *d, nnef_dtype *dt)
{
	char k = d->kind;
	int size = (int)d->elsize;
	if (k == 'f' && size <= 8) {
		*dt = NNEF_SCALAR;
		return size == 8 ? NNEF_WRITE_DOUBLE : 0;
	}
	if (k == 'i' || (k == 'u' && size < 8)) {
		*dt = NNEF_INTEGER;
		return size < 4 || (size == 4 && k == 'i') ? NNEF_WRITE_INT32 : 0;
	}
	if (k == 'b') {
		*dt = NNEF_LOGICAL;
		return 0;
	}
	PyErr_Format(PyExc_ValueError, "write_tensor: an array of dtype %S has no item type of a tensor file: give floats, integers (up to int64) or booleans", (PyObject *)d);
	return -1;
}

PyObject *py_write_tensor(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	static const char *const kwlist[] = { "path", "array", "format", NULL };
	PyObject *path = NULL, *obj;
	const char *format = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O|$z:write_tensor", (char **)kwlist, PyUnicode_FSConverter, &path, &obj, &format))
		return NULL;
	const char *p = PyBytes_AS_STRING(path);
	size_t len = strlen(p);
	bool npy = format ? strcmp(format, "npy") == 0 : len >= 4 && strcmp(p + len - 4, ".npy") == 0;
	PyArrayObject *a = NULL;
	nnef_dtype dt = NNEF_SCALAR;
	int flags = -1;
	if (format && !npy && strcmp(format, "nnef") != 0)
		PyErr_Format(PyExc_ValueError, "write_tensor: format '%s' is not one: give 'nnef' or 'npy'", format);
	else if ((a = (PyArrayObject *)PyArray_FromAny(obj, NULL, 0, 0, 0, NULL)))
		flags = py_write_flags(PyArray_DESCR(a), &dt);
	nnef_tensor *t = flags >= 0 ? py_tensor_from_object((PyObject *)a, dt, "the array") : NULL;
	Py_XDECREF(a);
	nnef_diags *ds = t ? nnef_diags_new() : NULL;
	bool ok = false;
	if (t && !ds)
		PyErr_NoMemory();
	if (ds) {
		Py_BEGIN_ALLOW_THREADS
		ok = nnef_tensor_write(t, p, (unsigned)flags | (npy ? NNEF_WRITE_NPY : 0), ds);
		Py_END_ALLOW_THREADS
		if (!ok)
			py_raise_diags(ds, p);
	}
	nnef_diags_free(ds);
	nnef_tensor_free(t);
	Py_DECREF(path);
	if (!ok)
		return NULL;
	Py_RETURN_NONE;
}
