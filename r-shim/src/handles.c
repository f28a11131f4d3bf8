/* Handles to Python objects, as R external pointers (what R torch's tensors are too).
 *
 * The handle itself, a complex number (see rtorchpy/_r/__init__.py), is kept in the pointer's
 * "protected" slot. When R collects the pointer, a C finalizer queues the handle's key; the
 * queued keys go to Python in batches (rtp_take_dead). C finalizers make creating and freeing
 * a handle cost well under a microsecond, against several for an R-level finalizer.
 *
 * A tensor that the direct path (src/direct.c) registered itself has a protected complex
 * vector of length 2: the handle, then the tensor's size in bytes as the real part. Its key goes
 * to a queue of its own, which direct.c empties itself (rtp_pop_cdead).
 *
 * The pointer's address is a record of its own (malloc'd; one shared record for handles
 * without a key), laid out as R's record of a registered native routine, and its tag is R's
 * "registered native symbol". So `.External(x, name)` with a tensor `x` as the routine calls
 * rtp_dollar_ext(x, name): `$.torch_tensor` is the `.External` primitive itself (registered in
 * .onLoad after a probe), and `x$name` skips the R closure an S3 method otherwise costs (~4k
 * instructions of R's ~11k for `x$name`: a frame, a context, argument matching, the body).
 * The address also makes handles distinct: identical() compares external pointers by address,
 * so two tensors must not look identical (waldo and testthat skip comparing identical
 * objects). R does not serialize addresses: a handle object restored with readRDS()/load()
 * has a NULL address (but still its handle, a key that means nothing, or another object, in
 * this session), so rtp_handle refuses it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>

SEXP rtp_dollar_ext(SEXP args);  /* direct.c */

/* R's record of a registered native routine (Rdynpriv.h's R_RegisteredNativeSymbol, which
 * .External reads through an external pointer tagged "registered native symbol"; its layout has
 * not changed since R 2.x, and .onLoad's probe keeps the closure method if it ever does). */
typedef struct {
  NativeSymbolType type;
  union {
    const void *c, *call, *fortran;
    const R_ExternalMethodDef *external;
  } symbol;
  const void *dll;
} native_record;

static const R_ExternalMethodDef dollar_def = {"rtp_dollar_ext", (DL_FUNC) &rtp_dollar_ext, -1};
static native_record keyless = {R_EXTERNAL_SYM, {.external = &dollar_def}, NULL};
static SEXP native_tag = NULL;  /* (set by R_init_rtorchpy) */

/* A queue of doubles (keys; or key, size pairs), grown as needed. */
typedef struct {
  double *v;
  R_xlen_t n, cap;
} queue_t;

static queue_t dead = {NULL, 0, 0};   /* keys of handles Python registered */
static queue_t cdead = {NULL, 0, 0};  /* key, bytes of the tensors direct.c registered */

/* Room for k more values; 0 when out of memory (the Python object then leaks, nothing
 * breaks). */
static int reserve(queue_t *q, R_xlen_t k) {
  if (q->n + k <= q->cap) return 1;
  R_xlen_t grown = q->cap ? 2 * q->cap : 4096;
  double *p = (double *) realloc(q->v, (size_t) grown * sizeof(double));
  if (p == NULL) return 0;
  q->v = p;
  q->cap = grown;
  return 1;
}

static void finalize_handle(SEXP ptr) {
  SEXP h = R_ExternalPtrProtected(ptr);
  if (TYPEOF(h) == CPLXSXP && XLENGTH(h) >= 1 && COMPLEX(h)[0].r != 0) {
    if (XLENGTH(h) == 2) {
      if (!reserve(&cdead, 2)) return;
      cdead.v[cdead.n++] = COMPLEX(h)[0].r;
      cdead.v[cdead.n++] = COMPLEX(h)[1].r;
    } else {
      if (!reserve(&dead, 1)) return;
      dead.v[dead.n++] = COMPLEX(h)[0].r;
    }
  }
  void *rec = R_ExternalPtrAddr(ptr);
  R_ClearExternalPtr(ptr);
  if (rec != NULL && rec != &keyless) free(rec);
}

/* Take one queued (key, bytes) pair of a tensor direct.c registered; 0 when none is left.
 * (A pop, not a copy of the whole queue: freeing one object may, in principle, queue more.) */
int rtp_pop_cdead(double *key, double *bytes) {
  if (cdead.n < 2) return 0;
  *bytes = cdead.v[--cdead.n];
  *key = cdead.v[--cdead.n];
  return 1;
}

/* Take one queued key of a handle Python registered; 0 when none is left. */
int rtp_pop_dead(double *key) {
  if (dead.n < 1) return 0;
  *key = dead.v[--dead.n];
  return 1;
}

R_xlen_t rtp_ncdead(void) {
  return cdead.n / 2;
}

#define MAGIC (-7.25)

/* A new handle object of class `cls` for handle `h`. The handle kept has the plain MAGIC
 * imaginary part: flags Python sets on a reply (collect garbage, warnings waiting: see
 * rtorchpy/_r/handles.py) are read by R from the reply, never kept, so Python recognizes every
 * handle R passes back. */
