/* R functions that Python calls: tensor hooks, a custom function's forward and backward, the
 * functions of autograd_gradcheck() and friends, the optimizer's closure dispatcher.
 *
 * reticulate's r_to_py() makes such a callable too, but each call then costs ~30k
 * instructions in reticulate, and R code had to run the function inside tryCatch() (~80k more)
 * so that no R error unwinds through Python's frames. Here one Python callable (`call_r`,
 * written in C) takes a capsule holding the R function; a call converts the arguments as
 * reticulate would (pycall.c's from_py), evaluates the function under R_UnwindProtect and
 * converts the result back (to_python below).
 *
 * An R error or interrupt in the function (or any other jump: an outer tryCatch() or restart
 * the condition reaches) is stopped at the R_UnwindProtect boundary, as cpp11 does it: the
 * cleanup longjmps back into call_r, which raises RCallbackError in Python and keeps the
 * unwind's continuation token as `pending`. Python then unwinds normally (its `finally`
 * blocks restore grad mode and the graph) and replies to R with an error reply marked as an R
 * callback's (rtorchpy/_r/errors.py's error_reply, field ERROR_IN_R); R's .reraise()
 * calls rtp_resume_unwind(), which continues the jump where it was going: the original
 * condition reaches R's handlers, and R's frames in between run their on.exit code. Because
 * the handler stack stays intact during the call, withCallingHandlers() and
 * suppressWarnings() around the outer call see what happens inside the callback.
 *
 * The R function is kept with R_PreserveObject while Python holds the capsule. The capsule's
 * destructor may run whenever Python drops the last reference (possibly inside another R
 * call into Python, or in another Python thread), so it only queues the function, under the
 * GIL; the queue is released by the next rtp_r_function() or rtp_release_callbacks() call,
 * from R.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <dlfcn.h>
#include <pthread.h>
#endif
#include "pyapi.h"
#include "routines.h"

typedef PyObj *(*pycfunc)(PyObj *, PyObj *);
typedef struct {
  const char *ml_name;
  pycfunc ml_meth;
  int ml_flags;
  const char *ml_doc;
} method_def;
#define METH_VARARGS 0x0001

static PyObj *(*capsule_new)(void *, const char *, void (*)(PyObj *));
static void *(*capsule_pointer)(PyObj *, const char *);
static PyObj *(*cfunction_new)(method_def *, PyObj *, PyObj *);
static ptrdiff_t (*tuple_size)(PyObj *);
static PyObj *(*tuple_getitem)(PyObj *, ptrdiff_t);
static PyObj *(*dict_new)(void);
static void (*err_set_string)(PyObj *, const char *);
static PyObj **exc_type_error;
static PyObj *callback_error;   /* rtorchpy._r's RCallbackError */
static PyObj *keep_fn;          /* rtorchpy._r's r_function: a callable as a handle */
static int callbacks_ready = 0;

static const char CAPSULE[] = "rtorchpy.r_function";

/* R functions whose capsule Python freed, to release from R (R_ReleaseObject). */
static SEXP *released = NULL;
static size_t n_released = 0, cap_released = 0;
static double n_live = 0;  /* R functions preserved for Python (for the leak tests) */

/* The continuation of the jump that left the last failed callback, until R resumes it. */
static SEXP pending = NULL;

/* Continuation tokens, one per nesting level of callbacks (a callback's R code may call
 * Python, which may call another callback), made ahead so that entering a callback allocates
 * nothing before R_UnwindProtect protects it. */
#define MAX_DEPTH 64
static SEXP tokens = NULL;
static int depth = 0;

/* R runs on one thread: a call from any other Python thread is refused. */
#ifndef _WIN32
static pthread_t r_thread;
#endif

#define SYM(var, name) \
  do { *(void **) (&var) = dlsym(lib, name); if (var == NULL) return 0; } while (0)

static PyObj *call_r(PyObj *self, PyObj *args);
static method_def call_r_def = {"call_r", call_r, METH_VARARGS,
                                "Call the R function held by the capsule `self`."};

