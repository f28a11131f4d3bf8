/* The Python callables the R side names (ops, operators, bridge functions, nnf functions),
 * cached by name, and the entry points that call them. */
#include "pyapi.h"

/* -- callables cached by name -------------------------------------------------------------
 *
 * The generated wrappers, the operators and .bridge() name the Python callable they call
 * (`.Call(rtp_op, "sin", list(self))`): the callable is looked up once in the R environment
 * that holds it (.rt$ops, .rt$binary, .rt$unary, .rt$bfns, .rt$fns: reticulate objects) and its
 * PyObject kept here, with a reference of its own, in a small table keyed by the address of
 * the name's CHARSXP (R keeps one CHARSXP per string, so the address identifies the name),
 * beside the function a direct call may use instead (direct.py's direct_fn: ops, binary
 * operators, nnf functions). A name not (yet) in its environment gives raw 04: R then takes
 * its general path, which starts Python and fetches the callable. rtp_setup (after Python started) sets
 * the environments, the class of tensors and the direct path's state, and empties the tables.
 */
#define NTAB 5
#define TABSIZE 2048
static SEXP tab_env[NTAB];
static SEXP tab_key[NTAB][TABSIZE];
static PyObj *tab_fn[NTAB][TABSIZE];
static PyObj *tab_direct[NTAB][TABSIZE];
static int tab_dims[NTAB][TABSIZE];  /* dims of the direct function, a bit per position */
SEXP tensor_cls = NULL;

static void clear_tables(void) {
  int gil = gil_ensure();
  for (int t = 0; t < NTAB; t++) {
    for (int i = 0; i < TABSIZE; i++) {
      if (tab_fn[t][i]) decref(tab_fn[t][i]);
      if (tab_direct[t][i]) decref(tab_direct[t][i]);
      tab_fn[t][i] = NULL;
      tab_direct[t][i] = NULL;
      tab_dims[t][i] = 0;
      tab_key[t][i] = NULL;
    }
  }
  gil_release(gil);
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
  setup_direct(direct == R_NilValue ? NULL : pyobject(direct));
  return Rf_ScalarLogical(1);
}

/* The cached callable named `name` (a string) in table t, or NULL (not there yet); *direct:
 * the function a direct call may use instead, or NULL. */
static PyObj *lookup(int t, SEXP name, PyObj **direct, int *dims) {
  *direct = NULL;
  *dims = 0;
  if (!ready || tab_env[t] == NULL || TYPEOF(name) != STRSXP || XLENGTH(name) != 1) return NULL;
  SEXP key = STRING_ELT(name, 0);
  size_t i = (((uintptr_t) key) >> 4) % TABSIZE;
  for (int probe = 0; probe < TABSIZE; probe++, i = (i + 1) % TABSIZE) {
    if (tab_key[t][i] == key) {
      *direct = tab_direct[t][i];
      *dims = tab_dims[t][i];
      return tab_fn[t][i];
    }
    if (tab_key[t][i] == NULL) break;
  }
  SEXP f = GET_VAR(Rf_installTrChar(key), tab_env[t]);
  if (f == R_UnboundValue || f == R_NilValue) return NULL;
  PyObj *fn = pyobject(f);
  if (fn == NULL) return NULL;
  i = (((uintptr_t) key) >> 4) % TABSIZE;
  for (int probe = 0; probe < TABSIZE; probe++, i = (i + 1) % TABSIZE) {
    if (tab_key[t][i] == NULL) {
      int gil = gil_ensure();
      incref(fn);
      PyObj *d = direct_function(t, key, dims);
      gil_release(gil);
      tab_key[t][i] = key;  /* CHARSXPs of names in the package's code are never collected */
      R_PreserveObject(key);
      tab_fn[t][i] = fn;
      tab_direct[t][i] = d;
      tab_dims[t][i] = *dims;
      *direct = d;
      return fn;
    }
  }
  return fn;  /* table full: called, not cached */
}

/* The cached callable `name` of table t, for the tables with no direct functions. */
static PyObj *lookup_fn(int t, SEXP name) {
  PyObj *direct;
  int dims;
  return lookup(t, name, &direct, &dims);
}

