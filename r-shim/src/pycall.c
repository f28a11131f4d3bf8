/* A direct call of a Python callable, for the bridge's hot path.
 *
 * A call through reticulate costs about 30 us even for a Python function that does nothing:
 * it wraps every result in a new R environment before converting it. Most bridge calls pass
 * only handles and plain scalars and get back one handle, so this file calls Python callables
 * through the Python C API itself (the symbols of the libpython that reticulate loaded, found
 * with dlsym; the callables are found by name through Python, see names.c) and converts just
 * those values:
 *
 *   arguments: complex, double, integer, logical (not NA) scalars without attributes, a single
 *              string (not NA), NULL;
 *   result:    a Python complex (a handle) becomes an R complex number; a Tensor (from the
 *              direct path, direct.c) is registered and comes back as a handle.
 *
 * Anything else is left to reticulate: call_py returns raw 01 when it did not call (an
 * argument it does not convert), raw 02 when it called but the result is of another kind (the
 * result is then kept in the bridge module's `_stash` for R to fetch through reticulate), and
 * raw 03 when the call was interrupted (KeyboardInterrupt: R signals its `interrupt`).
 * Until rtp_pyinit succeeded, call_py always returns raw 01.
 *
 * Two rules keep both interpreters consistent:
 *  - no R error may unwind through a region holding the GIL: every R call that can fail
 *    (string translation, allocation) runs before the GIL is taken or after it is released,
 *    except the conversion of a result, which runs under R_UnwindProtect with a cleanup that
 *    drops the Python references and releases the GIL before R unwinds;
 *  - a Python error becomes an R error only after the Python error state is cleared and the
 *    GIL released.
 *
 * The object header (reference count, then type pointer) is declared by hand (pyapi.h); pyapi.c
 * checks it against objects Python made, and refuses (R then uses reticulate) if it differs
 * (debug builds with Py_TRACE_REFS, free-threaded builds).
 */
#include <stdlib.h>
#include <string.h>
#include "pyapi.h"
#include "errors.h"

