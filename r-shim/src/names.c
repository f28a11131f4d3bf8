/* The entry points R calls: set-up (rtp_pyinit, rtp_setup), and the Python callables the R
 * side names (ops, operators, bridge functions, nnf functions), cached by name. The top layer
 * of the C files (see pyapi.h). */
#include "pyapi.h"
#include "routines.h"

/* -- callables cached by name -------------------------------------------------------------
 *
 * The generated wrappers, the operators and .bridge() name the Python callable they call
 * (`.Call(rtp_op, "sin", list(self))`). C asks Python for it once, through the bridge
 * module's c_callable(table, name) (rtorchpy/_r/__init__.py: the same callable R gets through
 * reticulate), and keeps it here with a reference of its own, in a small table keyed by the
 * address of the name's CHARSXP (R keeps one CHARSXP per string, so the address identifies
 * the name), beside the function a direct call may use instead (direct.py's direct_fn: ops,
 * binary operators, nnf functions, two bridge functions). A name Python does not know, or any call before rtp_setup,
 * gives raw 04: R then takes its general path through reticulate, which reports the error.
 * rtp_setup (after rtp_pyinit) sets the class of tensors and the direct path's state, and
 * empties the tables.
 */
#define TABSIZE 2048
static SEXP tab_key[NTAB][TABSIZE];
static PyObj *tab_fn[NTAB][TABSIZE];
static PyObj *tab_direct[NTAB][TABSIZE];
static int tab_flags[NTAB][TABSIZE];  /* the direct function's flags (HANDLE_FIRST) */
static PyObj *resolver = NULL;       /* the bridge module's c_callable */

static void clear_tables(void) {
  int gil = gil_ensure();
  for (int t = 0; t < NTAB; t++) {
    for (int i = 0; i < TABSIZE; i++) {
      if (tab_fn[t][i]) decref(tab_fn[t][i]);
      if (tab_direct[t][i]) decref(tab_direct[t][i]);
      tab_fn[t][i] = NULL;
      tab_direct[t][i] = NULL;
      tab_flags[t][i] = 0;
      tab_key[t][i] = NULL;
    }
  }
  gil_release(gil);
}

/* A call of the bridge module's function `fname` with no arguments (the GIL is held): a new
 * reference, or NULL with Python's error cleared. */
static PyObj *bridge_call0(const char *fname) {
  PyObj *f = getattr_s(bridge_module, fname);
  PyObj *tup = f ? tuple_new(0) : NULL;
  PyObj *r = tup ? object_call(f, tup, NULL) : NULL;
  if (tup) decref(tup);
  if (f) decref(f);
  if (r == NULL && err_occurred()) err_clear();
  return r;
}

/* Find the Python C API in the libpython at `path` and import the bridge module `module`
 * through it (pyapi.c); then the callables through which Python calls R functions
 * (callback.c; without them, R's callbacks go through reticulate). Whether C can call. */
SEXP rtp_pyinit(SEXP path, SEXP module) {
  void *lib = py_api_load(path, module);
  if (lib != NULL) setup_callbacks(lib);
  return Rf_ScalarLogical(lib != NULL);
}

/* `cls`: the class of tensors. Sets up C's calls: the callables by name, and the direct path
 * (direct.py's direct_setup() gives C the objects it keeps). Whether all of it is ready (FALSE:
 * Python was not started in C, or its module lacks what C needs; R then calls through
 * reticulate). */
SEXP rtp_setup(SEXP cls) {
  if (!ready) return Rf_ScalarLogical(0);
  clear_tables();
  if (tensor_cls) R_ReleaseObject(tensor_cls);
  tensor_cls = cls;
  R_PreserveObject(cls);
  int gil = gil_ensure();
  if (resolver) decref(resolver);
  resolver = getattr_s(bridge_module, "c_callable");
  if (resolver == NULL && err_occurred()) err_clear();
  PyObj *d = bridge_call0("direct_setup");
  gil_release(gil);
  int direct = setup_direct(d);
  if (d) {
    gil = gil_ensure();
    decref(d);
    gil_release(gil);
  }
  return Rf_ScalarLogical(resolver != NULL && direct);
}

/* The callable Python names `name` in table t (a new reference), or NULL (unknown to Python,
 * or C not set up). The GIL is held; `utf8` is the name, translated before the GIL was taken. */
