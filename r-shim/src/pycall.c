/* A direct call of a Python callable, for the bridge's hot path.
 *
 * reticulate's own call (py_call_impl + py_ref_to_r) costs about 30 us even for a Python
 * function that does nothing: it wraps every result in a new R environment before converting
 * it. Most bridge calls pass only handles and plain scalars and get back one handle, so this
 * file calls the Python callable behind a reticulate object through the Python C API itself
 * (the symbols of the libpython that reticulate loaded, found with dlsym) and converts just
 * those values:
 *
 *   arguments: complex, double, integer, logical (not NA) scalars without attributes, a single
 *              string (not NA), NULL;
 *   result:    a Python complex (a handle) becomes an R complex number.
 *
 * Anything else is left to reticulate: rtp_call returns raw 01 when it did not call (an
 * argument it does not convert), and raw 02 when it called but the result is of another kind;
 * the result is then kept in the bridge module's `_stash` for R to fetch through reticulate.
 * Until rtp_pyinit succeeded, rtp_call always returns raw 01.
 */
#include <stddef.h>
#include <string.h>
#ifndef _WIN32
#include <dlfcn.h>
#endif
#include <R.h>
#include <Rinternals.h>

typedef struct _pyobj {
  ptrdiff_t ob_refcnt;
  void *ob_type;
} PyObj;

static int ready = 0;
static PyObj *bridge_module = NULL;
static void *t_complex, *t_float, *t_long, *t_unicode;
static PyObj *py_none, *py_true, *py_false;

static int (*gil_ensure)(void);
static void (*gil_release)(int);
static PyObj *(*tuple_new)(ptrdiff_t);
static PyObj *(*list_new)(ptrdiff_t);
static int (*list_setitem)(PyObj *, ptrdiff_t, PyObj *);
static ptrdiff_t (*list_size)(PyObj *);
static PyObj *(*list_getitem)(PyObj *, ptrdiff_t);
static double (*float_as)(PyObj *);
static long (*long_as)(PyObj *, int *);
static void *t_list, *t_bool;
static int (*tuple_setitem)(PyObj *, ptrdiff_t, PyObj *);
static PyObj *(*complex_from)(double, double);
static double (*complex_real)(PyObj *);
static double (*complex_imag)(PyObj *);
static PyObj *(*float_from)(double);
static PyObj *(*long_from)(long);
static PyObj *(*unicode_from)(const char *);
static PyObj *(*object_call)(PyObj *, PyObj *, PyObj *);
static int (*setattr)(PyObj *, const char *, PyObj *);
static PyObj *(*err_occurred)(void);
static void (*err_fetch)(PyObj **, PyObj **, PyObj **);
static PyObj *(*object_str)(PyObj *);
static const char *(*unicode_utf8)(PyObj *);
static void (*err_clear)(void);
static void (*incref)(PyObj *);
static void (*decref)(PyObj *);

static SEXP raw1(int v) {
  SEXP r = Rf_allocVector(RAWSXP, 1);
  RAW(r)[0] = (Rbyte) v;
  return r;
}

/* The PyObject behind a reticulate object (a closure for callables, an environment else). */
static PyObj *pyobject(SEXP x) {
  if (TYPEOF(x) == CLOSXP) x = Rf_getAttrib(x, Rf_install("py_object"));
  if (TYPEOF(x) != ENVSXP) return NULL;
  SEXP p = Rf_findVarInFrame(x, Rf_install("pyobj"));
  if (TYPEOF(p) != EXTPTRSXP) return NULL;
  return (PyObj *) R_ExternalPtrAddr(p);
}

#define SYM(var, name) \
  do { *(void **) (&var) = dlsym(lib, name); if (var == NULL) return Rf_ScalarLogical(0); } while (0)

