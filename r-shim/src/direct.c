/* The direct path of the R bridge: the common calls without Python-level bridge code (see
 * "the direct path: state" below, and docs/internals/index.md), and what R asks of it directly:
 * releases, grad mode, x$grad and x$method; and a module's self$name (rtp_nn_get). */
#include <stdint.h>
#include <string.h>
#include "pyapi.h"

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
int direct_ready = 0;
PyObj *tensor_type, *warnings_list, *error_reply_fn, *encode_fn;
static PyObj *objects_dict, *key_counter, *direct_fn_getter, *release_fn, *grad_state;
static PyObj *s_data, *s_nbytes, *s_grad, *s_grad_enabled;
double c_held = 0, c_threshold = 268435456.0;  /* bytes: as handles.py's _held_bytes */

/* The object behind a handle (a borrowed reference), or NULL (GIL held). */
PyObj *object_of(SEXP h) {
  PyObj *k = long_from((long) COMPLEX(h)[0].r);
  if (k == NULL) { err_clear(); return NULL; }
  PyObj *o = dict_getitem(objects_dict, k);  /* (never sets an error) */
  decref(k);
  return o;
}

/* Release the handles R collected (GIL held): those registered here directly, the others
 * through Python's release(). `all`: whatever is queued; else only batches worth a call. */
void release_queued(int all) {
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
  if (all || rtp_ndead_int() >= RELEASE_BATCH) {
    PyObj *keys = list_new(0);
    if (keys == NULL) { err_clear(); return; }
    while (rtp_pop_dead(&key)) {
      PyObj *k = float_from(key);
      if (k == NULL || list_append(keys, k) < 0) err_clear();
      if (k) decref(k);
    }
    PyObj *r = call_one(release_fn, keys);  /* (steals keys) */
    if (r) decref(r);
    if (err_occurred()) err_clear();
  }
}