static PyObj *resolve(int t, const char *utf8) {
  if (resolver == NULL) return NULL;
  PyObj *tup = tuple_new(2), *r = NULL;
  if (tup != NULL) {
    PyObj *ti = long_from((long) t), *nm = unicode_from(utf8);
    if (ti && nm) {
      tuple_setitem(tup, 0, ti);  /* (steals the references) */
      tuple_setitem(tup, 1, nm);
      r = object_call(resolver, tup, NULL);
    } else {
      if (ti) decref(ti);
      if (nm) decref(nm);
    }
    decref(tup);
  }
  if (r == NULL && err_occurred()) err_clear();
  if (r == py_none) {
    decref(r);
    r = NULL;
  }
  return r;
}

/* The cached callable named `name` (a string) in table t, or NULL (not known); *direct:
 * the function a direct call may use instead, or NULL. */
static PyObj *lookup(int t, SEXP name, PyObj **direct, int *flags) {
  *direct = NULL;
  *flags = 0;
  if (!ready || resolver == NULL || TYPEOF(name) != STRSXP || XLENGTH(name) != 1 ||
      STRING_ELT(name, 0) == NA_STRING) {
    return NULL;
  }
  SEXP key = STRING_ELT(name, 0);
  size_t i = (((uintptr_t) key) >> 4) % TABSIZE;
  for (int probe = 0; probe < TABSIZE; probe++, i = (i + 1) % TABSIZE) {
    if (tab_key[t][i] == key) {
      *direct = tab_direct[t][i];
      *flags = tab_flags[t][i];
      return tab_fn[t][i];
    }
    if (tab_key[t][i] == NULL) break;
  }
  const char *utf8 = Rf_translateCharUTF8(key);  /* (may allocate: before the GIL) */
  int gil = gil_ensure();
  PyObj *fn = resolve(t, utf8);
  if (fn == NULL) {
    gil_release(gil);
    return NULL;
  }
  PyObj *d = direct_function(t, key, flags);
  gil_release(gil);
  i = (((uintptr_t) key) >> 4) % TABSIZE;
  for (int probe = 0; probe < TABSIZE; probe++, i = (i + 1) % TABSIZE) {
    if (tab_key[t][i] == NULL) {
      tab_key[t][i] = key;  /* CHARSXPs of names in the package's code are never collected */
      R_PreserveObject(key);
      tab_fn[t][i] = fn;
      tab_direct[t][i] = d;
      tab_flags[t][i] = *flags;
      *direct = d;
      return fn;
    }
  }
  /* table full: cannot happen with the package's names (TABSIZE is several times their
   * number); the callable is not kept, so the call goes through reticulate */
  gil = gil_ensure();
  decref(fn);
  if (d) decref(d);
  gil_release(gil);
  *direct = NULL;
  *flags = 0;
  return NULL;
}

/* The cached callable `name` of table t, for the tables with no direct functions. */
static PyObj *lookup_fn(int t, SEXP name) {
  PyObj *direct;
  int flags;
  return lookup(t, name, &direct, &flags);
}

/* fn's Python caller with the n arguments `a` as an R list. */
static SEXP call_py_args(PyObj *fn, SEXP *a, int n) {
  SEXP args = PROTECT(Rf_allocVector(VECSXP, n));
  for (int i = 0; i < n; i++) SET_VECTOR_ELT(args, i, a[i]);
  SEXP r = call_py(fn, args, tensor_cls);
  UNPROTECT(1);
  return r;
}

/* The n arguments `a` directly through `direct` (flags: see call_direct) when
 * there is one and the arguments allow (call_direct), else through fn's Python caller. */
static SEXP call_with(PyObj *fn, PyObj *direct, int flags, SEXP *a, int n) {
  if (direct != NULL) {
    SEXP r = call_direct(direct, a, n, flags, tensor_cls);
    if (r != NULL) return r;
  }
  return call_py_args(fn, a, n);
}

/* Op `name` (table 0) or function `name` (table 4: nnf_*) with the R list `args`. */
static SEXP call_named(int t, SEXP name, SEXP args) {
  PyObj *direct;
  int flags;
  PyObj *fn = lookup(t, name, &direct, &flags);
  if (fn == NULL) return raw1(REPLY_UNKNOWN);
  if (direct == NULL || TYPEOF(args) != VECSXP || XLENGTH(args) > MAX_DIRECT_ARGS) {
    return call_py(fn, args, tensor_cls);
  }
  SEXP a[MAX_DIRECT_ARGS];
  int n = (int) XLENGTH(args);
  for (int i = 0; i < n; i++) a[i] = VECTOR_ELT(args, i);
  return call_with(fn, direct, flags, a, n);
}