/* Find what this file needs in the libpython `lib` (called by rtp_pyinit, GIL not held). */
int setup_callbacks(void *lib) {
  callbacks_ready = 0;
#ifdef _WIN32
  return 0;
#else
  SYM(capsule_new, "PyCapsule_New");
  SYM(capsule_pointer, "PyCapsule_GetPointer");
  SYM(cfunction_new, "PyCFunction_NewEx");
  SYM(tuple_size, "PyTuple_Size");
  SYM(tuple_getitem, "PyTuple_GetItem");
  SYM(dict_new, "PyDict_New");
  SYM(err_set_string, "PyErr_SetString");
  SYM(exc_type_error, "PyExc_TypeError");
  r_thread = pthread_self();
  if (tokens == NULL) {
    tokens = Rf_allocVector(VECSXP, MAX_DEPTH);
    R_PreserveObject(tokens);
    for (int i = 0; i < MAX_DEPTH; i++) SET_VECTOR_ELT(tokens, i, R_MakeUnwindCont());
  }
  int gil = gil_ensure();
  PyObj *n1 = unicode_from("RCallbackError"), *n2 = unicode_from("r_function");
  PyObj *e = n1 ? getattr(bridge_module, n1) : NULL;
  PyObj *k = n2 ? getattr(bridge_module, n2) : NULL;
  if (n1) decref(n1);
  if (n2) decref(n2);
  if (err_occurred()) err_clear();
  if (e != NULL && k != NULL) {
    if (callback_error) decref(callback_error);
    if (keep_fn) decref(keep_fn);
    callback_error = e;
    keep_fn = k;
    callbacks_ready = 1;
  } else {
    if (e) decref(e);
    if (k) decref(k);
  }
  gil_release(gil);
  return callbacks_ready;
#endif
}

/* The queue is taken under the GIL (a destructor may run in another Python thread, which holds
 * it), and released after. */
static void release_queue(void) {
  if (!ready) return;  /* (no capsule exists before Python started) */
  int gil = gil_ensure();
  SEXP *q = released;
  size_t n = n_released;
  released = NULL;
  n_released = cap_released = 0;
  gil_release(gil);
  for (size_t i = 0; i < n; i++) {
    R_ReleaseObject(q[i]);
    n_live--;
  }
  free(q);
}

/* The capsule's destructor (GIL held; any time Python frees it). */
static void drop_function(PyObj *capsule) {
  SEXP fn = (SEXP) capsule_pointer(capsule, CAPSULE);
  if (fn == NULL) { err_clear(); return; }
  if (n_released == cap_released) {
    size_t grown = cap_released ? 2 * cap_released : 64;
    SEXP *p = (SEXP *) realloc(released, grown * sizeof(SEXP));
    if (p == NULL) return;  /* out of memory: the R function stays preserved (a leak) */
    released = p;
    cap_released = grown;
  }
  released[n_released++] = fn;
}

/* The R function `fn` as a Python callable, returned as a handle (wrapped, class `cls`); raw 01
 * when this path is not available (R then uses reticulate's r_to_py). */
SEXP rtp_r_function(SEXP fn, SEXP cls) {
  release_queue();
  if (!ready || !callbacks_ready || !Rf_isFunction(fn)) return raw1(REPLY_NOT_CALLED);
  R_PreserveObject(fn);
  n_live++;
  int gil = gil_ensure();
  PyObj *cap = capsule_new((void *) fn, CAPSULE, drop_function);
  PyObj *f = cap ? cfunction_new(&call_r_def, cap, NULL) : NULL;
  if (cap) decref(cap);  /* (f holds it) */
  PyObj *res = NULL;
  if (f != NULL) {
    res = call_one(keep_fn, f);  /* (steals f) */
  } else if (cap == NULL) {
    R_ReleaseObject(fn);  /* (no capsule: nothing will queue it) */
    n_live--;
  }
  if (res == NULL) return py_error(gil, 0, R_NilValue);
  return finish(res, gil, cls, 0);
}

/* Release the R functions Python no longer holds; how many it still holds. */
SEXP rtp_release_callbacks(void) {
  release_queue();
  return Rf_ScalarReal(n_live);
}

/* Continue the jump that left the last failed callback, if R has not resumed it yet. */
SEXP rtp_resume_unwind(void) {
  if (pending != NULL) {
    SEXP token = pending;
    pending = NULL;
    R_ContinueUnwind(token);
  }
  return R_NilValue;
}

/* -- one call ------------------------------------------------------------------------------- */

/* An R value as Python sees it, as reticulate converts it for these callbacks: NULL is None,
 * a vector of length one without names a scalar, a named list a dict, a list or a longer
 * vector a list; a new reference, or NULL with a Python TypeError set. Runs under
 * R_UnwindProtect (translating strings may fail). */