/* The handle of an rtorchpy object (an external pointer made in this session), or NULL. */
SEXP handle_of(SEXP a) {
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
      if (DECORATED(a) || depth > 3 || !simple_args_at(a, depth + 1, nstr)) return 0;
      continue;
    case CPLXSXP: case REALSXP: case INTSXP: case LGLSXP: case STRSXP: break;
    default: return 0;
    }
    if (DECORATED(a) || XLENGTH(a) != 1) return 0;
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
PyObj *to_py(SEXP a, const char **strs, int *k) {
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

/* A dict with ASCII string keys as reticulate converts it: a named list (never simplified to a
 * vector), its values converted by from_py; NULL for any other dict (an empty one included:
 * left to reticulate). Under R_UnwindProtect, as from_py. */
static SEXP dict_to_r(PyObj *o, int depth) {
  ptrdiff_t n = dict_size(o), pos = 0, i = 0;
  if (n <= 0) return NULL;
  SEXP v = PROTECT(Rf_allocVector(VECSXP, n));
  SEXP names = PROTECT(Rf_allocVector(STRSXP, n));
  PyObj *key, *val;
  while (i < n && dict_next(o, &pos, &key, &val)) {  /* (borrowed references) */
    if (key->ob_type != t_unicode || !set_scalar(names, i, STRSXP, key)) break;
    SEXP r = from_py(val, depth + 1);
    if (r == NULL) break;
    SET_VECTOR_ELT(v, i++, r);
  }
  if (i != n) {  /* (a key or a value it does not convert) */
    UNPROTECT(2);
    return NULL;
  }
  Rf_setAttrib(v, R_NamesSymbol, names);
  UNPROTECT(2);
  return v;
}

/* A Python value as reticulate converts it (scalars, None, lists: a list of scalars of one
 * type becomes an atomic vector; dicts, such as an error reply: named lists), or NULL when it
 * is of another kind. Allocates R memory with the GIL held: only ever called under
 * R_UnwindProtect (see convert_result). */
SEXP from_py(PyObj *o, int depth) {
  if (o == py_none) return R_NilValue;
  int kind = scalar_kind(o);
  if (kind) {
    SEXP v = PROTECT(Rf_allocVector(kind, 1));
    int ok = set_scalar(v, 0, kind, o);
    UNPROTECT(1);
    return ok ? v : NULL;
  }
  if (o->ob_type == t_dict && depth <= 3) return dict_to_r(o, depth);
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

/* -- replies ---------------------------------------------------------------------------------- */

/* Reply `res` (a new reference, GIL held) as R sees it; releases both. A tensor is registered
 * (by Python's _put: its handle, whose imaginary part carries the flags when R has housekeeping
 * to do) and comes back wrapped (class `cls`), or as that bare handle when there are flags
 * (.t() in R/bridge.R). With `encode`, a reply of another kind is first encoded as Python's
 * callers would (handles._enc). */
SEXP finish(PyObj *res, int gil, SEXP cls, int encode) {
  if (direct_ready && res->ob_type == tensor_type) {
    res = call_one(put_fn, res);  /* (steals res) */
    if (res == NULL) {
      if (err_occurred()) err_clear();
      gil_release(gil);
      rtp_error("runtime_error", "rtorchpy: could not register a tensor for R");
    }
  }
  /* (None with no warnings waiting encodes as itself: no call to encode it) */
  if (encode && direct_ready && res->ob_type != t_complex &&
      (res != py_none || list_size(warnings_list) > 0)) {
    PyObj *enc = call_one(encode_fn, res);  /* (steals res) */
    if (enc == NULL) {
      if (err_occurred()) err_clear();
      gil_release(gil);
      rtp_error("runtime_error", "rtorchpy: could not encode a Python result for R");
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
    if (cls != R_NilValue && h.i == MAGIC && rtp_ndead_int() <= RELEASE_BATCH) out = rtp_wrap(out, cls);
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
  if (failed) rtp_error("runtime_error", "rtorchpy: could not keep a Python result for R");
  return raw1(REPLY_STASHED);
}

/* The text of a Python str (or NULL), copied with malloc: under the GIL nothing may allocate
 * from R (an allocation error would unwind through the GIL). r_text takes it over later. */
static char *c_copy_text(PyObj *s) {
  const char *c = s ? unicode_utf8(s) : NULL;
  if (c == NULL || *c == '\0') return NULL;
  size_t n = strlen(c);
  char *copy = malloc(n + 1);
  if (copy != NULL) memcpy(copy, c, n + 1);
  return copy;
}

/* c_copy_text's copy moved into memory R frees when this .Call ends (the GIL released). */
static const char *r_text(char *c) {
  if (c == NULL) return NULL;
  size_t n = strlen(c);
  char *copy = R_alloc(n + 1, 1);  /* (on an allocation error `c` is lost: a few bytes) */
  memcpy(copy, c, n + 1);
  free(c);
  return copy;
}

/* The text of field `name` (a Python str) of an error reply (a dict, errors.py's error_reply),
 * copied as c_copy_text does; NULL when absent or not a string (GIL held). */
static char *reply_text(PyObj *rep, PyObj *name) {
  PyObj *v = rep->ob_type == t_dict ? dict_getitem(rep, name) : NULL;  /* (borrowed) */
  return v != NULL && v->ob_type == t_unicode ? c_copy_text(v) : NULL;
}

/* The Python error now set (GIL held; released here): raw 03 for an interrupt. Once the direct
 * path is set up, an Exception goes through error_reply (rtorchpy/_r/errors.py: R's dims and
 * type names, the condition class): with `reply` (the direct path) that reply (a dict, which
 * R receives as a named list) is the reply, as the Python caller would have given it; else its
 * message and class, read by their names (protocol.h's ERROR_MESSAGE, ERROR_CLASS), are raised
 * as an R condition here (an R callback's error as a runtime_error with its message: only the
 * reply path re-raises R's condition). Otherwise an R runtime_error with Python's whole
 * message. */
SEXP py_error(int gil, int reply, SEXP cls) {
  char *msg = NULL, *kind = NULL;
  int interrupted = 0;
  if (err_occurred()) {
    PyObj *type = NULL, *value = NULL, *tb = NULL;
    err_fetch(&type, &value, &tb);
    if (direct_ready && type != NULL) {
      err_normalize(&type, &value, &tb);
      if (value != NULL && exc_matches(type, *exc_exception)) {
        incref(value);
        PyObj *rep = call_one(error_reply_fn, value);  /* (steals the new reference) */
        if (rep != NULL && reply) {
          decref(type);
          decref(value);
          if (tb) decref(tb);
          return finish(rep, gil, cls, 0);
        }
        if (rep != NULL) {
          msg = reply_text(rep, s_err_message);
          kind = reply_text(rep, s_err_class);
          decref(rep);
        }
        if (err_occurred()) err_clear();
      }
    }
    interrupted = type != NULL && exc_matches(type, *exc_keyboard_interrupt);
    if (msg == NULL && value != NULL) {
      PyObj *s = object_str(value);
      msg = c_copy_text(s);
      if (s) decref(s);
    }
    if (type) decref(type);
    if (value) decref(value);
    if (tb) decref(tb);
    if (err_occurred()) err_clear();
  }
  gil_release(gil);
  /* -- GIL released ----------------------------------------------------------------------- */
  if (interrupted) {
    free(msg);
    free(kind);
    return raw1(REPLY_INTERRUPTED);
  }
  const char *m = r_text(msg), *k = r_text(kind);
  rtp_error(k ? k : "runtime_error", m ? m : "a Python error");
  return R_NilValue;  /* not reached */
}

void ensure_unwind_token(void) {
  if (unwind_token == NULL) {  /* made once (as cpp11 does), outside the GIL */
    unwind_token = R_MakeUnwindCont();
    R_PreserveObject(unwind_token);
  }
}

/* -- calls -------------------------------------------------------------------------------------- */

/* Call the Python callable `fn` with the R list `args`: the reply as an R complex (a handle),
 * or raw 01 / 02 / 03 (see the top of this file). An element of `args` may be an rtorchpy
 * object (its handle is passed). With `cls` not NULL, a handle reply that needs no
 * housekeeping (see .t() in R/bridge.R) comes back already wrapped, of class `cls`. */
SEXP call_py(PyObj *fn, SEXP args, SEXP cls) {
  int nstr = 0;
  if (!ready || TYPEOF(args) != VECSXP || !simple_args_at(args, 0, &nstr)) return raw1(REPLY_NOT_CALLED);
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
