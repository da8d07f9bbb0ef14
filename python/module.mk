# python/: the Python module nnefkit (make python), a CPython extension over
# api/nnef.h for the Python of PYTHON, Debian's by default (not whichever
# python3 comes first on PATH), with NumPy's C API. libnnef is linked in
# statically (its objects are -fPIC), so that the module needs no
# installed libnnef.so, and exports PyInit_nnefkit alone (the library's
# symbols stay inside: --exclude-libs).
PYTHON        ?= /usr/bin/python3
PY_SRCS       := python/py_module.c python/py_model.c python/py_diag.c python/py_array.c python/py_run.c
PY_OBJS       := $(patsubst %.c,$(BUILD)/%.o,$(PY_SRCS))
# asked of the interpreter once, when make python (or install) needs them
PY_INCLUDE     = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
PY_NUMPY_INC   = $(shell $(PYTHON) -c 'import numpy; print(numpy.get_include())')
PY_EXT_SUFFIX  = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PY_MODULE      = $(BUILD)/python/nnefkit$(PY_EXT_SUFFIX)
# Python's and NumPy's headers as system headers (their warnings are not
# ours); only PyInit_nnefkit is exported
PY_CFLAGS      = -isystem $(PY_INCLUDE) -isystem $(PY_NUMPY_INC) -fvisibility=hidden

$(BUILD)/python/%.o: python/%.c python/py_nnefkit.h $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(PY_CFLAGS) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

python: $(LIB)
	@$(PYTHON) -c 'import sysconfig, numpy' 2>/dev/null || { echo "make python: $(PYTHON) with NumPy and Python's headers is needed (Debian: python3-dev python3-numpy; make deps)" >&2; exit 1; }
	@$(MAKE) --no-print-directory py-module

py-module: $(PY_MODULE) $(BUILD)/python/nnefkit.pyi

$(PY_MODULE): $(PY_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,--exclude-libs,ALL $(LDFLAGS_ALL) -o $@ $(PY_OBJS) $(LIB) $(LIBS)

$(BUILD)/python/nnefkit.pyi: python/nnefkit.pyi
	@mkdir -p $(dir $@)
	cp $< $@

# Where make install puts the module: the site-packages directory of
# $(PYTHON) under PREFIX/lib/ (Debian's: /usr/local/lib/python3.X/
# dist-packages for /usr/local), else the one sysconfig's posix_prefix
# scheme gives for PREFIX (PREFIX/lib/python3.X/site-packages, for
# PYTHONPATH).
PY_SITE = $(shell $(PYTHON) -c 'import os, site, sys, sysconfig; p = os.path.normpath(sys.argv[1]); d = [s for s in site.getsitepackages() if s.startswith(p + "/lib/")]; print(d[0] if d else sysconfig.get_path("platlib", "posix_prefix", vars={"base": p, "platbase": p}))' '$(PREFIX)')

install-python: python
	install -d $(DESTDIR)$(PY_SITE)
	install -m 644 $(PY_MODULE) $(DESTDIR)$(PY_SITE)/
	install -m 644 python/nnefkit.pyi $(DESTDIR)$(PY_SITE)/

# the module, its stubs, then the directories under PREFIX install may
# have made for them, each only when empty
uninstall-python:
	rm -f $(DESTDIR)$(PY_SITE)/nnefkit$(PY_EXT_SUFFIX) $(DESTDIR)$(PY_SITE)/nnefkit.pyi
	d='$(DESTDIR)$(PY_SITE)'; \
	while case $$d in '$(DESTDIR)$(PREFIX)'/?*) true ;; *) false ;; esac && \
		[ -d "$$d" ] && [ -z "$$(ls -A "$$d")" ]; do \
		rmdir "$$d" || exit 1; d=$$(dirname "$$d"); \
	done

.PHONY: python py-module install-python uninstall-python
