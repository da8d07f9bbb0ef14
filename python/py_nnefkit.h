/*
 * py_nnefkit.h - the pieces of the Python module nnefkit (python/), shared
 * between its files: the module (py_module.c), models (py_model.c),
 * diagnostics and exceptions (py_diag.c), tensors as NumPy arrays
 * (py_array.c) and running (py_run.c). Over api/nnef.h only.
 *
 * Every file includes this header first: it includes Python.h before any
 * system header, as the Python C API requires, and NumPy's C API with the
 * module's one table of its functions (imported in py_module.c).
 */
#ifndef PY_NNEFKIT_H
#define PY_NNEFKIT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL py_nnefkit_numpy_api
#ifndef PY_IMPORT_NUMPY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "api/nnef.h"

/* What a model keeps for its runs: a runner, made on first use
 * (py_run.c). */
typedef struct PyRunCache PyRunCache;

/* The prog of rendered diagnostics: "nnefkit: error[E1303]: ..." */
#define PY_PROG "nnefkit"

/* ---- diagnostics and exceptions (py_diag.c) ------------------------------ */

extern PyTypeObject py_diagnostic_type;
/* nnefkit.Error */
extern PyObject *py_error;

/* A list of nnefkit.Diagnostic, one per diagnostic of ds. NULL with an
 * exception set. */
PyObject *py_diags_list(const nnef_diags *ds);
/* Raises for a failure the library reported in ds: OSError (the subclass
 * errno chooses) when its first error reads a file that cannot be read or
 * written, MemoryError-free nnefkit.Error otherwise (out of memory, a
 * limit, a malformed file), with the diagnostics. Returns NULL. */
PyObject *py_raise_diags(const nnef_diags *ds, const char *path);
/* The same for a model that cannot be read (status NNEF_IO_ERROR): an
 * OSError in every case but out of memory (nnefkit.Error), of the
 * subclass errno chooses, FileNotFoundError for a folder or archive
 * without graph.nnef (E0002), else OSError with the diagnostic's text. */
PyObject *py_raise_unreadable(const nnef_diags *ds, const char *path);
/* The errno a diagnostic's message ends with (": No such file or
 * directory"), 0 when none. */
int py_diag_errno(const nnef_diag *d);
/* Adds the types and the exception to the module; false with an
 * exception set. */
bool py_diag_init(PyObject *module);

/* ---- models (py_model.c) ------------------------------------------------- */

extern PyTypeObject py_model_type;
/* nnefkit.load(path, **options) */
PyObject *py_load(PyObject *self, PyObject *args, PyObject *kw);
/* The model to run, with graph.quant applied or not (read again on first
 * use when graph.quant names tensors), variables without data allowed or
 * not (random_weights), in tract's dialect its symbols bound by the shapes
 * of the arrays inputs gives (read again when they change), and the slot
 * of its runner's cache; NULL with an exception set. */
nnef_model *py_model_get(PyObject *self, bool quantize, bool random_weights, PyObject *inputs,
			 PyRunCache ***cache);
bool py_model_init(PyObject *module);

/* ---- tensors as arrays (py_array.c) -------------------------------------- */

/* A new array (owning its memory) holding t's items: float32 or float64
 * (as wide), int64, bool. NULL with an exception set. */
PyObject *py_array_from_tensor(const nnef_tensor *t, bool wide);
/* A tensor of dtype want holding the items of the array-like obj, any
 * layout, converted where no value changes type kind (an integer array
 * for a scalar input; not a float array for an integer one). what names
 * it in messages ("the input 'x'"). NULL with ValueError set. */
nnef_tensor *py_tensor_from_object(PyObject *obj, nnef_dtype want,
				   const char *what);
/* nnefkit.read_tensor, read_tensor_info and write_tensor. */
PyObject *py_read_tensor(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_read_tensor_info(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_write_tensor(PyObject *self, PyObject *args, PyObject *kw);

/* ---- running (py_run.c) -------------------------------------------------- */

/* Model.run */
PyObject *py_model_run(PyObject *self, PyObject *args, PyObject *kw);
void py_run_cache_free(PyRunCache *c);
/* Notes the main thread (where Ctrl-C stops a run). */
bool py_run_init(PyObject *module);

#endif
