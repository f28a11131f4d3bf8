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
 * argument it does not convert), raw 02 when it called but the result is of another kind (the
 * result is then kept in the bridge module's `_stash` for R to fetch through reticulate), and
 * raw 03 when the call was interrupted (KeyboardInterrupt: R signals its `interrupt`).
 * Until rtp_pyinit succeeded, rtp_call always returns raw 01.
 *
 * Two rules keep both interpreters consistent:
 *  - no R error may unwind through a region holding the GIL: every R call that can fail
 *    (string translation, allocation) runs before the GIL is taken or after it is released,
 *    except the conversion of a result, which runs under R_UnwindProtect with a cleanup that
 *    drops the Python references and releases the GIL before R unwinds;
 *  - a Python error becomes an R error only after the Python error state is cleared and the
 *    GIL released.
 *
 * The object header (reference count, then type pointer) is declared here by hand; rtp_pyinit
 * checks it against objects Python made, and refuses (R then uses reticulate) if it differs
 * (debug builds with Py_TRACE_REFS, free-threaded builds).
 */
#include <stddef.h>
#include <stdint.h>
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
static SEXP unwind_token = NULL;
static PyObj *bridge_module = NULL;
static void *t_complex, *t_float, *t_long, *t_unicode;
static PyObj *py_none, *py_true, *py_false;
static PyObj **exc_keyboard_interrupt;

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
static int (*exc_matches)(PyObj *, PyObj *);
static PyObj *(*object_str)(PyObj *);
static const char *(*unicode_utf8)(PyObj *);
static void (*err_clear)(void);
static void (*incref)(PyObj *);
static void (*decref)(PyObj *);
static PyObj *(*iter_next)(PyObj *);
static int (*dict_setitem)(PyObj *, PyObj *, PyObj *);
static PyObj *(*dict_getitem)(PyObj *, PyObj *);
static int (*dict_delitem)(PyObj *, PyObj *);
static PyObj *(*getattr)(PyObj *, PyObj *);
static int (*setattr_o)(PyObj *, PyObj *, PyObj *);
static int (*list_append)(PyObj *, PyObj *);
static void (*err_normalize)(PyObj **, PyObj **, PyObj **);
static PyObj **exc_exception;

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

/* Whether the hand-declared object header matches this Python (the GIL is held): objects made
 * by the C API carry the expected type at the expected offset, and Py_IncRef/Py_DecRef change
 * the field read as the reference count by exactly one. */
static int layout_ok(void) {
  int ok = 1;
  PyObj *f = float_from(1.5), *c = complex_from(1.0, -7.25), *l = list_new(0);
  PyObj *i = long_from(1234567L);
  if (f == NULL || c == NULL || l == NULL || i == NULL) ok = 0;
  if (ok) {
    ok = f->ob_type == t_float && c->ob_type == t_complex && l->ob_type == t_list &&
         i->ob_type == t_long && py_true->ob_type == t_bool && py_false->ob_type == t_bool &&
         complex_real(c) == 1.0 && complex_imag(c) == -7.25 && float_as(f) == 1.5;
  }
  if (ok) {
    ptrdiff_t before = f->ob_refcnt;
    incref(f);
    ok = f->ob_refcnt == before + 1;
    decref(f);
    ok = ok && f->ob_refcnt == before;
  }
  if (f) decref(f);
  if (c) decref(c);
  if (l) decref(l);
  if (i) decref(i);
  if (err_occurred()) err_clear();
  return ok;
}

#define SYM(var, name) \
  do { *(void **) (&var) = dlsym(lib, name); if (var == NULL) return Rf_ScalarLogical(0); } while (0)

/* Find the Python C API in the libpython at `path` (already loaded by reticulate). */
SEXP rtp_pyinit(SEXP path, SEXP bridge) {
  ready = 0;
  if (TYPEOF(path) != STRSXP || XLENGTH(path) != 1 || STRING_ELT(path, 0) == NA_STRING) {
    return Rf_ScalarLogical(0);
  }
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
  SYM(exc_matches, "PyErr_GivenExceptionMatches");
  SYM(exc_keyboard_interrupt, "PyExc_KeyboardInterrupt");
  SYM(object_str, "PyObject_Str");
  SYM(unicode_utf8, "PyUnicode_AsUTF8");
  SYM(err_clear, "PyErr_Clear");
  SYM(incref, "Py_IncRef");
  SYM(decref, "Py_DecRef");
  SYM(iter_next, "PyIter_Next");
  SYM(dict_setitem, "PyDict_SetItem");
  SYM(dict_getitem, "PyDict_GetItem");
  SYM(dict_delitem, "PyDict_DelItem");
  SYM(getattr, "PyObject_GetAttr");
  SYM(setattr_o, "PyObject_SetAttr");
  SYM(list_append, "PyList_Append");
  SYM(err_normalize, "PyErr_NormalizeException");
  SYM(exc_exception, "PyExc_Exception");
  SYM(t_complex, "PyComplex_Type");
  SYM(t_float, "PyFloat_Type");
  SYM(t_long, "PyLong_Type");
  SYM(t_unicode, "PyUnicode_Type");
  SYM(py_none, "_Py_NoneStruct");
  SYM(py_true, "_Py_TrueStruct");
  SYM(py_false, "_Py_FalseStruct");
  PyObj *b = pyobject(bridge);
  if (b == NULL) return Rf_ScalarLogical(0);
  int gil = gil_ensure();
  int ok = layout_ok();
  if (ok) {
    incref(b);
    if (bridge_module) decref(bridge_module);
    bridge_module = b;
  }
  gil_release(gil);
  ready = ok;
  return Rf_ScalarLogical(ok);
#endif
}

SEXP rtp_wrap(SEXP h, SEXP cls);
int rtp_ndead_int(void);
int rtp_is_live(SEXP ptr);

/* The handle of an rtorchpy object (an external pointer made in this session), or NULL. */
static SEXP handle_of(SEXP a) {
  if (!rtp_is_live(a)) return NULL;
  SEXP h = R_ExternalPtrProtected(a);
  return (TYPEOF(h) == CPLXSXP && XLENGTH(h) >= 1) ? h : NULL;
}

/* Whether every element of `args` is a value this file converts (unnamed lists of such values
 * included, as Python lists, a few levels deep). Counts the strings into *nstr. Checks each
 * element's type before anything else (XLENGTH is only defined for vectors). */
static int simple_args_at(SEXP args, int depth, int *nstr) {
  R_xlen_t n = XLENGTH(args);
  for (R_xlen_t i = 0; i < n; i++) {
    SEXP a = VECTOR_ELT(args, i);
    switch (TYPEOF(a)) {
    case NILSXP: continue;
    case EXTPTRSXP: if (handle_of(a) == NULL) return 0; continue;
    case VECSXP:
      if (ATTRIB(a) != R_NilValue || depth > 3 || !simple_args_at(a, depth + 1, nstr)) return 0;
      continue;
    case CPLXSXP: case REALSXP: case INTSXP: case LGLSXP: case STRSXP: break;
    default: return 0;
    }
    if (ATTRIB(a) != R_NilValue || XLENGTH(a) != 1) return 0;
    switch (TYPEOF(a)) {
    case INTSXP: if (INTEGER(a)[0] == NA_INTEGER) return 0; break;
    case LGLSXP: if (LOGICAL(a)[0] == NA_LOGICAL) return 0; break;
    case STRSXP: if (STRING_ELT(a, 0) == NA_STRING) return 0; (*nstr)++; break;
    }
  }
  return 1;
}

/* The strings of `args` as UTF-8, in the order to_py meets them (R may error here: this runs
 * before the GIL is taken). */
static void translate_strings(SEXP args, const char **out, int *k) {
  R_xlen_t n = XLENGTH(args);
  for (R_xlen_t i = 0; i < n; i++) {
    SEXP a = VECTOR_ELT(args, i);
    if (TYPEOF(a) == STRSXP) out[(*k)++] = Rf_translateCharUTF8(STRING_ELT(a, 0));
    else if (TYPEOF(a) == VECSXP) translate_strings(a, out, k);
  }
}

/* An argument as a new Python reference (GIL held; no R call that can fail). */
static PyObj *to_py(SEXP a, const char **strs, int *k) {
  if (a == R_NilValue) { incref(py_none); return py_none; }
  if (TYPEOF(a) == EXTPTRSXP) a = R_ExternalPtrProtected(a);
  switch (TYPEOF(a)) {
  case CPLXSXP: return complex_from(COMPLEX(a)[0].r, COMPLEX(a)[0].i);
  case REALSXP: return float_from(REAL(a)[0]);
  case INTSXP: return long_from((long) INTEGER(a)[0]);
  case LGLSXP: { PyObj *b = LOGICAL(a)[0] ? py_true : py_false; incref(b); return b; }
  case STRSXP: return unicode_from(strs[(*k)++]);
  case VECSXP: {
    R_xlen_t n = XLENGTH(a);
    PyObj *l = list_new((ptrdiff_t) n);
    if (l == NULL) return NULL;
    for (R_xlen_t i = 0; i < n; i++) {
      PyObj *v = to_py(VECTOR_ELT(a, i), strs, k);
      if (v == NULL) { decref(l); return NULL; }
      list_setitem(l, (ptrdiff_t) i, v);
    }
    return l;
  }
  default: return NULL;
  }
}

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
 * type becomes an atomic vector), or NULL when it is of another kind. Allocates R memory with
 * the GIL held: only ever called under R_UnwindProtect (see convert_result). */
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

