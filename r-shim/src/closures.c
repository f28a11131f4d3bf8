/* A closure with given formals and body in a given environment, made with R's public C API
 * only: by evaluating a call of the `function` primitive in that environment, which is what R
 * does for `function(x) body` in code; on R >= 4.5, with R_mkClosure, the constructor R then
 * added to its API. The formals are a pairlist (or NULL) and the body is used as it is: x$method and a
 * custom function's ctx build their closures with a small body that calls a compiled function,
 * so nothing is left for R's JIT to compile per closure. */
#include <Rversion.h>
#include "closures.h"
#include "errors.h"

SEXP rtp_closure(SEXP formals, SEXP body, SEXP env) {
  if (formals != R_NilValue && TYPEOF(formals) != LISTSXP) {
    rtp_error("runtime_error", "rtorchpy: a closure's formals must be a pairlist");
  }
#if R_VERSION >= R_Version(4, 5, 0)
  /* R 4.5 put a constructor in the API: no call to evaluate */
  return R_mkClosure(formals, body, env);
#else
  static SEXP function_prim = NULL;
  if (function_prim == NULL) {
    function_prim = Rf_findFun(Rf_install("function"), R_BaseEnv);
    R_PreserveObject(function_prim);
  }
  /* the primitive itself stands in the call (not its name), so no binding of `function` in
   * env or its parents can take its place */
  SEXP call = PROTECT(Rf_lang3(function_prim, formals, body));
  SEXP f = Rf_eval(call, env);
  UNPROTECT(1);
  return f;
#endif
}
