/*
 * py_run.c - Model.run: the graph run by the library's runner on NumPy
 * arrays, as nnef-run runs it. The runner (which holds the variables,
 * loaded once) is kept for the next run when the graph updates no
 * variable; the GIL is released while the graph runs, and Ctrl-C in the
 * main thread stops it between operations (nnef_runner_interrupt).
 */
#include "python/py_nnefkit.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

#include <pythread.h>

struct PyRunCache {
	nnef_runner *r;
	nnef_diags *ds;        /* the runner's problems */
	bool wide;             /* precision='double' */
	uint64_t seed;         /* of random weights */
	int threads;
	bool busy;             /* a run in progress (GIL released) */
	bool keep;             /* may run again: no variable updated */
};

void py_run_cache_free(PyRunCache *c)
{
	if (!c)
		return;
	nnef_runner_free(c->r);
	nnef_diags_free(c->ds);
	PyMem_RawFree(c);
}

/* Whether the graph has an update operation (then each run starts from
 * the model's variables, with a runner of its own). */
static bool py_updates(const nnef_model *m)
{
	const nnef_graph *g = nnef_model_graph(m);
	for (size_t i = 0; g && i < nnef_graph_op_count(g); i++)
		if (strcmp(nnef_op_name(nnef_graph_op(g, i)), "update") == 0)
			return true;
	return false;
}

/* ---- Ctrl-C ---------------------------------------------------------------- */

/* The runner the main thread runs, which SIGINT interrupts. */
static nnef_runner *volatile py_sig_runner;
static volatile sig_atomic_t py_sig_hit;
static struct sigaction py_sig_old;
static unsigned long py_main_thread;

static void py_on_sigint(int sig)
{
	(void)sig;
	py_sig_hit = 1;
	nnef_runner *r = py_sig_runner;
	if (r)
		nnef_runner_interrupt(r);
}

/* In the main thread, with Python's own SIGINT handler in place: ours
 * while r runs. */
static bool py_sig_install(nnef_runner *r)
{
	struct sigaction sa, old;
	if (PyThread_get_thread_ident() != py_main_thread || py_sig_runner || sigaction(SIGINT, NULL, &old) != 0 ||
	    old.sa_handler == SIG_IGN || old.sa_handler == SIG_DFL)
		return false;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = py_on_sigint;
	sigemptyset(&sa.sa_mask);
	py_sig_hit = 0;
	py_sig_runner = r;
	if (sigaction(SIGINT, &sa, &py_sig_old) != 0) {
		py_sig_runner = NULL;
		return false;
	}
	return true;
}

/* Python's handler back; true when SIGINT came meanwhile (then Python's
 * handler has it, as if it had come now). */
static bool py_sig_restore(void)
{
	sigaction(SIGINT, &py_sig_old, NULL);
	py_sig_runner = NULL;
	if (!py_sig_hit)
		return false;
	PyErr_SetInterrupt();
	return true;
}

/* ---- inputs ------------------------------------------------------------------ */

/* The input names of r, for messages: " a b c". */
static PyObject *py_input_list(const nnef_runner *r)
{
	PyObject *s = PyUnicode_FromString("");
	for (size_t i = 0; s && i < nnef_runner_input_count(r); i++) {
		PyObject *t = PyUnicode_FromFormat("%U %s", s, nnef_runner_input_name(r, i));
		Py_DECREF(s);
		s = t;
	}
	return s;
}

/* The graph's input named name. */
static const nnef_tensor_info *py_graph_input(const nnef_model *m, const char *name)
{
	const nnef_graph *g = nnef_model_graph(m);
	for (size_t i = 0; i < nnef_graph_input_count(g); i++)
		if (strcmp(nnef_tensor_info_name(nnef_graph_input(g, i)), name) == 0)
			return nnef_graph_input(g, i);
	return NULL;
}

/* Gives r its inputs from the dict (or random ones); false with
 * ValueError set. */