typedef struct {
  PyObj *res;
  int gil;
  SEXP out;
} convert_t;

static SEXP convert_body(void *data) {
  convert_t *c = (convert_t *) data;
  c->out = from_py(c->res, 0);
  return R_NilValue;
}

/* Runs only when R unwinds out of convert_body (allocation failed): Python state first. */
static void convert_cleanup(void *data, Rboolean jump) {
  if (!jump) return;
  convert_t *c = (convert_t *) data;
  decref(c->res);
  if (err_occurred()) err_clear();
  gil_release(c->gil);
}

/* -- the direct path: state ------------------------------------------------------------------
 *
 * rtp_setup hands over, from rtorchpy/_r/direct.py, the registry of handles (a dict), its key
 * counter, the Tensor type, the list of Python warnings waiting for R, and a few functions. With
 * them the common calls run without Python-level bridge code: an op that converts nothing
 * between R and Python is called as its own function with the tensors themselves; a tensor it
 * returns is registered here, in the same registry under a key from the same counter, as
 * Python's _put would; and the handles registered here are released here too (their size rides
 * in the handle, see src/handles.c), a batch at a time at the start of a call.
 */
static int direct_ready = 0;
static PyObj *objects_dict, *key_counter, *tensor_type, *warnings_list, *error_reply_fn,
  *encode_fn, *direct_fn_getter, *release_fn, *grad_state;
