/*
 * py_diag.c - nnefkit.Diagnostic, nnefkit.Note and nnefkit.Error: the
 * library's diagnostics (nnef_diags) as Python objects, and the
 * exceptions raised for failures it reports (OSError for files that
 * cannot be read or written, nnefkit.Error for the rest).
 */
#include "python/py_nnefkit.h"

#include <errno.h>
#include <string.h>
#include <structmember.h>
#include <sys/stat.h>

PyObject *py_error;

typedef struct PyDiagnostic {
	PyObject_HEAD
	PyObject *code, *severity, *summary, *message, *hint, *file;
	PyObject *line, *column, *end_line, *end_column, *notes;
	PyObject *text; /* str(): as the tools print it */
} PyDiagnostic;

static PyTypeObject py_note_type;

static PyStructSequence_Field py_note_fields[] = {
	{ "message", "what the note says" },
	{ "file", "the file it points into, or None" },
	{ "line", "its line (from 1), or None" },
	{ "column", "its column (from 1, in bytes), or None" },
	{ NULL, NULL },
};

static PyStructSequence_Desc py_note_desc = {
	"nnefkit.Note",
	"A note of a diagnostic: context such as 'in expansion of ...', with its position.",
	py_note_fields, 4,
};

/* None, or the number n when known (not 0). */
static PyObject *py_position(unsigned n, bool known)
{
	if (!known)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLong(n);
}

static PyObject *py_str_or_none(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

static PyObject *py_note_new(const nnef_diag *d, size_t i)
{
	nnef_location l = nnef_diag_note_location(d, i);
	PyObject *note = PyStructSequence_New(&py_note_type);
	if (!note)
		return NULL;
	PyObject *items[4] = { py_str_or_none(nnef_diag_note_message(d, i)), py_str_or_none(l.file),
			       py_position(l.line, l.file != NULL), py_position(l.column, l.file != NULL) };
	for (int k = 0; k < 4; k++) {
		if (!items[k]) {
			for (int j = k + 1; j < 4; j++)
				Py_XDECREF(items[j]);
			Py_DECREF(note);
			return NULL;
		}
		PyStructSequence_SetItem(note, k, items[k]);
	}
	return note;
}

static PyObject *py_notes(const nnef_diag *d)
{
	size_t n = nnef_diag_note_count(d);
	PyObject *t = PyTuple_New((Py_ssize_t)n);
	for (size_t i = 0; t && i < n; i++) {
		PyObject *note = py_note_new(d, i);
		if (!note) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, (Py_ssize_t)i, note);
	}
	return t;
}

static const char *py_severity(nnef_level l)
{
	switch (l) {
	case NNEF_ERROR:
		return "error";
	case NNEF_WARNING:
		return "warning";
	case NNEF_NOTE:
		return "note";
	}
	return "error";
}

/* The diagnostic as the tools print it: with its source line and caret. */
static PyObject *py_diag_text(const nnef_diag *d)
{
	char *text = nnef_diag_render(d, PY_PROG, NNEF_RENDER_SOURCE);
	if (!text)
		return PyErr_NoMemory();
	size_t len = strlen(text);
	if (len && text[len - 1] == '\n')
		len--;
	PyObject *s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
	free(text);
	return s;
}

static PyObject *py_diagnostic_new(const nnef_diag *d)
{
	PyDiagnostic *o = PyObject_New(PyDiagnostic, &py_diagnostic_type);
	if (!o)
		return NULL;
	nnef_location l = nnef_diag_location(d);
	bool at = l.file != NULL;
	o->code = py_str_or_none(nnef_diag_code(d));
	o->severity = PyUnicode_FromString(py_severity(nnef_diag_level(d)));
	o->summary = py_str_or_none(nnef_diag_summary(d));
	o->message = py_str_or_none(nnef_diag_message(d));
	o->hint = py_str_or_none(nnef_diag_hint(d));
	o->file = py_str_or_none(nnef_diag_file(d));
	o->line = py_position(l.line, at);
	o->column = py_position(l.column, at);
	o->end_line = py_position(l.end_line, at);
	o->end_column = py_position(l.end_column, at);
	o->notes = py_notes(d);
	o->text = py_diag_text(d);
	if (!o->code || !o->severity || !o->summary || !o->message || !o->hint || !o->file || !o->line ||
	    !o->column || !o->end_line || !o->end_column || !o->notes || !o->text) {
		Py_DECREF(o);
		return NULL;
	}
	return (PyObject *)o;
}

