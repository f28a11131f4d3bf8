/* The `ctx` of a custom autograd function (R/function.R), built in one call; and two more steps
 * of a custom function's callbacks that R's own functions make costly: calling forward or
 * backward with a list of arguments (do.call() ~17k instructions) and reading the weak reference
 * to the function's state.
 *
 * A context is made twice per call of a custom function (for forward, then for backward). R6's
 * $new() cost ~0.37M instructions there, and the same object built with R's own functions
 * (new.env, `environment<-`, makeActiveBinding, lockBinding, ...) still ~0.13M, because each of
 * those is an R closure around an .Internal. Here it is a few thousand.
 *
 * The object is one environment (enclosed by the package namespace) holding the fields, the
 * methods (closures of the object itself that call the package's function with the object's
 * `ptr`) and the active binding; locked (no new bindings; the methods and needs_input_grad
 * read-only; `ptr` writable). It is used as an R6 object is (ctx$...), and prints as one
 * (format.torch_autograd_context in R/function.R), without R6's private bookkeeping.
 */
#include <R.h>
#include <Rinternals.h>
#include "errors.h"
#include "closures.h"
#include "routines.h"

/* A method of the object: a closure of `env` made from `spec`, a list of its formals and its
 * body (R/function.R, .ctx_spec: a call of the package's compiled function with the object's
 * `ptr`). */
static SEXP closure_in(SEXP spec, SEXP env) {
  if (TYPEOF(spec) != VECSXP || XLENGTH(spec) != 2) {
    rtp_error("runtime_error", "rtorchpy: a context template is not a (formals, body) pair");
  }
  return rtp_closure(VECTOR_ELT(spec, 0), VECTOR_ELT(spec, 1), env);
}

/* ctx$needs_input_grad: a named list of TRUE/FALSE, one per forward argument, from the
 * logical vector Python sent (R's as.list(), names<- and their copies cost ~30k instructions
 * per context). */
static SEXP needs_list(SEXP needs, SEXP arg_names) {
  if (TYPEOF(needs) != LGLSXP || TYPEOF(arg_names) != STRSXP ||
      XLENGTH(needs) != XLENGTH(arg_names)) {
    rtp_error("runtime_error", "rtorchpy: needs_input_grad does not match the arguments");
  }
  R_xlen_t n = XLENGTH(needs);
  SEXP out = PROTECT(Rf_allocVector(VECSXP, n));
  for (R_xlen_t i = 0; i < n; i++) {
    SET_VECTOR_ELT(out, i, Rf_ScalarLogical(LOGICAL(needs)[i] == TRUE));
  }
  Rf_setAttrib(out, R_NamesSymbol, arg_names);
  UNPROTECT(1);
  return out;
}

/* rtp_new_context(ptr, needs, arg_names, methods, active, cls, enclos):
 *   needs    the logical vector of ctx$needs_input_grad, one per name in arg_names;
 *   methods  a named list of (formals, body) pairs of the methods (bound read-only);
 *   active   the same for the active bindings;
 *   cls      the class attribute; enclos the environment enclosing the object. */
SEXP rtp_new_context(SEXP ptr, SEXP needs, SEXP arg_names, SEXP methods, SEXP active, SEXP cls,
                     SEXP enclos) {
  if (TYPEOF(methods) != VECSXP || TYPEOF(active) != VECSXP || TYPEOF(enclos) != ENVSXP) {
    rtp_error("runtime_error", "rtorchpy: bad arguments for a context");
  }
  needs = PROTECT(needs_list(needs, arg_names));
  SEXP ctx = PROTECT(R_NewEnv(enclos, TRUE, 29));
  SEXP sym_ptr = Rf_install("ptr"), sym_needs = Rf_install("needs_input_grad");
  Rf_defineVar(sym_ptr, ptr, ctx);
  Rf_defineVar(sym_needs, needs, ctx);
  SEXP names = Rf_getAttrib(methods, R_NamesSymbol);
  for (R_xlen_t i = 0; i < XLENGTH(methods); i++) {
    SEXP sym = Rf_installChar(STRING_ELT(names, i));
    Rf_defineVar(sym, closure_in(VECTOR_ELT(methods, i), ctx), ctx);
  }
  SEXP anames = Rf_getAttrib(active, R_NamesSymbol);
  for (R_xlen_t i = 0; i < XLENGTH(active); i++) {
    SEXP sym = Rf_installChar(STRING_ELT(anames, i));
    R_MakeActiveBinding(sym, closure_in(VECTOR_ELT(active, i), ctx), ctx);
  }
  R_LockEnvironment(ctx, FALSE);
  R_LockBinding(sym_needs, ctx);
  for (R_xlen_t i = 0; i < XLENGTH(methods); i++) {
    R_LockBinding(Rf_installChar(STRING_ELT(names, i)), ctx);
  }
  Rf_setAttrib(ctx, R_ClassSymbol, cls);
  UNPROTECT(2);
  return ctx;
}

/* do.call(fn, c(list(first), args), envir = env) without do.call's R code: the call
 * fn(first, <args, with their names>) evaluated in env. As with do.call (quote = FALSE), the
 * values stand in the call as they are. */
SEXP rtp_call_with(SEXP fn, SEXP first, SEXP args, SEXP env) {
  if (!Rf_isFunction(fn) || TYPEOF(args) != VECSXP || TYPEOF(env) != ENVSXP) {
    rtp_error("runtime_error", "rtorchpy: bad arguments for a custom function's call");
  }
  R_xlen_t n = XLENGTH(args);
  SEXP names = Rf_getAttrib(args, R_NamesSymbol);
  SEXP tail = R_NilValue;
  PROTECT_INDEX ti;
  PROTECT_WITH_INDEX(tail, &ti);
  for (R_xlen_t i = n - 1; i >= 0; i--) {
    REPROTECT(tail = Rf_cons(VECTOR_ELT(args, i), tail), ti);
    if (names != R_NilValue && CHAR(STRING_ELT(names, i))[0] != '\0') {
      SET_TAG(tail, Rf_installTrChar(STRING_ELT(names, i)));
    }
  }
  SEXP call = PROTECT(Rf_lcons(fn, Rf_cons(first, tail)));
  SEXP out = Rf_eval(call, env);
  UNPROTECT(2);
  return out;
}

/* The key of an R weak reference (NULL once collected). */
SEXP rtp_wref_key(SEXP w) {
  if (TYPEOF(w) != WEAKREFSXP) rtp_error("runtime_error", "rtorchpy: not a weak reference");
  return R_WeakRefKey(w);
}