static PyObj *s_data, *s_nbytes, *s_grad, *s_grad_enabled;
static double c_held = 0, c_threshold = 268435456.0;  /* bytes: as handles.py's _held_bytes */

#define FLAG_GC 0.25    /* as rtorchpy/_r/handles.py */
#define FLAG_WARN 0.5
#define MAX_DIRECT_ARGS 16

int rtp_pop_cdead(double *key, double *bytes);
int rtp_pop_dead(double *key);
R_xlen_t rtp_ncdead(void);

/* The object behind a handle (a borrowed reference), or NULL (GIL held). */
static PyObj *object_of(SEXP h) {
  PyObj *k = long_from((long) COMPLEX(h)[0].r);
  if (k == NULL) { err_clear(); return NULL; }
  PyObj *o = dict_getitem(objects_dict, k);  /* (never sets an error) */
  decref(k);
  return o;
}

/* Release the handles R collected (GIL held): those registered here directly, the others
 * through Python's release(). `all`: whatever is queued; else only batches worth a call. */
static void release_queued(int all) {
  double key, bytes;
  if (all || rtp_ncdead() >= 256) {
    while (rtp_pop_cdead(&key, &bytes)) {
      PyObj *k = long_from((long) key);
      if (k != NULL) {
        if (dict_delitem(objects_dict, k) < 0) err_clear();  /* (gone already: nothing to do) */
        decref(k);
      } else {
        err_clear();
      }
      c_held -= bytes;
    }
  }
  if (all || rtp_ndead_int() >= 1024) {
    PyObj *keys = list_new(0);
    if (keys == NULL) { err_clear(); return; }
    while (rtp_pop_dead(&key)) {
      PyObj *k = float_from(key);
      if (k == NULL || list_append(keys, k) < 0) err_clear();
      if (k) decref(k);
    }
    PyObj *tup = tuple_new(1);
    if (tup != NULL) {
      tuple_setitem(tup, 0, keys);  /* steals keys */
      PyObj *r = object_call(release_fn, tup, NULL);
      if (r) decref(r);
      decref(tup);
    } else {
      decref(keys);
    }
    if (err_occurred()) err_clear();
  }
}

/* Register tensor `t` (GIL held): its key and size in bytes; 0 on failure (error cleared). */
static int register_tensor(PyObj *t, double *key, double *bytes) {
  PyObj *data = getattr(t, s_data);
  PyObj *nb = data ? getattr(data, s_nbytes) : NULL;
  if (data) decref(data);
  if (nb == NULL) { err_clear(); return 0; }
  int overflow = 0;
  long n = long_as(nb, &overflow);
  decref(nb);
  PyObj *k = iter_next(key_counter);
  if (k == NULL) { err_clear(); return 0; }
  long kv = long_as(k, &overflow);
  if (overflow || dict_setitem(objects_dict, k, t) < 0) {
    decref(k);
    err_clear();
    return 0;
  }
  decref(k);
  *key = (double) kv;
  *bytes = (double) n;
  c_held += (double) n;
  return 1;
}

/* -- replies ---------------------------------------------------------------------------------- */