static bool py_set_inputs(const nnef_model *m, PyRunCache *c, PyObject *inputs, int random,
			  unsigned long long seed)
{
	nnef_runner *r = c->r;
	size_t n = nnef_runner_input_count(r);
	PyObject *k, *v;
	Py_ssize_t pos = 0;
	while (inputs && PyDict_Next(inputs, &pos, &k, &v)) {
		const char *name = PyUnicode_Check(k) ? PyUnicode_AsUTF8(k) : NULL;
		size_t i = 0;
		while (name && i < n && strcmp(nnef_runner_input_name(r, i), name) != 0)
			i++;
		if (!name || i == n) {
			PyObject *names = py_input_list(r);
			if (names && !PyErr_Occurred())
				PyErr_Format(PyExc_ValueError, "inputs: %R is not an input of the graph; its inputs are:%U", k, names);
			Py_XDECREF(names);
			return false;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = nnef_runner_input_name(r, i);
		PyObject *x = inputs ? PyDict_GetItemString(inputs, name) : NULL;
		const nnef_tensor_info *ti = py_graph_input(m, name);
		if (!x && random) {
			nnef_runner_random_input(r, i, random == 1 ? NNEF_UNIFORM : NNEF_NORMAL, seed);
			continue;
		}
		if (!x || !ti) {
			PyErr_Format(PyExc_ValueError, "the graph input '%s' has no data: give it in inputs, or random='uniform' or 'normal'", name);
			return false;
		}
		char what[512];
		snprintf(what, sizeof(what), "the data given for the input '%s'", name);
		nnef_tensor *t = py_tensor_from_object(x, nnef_runner_input_dtype(r, i), what);
		if (!t)
			return false;
		bool ok = nnef_runner_set_input(r, i, t);
		nnef_tensor_free(t);
		if (!ok) { /* E1303: not the graph's shape (E0008: memory) */
			const nnef_diags *ds = c->ds;
			const nnef_diag *d = nnef_diags_count(ds) ? nnef_diags_get(ds, nnef_diags_count(ds) - 1) : NULL;
			if (d && strcmp(nnef_diag_code(d), "E1303") == 0)
				PyErr_Format(PyExc_ValueError, "%s", nnef_diag_message(d));
			else
				py_raise_diags(ds, NULL);
			return false;
		}
	}
	return true;
}

/* ---- running ------------------------------------------------------------------ */

/* The cache's runner for m with these options, made (or made again) as
 * needed; false with an exception set. */
static bool py_runner(PyRunCache **slot, const nnef_model *m, bool wide, int threads, bool random_weights,
		      uint64_t seed)
{
	PyRunCache *c = *slot;
	if (c && c->r && c->keep && c->wide == wide && c->threads == threads && (!random_weights || c->seed == seed))
		return true;
	if (!c) {
		c = *slot = PyMem_RawCalloc(1, sizeof(*c));
		if (!c || !(c->ds = nnef_diags_new())) {
			py_run_cache_free(c);
			*slot = NULL;
			PyErr_NoMemory();
			return false;
		}
	}
	nnef_runner_free(c->r);
	c->r = NULL;
	nnef_diags_clear(c->ds);
	nnef_run_options ro;
	nnef_run_options_init(&ro);
	ro.double_precision = wide;
	ro.threads = threads;
	ro.random_weights = random_weights;
	ro.seed = seed;
	c->seed = seed;
	c->wide = wide;
	c->threads = threads;
	c->keep = !py_updates(m);
	c->busy = true;
	nnef_runner *r;
	Py_BEGIN_ALLOW_THREADS
	r = nnef_runner_new(m, &ro, c->ds);
	Py_END_ALLOW_THREADS
	c->busy = false;
	c->r = r;
	if (!r) {
		py_raise_diags(c->ds, NULL);
		return false;
	}
	/* warnings of the runner (W1311: graph.quant turned off) as Python's */
	for (size_t i = 0; i < nnef_diags_count(c->ds); i++) {
		const nnef_diag *d = nnef_diags_get(c->ds, i);
		char *text = nnef_diag_level(d) == NNEF_WARNING ? nnef_diag_render(d, PY_PROG, 0) : NULL;
		int st = text ? PyErr_WarnEx(PyExc_UserWarning, text, 2) : 0;
		free(text);
		if (st < 0)
			return false;
	}
	return true;
}

/* The outputs of the last run, by name. */
static PyObject *py_outputs(const PyRunCache *c)
{
	PyObject *d = PyDict_New();
	for (size_t i = 0; d && i < nnef_runner_count(c->r, NNEF_RUN_OUTPUTS); i++) {
		nnef_tensor *t = nnef_runner_get(c->r, NNEF_RUN_OUTPUTS, i);
		PyObject *a = t ? py_array_from_tensor(t, c->wide) : NULL;
		if (!t && !PyErr_Occurred())
			PyErr_Format(py_error, "the output '%s' holds no data", nnef_runner_name(c->r, NNEF_RUN_OUTPUTS, i));
		if (!a || PyDict_SetItemString(d, nnef_runner_name(c->r, NNEF_RUN_OUTPUTS, i), a) < 0)
			Py_CLEAR(d);
		Py_XDECREF(a);
		nnef_tensor_free(t);
	}
	return d;
}

/* Runs the cycles, the GIL released; false with an exception set (and
 * the runner, which can then only be freed, freed). */
static bool py_execute(PyRunCache *c, size_t cycles)
{
	nnef_diags_clear(c->ds);
	bool sig = py_sig_install(c->r);
	bool ok = true;
	c->busy = true;
	Py_BEGIN_ALLOW_THREADS
	for (size_t k = 0; k < cycles && ok; k++)
		ok = nnef_runner_run(c->r);
	Py_END_ALLOW_THREADS
	c->busy = false;
	bool interrupted = sig && py_sig_restore();
	if (interrupted && PyErr_CheckSignals() < 0)
		ok = false; /* KeyboardInterrupt, or what the program's handler raised */
	else if (!ok)
		py_raise_diags(c->ds, NULL);
	if (!ok || interrupted) { /* an interrupted runner can only be freed */
		nnef_runner_free(c->r);
		c->r = NULL;
	}
	return ok;
}

static const char *const py_run_kw[] = {
	"inputs", "precision", "quantize", "cycles", "random", "seed", "threads", "random_weights", NULL,
};

PyObject *py_model_run(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *inputs = Py_None, *seed_obj = Py_None;
	const char *precision = "single", *random = NULL;
	int quantize = 1, threads = 0, random_weights = 0;
	Py_ssize_t cycles = 1;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$spnzOip:run", (char **)py_run_kw, &inputs, &precision,
					 &quantize, &cycles, &random, &seed_obj, &threads, &random_weights))
		return NULL;
	bool wide = strcmp(precision, "double") == 0;
	int rnd = !random ? 0 : strcmp(random, "uniform") == 0 ? 1 : strcmp(random, "normal") == 0 ? 2 : -1;
	unsigned long long seed = seed_obj == Py_None ? 0 : PyLong_AsUnsignedLongLong(seed_obj);
	if (PyErr_Occurred())
		return NULL;
	if (!wide && strcmp(precision, "single") != 0)
		return PyErr_Format(PyExc_ValueError, "precision: '%s' is not one: give 'single' or 'double'", precision);
	if (rnd < 0)
		return PyErr_Format(PyExc_ValueError, "random: '%s' is not one: give 'uniform' or 'normal'", random);
	if (cycles < 1 || threads < 0)
		return PyErr_Format(PyExc_ValueError, "cycles must be at least 1 and threads not negative");
	if (inputs != Py_None && !PyDict_Check(inputs))
		return PyErr_Format(PyExc_TypeError, "inputs: give a dict {name: array}, not %.100s", Py_TYPE(inputs)->tp_name);
	PyRunCache **slot;
	nnef_model *m = py_model_get(self, quantize, random_weights, inputs == Py_None ? NULL : inputs, &slot);
	if (!m)
		return NULL;
	if (nnef_model_status(m) != NNEF_VALID)
		return PyErr_Format(PyExc_ValueError, "'%s' is not a valid model (see Model.diagnostics): it cannot run", nnef_model_path(m));
	if (*slot && (*slot)->busy)
		return PyErr_Format(PyExc_RuntimeError, "the model is running in another thread: one run of a Model at a time (load it again for another)");
	if (!py_runner(slot, m, wide, threads, random_weights, seed))
		return NULL;
	PyRunCache *c = *slot;
	if (!py_set_inputs(m, c, inputs == Py_None ? NULL : inputs, rnd, seed) || !py_execute(c, (size_t)cycles))
		return NULL;
	PyObject *out = py_outputs(c);
	if (!c->keep) {
		nnef_runner_free(c->r);
		c->r = NULL;
	}
	return out;
}

bool py_run_init(PyObject *module)
{
	(void)module;
	PyObject *threading = PyImport_ImportModule("threading");
	PyObject *main = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
	PyObject *ident = main ? PyObject_GetAttrString(main, "ident") : NULL;
	if (ident)
		py_main_thread = PyLong_AsUnsignedLong(ident);
	Py_XDECREF(ident);
	Py_XDECREF(main);
	Py_XDECREF(threading);
	return ident && !PyErr_Occurred();
}
