/* R's C API where it differs between R versions. R >= 4.5 names the entry points of its API
 * (R-exts, "Moving into C API compliance"); older R gets a path through entry points that are
 * API on every version (no findVarInFrame, no ATTRIB: R's check reports them as non-API). */
#ifndef RTORCHPY_RAPI_H
#define RTORCHPY_RAPI_H
#include <R.h>
#include <Rinternals.h>
#include <Rversion.h>

/* The binding of `sym` in the frame `env` itself (not its parents), R_NilValue if none; a
 * promise is forced (as R's own lookup does). */
#if R_VERSION >= R_Version(4, 5, 0)
#define GET_VAR(sym, env) R_getVarEx((sym), (env), FALSE, R_NilValue)
#else
static inline SEXP GET_VAR(SEXP sym, SEXP env) {
  /* (evaluating the symbol finds the frame's own binding first, which exists) */
  return R_existsVarInFrame(env, sym) ? Rf_eval(sym, env) : R_NilValue;
}
#endif

/* Whether a value is more than a bare vector for the bridge's conversions: a class, names or
 * dims (a 1 x 1 matrix is not a scalar, a named list is not a plain list). The same test on
 * every R version. */
static inline int DECORATED(SEXP x) {
  return Rf_isObject(x) || Rf_getAttrib(x, R_NamesSymbol) != R_NilValue ||
         Rf_getAttrib(x, R_DimSymbol) != R_NilValue;
}

#endif