/* Reply `res` (a new reference, GIL held) as R sees it; releases both. A tensor is registered
 * and comes back wrapped (class `cls`), or as a bare handle whose imaginary part carries the
 * flags when R has housekeeping to do (.t() in R/bridge.R). With `encode`, a reply of another
 * kind is first encoded as Python's callers would (handles._enc). */
static SEXP finish(PyObj *res, int gil, SEXP cls, int encode) {
  if (direct_ready && res->ob_type == tensor_type) {
    double key = 0, bytes = 0;
    int ok = register_tensor(res, &key, &bytes);
    decref(res);
    double flags = (c_held > c_threshold ? FLAG_GC : 0) +
                   (list_size(warnings_list) > 0 ? FLAG_WARN : 0);
    if (err_occurred()) err_clear();
    gil_release(gil);
    /* -- GIL released ----------------------------------------------------------------- */
    if (!ok) Rf_error("rtorchpy: could not register a tensor for R");
    SEXP out = PROTECT(Rf_allocVector(CPLXSXP, 2));
    COMPLEX(out)[0].r = key;
    COMPLEX(out)[0].i = MAGIC - flags;
    COMPLEX(out)[1].r = bytes;
    COMPLEX(out)[1].i = 0;
    if (cls != R_NilValue && flags == 0) out = rtp_wrap(out, cls);
    UNPROTECT(1);
    return out;
  }
  if (encode && direct_ready && res->ob_type != t_complex) {
    PyObj *tup = tuple_new(1);
    PyObj *enc = NULL;
    if (tup != NULL) {
      tuple_setitem(tup, 0, res);  /* steals res */
      enc = object_call(encode_fn, tup, NULL);
      decref(tup);
    } else {
      decref(res);
    }
    if (enc == NULL) {
      if (err_occurred()) err_clear();
      gil_release(gil);
      Rf_error("rtorchpy: could not encode a Python result for R");
    }
    res = enc;
  }
  if (res->ob_type == t_complex) {
    Rcomplex h;
    h.r = complex_real(res);
    h.i = complex_imag(res);
    decref(res);
    gil_release(gil);
    /* -- GIL released --------------------------------------------------------------- */
    SEXP out = PROTECT(Rf_allocVector(CPLXSXP, 1));
    COMPLEX(out)[0] = h;
    if (cls != R_NilValue && h.i == MAGIC && rtp_ndead_int() <= 1024) out = rtp_wrap(out, cls);
    UNPROTECT(1);
    return out;
  }
  convert_t c = {res, gil, NULL};
  R_UnwindProtect(convert_body, &c, convert_cleanup, &c, unwind_token);
  if (c.out != NULL || res == py_none) {
    decref(res);
    gil_release(gil);
    return c.out == NULL ? R_NilValue : c.out;
  }
  if (err_occurred()) err_clear();
  int failed = setattr(bridge_module, "_stash", res);
  decref(res);
  if (failed && err_occurred()) err_clear();
  gil_release(gil);
  /* -- GIL released --------------------------------------------------------------------- */
  if (failed) Rf_error("rtorchpy: could not keep a Python result for R");
  return raw1(2);
}

/* The Python error now set (GIL held; released here): raw 03 for an interrupt; with `reply`
 * (the direct path), an Exception becomes the reply the Python caller would have given
 * (["E", message] in R's terms); else an R error with Python's message. */
