/* What the C files of the R bridge share. They form layers; each calls only the layers below:
 *
 *   0. errors.c: errors as R torch's classed conditions
 *   1. pyapi.c (the Python C API), handles.c (handles as R external pointers), closures.c
 *   2. registry.c: the registry of handles shared with Python, releases
 *   3. pycall.c: calls of Python callables with R values, replies
 *   4. callback.c (R functions Python calls), direct.c (ops called directly, `$`),
 *      context.c (a custom function's ctx)
 *   5. names.c: the entry points R calls by name, and set-up (rtp_pyinit, rtp_setup)
 *   6. init.c: the routines' registration
 * (tests/test_c_layers.py checks this.)
 *
 * The Python C API is used through the symbols of the libpython reticulate loaded, found with
 * dlsym (pyapi.c); the object header (reference count, then type pointer) is declared here by
 * hand and checked there. The short names below are macros for rtp_-prefixed
 * symbols, so that no global of this library shadows, or is shadowed by, another library's.
 */
#ifndef RTORCHPY_PYAPI_H
#define RTORCHPY_PYAPI_H
#include <stddef.h>
#include <stdint.h>
#include <R.h>
#include <Rinternals.h>
#include "rapi.h"
#include "closures.h"

#define bridge_module rtp_bridge_module
#define call_direct rtp_call_direct
#define call_one rtp_call_one
#define call_py rtp_call_py
#define complex_from rtp_complex_from
#define complex_imag rtp_complex_imag
#define complex_real rtp_complex_real
#define decref rtp_decref
#define dict_delitem rtp_dict_delitem
#define dict_getitem rtp_dict_getitem
#define dict_next rtp_dict_next
#define dict_size rtp_dict_size
#define dict_setitem rtp_dict_setitem
#define direct_function rtp_direct_function
#define direct_ready rtp_direct_ready
#define direct_fn_getter rtp_direct_fn_getter
#define grad_state rtp_grad_state
#define put_fn rtp_put_fn
#define s_direct_fn rtp_s_direct_fn
#define s_err_class rtp_s_err_class
#define s_err_message rtp_s_err_message
#define s_grad rtp_s_grad
#define s_grad_enabled rtp_s_grad_enabled
#define s_handle_first rtp_s_handle_first
#define py_api_load rtp_py_api_load
#define encode_fn rtp_encode_fn
#define ensure_unwind_token rtp_ensure_unwind_token
#define err_clear rtp_err_clear
#define err_fetch rtp_err_fetch
#define err_normalize rtp_err_normalize
#define err_occurred rtp_err_occurred
#define error_reply_fn rtp_error_reply_fn
#define exc_exception rtp_exc_exception
#define exc_keyboard_interrupt rtp_exc_keyboard_interrupt
#define exc_matches rtp_exc_matches
#define finish rtp_finish
#define float_as rtp_float_as
#define float_from rtp_float_from
#define from_py rtp_from_py
#define getattr rtp_getattr
#define getattr_s rtp_getattr_s
#define import_module rtp_import_module
#define gil_ensure rtp_gil_ensure
#define gil_release rtp_gil_release
#define handle_of rtp_handle_of
#define incref rtp_incref
#define iter_next rtp_iter_next
#define list_append rtp_list_append
#define list_getitem rtp_list_getitem
#define list_new rtp_list_new
#define list_setitem rtp_list_setitem
#define list_size rtp_list_size
#define long_as rtp_long_as
#define long_from rtp_long_from
#define object_call rtp_object_call
#define object_of rtp_object_of
#define object_str rtp_object_str
#define py_error rtp_py_error
#define py_false rtp_py_false
#define py_none rtp_py_none
#define py_true rtp_py_true
#define raw1 rtp_raw1
#define ready rtp_ready
#define release_queued rtp_release_queued
#define setattr rtp_setattr
#define setattr_o rtp_setattr_o
#define setup_callbacks rtp_setup_callbacks
#define setup_direct rtp_setup_direct
#define t_bool rtp_t_bool
#define t_complex rtp_t_complex
#define t_float rtp_t_float
#define t_list rtp_t_list
#define t_dict rtp_t_dict
#define t_long rtp_t_long
#define t_unicode rtp_t_unicode
#define tensor_cls rtp_tensor_cls
#define tensor_type rtp_tensor_type
#define to_py rtp_to_py
#define tuple_new rtp_tuple_new
#define tuple_setitem rtp_tuple_setitem
#define unicode_from rtp_unicode_from
#define unicode_utf8 rtp_unicode_utf8
#define unwind_token rtp_unwind_token
#define warnings_list rtp_warnings_list

typedef struct _pyobj {
  ptrdiff_t ob_refcnt;
  void *ob_type;
} PyObj;

#include "protocol.h"  /* MAGIC, FLAG_GC, FLAG_WARN, reply codes, table numbers (generated) */