SEXP rtp_wrap(SEXP h, SEXP cls) {
  if (TYPEOF(h) == CPLXSXP && (XLENGTH(h) == 1 || XLENGTH(h) == 2) && COMPLEX(h)[0].i != MAGIC) {
    R_xlen_t n = XLENGTH(h);
    SEXP copy = Rf_allocVector(CPLXSXP, n);
    memcpy(COMPLEX(copy), COMPLEX(h), (size_t) n * sizeof(Rcomplex));
    COMPLEX(copy)[0].i = MAGIC;
    h = copy;
  }
  PROTECT(h);
  SEXP ptr = PROTECT(R_MakeExternalPtr(&keyless, native_tag, h));
  if (TYPEOF(h) == CPLXSXP && XLENGTH(h) >= 1 && COMPLEX(h)[0].r != 0) {
    R_RegisterCFinalizerEx(ptr, finalize_handle, FALSE);
    /* (after the calls that may fail: the finalizer frees the record; out of memory, the
     * handle keeps the shared record and works, only identical() to other such handles) */
    native_record *rec = (native_record *) malloc(sizeof(native_record));
    if (rec != NULL) {
      *rec = keyless;
      R_SetExternalPtrAddr(ptr, rec);
    }
  }
  Rf_setAttrib(ptr, R_ClassSymbol, cls);
  UNPROTECT(2);
  return ptr;
}

/* Whether `ptr` (an external pointer) was made by rtp_wrap in this session: its address is one
 * of our records (another package's registered routine has R's own record there, which points
 * to another method definition). */
int rtp_is_live(SEXP ptr) {
  const native_record *rec = (const native_record *) R_ExternalPtrAddr(ptr);
  return rec != NULL && R_ExternalPtrTag(ptr) == native_tag && rec->symbol.external == &dollar_def;
}

/* The handle of a handle object. */
SEXP rtp_handle(SEXP ptr) {
  if (TYPEOF(ptr) != EXTPTRSXP) Rf_error("not an rtorchpy object");
  if (!rtp_is_live(ptr)) {
    Rf_errorcall(R_NilValue,
                 "external pointer is not valid: this object was restored from a file "
                 "(saveRDS(), save()) or another session, and its data did not survive; save "
                 "as_array(x) instead and make a tensor of it again");
  }
  SEXP h = R_ExternalPtrProtected(ptr);
  /* the handle alone (a tensor direct.c registered also carries its size) */
  return XLENGTH(h) == 1 ? h : Rf_ScalarComplex(COMPLEX(h)[0]);
}

/* The arguments of a custom function's call as Python gets them: each tensor's handle, NULL for
 * any other value (it stays in R); names dropped. */
SEXP rtp_handles_or_null(SEXP args) {
  if (TYPEOF(args) != VECSXP) Rf_error("rtorchpy: the arguments must be a list");
  R_xlen_t n = XLENGTH(args);
  SEXP out = PROTECT(Rf_allocVector(VECSXP, n));
  for (R_xlen_t i = 0; i < n; i++) {
    SEXP v = VECTOR_ELT(args, i);
    if (TYPEOF(v) == EXTPTRSXP && Rf_inherits(v, "torch_tensor")) {
      SET_VECTOR_ELT(out, i, rtp_handle(v));
    }
  }
  UNPROTECT(1);
  return out;
}

int rtp_ndead_int(void) {
  return dead.n > 2147483647 ? 2147483647 : (int) dead.n;
}

SEXP rtp_ndead(void) {
  return Rf_ScalarInteger(rtp_ndead_int());
}

/* The keys Python registered of the handles collected since the last call. */
SEXP rtp_take_dead(void) {
  SEXP out = PROTECT(Rf_allocVector(REALSXP, dead.n));
  if (dead.n) memcpy(REAL(out), dead.v, (size_t) dead.n * sizeof(double));
  dead.n = 0;
  UNPROTECT(1);
  return out;
}


SEXP rtp_pyinit(SEXP path, SEXP bridge);
SEXP rtp_call(SEXP f, SEXP args, SEXP cls);
SEXP rtp_setup(SEXP ops, SEXP binary, SEXP unary, SEXP bfns, SEXP fns, SEXP cls,
               SEXP direct);
SEXP rtp_op(SEXP name, SEXP args);
SEXP rtp_fn(SEXP name, SEXP args);
SEXP rtp_opx(SEXP call_args);
SEXP rtp_fnx(SEXP call_args);
SEXP rtp_release_dead(void);
SEXP rtp_collected(void);
SEXP rtp_held(void);
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

static const R_CallMethodDef call_methods[] = {
  {"rtp_wrap", (DL_FUNC) &rtp_wrap, 2},
  {"rtp_handle", (DL_FUNC) &rtp_handle, 1},
  {"rtp_ndead", (DL_FUNC) &rtp_ndead, 0},
  {"rtp_take_dead", (DL_FUNC) &rtp_take_dead, 0},
  {"rtp_pyinit", (DL_FUNC) &rtp_pyinit, 2},
  {"rtp_call", (DL_FUNC) &rtp_call, 3},
  {"rtp_setup", (DL_FUNC) &rtp_setup, 7},
  {"rtp_fn", (DL_FUNC) &rtp_fn, 2},
  {"rtp_release_dead", (DL_FUNC) &rtp_release_dead, 0},
  {"rtp_collected", (DL_FUNC) &rtp_collected, 0},
  {"rtp_held", (DL_FUNC) &rtp_held, 0},
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
  {NULL, NULL, 0}
};

void R_init_rtorchpy(DllInfo *dll) {
  native_tag = Rf_install("registered native symbol");
  R_registerRoutines(dll, NULL, call_methods, NULL, external_methods);
  R_useDynamicSymbols(dll, FALSE);
}