static void py_diagnostic_dealloc(PyObject *self)
{
	PyDiagnostic *o = (PyDiagnostic *)self;
	Py_XDECREF(o->code);
	Py_XDECREF(o->severity);
	Py_XDECREF(o->summary);
	Py_XDECREF(o->message);
	Py_XDECREF(o->hint);
	Py_XDECREF(o->file);
	Py_XDECREF(o->line);
	Py_XDECREF(o->column);
	Py_XDECREF(o->end_line);
	Py_XDECREF(o->end_column);
	Py_XDECREF(o->notes);
	Py_XDECREF(o->text);
	PyObject_Free(self);
}

static PyObject *py_diagnostic_str(PyObject *self)
{
	PyObject *t = ((PyDiagnostic *)self)->text;
	Py_INCREF(t);
	return t;
}

static PyObject *py_diagnostic_repr(PyObject *self)
{
	PyDiagnostic *o = (PyDiagnostic *)self;
	return PyUnicode_FromFormat("<nnefkit.Diagnostic %U %U: %R>", o->severity, o->code, o->message);
}

#define PY_MEMBER(name, doc) { #name, T_OBJECT_EX, offsetof(PyDiagnostic, name), READONLY, doc }
static PyMemberDef py_diagnostic_members[] = {
	PY_MEMBER(code, "the stable code, 'E0202' (see nnef-diagnostics(7))"),
	PY_MEMBER(severity, "'error', 'warning' or 'note'"),
	PY_MEMBER(summary, "the code's one-line summary"),
	PY_MEMBER(message, "what is wrong, in one line"),
	PY_MEMBER(hint, "how to fix it, or None"),
	PY_MEMBER(file, "the file it is about, or None"),
	PY_MEMBER(line, "the line of its position (from 1), or None without one"),
	PY_MEMBER(column, "the column of its position (from 1, in bytes), or None"),
	PY_MEMBER(end_line, "the line just past its range, or None"),
	PY_MEMBER(end_column, "the column just past its range, or None"),
	PY_MEMBER(notes, "tuple of nnefkit.Note: 'in expansion of ...' frames and other context, innermost first"),
	{ NULL, 0, 0, 0, NULL },
};

PyTypeObject py_diagnostic_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "nnefkit.Diagnostic",
	.tp_basicsize = sizeof(PyDiagnostic),
	.tp_dealloc = py_diagnostic_dealloc,
	.tp_repr = py_diagnostic_repr,
	.tp_str = py_diagnostic_str,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A diagnostic of the library: an error, warning or note with its stable code,\n"
		  "message, position, notes and hint. str() gives the text nnef-check prints\n"
		  "(with 'nnefkit: ' before a diagnostic without a position).",
	.tp_members = py_diagnostic_members,
};

PyObject *py_diags_list(const nnef_diags *ds)
{
	size_t n = nnef_diags_count(ds);
	PyObject *list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++) {
		PyObject *d = py_diagnostic_new(nnef_diags_get(ds, i));
		if (!d) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, d);
	}
	return list;
}

int py_diag_errno(const nnef_diag *d)
{
	const char *msg = nnef_diag_message(d);
	size_t len = strlen(msg);
	/* the library's messages end with strerror's text after ": " */
	for (int e = 1; e < 134; e++) {
		const char *why = strerror(e);
		size_t n = strlen(why);
		if (len > n + 2 && strcmp(msg + len - n, why) == 0 && msg[len - n - 2] == ':')
			return e;
	}
	return 0;
}