/* pyapi.c: the API, set by rtp_pyinit (`ready` once it succeeded) */
extern int ready;
extern SEXP unwind_token;
extern PyObj *bridge_module;
extern void *t_complex, *t_float, *t_long, *t_unicode;
extern PyObj *py_none, *py_true, *py_false;
extern PyObj **exc_keyboard_interrupt;
extern int (*gil_ensure)(void);
extern void (*gil_release)(int);
extern PyObj *(*tuple_new)(ptrdiff_t);
extern PyObj *(*list_new)(ptrdiff_t);
extern int (*list_setitem)(PyObj *, ptrdiff_t, PyObj *);
extern ptrdiff_t (*list_size)(PyObj *);
extern PyObj *(*list_getitem)(PyObj *, ptrdiff_t);
extern double (*float_as)(PyObj *);
extern long (*long_as)(PyObj *, int *);
extern void *t_list, *t_bool, *t_dict;
extern int (*tuple_setitem)(PyObj *, ptrdiff_t, PyObj *);
extern PyObj *(*complex_from)(double, double);
extern double (*complex_real)(PyObj *);
extern double (*complex_imag)(PyObj *);
extern PyObj *(*float_from)(double);
extern PyObj *(*long_from)(long);
extern PyObj *(*unicode_from)(const char *);
extern PyObj *(*object_call)(PyObj *, PyObj *, PyObj *);
extern int (*setattr)(PyObj *, const char *, PyObj *);
extern PyObj *(*err_occurred)(void);
extern void (*err_fetch)(PyObj **, PyObj **, PyObj **);
extern int (*exc_matches)(PyObj *, PyObj *);
extern PyObj *(*object_str)(PyObj *);
extern const char *(*unicode_utf8)(PyObj *);
extern void (*err_clear)(void);
extern void (*incref)(PyObj *);
extern void (*decref)(PyObj *);
extern PyObj *(*iter_next)(PyObj *);
extern int (*dict_setitem)(PyObj *, PyObj *, PyObj *);
extern PyObj *(*dict_getitem)(PyObj *, PyObj *);
extern int (*dict_delitem)(PyObj *, PyObj *);
extern int (*dict_next)(PyObj *, ptrdiff_t *, PyObj **, PyObj **);
extern ptrdiff_t (*dict_size)(PyObj *);
extern PyObj *(*getattr)(PyObj *, PyObj *);
extern int (*setattr_o)(PyObj *, PyObj *, PyObj *);
extern int (*list_append)(PyObj *, PyObj *);
extern void (*err_normalize)(PyObj **, PyObj **, PyObj **);
extern PyObj **exc_exception;
extern PyObj *(*import_module)(const char *);
extern PyObj *(*getattr_s)(PyObj *, const char *);

/* pyapi.c: loading the API (sets `ready`; the library handle or NULL), small helpers */
void *py_api_load(SEXP path, SEXP module);
SEXP raw1(int v);
PyObj *call_one(PyObj *fn, PyObj *arg);

/* pycall.c: conversions, replies, calls */
SEXP handle_of(SEXP a);
PyObj *to_py(SEXP a, const char **strs, int *k);
SEXP from_py(PyObj *o, int depth);
SEXP finish(PyObj *res, int gil, SEXP cls, int encode);
SEXP py_error(int gil, int reply, SEXP cls);
void ensure_unwind_token(void);
SEXP call_py(PyObj *fn, SEXP args, SEXP cls);

/* registry.c: the registry of handles shared with Python (set by setup_direct) */
extern int direct_ready;
extern PyObj *tensor_type, *warnings_list, *encode_fn, *error_reply_fn, *put_fn;
extern PyObj *direct_fn_getter, *grad_state, *s_grad, *s_grad_enabled;
/* the names of the fields C reads (protocol.h) as Python strings: an error reply's message and
 * condition class, a direct entry's function and handle_first */
extern PyObj *s_err_message, *s_err_class, *s_direct_fn, *s_handle_first;
extern SEXP tensor_cls;  /* the class of tensors (set by rtp_setup) */
PyObj *object_of(SEXP h);
void release_queued(int all);
int setup_direct(PyObj *d);

/* direct.c: the direct path. call_direct's flags: HANDLE_FIRST, call only when the first
 * argument is a handle (a direct entry's handle_first, rtorchpy/_r/direct.py) */
#define HANDLE_FIRST 1
SEXP call_direct(PyObj *fn, SEXP *a, int n, int flags, SEXP cls);
PyObj *direct_function(int t, SEXP key, int *flags);

/* callback.c: R functions as Python callables */
int setup_callbacks(void *lib);


/* handles.c */
SEXP rtp_wrap(SEXP h, SEXP cls);
int rtp_ndead_int(void);
int rtp_is_live(SEXP ptr);
void rtp_mark_reissued(SEXP ptr);
void rtp_reregister_pending(void);
int rtp_pop_dead(double *key);

#endif
