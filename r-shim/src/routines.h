/* The routines R calls (.Call and .External), registered by init.c. Each file that defines
 * some includes this header too, so that the compiler holds the definitions to these
 * declarations (by file: handles.c, names.c, direct.c, callback.c, context.c). */
#ifndef RTORCHPY_ROUTINES_H
#define RTORCHPY_ROUTINES_H
#include <R.h>
#include <Rinternals.h>

void rtp_handles_init(void);
SEXP rtp_wrap(SEXP h, SEXP cls);
SEXP rtp_handle(SEXP x);
SEXP rtp_ndead(void);
SEXP rtp_take_dead(void);
SEXP rtp_handles_or_null(SEXP x);
SEXP rtp_live(SEXP x);
SEXP rtp_pyinit(SEXP path, SEXP module);
SEXP rtp_ncall(SEXP t, SEXP name, SEXP args, SEXP cls);
SEXP rtp_setup(SEXP cls);
SEXP rtp_op(SEXP name, SEXP args);
SEXP rtp_fn(SEXP name, SEXP args);
SEXP rtp_opx(SEXP call_args);
SEXP rtp_fnx(SEXP call_args);
SEXP rtp_bridgex(SEXP call_args);
SEXP rtp_release_dead(void);
SEXP rtp_grad_mode(SEXP flag);
SEXP rtp_set_grad_mode(SEXP flag);
SEXP rtp_dollar(SEXP x, SEXP name, SEXP protos);
SEXP rtp_nn_get(SEXP x, SEXP name);
SEXP rtp_binop(SEXP generic, SEXP e1, SEXP e2);
SEXP rtp_unop(SEXP generic, SEXP e1);
SEXP rtp_bcall(SEXP name, SEXP args);
SEXP rtp_r_function(SEXP fn, SEXP cls);
SEXP rtp_call_with(SEXP fn, SEXP first, SEXP args, SEXP env);
SEXP rtp_wref_key(SEXP w);
SEXP rtp_release_callbacks(void);
SEXP rtp_resume_unwind(void);
SEXP rtp_new_context(SEXP ptr, SEXP needs, SEXP arg_names, SEXP methods, SEXP active, SEXP cls,
                     SEXP enclos);

#endif