static SEXP py_error(int gil, int reply, SEXP cls) {
  char msg[1000] = "a Python error";
  int interrupted = 0;
  if (err_occurred()) {
    PyObj *type = NULL, *value = NULL, *tb = NULL;
    err_fetch(&type, &value, &tb);
    if (reply && type != NULL) {
      err_normalize(&type, &value, &tb);
      if (value != NULL && exc_matches(type, *exc_exception)) {
        PyObj *tup = tuple_new(1);
        PyObj *rep = NULL;
        if (tup != NULL) {
          incref(value);
          tuple_setitem(tup, 0, value);
          rep = object_call(error_reply_fn, tup, NULL);
          decref(tup);
        }
        decref(type);
        decref(value);
        if (tb) decref(tb);
        if (rep != NULL) return finish(rep, gil, cls, 0);
        type = value = tb = NULL;
        if (err_occurred()) err_fetch(&type, &value, &tb);
      }
    }
    interrupted = type != NULL && exc_matches(type, *exc_keyboard_interrupt);
    PyObj *s = value ? object_str(value) : NULL;
    const char *c = s ? unicode_utf8(s) : NULL;
    if (c && *c) {
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
  if (interrupted) return raw1(3);
  Rf_error("%s", msg);
  return R_NilValue;  /* not reached */
}

static void ensure_unwind_token(void) {
  if (unwind_token == NULL) {  /* made once (as cpp11 does), outside the GIL */
    unwind_token = R_MakeUnwindCont();
    R_PreserveObject(unwind_token);
  }
}

/* -- calls -------------------------------------------------------------------------------------- */

/* Call the Python callable `f` (a reticulate object) with the R list `args`: the reply as an
 * R complex (a handle), or raw 01 / 02 / 03 (see the top of this file). An element of `args`
 * may be an rtorchpy object (its handle is passed). With `cls` not NULL, a handle reply that
 * needs no housekeeping (see .t() in R/bridge.R) comes back already wrapped, of class `cls`. */
static SEXP call_py(PyObj *fn, SEXP args, SEXP cls);

SEXP rtp_call(SEXP f, SEXP args, SEXP cls) {
  if (!ready) return raw1(1);
  PyObj *fn = pyobject(f);
  if (fn == NULL) return raw1(1);
  return call_py(fn, args, cls);
}

static SEXP call_py(PyObj *fn, SEXP args, SEXP cls) {
  int nstr = 0;
  if (!ready || TYPEOF(args) != VECSXP || !simple_args_at(args, 0, &nstr)) return raw1(1);
  const char **strs = NULL;
  if (nstr) {
    int k = 0;
    strs = (const char **) R_alloc((size_t) nstr, sizeof(char *));
    translate_strings(args, strs, &k);
  }
  ensure_unwind_token();
  R_xlen_t n = XLENGTH(args);

  /* -- GIL held from here: no R call that can fail ----------------------------------- */
  int gil = gil_ensure();
  if (direct_ready) release_queued(0);
  PyObj *res = NULL;
  PyObj *tup = tuple_new((ptrdiff_t) n);
  if (tup != NULL) {
    int k = 0, failed = 0;
    for (R_xlen_t i = 0; i < n && !failed; i++) {
      PyObj *v = to_py(VECTOR_ELT(args, i), strs, &k);
      if (v == NULL) failed = 1; else tuple_setitem(tup, (ptrdiff_t) i, v);
    }
    if (!failed) res = object_call(fn, tup, NULL);
    decref(tup);
  }
  if (res == NULL) return py_error(gil, 0, cls);
  return finish(res, gil, cls, 0);
}

/* Whether `a` can be passed to a direct call: a live handle, NULL, or a double, integer,
 * logical (not NA) or string (not NA) scalar without attributes. Counts strings into *nstr. */
static int direct_arg(SEXP a, int *nstr) {
  switch (TYPEOF(a)) {
  case NILSXP: return 1;
  case EXTPTRSXP: return handle_of(a) != NULL;
  case REALSXP: case INTSXP: case LGLSXP: case STRSXP: break;
  default: return 0;
  }
  if (ATTRIB(a) != R_NilValue || XLENGTH(a) != 1) return 0;
  switch (TYPEOF(a)) {
  case INTSXP: return INTEGER(a)[0] != NA_INTEGER;
  case LGLSXP: return LOGICAL(a)[0] != NA_LOGICAL;
  case STRSXP:
    if (STRING_ELT(a, 0) == NA_STRING) return 0;
    (*nstr)++;
    return 1;
  }
  return 1;
}

/* Call `fn` (a plain Python function: an op itself) with the n values `a`, handles passed as
 * their objects. NULL when an argument does not suit (direct_arg) or a handle is unknown: the
 * caller then takes the Python caller, which gives the same result or the proper error. */
static SEXP call_direct(PyObj *fn, SEXP *a, int n, SEXP cls) {
  int nstr = 0;
  if (!direct_ready || n > MAX_DIRECT_ARGS) return NULL;
  for (int i = 0; i < n; i++) if (!direct_arg(a[i], &nstr)) return NULL;
  const char *strs[MAX_DIRECT_ARGS];
  for (int i = 0, k = 0; i < n; i++) {  /* (R may error here: before the GIL is taken) */
    if (TYPEOF(a[i]) == STRSXP) strs[k++] = Rf_translateCharUTF8(STRING_ELT(a[i], 0));
  }
  ensure_unwind_token();

  /* -- GIL held from here: no R call that can fail ----------------------------------- */
  int gil = gil_ensure();
  release_queued(0);
  PyObj *tup = tuple_new((ptrdiff_t) n);
  int failed = tup == NULL;
  for (int i = 0, k = 0; i < n && !failed; i++) {
    PyObj *v;
    if (TYPEOF(a[i]) == EXTPTRSXP) {
      v = object_of(R_ExternalPtrProtected(a[i]));
      if (v) incref(v);
    } else {
      v = to_py(a[i], strs, &k);
    }
    if (v == NULL) failed = 1; else tuple_setitem(tup, (ptrdiff_t) i, v);
  }
  if (failed) {
    if (tup) decref(tup);
    if (err_occurred()) err_clear();
    gil_release(gil);
    return NULL;
  }
  PyObj *res = object_call(fn, tup, NULL);
  decref(tup);
  if (res == NULL) return py_error(gil, 1, cls);
  return finish(res, gil, cls, 1);
}


/* -- callables cached by name -------------------------------------------------------------
 *
 * The generated wrappers, the operators and .bridge() name the Python callable they call
 * (`.Call(rtp_op, "sin", list(self))`): the callable is looked up once in the R environment
 * that holds it (.rt$ops, .rt$binary, .rt$unary, .rt$bfns, .rt$fns: reticulate objects) and its
 * PyObject kept here, with a reference of its own, in a small table keyed by the address of
 * the name's CHARSXP (R keeps one CHARSXP per string, so the address identifies the name),
 * beside the function a direct call may use instead (direct.py's direct_fn: ops, binary
 * operators, nnf functions). A name not (yet) in its environment gives raw 04: R then takes its general
 * path, which starts Python and fetches the callable. rtp_setup (after Python started) sets
 * the environments, the class of tensors and the direct path's state, and empties the tables.
 */
#define NTAB 5
#define TABSIZE 2048
static SEXP tab_env[NTAB];
static SEXP tab_key[NTAB][TABSIZE];
static PyObj *tab_fn[NTAB][TABSIZE];
static PyObj *tab_direct[NTAB][TABSIZE];
static SEXP tensor_cls = NULL;

static void clear_tables(void) {
  int gil = gil_ensure();
  for (int t = 0; t < NTAB; t++) {
    for (int i = 0; i < TABSIZE; i++) {
      if (tab_fn[t][i]) decref(tab_fn[t][i]);
      if (tab_direct[t][i]) decref(tab_direct[t][i]);
      tab_fn[t][i] = NULL;
      tab_direct[t][i] = NULL;
      tab_key[t][i] = NULL;
    }
  }
  gil_release(gil);
}

static void keep(PyObj **slot, PyObj *o) {
  incref(o);
  if (*slot) decref(*slot);
  *slot = o;
}

/* `direct`: the list direct.py's direct_setup() returns (a reticulate object), or NULL (no
 * direct path). */
SEXP rtp_setup(SEXP ops, SEXP binary, SEXP unary, SEXP bfns, SEXP fns, SEXP cls,
               SEXP direct) {
  if (!ready) return Rf_ScalarLogical(0);
  clear_tables();
  SEXP envs[NTAB] = {ops, binary, unary, bfns, fns};
  for (int t = 0; t < NTAB; t++) {
    if (tab_env[t]) R_ReleaseObject(tab_env[t]);
    tab_env[t] = envs[t];
    R_PreserveObject(envs[t]);
  }
  if (tensor_cls) R_ReleaseObject(tensor_cls);
  tensor_cls = cls;
  R_PreserveObject(cls);
  direct_ready = 0;
  PyObj *d = direct == R_NilValue ? NULL : pyobject(direct);
  if (d == NULL) return Rf_ScalarLogical(1);
  int gil = gil_ensure();
  int ok = d->ob_type == t_list && list_size(d) == 9;
  PyObj **slots[9] = {&objects_dict, &key_counter, &tensor_type, &warnings_list,
                      &error_reply_fn, &encode_fn, &direct_fn_getter, &release_fn, &grad_state};
  for (int i = 0; i < 9 && ok; i++) keep(slots[i], list_getitem(d, i));
  const char *names[4] = {"_data", "nbytes", "grad", "grad_enabled"};
  PyObj **strs[4] = {&s_data, &s_nbytes, &s_grad, &s_grad_enabled};
  for (int i = 0; i < 4 && ok; i++) {
    PyObj *u = unicode_from(names[i]);
    if (u == NULL) ok = 0; else { keep(strs[i], u); decref(u); }
  }
  ok = ok && warnings_list->ob_type == t_list;
  if (err_occurred()) err_clear();
  gil_release(gil);
  direct_ready = ok;
  return Rf_ScalarLogical(1);
}

/* The function direct.py names for entry `name` of table t (a new reference), or NULL. */
static PyObj *direct_function(int t, SEXP key) {
  if (!direct_ready || t == 2 || t == 3) return NULL;
  PyObj *tup = tuple_new(2);
  if (tup == NULL) { err_clear(); return NULL; }
  tuple_setitem(tup, 0, long_from(t));
  tuple_setitem(tup, 1, unicode_from(CHAR(key)));  /* (op names are ASCII) */
  PyObj *f = object_call(direct_fn_getter, tup, NULL);
  decref(tup);
  if (f == NULL) { err_clear(); return NULL; }
  if (f == py_none) { decref(f); return NULL; }
  return f;
}

/* The cached callable named `name` (a string) in table t, or NULL (not there yet); *direct:
 * the function a direct call may use instead, or NULL. */
static PyObj *lookup(int t, SEXP name, PyObj **direct) {
  *direct = NULL;
  if (!ready || tab_env[t] == NULL || TYPEOF(name) != STRSXP || XLENGTH(name) != 1) return NULL;
  SEXP key = STRING_ELT(name, 0);
  size_t i = (((uintptr_t) key) >> 4) % TABSIZE;
  for (int probe = 0; probe < TABSIZE; probe++, i = (i + 1) % TABSIZE) {
    if (tab_key[t][i] == key) {
      *direct = tab_direct[t][i];
      return tab_fn[t][i];
    }
    if (tab_key[t][i] == NULL) break;
  }
  SEXP f = Rf_findVarInFrame(tab_env[t], Rf_installTrChar(key));
  if (f == R_UnboundValue || f == R_NilValue) return NULL;
  PyObj *fn = pyobject(f);
  if (fn == NULL) return NULL;
  i = (((uintptr_t) key) >> 4) % TABSIZE;
  for (int probe = 0; probe < TABSIZE; probe++, i = (i + 1) % TABSIZE) {
    if (tab_key[t][i] == NULL) {
      int gil = gil_ensure();
      incref(fn);
      PyObj *d = direct_function(t, key);
      gil_release(gil);
      tab_key[t][i] = key;  /* CHARSXPs of names in the package's code are never collected */
      R_PreserveObject(key);
      tab_fn[t][i] = fn;
      tab_direct[t][i] = d;
      *direct = d;
      return fn;
    }
  }
  return fn;  /* table full: called, not cached */
}

/* Op `name` (table 0) or function `name` (table 4: nnf_*) with the R list `args`. */
static SEXP call_named(int t, SEXP name, SEXP args) {
  PyObj *direct;
  PyObj *fn = lookup(t, name, &direct);
  if (fn == NULL) return raw1(4);
  if (direct != NULL && TYPEOF(args) == VECSXP && XLENGTH(args) <= MAX_DIRECT_ARGS) {
    SEXP a[MAX_DIRECT_ARGS];
    int n = (int) XLENGTH(args);
    for (int i = 0; i < n; i++) a[i] = VECTOR_ELT(args, i);
    SEXP r = call_direct(direct, a, n, tensor_cls);
    if (r != NULL) return r;
  }
  return call_py(fn, args, tensor_cls);
}

/* Op `name` with the R list `args` (as rtp_call with the tensor class). */
SEXP rtp_op(SEXP name, SEXP args) {
  return call_named(0, name, args);
}

/* Function `name` of the package (the nnf_* functions: .rt$fns) with the R list `args`. */
SEXP rtp_fn(SEXP name, SEXP args) {
  return call_named(4, name, args);
}

/* The binary operator `generic` (.Generic of Ops) on e1, e2. Directly when e1 is a tensor and
 * e2 a tensor or a number (a number on the left becomes a tensor in Python's caller). */
SEXP rtp_binop(SEXP generic, SEXP e1, SEXP e2) {
  PyObj *direct;
  PyObj *fn = lookup(1, generic, &direct);
  if (fn == NULL) return raw1(4);
  if (direct != NULL && TYPEOF(e1) == EXTPTRSXP && TYPEOF(e2) != STRSXP) {
    SEXP a[2] = {e1, e2};
    SEXP r = call_direct(direct, a, 2, tensor_cls);
    if (r != NULL) return r;
  }
  SEXP args = PROTECT(Rf_allocVector(VECSXP, 2));
  SET_VECTOR_ELT(args, 0, e1);
  SET_VECTOR_ELT(args, 1, e2);
  SEXP r = call_py(fn, args, tensor_cls);
  UNPROTECT(1);
  return r;
}

/* The unary operator `generic` on e1. */
SEXP rtp_unop(SEXP generic, SEXP e1) {
  PyObj *direct;
  PyObj *fn = lookup(2, generic, &direct);
  if (fn == NULL) return raw1(4);
  SEXP args = PROTECT(Rf_allocVector(VECSXP, 1));
  SET_VECTOR_ELT(args, 0, e1);
  SEXP r = call_py(fn, args, tensor_cls);
  UNPROTECT(1);
  return r;
}

/* A function of the bridge module named `name`: its reply as rtp_call gives it (a tensor
 * reply comes back wrapped). */
SEXP rtp_bcall(SEXP name, SEXP args) {
  PyObj *direct;
  PyObj *fn = lookup(3, name, &direct);
  if (fn == NULL) return raw1(4);
  return call_py(fn, args, tensor_cls);
}

/* -- housekeeping ------------------------------------------------------------------------------ */

/* Release every handle R collected (TRUE), or FALSE when the direct path is off (R then
 * releases through reticulate). */
SEXP rtp_release_dead(void) {
  if (!direct_ready) return Rf_ScalarLogical(0);
  int gil = gil_ensure();
  release_queued(1);
  gil_release(gil);
  return Rf_ScalarLogical(1);
}

/* R collected garbage (and released what it freed): the next collection is asked for when the
 * tensors registered here hold twice what they hold now (at least 256 MiB), as handles.py does
 * for its own. */
SEXP rtp_collected(void) {
  c_threshold = 2 * c_held > 268435456.0 ? 2 * c_held : 268435456.0;
  return Rf_ScalarReal(c_held);
}

/* The bytes held by the tensors registered here, and the threshold. */
SEXP rtp_held(void) {
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 2));
  REAL(out)[0] = c_held;
  REAL(out)[1] = c_threshold;
  UNPROTECT(1);
  return out;
}

