/* Handles to Python objects, as R external pointers (what R torch's tensors are too).
 *
 * The handle itself, a complex number (see rtorchpy/_r/__init__.py), is kept in the pointer's
 * "protected" slot. When R collects the pointer, a C finalizer queues the handle's key; R sends
 * the queued keys to Python in batches (rtp_take_dead). C finalizers make creating and freeing
 * a handle cost well under a microsecond, against several for an R-level finalizer.
 *
 * The pointer's address is the handle's key (never dereferenced; `live` for a handle without a
 * key). Two reasons: identical() compares external pointers by address, so two tensors must
 * not look identical (waldo and testthat skip comparing identical objects); and R does not
 * serialize addresses: a handle object restored with readRDS()/load() has a NULL address (but
 * still its handle, a key that means nothing, or another object, in this session), so
 * rtp_handle refuses it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>

static double *dead = NULL;
static char live;
static R_xlen_t ndead = 0, capacity = 0;

static void finalize_handle(SEXP ptr) {
  SEXP h = R_ExternalPtrProtected(ptr);
  if (TYPEOF(h) == CPLXSXP && XLENGTH(h) == 1 && COMPLEX(h)[0].r != 0) {
    if (ndead == capacity) {
      R_xlen_t grown = capacity ? 2 * capacity : 4096;
      double *p = (double *) realloc(dead, (size_t) grown * sizeof(double));
      if (p == NULL) return; /* out of memory: the Python object leaks, nothing breaks */
      dead = p;
      capacity = grown;
    }
    dead[ndead++] = COMPLEX(h)[0].r;
  }
  R_ClearExternalPtr(ptr);
}

#define MAGIC (-7.25)

static void *handle_address(SEXP h) {
  if (TYPEOF(h) == CPLXSXP && XLENGTH(h) == 1 && COMPLEX(h)[0].r > 0 &&
      COMPLEX(h)[0].r < 4503599627370496.0 /* 2^52: an exact integer, far below any address */) {
    return (void *) (uintptr_t) COMPLEX(h)[0].r;
  }
  return (void *) &live;
}

/* A new handle object of class `cls` for handle `h`. The handle kept has the plain MAGIC
 * imaginary part: flags Python sets on a reply (collect garbage, warnings waiting: see
 * rtorchpy/_r/handles.py) are read by R from the reply, never kept, so Python recognizes every
 * handle R passes back. */
SEXP rtp_wrap(SEXP h, SEXP cls) {
  if (TYPEOF(h) == CPLXSXP && XLENGTH(h) == 1 && COMPLEX(h)[0].i != MAGIC) {
    double key = COMPLEX(h)[0].r;
    h = Rf_allocVector(CPLXSXP, 1);
    COMPLEX(h)[0].r = key;
    COMPLEX(h)[0].i = MAGIC;
  }
  PROTECT(h);
  SEXP ptr = PROTECT(R_MakeExternalPtr(handle_address(h), R_NilValue, h));
  if (TYPEOF(h) == CPLXSXP && XLENGTH(h) == 1 && COMPLEX(h)[0].r != 0) {
    R_RegisterCFinalizerEx(ptr, finalize_handle, FALSE);
  }
  Rf_setAttrib(ptr, R_ClassSymbol, cls);
  UNPROTECT(2);
  return ptr;
}

/* Whether `ptr` (an external pointer) was made by rtp_wrap in this session: its address is the
 * one handle_address gives for the handle it protects. */
int rtp_is_live(SEXP ptr) {
  void *addr = R_ExternalPtrAddr(ptr);
  return addr != NULL && addr == handle_address(R_ExternalPtrProtected(ptr));
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
  return R_ExternalPtrProtected(ptr);
}

int rtp_ndead_int(void) {
  return ndead > 2147483647 ? 2147483647 : (int) ndead;
}

SEXP rtp_ndead(void) {
  return Rf_ScalarInteger(ndead > 2147483647 ? 2147483647 : (int) ndead);
}

/* The keys of the handles collected since the last call. */
SEXP rtp_take_dead(void) {
  SEXP out = PROTECT(Rf_allocVector(REALSXP, ndead));
  if (ndead) memcpy(REAL(out), dead, (size_t) ndead * sizeof(double));
  ndead = 0;
  UNPROTECT(1);
  return out;
}

SEXP rtp_pyinit(SEXP path, SEXP bridge);
SEXP rtp_call(SEXP f, SEXP args, SEXP cls);
SEXP rtp_setup(SEXP ops, SEXP binary, SEXP unary, SEXP bfns, SEXP cls);
SEXP rtp_op(SEXP name, SEXP args);
SEXP rtp_binop(SEXP generic, SEXP e1, SEXP e2);
SEXP rtp_unop(SEXP generic, SEXP e1);
SEXP rtp_bcall(SEXP name, SEXP args);

static const R_CallMethodDef call_methods[] = {
  {"rtp_wrap", (DL_FUNC) &rtp_wrap, 2},
  {"rtp_handle", (DL_FUNC) &rtp_handle, 1},
  {"rtp_ndead", (DL_FUNC) &rtp_ndead, 0},
  {"rtp_take_dead", (DL_FUNC) &rtp_take_dead, 0},
  {"rtp_pyinit", (DL_FUNC) &rtp_pyinit, 2},
  {"rtp_call", (DL_FUNC) &rtp_call, 3},
  {"rtp_setup", (DL_FUNC) &rtp_setup, 5},
  {"rtp_op", (DL_FUNC) &rtp_op, 2},
  {"rtp_binop", (DL_FUNC) &rtp_binop, 3},
  {"rtp_unop", (DL_FUNC) &rtp_unop, 2},
  {"rtp_bcall", (DL_FUNC) &rtp_bcall, 2},
  {NULL, NULL, 0}
};

void R_init_rtorchpy(DllInfo *dll) {
  R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
}