static PyObj *to_python(SEXP v, int depth_left) {
  if (v == R_NilValue) { incref(py_none); return py_none; }
  int type = TYPEOF(v);
  if (type == EXTPTRSXP && handle_of(v) != NULL) v = handle_of(v);
  type = TYPEOF(v);
  if (depth_left <= 0 || (type != VECSXP && type != CPLXSXP && type != REALSXP &&
                          type != INTSXP && type != LGLSXP && type != STRSXP)) {
    err_set_string(*exc_type_error, "rtorchpy: an R function called from Python returned a "
                   "value that cannot go to Python");
    return NULL;
  }
  R_xlen_t n = XLENGTH(v);
  SEXP names = Rf_getAttrib(v, R_NamesSymbol);
  if (type == VECSXP && names != R_NilValue) {
    PyObj *d = dict_new();
    for (R_xlen_t i = 0; d != NULL && i < n; i++) {
      PyObj *val = to_python(VECTOR_ELT(v, i), depth_left - 1);
      PyObj *key = val ? unicode_from(Rf_translateCharUTF8(STRING_ELT(names, i))) : NULL;
      int failed = key == NULL || dict_setitem(d, key, val) < 0;
      if (key) decref(key);
      if (val) decref(val);
      if (failed) { decref(d); d = NULL; }
    }
    return d;
  }
  if (type != VECSXP && n == 1) {
    switch (type) {
    case CPLXSXP: return complex_from(COMPLEX(v)[0].r, COMPLEX(v)[0].i);
    case REALSXP: return float_from(REAL(v)[0]);
    case INTSXP: return long_from((long) INTEGER(v)[0]);
    case LGLSXP: { PyObj *b = LOGICAL(v)[0] ? py_true : py_false; incref(b); return b; }
    case STRSXP: return unicode_from(Rf_translateCharUTF8(STRING_ELT(v, 0)));
    }
  }
  PyObj *l = list_new((ptrdiff_t) n);
  for (R_xlen_t i = 0; l != NULL && i < n; i++) {
    PyObj *e = NULL;
    switch (type) {
    case VECSXP: e = to_python(VECTOR_ELT(v, i), depth_left - 1); break;
    case CPLXSXP: e = complex_from(COMPLEX(v)[i].r, COMPLEX(v)[i].i); break;
    case REALSXP: e = float_from(REAL(v)[i]); break;
    case INTSXP: e = long_from((long) INTEGER(v)[i]); break;
    case LGLSXP: e = LOGICAL(v)[i] ? py_true : py_false; incref(e); break;
    case STRSXP: e = unicode_from(Rf_translateCharUTF8(STRING_ELT(v, i))); break;
    }
    if (e == NULL) { decref(l); l = NULL; } else list_setitem(l, (ptrdiff_t) i, e);
  }
  return l;
}

typedef struct {
  SEXP fn;
  PyObj *args;
  PyObj *result;
} call_t;

static SEXP call_body(void *data) {
  call_t *c = (call_t *) data;
  ptrdiff_t n = tuple_size(c->args);
  SEXP call = PROTECT(Rf_lcons(c->fn, R_NilValue));
  SEXP last = call;
  for (ptrdiff_t i = 0; i < n; i++) {
    PyObj *a = tuple_getitem(c->args, i);
    SEXP v = from_py(a, 0);
    if (v == NULL && a != py_none) {
      UNPROTECT(1);
      err_set_string(*exc_type_error, "rtorchpy: an argument of an R function called from "
                     "Python cannot go to R");
      return R_NilValue;
    }
    SETCDR(last, Rf_cons(v == NULL ? R_NilValue : v, R_NilValue));
    last = CDR(last);
  }
  SEXP res = PROTECT(Rf_eval(call, R_GlobalEnv));
  c->result = to_python(res, 8);
  UNPROTECT(2);
  return R_NilValue;
}

static void call_cleanup(void *data, Rboolean jump) {
  if (jump) longjmp(*(jmp_buf *) data, 1);
}

/* The Python callable: self is the capsule, args the call's arguments (GIL held). */
static PyObj *call_r(PyObj *self, PyObj *args) {
  SEXP fn = (SEXP) capsule_pointer(self, CAPSULE);
  if (fn == NULL) return NULL;
#ifndef _WIN32
  if (!pthread_equal(pthread_self(), r_thread)) {
    err_set_string(callback_error, "rtorchpy: an R function can only be called from R's own "
                   "thread, not from another Python thread");
    return NULL;
  }
#endif
  if (depth >= MAX_DEPTH) {
    err_set_string(callback_error, "rtorchpy: R functions called from Python are nested too "
                   "deeply");
    return NULL;
  }
  pending = NULL;  /* (a jump Python chose not to report is abandoned) */
  SEXP token = VECTOR_ELT(tokens, depth);
  call_t c = {fn, args, NULL};
  jmp_buf jb;
  depth++;
  if (setjmp(jb)) {
    depth--;
    pending = token;
    err_set_string(callback_error, "an R error or interrupt in an R function called from Python");
    return NULL;
  }
  R_UnwindProtect(call_body, &c, call_cleanup, &jb, token);
  depth--;
  return c.result;
}
