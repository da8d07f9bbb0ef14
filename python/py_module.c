/*
 * py_module.c - the Python module nnefkit: its functions (load,
 * read_tensor, read_tensor_info, write_tensor), types and version, over
 * the library's one header, api/nnef.h.
 */
#define PY_IMPORT_NUMPY
#include "python/py_nnefkit.h"

static PyMethodDef py_functions[] = {
	{ "load", (PyCFunction)(void (*)(void))py_load, METH_VARARGS | METH_KEYWORDS,
	  "load(path, *, dialect=None, lenient=False, declarations=(), input_shapes=None,\n"
	  "     check_data=True, max_errors=20, max_depth=0, max_nesting=0, max_operations=0,\n"
	  "     max_value_bytes=0, max_archive_bytes=0, max_member_bytes=0, max_members=0,\n"
	  "     keep=(), keep_standard=False) -> nnefkit.Model\n\n"
	  "Reads and checks the model at path (a directory holding graph.nnef, a .tar or\n"
	  ".tgz of one, or a bare graph file) as nnef-check does, with its options of the\n"
	  "same names (0: the default; check_data=False is --no-data; input_shapes is\n"
	  "{name: (d0, d1, ...)}, as --input-shape). A model that breaks a rule comes back\n"
	  "with valid False and its diagnostics; a path that cannot be read raises OSError\n"
	  "(FileNotFoundError, PermissionError...), running out of memory nnefkit.Error." },
	{ "read_tensor", (PyCFunction)(void (*)(void))py_read_tensor, METH_VARARGS | METH_KEYWORDS,
	  "read_tensor(path, *, lenient=False) -> numpy.ndarray\n\n"
	  "The tensor file at path: NNEF's (spec 5.2, every item type nnef-run reads) or a\n"
	  "NumPy .npy. The array has the file's item type where NumPy has it (float16,\n"
	  "int8, uint32, ...; quantized codes as their integers: qint8 as int8), else\n"
	  "float32, int64 or bool (tract's q4_0 blocks as float32). lenient accepts the\n"
	  "132-byte headers of old NNEF-Tools. OSError when it cannot be read,\n"
	  "nnefkit.Error when it is not a valid tensor file." },
	{ "read_tensor_info", (PyCFunction)(void (*)(void))py_read_tensor_info, METH_VARARGS | METH_KEYWORDS,
	  "read_tensor_info(path, *, lenient=False) -> dict\n\n"
	  "What the tensor file at path holds: {'item_type': the file's item type as\n"
	  "nnef-datinfo names it ('float32', 'qint8', 'q4_0', ...), 'dtype': 'scalar',\n"
	  "'integer' or 'logical', 'shape': tuple, 'quantization': {'min', 'max'} for\n"
	  "items quantized over that range (NNEF 1.0.2 linear and logarithmic item types,\n"
	  "as nnef-datinfo shows it; read_tensor gives their real values), else None}." },
	{ "write_tensor", (PyCFunction)(void (*)(void))py_write_tensor, METH_VARARGS | METH_KEYWORDS,
	  "write_tensor(path, array, *, format=None) -> None\n\n"
	  "Writes the array-like to path as an NNEF tensor file, or a NumPy .npy with\n"
	  "format='npy' (the default for a path ending in .npy). The dtype chooses the item\n"
	  "type: float64 as float64, other floats as float32; int64 and uint32 as int64,\n"
	  "narrower integers as int32; bool as 8-bit bools. Through a temporary file\n"
	  "renamed when complete, as the tools write: nothing partial is left." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef py_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "nnefkit",
	.m_doc = "nnefkit: check, flatten, inspect and run NNEF models (Khronos Neural Network\n"
		 "Exchange Format) from Python, on NumPy arrays.\n\n"
		 "    import nnefkit\n"
		 "    model = nnefkit.load('model.tgz')\n"
		 "    if not model.valid:\n"
		 "        print('\\n'.join(map(str, model.diagnostics)))\n"
		 "    outputs = model.run({'input': x})\n\n"
		 "The C library libnnef (nnef(3)) under the programs nnef-check, nnef-flatten,\n"
		 "nnef-run and nnef-datinfo, with the same checks, messages and results.",
	.m_size = -1,
	.m_methods = py_functions,
};

PyMODINIT_FUNC PyInit_nnefkit(void);

PyMODINIT_FUNC PyInit_nnefkit(void)
{
	import_array();
	PyObject *m = PyModule_Create(&py_module);
	if (!m)
		return NULL;
	if (PyModule_AddStringConstant(m, "__version__", nnef_version()) < 0 || !py_diag_init(m) ||
	    !py_model_init(m) || !py_run_init(m)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