/* -- grad mode and `$` ------------------------------------------------------------------------- */

/* Set grad mode to `flag` (TRUE/FALSE; NA: leave it) and return the previous mode; raw 01
 * when the direct path is off or Python fails (R then takes the bridge function). */
SEXP rtp_grad_mode(SEXP flag) {
  if (!direct_ready || TYPEOF(flag) != LGLSXP || XLENGTH(flag) != 1) return raw1(1);
  int gil = gil_ensure();
  PyObj *old = getattr(grad_state, s_grad_enabled);
  int was = old == NULL ? -1 : old == py_true ? 1 : old == py_false ? 0 : -1;
  if (old) decref(old);
  if (was >= 0 && LOGICAL(flag)[0] != NA_LOGICAL) {
    if (setattr_o(grad_state, s_grad_enabled, LOGICAL(flag)[0] ? py_true : py_false) < 0) {
      was = -1;
    }
  }
  if (err_occurred()) err_clear();
  gil_release(gil);
  return was < 0 ? raw1(1) : Rf_ScalarLogical(was);
}

/* x$grad: the gradient (wrapped, or a bare handle with flags for .t()), the undefined tensor,
 * or NULL (R's general path). */
static SEXP tensor_grad(SEXP x) {
  SEXP h = handle_of(x);
  if (!direct_ready || h == NULL) return R_NilValue;
  ensure_unwind_token();
  int gil = gil_ensure();
  release_queued(0);
  PyObj *t = object_of(h);
  PyObj *g = t ? getattr(t, s_grad) : NULL;
  if (g != NULL && g->ob_type == tensor_type) return finish(g, gil, tensor_cls, 0);
  int none = g == py_none, warn = list_size(warnings_list) > 0;
  if (g) decref(g);
  if (err_occurred()) err_clear();
  gil_release(gil);
  if (!none) return R_NilValue;
  SEXP u = PROTECT(Rf_allocVector(CPLXSXP, 1));
  COMPLEX(u)[0].r = 0;
  COMPLEX(u)[0].i = MAGIC - (warn ? FLAG_WARN : 0);
  if (!warn) u = rtp_wrap(u, tensor_cls);
  UNPROTECT(1);
  return u;
}

