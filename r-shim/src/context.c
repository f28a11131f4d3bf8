/* The `ctx` of a custom autograd function (R/function.R), built in one call.
 *
 * A context is made twice per call of a custom function (for forward, then for backward). R6's
 * $new() cost ~0.37M instructions there, and the same object built with R's own functions
 * (new.env, `environment<-`, makeActiveBinding, lockBinding, ...) still ~0.13M, because each of
 * those is an R closure around an .Internal. Here it is a few thousand.
 *
 * The object has the layout R6 gives a non-portable object: one environment (enclosed by the
 * package namespace) holding the fields, the methods (copies of the templates whose environment
 * is the object itself, so that they read `ptr` from it) and the active binding; locked as R6
 * locks it (no new bindings; the methods and needs_input_grad read-only; `ptr` writable).
 */
#include <R.h>
#include <Rinternals.h>

/* A copy of the closure `f` whose environment is `env` (formals and body shared). */
static SEXP closure_in(SEXP f, SEXP env) {
  if (TYPEOF(f) != CLOSXP) Rf_error("rtorchpy: a context template is not a function");
  SEXP g = PROTECT(Rf_shallow_duplicate(f));
  SET_CLOENV(g, env);
  UNPROTECT(1);
  return g;
}

/* rtp_new_context(ptr, needs, methods, active, cls, enclos):
 *   needs    the named list ctx$needs_input_grad;
 *   methods  a named list of template closures (bound read-only);
 *   active   a named list of template closures for the active bindings;
 *   cls      the class attribute; enclos the environment enclosing the object. */
SEXP rtp_new_context(SEXP ptr, SEXP needs, SEXP methods, SEXP active, SEXP cls, SEXP enclos) {
  if (TYPEOF(methods) != VECSXP || TYPEOF(active) != VECSXP || TYPEOF(enclos) != ENVSXP) {
    Rf_error("rtorchpy: bad arguments for a context");
  }
  SEXP ctx = PROTECT(R_NewEnv(enclos, TRUE, 29));
  SEXP sym_ptr = Rf_install("ptr"), sym_needs = Rf_install("needs_input_grad");
  SEXP sym_enclos = Rf_install(".__enclos_env__");
  Rf_defineVar(sym_ptr, ptr, ctx);
  Rf_defineVar(sym_needs, needs, ctx);
  Rf_defineVar(sym_enclos, ctx, ctx);
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
  R_LockBinding(sym_enclos, ctx);
  for (R_xlen_t i = 0; i < XLENGTH(methods); i++) {
    R_LockBinding(Rf_installChar(STRING_ELT(names, i)), ctx);
  }
  Rf_setAttrib(ctx, R_ClassSymbol, cls);
  UNPROTECT(1);
  return ctx;
}