/* fn's Python caller with the n arguments `a` as an R list. */
static SEXP call_py_args(PyObj *fn, SEXP *a, int n) {
  SEXP args = PROTECT(Rf_allocVector(VECSXP, n));
  for (int i = 0; i < n; i++) SET_VECTOR_ELT(args, i, a[i]);
  SEXP r = call_py(fn, args, tensor_cls);
  UNPROTECT(1);
  return r;
}

/* The n arguments `a` directly through `direct` (dims: a bit per argument it shifts) when
 * there is one and the arguments allow (call_direct), else through fn's Python caller. */
static SEXP call_with(PyObj *fn, PyObj *direct, int dims, SEXP *a, int n) {
  if (direct != NULL) {
    SEXP r = call_direct(direct, a, n, dims, tensor_cls);
    if (r != NULL) return r;
  }
  return call_py_args(fn, a, n);
}

/* Op `name` (table 0) or function `name` (table 4: nnf_*) with the R list `args`. */
static SEXP call_named(int t, SEXP name, SEXP args) {
  PyObj *direct;
  int dims;
  PyObj *fn = lookup(t, name, &direct, &dims);
  if (fn == NULL) return raw1(4);
  if (direct == NULL || TYPEOF(args) != VECSXP || XLENGTH(args) > MAX_DIRECT_ARGS) {
    return call_py(fn, args, tensor_cls);
  }
  SEXP a[MAX_DIRECT_ARGS];
  int n = (int) XLENGTH(args);
  for (int i = 0; i < n; i++) a[i] = VECTOR_ELT(args, i);
  return call_with(fn, direct, dims, a, n);
}

/* The same for .External(rtp_opx, name, ...): the arguments come as the pairlist R built to
 * call the routine, so the wrapper makes no list of them (R allocations are most of the R
 * side's cost per op: each is a cache miss when made, and again when collected). */
static SEXP call_named_ext(int t, SEXP call_args) {
  SEXP name = CADR(call_args), rest = CDDR(call_args);
  PyObj *direct;
  int dims;
  PyObj *fn = lookup(t, name, &direct, &dims);
  if (fn == NULL) return raw1(4);
  int n = Rf_length(rest);
  SEXP buf[MAX_DIRECT_ARGS];  /* (more arguments than that never go direct: call_direct) */
  SEXP *a = n <= MAX_DIRECT_ARGS ? buf : (SEXP *) R_alloc((size_t) n, sizeof(SEXP));
  int i = 0;
  for (SEXP s = rest; s != R_NilValue; s = CDR(s)) a[i++] = CAR(s);
  return call_with(fn, direct, dims, a, n);
}

/* .External(rtp_opx, name, ...) and .External(rtp_fnx, name, ...): rtp_op and rtp_fn with the
 * arguments as they came. */
SEXP rtp_opx(SEXP call_args) {
  return call_named_ext(0, call_args);
}

SEXP rtp_fnx(SEXP call_args) {
  return call_named_ext(4, call_args);
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
  int dims;
  PyObj *fn = lookup(1, generic, &direct, &dims);
  if (fn == NULL) return raw1(4);
  SEXP a[2] = {e1, e2};
  int direct_ok = TYPEOF(e1) == EXTPTRSXP && TYPEOF(e2) != STRSXP;
  return call_with(fn, direct_ok ? direct : NULL, dims, a, 2);
}

/* The unary operator `generic` on e1. */
SEXP rtp_unop(SEXP generic, SEXP e1) {
  PyObj *fn = lookup_fn(2, generic);
  if (fn == NULL) return raw1(4);
  return call_py_args(fn, &e1, 1);
}

/* A function of the bridge module named `name`: its reply as rtp_call gives it (a tensor
 * reply comes back wrapped). */
SEXP rtp_bcall(SEXP name, SEXP args) {
  PyObj *fn = lookup_fn(3, name);
  if (fn == NULL) return raw1(4);
  return call_py(fn, args, tensor_cls);
}