/* The first error of ds, else its first diagnostic; NULL when empty. */
static const nnef_diag *py_first_error(const nnef_diags *ds)
{
	for (size_t i = 0; i < nnef_diags_count(ds); i++)
		if (nnef_diag_level(nnef_diags_get(ds, i)) == NNEF_ERROR)
			return nnef_diags_get(ds, i);
	return nnef_diags_count(ds) ? nnef_diags_get(ds, 0) : NULL;
}

/* Raises exc (when made) with its attribute diagnostics; lets go of
 * the three. NULL. */
static PyObject *py_raise_with(PyObject *exc, PyObject *text, PyObject *diags)
{
	if (exc && PyObject_SetAttrString(exc, "diagnostics", diags) == 0)
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
	Py_XDECREF(exc);
	Py_XDECREF(text);
	Py_XDECREF(diags);
	return NULL;
}

PyObject *py_raise_diags(const nnef_diags *ds, const char *path)
{
	const nnef_diag *d = py_first_error(ds);
	if (!d) {
		PyErr_SetString(py_error, "the library failed without saying why");
		return NULL;
	}
	PyObject *diags = py_diags_list(ds);
	PyObject *text = diags ? py_diag_text(d) : NULL;
	int e = py_diag_errno(d);
	struct stat st;
	/* E0001 "not a regular file" about a directory: IsADirectoryError */
	if (!e && path && strcmp(nnef_diag_code(d), "E0001") == 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		e = EISDIR;
	PyObject *exc = NULL;
	/* OSError(errno, strerror, filename): the subclass errno chooses */
	if (text && e && path)
		exc = PyObject_CallFunction(PyExc_OSError, "iss", e, strerror(e), path);
	else if (text && e)
		exc = PyObject_CallFunction(PyExc_OSError, "iO", e, text);
	else if (text)
		exc = PyObject_CallFunctionObjArgs(py_error, text, NULL);
	return py_raise_with(exc, text, diags);
}

PyObject *py_raise_unreadable(const nnef_diags *ds, const char *path)
{
	const nnef_diag *d = py_first_error(ds);
	if (!d || strcmp(nnef_diag_code(d), "E0008") == 0 || py_diag_errno(d))
		return py_raise_diags(ds, path);
	/* not a model: no graph.nnef (E0002) is a file not found; a corrupt
	 * or foreign archive, a link out of the model, an OSError of its
	 * own, with the diagnostic's text */
	PyObject *diags = py_diags_list(ds);
	PyObject *text = diags ? PyUnicode_FromString(nnef_diag_message(d)) : NULL;
	PyObject *exc = NULL;
	if (text && strcmp(nnef_diag_code(d), "E0002") == 0)
		exc = PyObject_CallFunction(PyExc_OSError, "iOs", ENOENT, text, path);
	else if (text)
		exc = PyObject_CallFunction(PyExc_OSError, "OOs", Py_None, text, path);
	return py_raise_with(exc, text, diags);
}

bool py_diag_init(PyObject *module)
{
	if (PyType_Ready(&py_diagnostic_type) < 0 || PyStructSequence_InitType2(&py_note_type, &py_note_desc) < 0)
		return false;
	py_error = PyErr_NewExceptionWithDoc("nnefkit.Error",
		"A failure the library reports that is not a file's: out of memory (E0008), a\n"
		"limit, a malformed tensor file. str() is its first error as the tools print it;\n"
		"the attribute diagnostics lists every nnefkit.Diagnostic.", NULL, NULL);
	if (!py_error)
		return false;
	Py_INCREF(&py_diagnostic_type);
	Py_INCREF(&py_note_type);
	Py_INCREF(py_error);
	if (PyModule_AddObject(module, "Diagnostic", (PyObject *)&py_diagnostic_type) < 0 ||
	    PyModule_AddObject(module, "Note", (PyObject *)&py_note_type) < 0 ||
	    PyModule_AddObject(module, "Error", py_error) < 0)
		return false;
	return true;
}
