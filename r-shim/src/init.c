/* The routines R may call (.Call and .External), registered when R loads the library. The
 * top of the C files' layers (see pyapi.h): it only names the entry points of the others. */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>

#include "routines.h"

static const R_CallMethodDef call_methods[] = {
  {"rtp_wrap", (DL_FUNC) &rtp_wrap, 2},
  {"rtp_handle", (DL_FUNC) &rtp_handle, 1},
  {"rtp_live", (DL_FUNC) &rtp_live, 1},
  {"rtp_ndead", (DL_FUNC) &rtp_ndead, 0},
  {"rtp_take_dead", (DL_FUNC) &rtp_take_dead, 0},
  {"rtp_pyinit", (DL_FUNC) &rtp_pyinit, 2},
  {"rtp_ncall", (DL_FUNC) &rtp_ncall, 4},
  {"rtp_setup", (DL_FUNC) &rtp_setup, 1},
  {"rtp_fn", (DL_FUNC) &rtp_fn, 2},
  {"rtp_release_dead", (DL_FUNC) &rtp_release_dead, 0},
  {"rtp_grad_mode", (DL_FUNC) &rtp_grad_mode, 1},
  {"rtp_set_grad_mode", (DL_FUNC) &rtp_set_grad_mode, 1},
  {"rtp_dollar", (DL_FUNC) &rtp_dollar, 3},
  {"rtp_nn_get", (DL_FUNC) &rtp_nn_get, 2},
  {"rtp_op", (DL_FUNC) &rtp_op, 2},
  {"rtp_binop", (DL_FUNC) &rtp_binop, 3},
  {"rtp_unop", (DL_FUNC) &rtp_unop, 2},
  {"rtp_bcall", (DL_FUNC) &rtp_bcall, 2},
  {"rtp_new_context", (DL_FUNC) &rtp_new_context, 7},
  {"rtp_handles_or_null", (DL_FUNC) &rtp_handles_or_null, 1},
  {"rtp_call_with", (DL_FUNC) &rtp_call_with, 4},
  {"rtp_wref_key", (DL_FUNC) &rtp_wref_key, 1},
  {"rtp_r_function", (DL_FUNC) &rtp_r_function, 2},
  {"rtp_release_callbacks", (DL_FUNC) &rtp_release_callbacks, 0},
  {"rtp_resume_unwind", (DL_FUNC) &rtp_resume_unwind, 0},
  {NULL, NULL, 0}
};

static const R_ExternalMethodDef external_methods[] = {
  {"rtp_opx", (DL_FUNC) &rtp_opx, -1},
  {"rtp_fnx", (DL_FUNC) &rtp_fnx, -1},
  {"rtp_bridgex", (DL_FUNC) &rtp_bridgex, -1},
  {NULL, NULL, 0}
};

void R_init_rtorchpy(DllInfo *dll) {
  rtp_handles_init();
  R_registerRoutines(dll, NULL, call_methods, NULL, external_methods);
  R_useDynamicSymbols(dll, FALSE);
}
