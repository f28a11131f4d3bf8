/* Errors raised by the C code as R torch's classed conditions: the namespace's .c_error()
 * (R/conditions.R) builds and signals the condition, so C and R errors carry the same classes
 * and the whole message (Rf_error would give an unclassed error, its text cut at R's buffer). */
#include <R.h>
#include <Rinternals.h>
#include "errors.h"

void rtp_error(const char *kind, const char *msg) {
  SEXP ns = PROTECT(R_FindNamespace(PROTECT(Rf_mkString("rtorchpy"))));
  SEXP m = PROTECT(Rf_mkCharCE(msg, CE_UTF8));
  SEXP args = PROTECT(Rf_ScalarString(m));
  SEXP k = PROTECT(Rf_mkString(kind));
  SEXP call = PROTECT(Rf_lang3(Rf_install(".c_error"), args, k));
  Rf_eval(call, ns);
  UNPROTECT(6);
  Rf_error("%s", msg);  /* not reached: .c_error() always signals */
}
