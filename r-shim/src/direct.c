/* The direct path of the R bridge: the common calls without Python-level bridge code (their
 * state is registry.c's; see docs/internals/index.md), and what R asks of it directly:
 * releases, grad mode, x$grad and x$method; and a module's self$name (rtp_nn_get). */
#include <stdint.h>
#include <string.h>
#include "pyapi.h"
#include "routines.h"

/* Whether `a` can be passed to a direct call: a live handle, NULL, or a double, integer,
 * logical (not NA) or string (not NA) scalar without attributes. Counts strings into *nstr. */
static int direct_arg(SEXP a, int *nstr) {
  switch (TYPEOF(a)) {
  case NILSXP: return 1;
  case EXTPTRSXP: return handle_of(a) != NULL;
  case REALSXP: case INTSXP: case LGLSXP: case STRSXP: break;
  default: return 0;
  }
  if (DECORATED(a) || XLENGTH(a) != 1) return 0;
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

/* Call `fn` (a plain Python function: an op itself, or direct.py's wrapper that converts its
 * R dims) with the n values `a`, handles passed as their objects. `flags`: HANDLE_FIRST when
 * the first argument must be a handle. NULL when an argument does not suit (direct_arg)
 * or a handle is unknown: the caller then takes the Python caller, which gives the same result
 * or the proper error. */
SEXP call_direct(PyObj *fn, SEXP *a, int n, int flags, SEXP cls) {
  int nstr = 0;
  if (!direct_ready || n > MAX_DIRECT_ARGS) return NULL;
  if ((flags & HANDLE_FIRST) && (n == 0 || TYPEOF(a[0]) != EXTPTRSXP)) return NULL;
  for (int i = 0; i < n; i++) {
    if (!direct_arg(a[i], &nstr)) return NULL;
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
    if (TYPEOF(a[i]) == EXTPTRSXP) {
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


/* What direct.py's direct_fn gives for entry `name` of table t: None, or a DirectEntry, read by
 * the names of its attributes (protocol.h's DIRECT_FN, DIRECT_HANDLE_FIRST). Its function (a
 * new reference) or NULL, and in *flags HANDLE_FIRST when it takes only a handle first. */
PyObj *direct_function(int t, SEXP key, int *flags) {
  *flags = 0;
  if (!direct_ready || t == T_UNARY) return NULL;
  PyObj *tup = tuple_new(2);
  if (tup == NULL) { err_clear(); return NULL; }
  tuple_setitem(tup, 0, long_from(t));
  tuple_setitem(tup, 1, unicode_from(CHAR(key)));  /* (op names are ASCII) */
  PyObj *entry = object_call(direct_fn_getter, tup, NULL);
  decref(tup);
  if (entry == NULL) { err_clear(); return NULL; }
  if (entry == py_none) { decref(entry); return NULL; }
  PyObj *fn = getattr(entry, s_direct_fn);
  PyObj *first = fn != NULL ? getattr(entry, s_handle_first) : NULL;
  decref(entry);
  int ok = first == py_true || first == py_false, handle_first = first == py_true;
  if (first) decref(first);
  if (err_occurred()) err_clear();
  if (!ok) {  /* (not a DirectEntry: no direct call, the Python caller serves) */
    if (fn) decref(fn);
    return NULL;
  }
  if (handle_first) *flags = HANDLE_FIRST;
  return fn;
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
 * private environment, in that order, as .nn_get looks), else the object's own binding of
 * `name` (a field such as self$inplace, or a method; NULL when there is none), as .nn_get
 * ends. The private environment is the one .nn_private keeps in the object
 * (`.__rtp_private__`, with its owner written into it: `.__owner__$module`); until it is
 * there, or when it belongs to another object (a clone's copy), and for `clone` (which
 * .nn_get wraps), .nn_get(x, name) answers. */
SEXP rtp_nn_get(SEXP x, SEXP name) {
  static SEXP cache_sym = NULL, owner_sym, module_sym, lists[3], nn_get_sym;
  if (cache_sym == NULL) {
    cache_sym = Rf_install(".__rtp_private__");
    owner_sym = Rf_install(".__owner__");
    module_sym = Rf_install("module");
    lists[0] = Rf_install("parameters_");
    lists[1] = Rf_install("buffers_");
    lists[2] = Rf_install("modules_");
    nn_get_sym = Rf_install(".nn_get");
  }
  if (TYPEOF(x) == ENVSXP && TYPEOF(name) == STRSXP && XLENGTH(name) == 1) {
    SEXP key = STRING_ELT(name, 0);
    SEXP priv = GET_VAR(cache_sym, x);
    SEXP owner = TYPEOF(priv) == ENVSXP ? GET_VAR(owner_sym, priv) : R_NilValue;
    if (TYPEOF(owner) != ENVSXP || GET_VAR(module_sym, owner) != x) priv = R_NilValue;
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
    if (TYPEOF(priv) == ENVSXP && key != NA_STRING &&
        strcmp(Rf_translateCharUTF8(key), "clone") != 0) {
      return GET_VAR(Rf_installTrChar(key), x);
    }
  }
  SEXP call = PROTECT(Rf_lang3(nn_get_sym, x, name));
  SEXP out = Rf_eval(call, package_ns());
  UNPROTECT(1);
  return out;
}
