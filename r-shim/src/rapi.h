/* R's C API where it differs between R versions: what R >= 4.5 names in its API (R-exts,
 * "Moving into C API compliance"), and on older R the entry points that were the API then. */
#ifndef RTORCHPY_RAPI_H
#define RTORCHPY_RAPI_H
#include <R.h>
#include <Rinternals.h>
#include <Rversion.h>

#if R_VERSION >= R_Version(4, 5, 0)
/* a binding of `sym` in the frame `env` itself (not its parents), R_UnboundValue if none */
#define GET_VAR(sym, env) R_getVarEx((sym), (env), FALSE, R_UnboundValue)
#define HAS_ATTRIB(x) ANY_ATTRIB(x)
#else
#define GET_VAR(sym, env) Rf_findVarInFrame((env), (sym))
#define HAS_ATTRIB(x) (ATTRIB(x) != R_NilValue)
#endif

#endif