/* Register tensor `t` (GIL held): its key and size in bytes; 0 on failure (error cleared). */
int register_tensor(PyObj *t, double *key, double *bytes) {
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

static void keep(PyObj **slot, PyObj *o) {
  incref(o);
  if (*slot) decref(*slot);
  *slot = o;
}

/* Take the direct path's state from `d`, the dict direct.py's direct_setup() returns, by name
 * (NULL: no direct path); whether the direct path is on. */
int setup_direct(PyObj *d) {
  direct_ready = 0;
  if (d == NULL) return 0;
  int gil = gil_ensure();
  int ok = d->ob_type == t_dict;
  const char *fields[9] = {"objects", "counter", "tensor_type", "warnings", "error_reply",
                           "encode", "direct_fn", "release", "grad_state"};
  PyObj **slots[9] = {&objects_dict, &key_counter, &tensor_type, &warnings_list,
                      &error_reply_fn, &encode_fn, &direct_fn_getter, &release_fn, &grad_state};
  for (int i = 0; i < 9 && ok; i++) {
    PyObj *key = unicode_from(fields[i]);
    PyObj *v = key ? dict_getitem(d, key) : NULL;  /* (borrowed; NULL: a field is missing) */
    if (key) decref(key);
    if (v == NULL) ok = 0; else keep(slots[i], v);
  }
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
  return ok;
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
  if (HAS_ATTRIB(a) || XLENGTH(a) != 1) return 0;
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

/* A dim argument (R's 1-based) as Python's 0-based index in *out; 0 when C leaves it to the
 * Python caller (0, a fraction: its error; anything but NULL or a number). `*none`: NULL. */
static int shift_dim(SEXP a, long *out, int *none) {
  *none = 0;
  if (a == R_NilValue) { *none = 1; return 1; }
  double v;
  if (TYPEOF(a) == REALSXP) v = REAL(a)[0];
  else if (TYPEOF(a) == INTSXP) v = (double) INTEGER(a)[0];
  else return 0;
  if (!(v > -1e9 && v < 1e9) || v != (double) (long) v || v == 0) return 0;  /* (NaN too) */
  *out = v > 0 ? (long) v - 1 : (long) v;
  return 1;
}

/* Call `fn` (a plain Python function: an op itself) with the n values `a`, handles passed as
 * their objects, the arguments at the positions set in `dims` shifted to 0-based dims. NULL
 * when an argument does not suit (direct_arg, shift_dim) or a handle is unknown: the caller
 * then takes the Python caller, which gives the same result or the proper error. */
SEXP call_direct(PyObj *fn, SEXP *a, int n, int dims, SEXP cls) {
  int nstr = 0;
  long dimv[MAX_DIRECT_ARGS];
  int dimnone[MAX_DIRECT_ARGS];
  if (!direct_ready || n > MAX_DIRECT_ARGS) return NULL;
  if ((dims >> 30) & 1 && (n == 0 || TYPEOF(a[0]) != EXTPTRSXP)) return NULL;
  for (int i = 0; i < n; i++) {
    if (!direct_arg(a[i], &nstr)) return NULL;
    if ((dims >> i) & 1 && !shift_dim(a[i], &dimv[i], &dimnone[i])) return NULL;
  }
  const char *strs[MAX_DIRECT_ARGS];
  for (int i = 0, k = 0; i < n; i++) {  /* (R may error here: before the GIL is taken) */
    if (TYPEOF(a[i]) == STRSXP) strs[k++] = Rf_translateCharUTF8(STRING_ELT(a[i], 0));
  }
  ensure_unwind_token();

  /* -- GIL held from here: no R call that can fail ----------------------------------- */
  int gil = gil_ensure();
  release_queued(0);
  PyObj *tup = tuple_new((ptrdiff_t) n);
  PyObj *first = NULL;  /* the object of a tensor first argument (the tuple holds it) */
  int failed = tup == NULL;
  for (int i = 0, k = 0; i < n && !failed; i++) {
    PyObj *v;
    if ((dims >> i) & 1) {
      if (dimnone[i]) { incref(py_none); v = py_none; } else v = long_from(dimv[i]);
    } else if (TYPEOF(a[i]) == EXTPTRSXP) {
      v = object_of(R_ExternalPtrProtected(a[i]));
      if (v) incref(v);
      if (i == 0) first = v;
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
  /* An op that returns its first argument (x$sub_(y), x$zero_(), x$contiguous() on a
   * contiguous x, ...) gives back that argument's own R object: the same tensor, and no new
   * handle to register, wrap and later release. (Not while warnings wait: finish() flags
   * them.) */
  if (res != NULL && first != NULL && res == first && list_size(warnings_list) == 0) {
    decref(res);
    decref(tup);
    gil_release(gil);
    return a[0];
  }
  decref(tup);
  if (res == NULL) return py_error(gil, 1, cls);
  return finish(res, gil, cls, 1);
}


/* What direct.py names for entry `name` of table t: the function (a new reference) or NULL,
 * and in *dims a bit per argument position that is a dim C shifts to 0-based. */
PyObj *direct_function(int t, SEXP key, int *dims) {
  *dims = 0;
  if (!direct_ready || t == T_UNARY || t == T_BRIDGE) return NULL;
  PyObj *tup = tuple_new(2);
  if (tup == NULL) { err_clear(); return NULL; }
  tuple_setitem(tup, 0, long_from(t));
  tuple_setitem(tup, 1, unicode_from(CHAR(key)));  /* (op names are ASCII) */
  PyObj *f = object_call(direct_fn_getter, tup, NULL);
  decref(tup);
  if (f == NULL) { err_clear(); return NULL; }
  if (f == py_none) { decref(f); return NULL; }
  if (f->ob_type == t_list) {  /* [function, dim positions] */
    PyObj *fn = list_size(f) == 2 ? list_getitem(f, 0) : NULL;
    PyObj *pos = fn ? list_getitem(f, 1) : NULL;
    int ok = pos != NULL && pos->ob_type == t_list;
    for (ptrdiff_t i = 0; ok && i < list_size(pos); i++) {
      int overflow = 0;
      long p = long_as(list_getitem(pos, i), &overflow);
      /* HANDLE_FIRST: the first argument must be a handle */
      if (!overflow && p == HANDLE_FIRST) *dims |= 1 << HANDLE_FIRST;
      else if (overflow || p < 0 || p >= MAX_DIRECT_ARGS) ok = 0; else *dims |= 1 << p;
    }
    if (ok) incref(fn);
    decref(f);
    if (err_occurred()) err_clear();
    if (!ok) { *dims = 0; return NULL; }
    return fn;
  }
  return f;
}

/* -- housekeeping ------------------------------------------------------------------------------ */

/* Release every handle R collected (TRUE), or FALSE when the direct path is off (R then
 * releases through reticulate). */
SEXP rtp_release_dead(void) {
  rtp_reregister_pending();
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

static SEXP package_ns(void);

/* -- grad mode and `$` ------------------------------------------------------------------------- */

/* Set grad mode to `flag` (TRUE/FALSE; NA: leave it) and return the previous mode; raw 01
 * when the direct path is off or Python fails (R then takes the bridge function). */
SEXP rtp_grad_mode(SEXP flag) {
  if (!direct_ready || TYPEOF(flag) != LGLSXP || XLENGTH(flag) != 1) return raw1(REPLY_NOT_CALLED);
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
  return was < 0 ? raw1(REPLY_NOT_CALLED) : Rf_ScalarLogical(was);
}

/* Set grad mode (R's .set_grad_mode, and with_no_grad()'s and with_enable_grad()'s set and
 * restore): rtp_grad_mode, or when it cannot, the package's .set_grad_mode_general(flag) (the
 * bridge function); the previous mode. */
SEXP rtp_set_grad_mode(SEXP flag) {
  static SEXP set_sym = NULL;
  SEXP r = rtp_grad_mode(flag);
  if (TYPEOF(r) == LGLSXP) return r;
  if (set_sym == NULL) set_sym = Rf_install(".set_grad_mode_general");
  SEXP call = PROTECT(Rf_lang2(set_sym, flag));
  SEXP out = Rf_eval(call, package_ns());
  UNPROTECT(1);
  return out;
}

/* The R objects x$grad last returned, so that asking again for the same gradient (`w$grad`
 * in every step of a training loop, often twice) gives back that object instead of a new
 * handle to register, wrap and later release. A slot holds an R weak reference to the handle
 * object (R's collector decides when it dies) and the address of its tensor; an entry is
 * used only while the handle lives and its registry entry is that very tensor (the registry
 * keeps the tensor alive as long as the handle is, so the address cannot have been reused). */
#define GRAD_SLOTS 64
static SEXP grad_refs = NULL;  /* a list of GRAD_SLOTS weak references (or NULL), preserved */
static PyObj *grad_objs[GRAD_SLOTS];

static int grad_slot(PyObj *g) {
  return (int) (((uintptr_t) g >> 4) % GRAD_SLOTS);
}

/* The live handle object that wraps tensor g, or NULL (GIL held). An object handed out again
 * is marked so (rtp_mark_reissued): a collection may have found it dead before this (R runs
 * finalizers some time after that collection, and until then the weak reference still gives its
 * key), and its finalizer then keeps it instead of releasing it in use (src/handles.c). */
static SEXP known_grad(PyObj *g) {
  int i = grad_slot(g);
  if (grad_refs == NULL || grad_objs[i] != g) return NULL;
  SEXP w = VECTOR_ELT(grad_refs, i);
  if (TYPEOF(w) != WEAKREFSXP) return NULL;
  SEXP ptr = R_WeakRefKey(w);
  if (TYPEOF(ptr) != EXTPTRSXP || !rtp_is_live(ptr)) return NULL;
  if (object_of(R_ExternalPtrProtected(ptr)) != g) return NULL;
  rtp_mark_reissued(ptr);
  return ptr;
}

/* Remember `ptr`, the handle object just made for tensor g (GIL released). */
static void remember_grad(PyObj *g, SEXP ptr) {
  if (TYPEOF(ptr) != EXTPTRSXP) return;  /* (a bare handle: R has housekeeping to do) */
  PROTECT(ptr);
  if (grad_refs == NULL) {
    grad_refs = Rf_allocVector(VECSXP, GRAD_SLOTS);
    R_PreserveObject(grad_refs);
  }
  int i = grad_slot(g);
  SET_VECTOR_ELT(grad_refs, i, R_MakeWeakRef(ptr, R_NilValue, R_NilValue, FALSE));
  grad_objs[i] = g;
  UNPROTECT(1);
}

/* x$grad: the gradient (wrapped, or a bare handle with flags for .t()), the undefined tensor,
 * or NULL (R's general path). */
static SEXP tensor_grad(SEXP x) {
  SEXP h = handle_of(x);
  if (!direct_ready || h == NULL) return R_NilValue;
  rtp_reregister_pending();  /* (before the GIL: it allocates) */
  ensure_unwind_token();
  int gil = gil_ensure();
  release_queued(0);
  PyObj *t = object_of(h);
  PyObj *g = t ? getattr(t, s_grad) : NULL;
  if (g != NULL && g->ob_type == tensor_type) {
    SEXP known = list_size(warnings_list) == 0 ? known_grad(g) : NULL;
    if (known != NULL) {
      decref(g);
      gil_release(gil);
      return known;
    }
    PyObj *same = g;  /* (compared only: finish() releases g) */
    SEXP out = finish(g, gil, tensor_cls, 0);
    remember_grad(same, out);
    return out;
  }
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

/* x$grad, or x$name for a method whose prototype is in `protos` (the formals and body of a
 * closure calling the method with `self`, see .method_proto in R/tensor.R), made into a closure
 * whose environment binds `self` to x; NULL for anything else. */
static SEXP dollar_fast(SEXP x, SEXP name, SEXP protos) {
  static SEXP self_sym = NULL;
  if (TYPEOF(name) != STRSXP || XLENGTH(name) != 1 || TYPEOF(protos) != ENVSXP) {
    return R_NilValue;
  }
  SEXP nm = STRING_ELT(name, 0);
  if (strcmp(CHAR(nm), "grad") == 0) return tensor_grad(x);
  SEXP proto = GET_VAR(Rf_installTrChar(nm), protos);
  if (TYPEOF(proto) != VECSXP || XLENGTH(proto) != 3) return R_NilValue;
  if (self_sym == NULL) self_sym = Rf_install("self");
  SEXP env = PROTECT(R_NewEnv(VECTOR_ELT(proto, 2), FALSE, 0));
  Rf_defineVar(self_sym, x, env);
  SEXP f = rtp_closure(VECTOR_ELT(proto, 0), VECTOR_ELT(proto, 1), env);
  UNPROTECT(1);
  return f;
}

/* The package's namespace, for the R fallbacks below. */
static SEXP package_ns(void) {
  static SEXP ns = NULL;
  if (ns == NULL) {
    SEXP pkg = PROTECT(Rf_mkString("rtorchpy"));
    ns = R_FindNamespace(pkg);
    R_PreserveObject(ns);
    UNPROTECT(1);
  }
  return ns;
}

/* `$.torch_tensor` (its whole body, so that the common x$method and x$grad make no R call of
 * their own): dollar_fast's closure or tensor, else what the package's .dollar(x, name, r)
 * returns for the rest (attributes, methods not seen yet, flags of a bare x$grad handle). */
SEXP rtp_dollar(SEXP x, SEXP name, SEXP protos) {
  static SEXP dollar_sym = NULL;
  SEXP r = dollar_fast(x, name, protos);
  if (TYPEOF(r) == CLOSXP || Rf_isObject(r)) return r;
  if (dollar_sym == NULL) dollar_sym = Rf_install(".dollar");
  PROTECT(r);
  SEXP call = PROTECT(Rf_lang4(dollar_sym, x, name, r));
  SEXP out = Rf_eval(call, package_ns());
  UNPROTECT(2);
  return out;
}

/* Whether CHARSXPs a and b hold the same string (as R's `[[` compares names). */
static int same_name(SEXP a, SEXP b) {
  if (a == b) return 1;
  if (a == NA_STRING || b == NA_STRING) return 0;
  return strcmp(Rf_translateCharUTF8(a), Rf_translateCharUTF8(b)) == 0;
}

/* `$.nn_Module` (its whole body): self$weight in a module's forward. A parameter, buffer or
 * child module named `name` (the lists parameters_, buffers_ and modules_ of the module's R6
 * private environment, in that order, as .nn_get looks), else what .nn_get(x, name) returns
 * (fields, methods, `clone`). */
SEXP rtp_nn_get(SEXP x, SEXP name) {
  static SEXP enclos_sym = NULL, private_sym, lists[3], nn_get_sym;
  if (enclos_sym == NULL) {
    enclos_sym = Rf_install(".__enclos_env__");
    private_sym = Rf_install("private");
    lists[0] = Rf_install("parameters_");
    lists[1] = Rf_install("buffers_");
    lists[2] = Rf_install("modules_");
    nn_get_sym = Rf_install(".nn_get");
  }
  if (TYPEOF(x) == ENVSXP && TYPEOF(name) == STRSXP && XLENGTH(name) == 1) {
    SEXP key = STRING_ELT(name, 0);
    SEXP enc = GET_VAR(enclos_sym, x);
    SEXP priv = TYPEOF(enc) == ENVSXP ? GET_VAR(private_sym, enc) : R_NilValue;
    for (int l = 0; l < 3 && TYPEOF(priv) == ENVSXP; l++) {
      SEXP lst = GET_VAR(lists[l], priv);
      if (TYPEOF(lst) != VECSXP) continue;
      SEXP nms = Rf_getAttrib(lst, R_NamesSymbol);
      if (TYPEOF(nms) != STRSXP) continue;
      for (R_xlen_t i = 0; i < XLENGTH(nms); i++) {
        if (same_name(STRING_ELT(nms, i), key)) {
          SEXP v = VECTOR_ELT(lst, i);
          if (v != R_NilValue) return v;
          break;  /* (a NULL entry: look in the next list, as .nn_get does) */
        }
      }
    }
  }
  SEXP call = PROTECT(Rf_lang3(nn_get_sym, x, name));
  SEXP out = Rf_eval(call, package_ns());
  UNPROTECT(1);
  return out;
}