/* The same for .External(rtp_opx, name, ...): the arguments come as the pairlist R built to
 * call the routine, so the wrapper makes no list of them (R allocations are most of the R
 * side's cost per op: each is a cache miss when made, and again when collected). */
static SEXP call_named_ext(int t, SEXP call_args) {
  SEXP name = CADR(call_args), rest = CDDR(call_args);
  PyObj *direct;
  int flags;
  PyObj *fn = lookup(t, name, &direct, &flags);
  if (fn == NULL) return raw1(REPLY_UNKNOWN);
  int n = Rf_length(rest);
  SEXP buf[MAX_DIRECT_ARGS];  /* (more arguments than that never go direct: call_direct) */
  SEXP *a = n <= MAX_DIRECT_ARGS ? buf : (SEXP *) R_alloc((size_t) n, sizeof(SEXP));
  int i = 0;
  for (SEXP s = rest; s != R_NilValue; s = CDR(s)) a[i++] = CAR(s);
  return call_with(fn, direct, flags, a, n);
}

/* .External(rtp_opx, name, ...) and .External(rtp_fnx, name, ...): rtp_op and rtp_fn with the
 * arguments as they came. */
SEXP rtp_opx(SEXP call_args) {
  return call_named_ext(T_OPS, call_args);
}

SEXP rtp_fnx(SEXP call_args) {
  return call_named_ext(T_FNS, call_args);
}

/* Op `name` with the R list `args` (as rtp_ncall with the tensor class). */
SEXP rtp_op(SEXP name, SEXP args) {
  return call_named(T_OPS, name, args);
}

/* Function `name` of the package (the nnf_* functions: .rt$fns) with the R list `args`. */
SEXP rtp_fn(SEXP name, SEXP args) {
  return call_named(T_FNS, name, args);
}

/* The binary operator `generic` (.Generic of Ops) on e1, e2. Directly when e1 is a tensor and
 * e2 a tensor or a number (a number on the left becomes a tensor in Python's caller). */
SEXP rtp_binop(SEXP generic, SEXP e1, SEXP e2) {
  PyObj *direct;
  int flags;
  PyObj *fn = lookup(T_BINARY, generic, &direct, &flags);
  if (fn == NULL) return raw1(REPLY_UNKNOWN);
  SEXP a[2] = {e1, e2};
  int direct_ok = TYPEOF(e1) == EXTPTRSXP && TYPEOF(e2) != STRSXP;
  return call_with(fn, direct_ok ? direct : NULL, flags, a, 2);
}

/* The unary operator `generic` on e1. */
SEXP rtp_unop(SEXP generic, SEXP e1) {
  PyObj *fn = lookup_fn(T_UNARY, generic);
  if (fn == NULL) return raw1(REPLY_UNKNOWN);
  return call_py_args(fn, &e1, 1);
}

/* .External(rtp_bridgex, name, ...): the bridge function `name` with the arguments as they
 * came, directly when direct.py names a function for it (the optimizer's zero_grad and step,
 * which run every training step), else through its Python caller. */
SEXP rtp_bridgex(SEXP call_args) {
  return call_named_ext(T_BRIDGE, call_args);
}

/* A function of the bridge module named `name`: its reply as call_py gives it (a tensor
 * reply comes back wrapped). */
SEXP rtp_bcall(SEXP name, SEXP args) {
  PyObj *fn = lookup_fn(T_BRIDGE, name);
  if (fn == NULL) return raw1(REPLY_UNKNOWN);
  return call_py(fn, args, tensor_cls);
}

/* The callable `name` of table t (see the top of this file) with the R list `args`, through
 * its Python caller (never a direct call): the reply as call_py gives it, raw 04 when the
 * callable is not known in C. */
SEXP rtp_ncall(SEXP t, SEXP name, SEXP args, SEXP cls) {
  int ti = Rf_asInteger(t);
  if (ti < 0 || ti >= NTAB) return raw1(REPLY_UNKNOWN);
  PyObj *fn = lookup_fn(ti, name);
  if (fn == NULL) return raw1(REPLY_UNKNOWN);
  return call_py(fn, args, cls);
}