/* `$.torch_tensor` in C: x$grad, or x$name for a method whose prototype is in `protos` (a
 * closure of the method's arguments but `self`, see .method_proto in R/tensor.R), made into
 * a closure whose environment binds `self` to x; NULL for anything else (R's general path). */
SEXP rtp_dollar(SEXP x, SEXP name, SEXP protos) {
  static SEXP self_sym = NULL;
  if (TYPEOF(name) != STRSXP || XLENGTH(name) != 1 || TYPEOF(protos) != ENVSXP) {
    return R_NilValue;
  }
  SEXP nm = STRING_ELT(name, 0);
  if (strcmp(CHAR(nm), "grad") == 0) return tensor_grad(x);
  SEXP proto = Rf_findVarInFrame(protos, Rf_installTrChar(nm));
  if (TYPEOF(proto) != CLOSXP) return R_NilValue;
  if (self_sym == NULL) self_sym = Rf_install("self");
  SEXP env = PROTECT(R_NewEnv(CLOENV(proto), FALSE, 0));
  Rf_defineVar(self_sym, x, env);
  SEXP f = PROTECT(Rf_allocSExp(CLOSXP));
  SET_FORMALS(f, FORMALS(proto));
  SET_BODY(f, BODY(proto));
  SET_CLOENV(f, env);
  UNPROTECT(2);
  return f;
}