/* Find the Python C API in the libpython at `path` (already loaded by reticulate). */
SEXP rtp_pyinit(SEXP path, SEXP bridge) {
  ready = 0;
  if (TYPEOF(path) != STRSXP || XLENGTH(path) != 1) return Rf_ScalarLogical(0);
#ifdef _WIN32
  return Rf_ScalarLogical(0);  /* no dlsym: every call goes through reticulate */
#else
  void *lib = dlopen(CHAR(STRING_ELT(path, 0)), RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  if (lib == NULL) lib = dlopen(NULL, RTLD_NOW);  /* a Python linked into the process */
  if (lib == NULL) return Rf_ScalarLogical(0);
  SYM(gil_ensure, "PyGILState_Ensure");
  SYM(gil_release, "PyGILState_Release");
  SYM(tuple_new, "PyTuple_New");
  SYM(tuple_setitem, "PyTuple_SetItem");
  SYM(list_new, "PyList_New");
  SYM(list_setitem, "PyList_SetItem");
  SYM(list_size, "PyList_Size");
  SYM(list_getitem, "PyList_GetItem");
  SYM(float_as, "PyFloat_AsDouble");
  SYM(long_as, "PyLong_AsLongAndOverflow");
  SYM(t_list, "PyList_Type");
  SYM(t_bool, "PyBool_Type");
  SYM(complex_from, "PyComplex_FromDoubles");
  SYM(complex_real, "PyComplex_RealAsDouble");
  SYM(complex_imag, "PyComplex_ImagAsDouble");
  SYM(float_from, "PyFloat_FromDouble");
  SYM(long_from, "PyLong_FromLong");
  SYM(unicode_from, "PyUnicode_FromString");
  SYM(object_call, "PyObject_Call");
  SYM(setattr, "PyObject_SetAttrString");
  SYM(err_occurred, "PyErr_Occurred");
  SYM(err_fetch, "PyErr_Fetch");
  SYM(object_str, "PyObject_Str");
  SYM(unicode_utf8, "PyUnicode_AsUTF8");
  SYM(err_clear, "PyErr_Clear");
  SYM(incref, "Py_IncRef");
  SYM(decref, "Py_DecRef");
  SYM(t_complex, "PyComplex_Type");
  SYM(t_float, "PyFloat_Type");
  SYM(t_long, "PyLong_Type");
  SYM(t_unicode, "PyUnicode_Type");
  SYM(py_none, "_Py_NoneStruct");
  SYM(py_true, "_Py_TrueStruct");
  SYM(py_false, "_Py_FalseStruct");
  PyObj *b = pyobject(bridge);
  if (b == NULL) return Rf_ScalarLogical(0);
  incref(b);
  if (bridge_module) decref(bridge_module);
  bridge_module = b;
  ready = 1;
  return Rf_ScalarLogical(1);
#endif
}

/* The handle of an rtorchpy object (an external pointer), or NULL. */
static SEXP handle_of(SEXP a) {
  SEXP h = R_ExternalPtrProtected(a);
  return (TYPEOF(h) == CPLXSXP && XLENGTH(h) == 1) ? h : NULL;
}

/* Whether every element of `args` is a value this file converts (unnamed lists of such values
 * included, as Python lists, a few levels deep). */
static int simple_args_at(SEXP args, int depth) {
  R_xlen_t n = XLENGTH(args);
  for (R_xlen_t i = 0; i < n; i++) {
    SEXP a = VECTOR_ELT(args, i);
    if (a == R_NilValue) continue;
    if (TYPEOF(a) == EXTPTRSXP) {
      if (handle_of(a) == NULL) return 0;
      continue;
    }
    if (TYPEOF(a) == VECSXP) {
      if (ATTRIB(a) != R_NilValue || depth > 3 || !simple_args_at(a, depth + 1)) return 0;
      continue;
    }
    if (ATTRIB(a) != R_NilValue || XLENGTH(a) != 1) return 0;
    switch (TYPEOF(a)) {
    case CPLXSXP: case REALSXP: break;
    case INTSXP: if (INTEGER(a)[0] == NA_INTEGER) return 0; break;
    case LGLSXP: if (LOGICAL(a)[0] == NA_LOGICAL) return 0; break;
    case STRSXP: if (STRING_ELT(a, 0) == NA_STRING) return 0; break;
    default: return 0;
    }
  }
  return 1;
}

static int simple_args(SEXP args) { return simple_args_at(args, 0); }

static PyObj *to_py(SEXP a) {
  if (a == R_NilValue) { incref(py_none); return py_none; }
  if (TYPEOF(a) == EXTPTRSXP) a = handle_of(a);
  switch (TYPEOF(a)) {
  case CPLXSXP: return complex_from(COMPLEX(a)[0].r, COMPLEX(a)[0].i);
  case REALSXP: return float_from(REAL(a)[0]);
  case INTSXP: return long_from((long) INTEGER(a)[0]);
  case LGLSXP: { PyObj *b = LOGICAL(a)[0] ? py_true : py_false; incref(b); return b; }
  case STRSXP: return unicode_from(Rf_translateCharUTF8(STRING_ELT(a, 0)));
  case VECSXP: {
    R_xlen_t n = XLENGTH(a);
    PyObj *l = list_new((ptrdiff_t) n);
    if (l == NULL) return NULL;
    for (R_xlen_t i = 0; i < n; i++) {
      PyObj *v = to_py(VECTOR_ELT(a, i));
      if (v == NULL) { decref(l); return NULL; }
      list_setitem(l, (ptrdiff_t) i, v);
    }
    return l;
  }
  default: return NULL;
  }
}

SEXP rtp_wrap(SEXP h, SEXP cls);
int rtp_ndead_int(void);

#define MAGIC (-7.25)

/* The kind of a Python scalar this file converts (0 if none). */
static int scalar_kind(PyObj *o) {
  void *t = o->ob_type;
  if (t == t_complex) return CPLXSXP;
  if (t == t_float) return REALSXP;
  if (t == t_bool) return LGLSXP;
  if (t == t_long) return INTSXP;
  if (t == t_unicode) return STRSXP;
  return 0;
}

/* Store element i of an R vector of type `kind` from the Python scalar o; 0 if not convertible
 * as reticulate would (ints outside R's integer range, non-ASCII strings). */
static int set_scalar(SEXP v, R_xlen_t i, int kind, PyObj *o) {
  switch (kind) {
  case CPLXSXP:
    COMPLEX(v)[i].r = complex_real(o);
    COMPLEX(v)[i].i = complex_imag(o);
    return 1;
  case REALSXP: REAL(v)[i] = float_as(o); return 1;
  case LGLSXP: LOGICAL(v)[i] = o == py_true; return 1;
  case INTSXP: {
    int overflow = 0;
    long x = long_as(o, &overflow);
    if (overflow || x <= -2147483647L - 1L || x > 2147483647L) return 0;
    INTEGER(v)[i] = (int) x;
    return 1;
  }
  case STRSXP: {
    const char *c = unicode_utf8(o);
    if (c == NULL) return 0;
    for (const unsigned char *p = (const unsigned char *) c; *p; p++) if (*p > 127) return 0;
    SET_STRING_ELT(v, i, Rf_mkChar(c));
    return 1;
  }
  }
  return 0;
}

/* A Python value as reticulate converts it (scalars, None, lists: a list of scalars of one
 * type becomes an atomic vector), or NULL when it is of another kind. */
static SEXP from_py(PyObj *o, int depth) {
  if (o == py_none) return R_NilValue;
  int kind = scalar_kind(o);
  if (kind) {
    SEXP v = PROTECT(Rf_allocVector(kind, 1));
    int ok = set_scalar(v, 0, kind, o);
    UNPROTECT(1);
    return ok ? v : NULL;
  }
  if (o->ob_type != t_list || depth > 3) return NULL;
  ptrdiff_t n = list_size(o);
  int common = n > 0 ? scalar_kind(list_getitem(o, 0)) : 0;
  for (ptrdiff_t i = 1; i < n && common; i++) {
    if (scalar_kind(list_getitem(o, i)) != common) common = 0;
  }
  if (common) {
    SEXP v = PROTECT(Rf_allocVector(common, n));
    for (ptrdiff_t i = 0; i < n; i++) {
      if (!set_scalar(v, i, common, list_getitem(o, i))) { UNPROTECT(1); return NULL; }
    }
    UNPROTECT(1);
    return v;
  }
  SEXP v = PROTECT(Rf_allocVector(VECSXP, n));
  for (ptrdiff_t i = 0; i < n; i++) {
    PyObj *e = list_getitem(o, i);
    SEXP r = from_py(e, depth + 1);
    if (r == NULL && e != py_none) { UNPROTECT(1); return NULL; }
    SET_VECTOR_ELT(v, i, r == NULL ? R_NilValue : r);
  }
  UNPROTECT(1);
  return v;
}

/* Call the Python callable `f` (a reticulate object) with the R list `args`: the reply as an
 * R complex (a handle), or raw 01 / raw 02 (see the top of this file). An element of `args`
 * may be an rtorchpy object (its handle is passed). With `cls` not NULL, a handle reply that
 * needs no housekeeping (see .t() in R/bridge.R) comes back already wrapped, of class `cls`. */
SEXP rtp_call(SEXP f, SEXP args, SEXP cls) {
  if (!ready || TYPEOF(args) != VECSXP || !simple_args(args)) return raw1(1);
  PyObj *fn = pyobject(f);
  if (fn == NULL) return raw1(1);
  R_xlen_t n = XLENGTH(args);
  int gil = gil_ensure();
  PyObj *tup = tuple_new((ptrdiff_t) n);
  if (tup == NULL) goto error;
  for (R_xlen_t i = 0; i < n; i++) {
    PyObj *v = to_py(VECTOR_ELT(args, i));
    if (v == NULL) { decref(tup); goto error; }
    tuple_setitem(tup, (ptrdiff_t) i, v);
  }
  PyObj *res = object_call(fn, tup, NULL);
  decref(tup);
  if (res == NULL) goto error;
  SEXP out;
  if (res->ob_type == t_complex) {
    out = Rf_allocVector(CPLXSXP, 1);
    COMPLEX(out)[0].r = complex_real(res);
    COMPLEX(out)[0].i = complex_imag(res);
    decref(res);
    if (cls != R_NilValue && COMPLEX(out)[0].i == MAGIC && rtp_ndead_int() <= 1024) {
      gil_release(gil);
      PROTECT(out);
      out = rtp_wrap(out, cls);
      UNPROTECT(1);
      return out;
    }
  } else if ((out = from_py(res, 0)) != NULL || res == py_none) {
    decref(res);
    if (out == NULL) out = R_NilValue;
  } else {
    if (err_occurred()) err_clear();
    int failed = setattr(bridge_module, "_stash", res);
    decref(res);
    if (failed) goto error;
    out = raw1(2);
  }
  gil_release(gil);
  return out;

error: {
    char msg[1000] = "a Python error";
    PyObj *type = NULL, *value = NULL, *tb = NULL;
    if (err_occurred()) {
      err_fetch(&type, &value, &tb);
      PyObj *s = value ? object_str(value) : NULL;
      const char *c = s ? unicode_utf8(s) : NULL;
      if (c) {
        strncpy(msg, c, sizeof(msg) - 1);
        msg[sizeof(msg) - 1] = '\0';
      }
      if (s) decref(s);
      if (type) decref(type);
      if (value) decref(value);
      if (tb) decref(tb);
      if (err_occurred()) err_clear();
    }
    gil_release(gil);
    Rf_error("%s", msg);
  }
  return R_NilValue;
}
