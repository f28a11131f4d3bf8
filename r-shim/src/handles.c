/* Handles to Python objects, as R external pointers (what R torch's tensors are too).
 *
 * The handle itself, a complex number (see rtorchpy/_r/__init__.py), is kept in the pointer's
 * "protected" slot. When R collects the pointer, a C finalizer queues the handle's key; the
 * queued keys go to Python in batches (rtp_take_dead). C finalizers make creating and freeing
 * a handle cost well under a microsecond, against several for an R-level finalizer.
 *
 * The pointer's address is a small record of ours (malloc'd; one shared record for handles
 * without a key) and its tag a symbol of ours, so a handle is told from any other external
 * pointer. The address also makes handles distinct: identical() compares external pointers by
 * address, so two tensors must not look identical (waldo and testthat skip comparing identical
 * objects). R does not serialize addresses: a handle object restored with readRDS()/load()
 * has a NULL address (but still its handle, a key that means nothing, or another object, in
 * this session), so rtp_handle refuses it. A finalized handle gets the address of a shared
 * record `freed` instead, so that one reached again is refused with its own message.
 *
 * The record says whether the object was handed out again (x$grad's cache, direct.c) since its
 * finalizer was registered: R runs finalizers some time after the collection that found their
 * objects dead, and until then the object can still be reached through a weak reference; if it
 * was given out again in between, it is in use, so the finalizer registers itself again instead
 * of releasing the key (the next collection that finds the object dead finalizes it).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "errors.h"
#include "protocol.h"  /* MAGIC (generated) */
#include <R_ext/Rdynload.h>
#include "routines.h"

typedef struct {
  int reissued;  /* handed out again since its finalizer was registered */
} handle_record;

static handle_record keyless = {0};
/* The address of a handle whose finalizer released its key: not NULL, so that a freed handle
 * reached again (an R closure keeping it past the collection that found it dead) is told from
 * one restored from a file. */
static handle_record freed = {0};
static SEXP handle_tag = NULL;  /* (set by rtp_handles_init) */

/* A queue of doubles (keys), grown as needed. */
typedef struct {
  double *v;
  R_xlen_t n, cap;
} queue_t;

static queue_t dead = {NULL, 0, 0};   /* keys of collected handles */

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

/* Handle objects whose finalizer must be registered again (see finalize_handle), kept here
 * until rtp_reregister_pending does it: registering a finalizer while R runs finalizers can
 * lose the new registration (R unlinks each finalized entry from its list with a pointer taken
 * before the finalizer ran), so it is done later, outside. */
static SEXP reregister = NULL;  /* a preserved list of one element: a pairlist of objects */

static void finalize_handle(SEXP ptr);

void rtp_reregister_pending(void) {
  if (reregister == NULL || VECTOR_ELT(reregister, 0) == R_NilValue) return;
  SEXP l = PROTECT(VECTOR_ELT(reregister, 0));
  SET_VECTOR_ELT(reregister, 0, R_NilValue);
  for (; l != R_NilValue; l = CDR(l)) R_RegisterCFinalizerEx(CAR(l), finalize_handle, FALSE);
  UNPROTECT(1);
}

static void finalize_handle(SEXP ptr) {
  handle_record *rec = (handle_record *) R_ExternalPtrAddr(ptr);
  if (rec == &freed) return;  /* (finalized already) */
  if (rec != NULL && rec != &keyless && rec->reissued) {
    /* given out again after a collection found it dead: in use, or maybe; it is finalized
     * by a later collection instead */
    rec->reissued = 0;
    if (reregister == NULL) {
      reregister = Rf_allocVector(VECSXP, 1);
      R_PreserveObject(reregister);
    }
    SET_VECTOR_ELT(reregister, 0, Rf_cons(ptr, VECTOR_ELT(reregister, 0)));
    return;
  }
  SEXP h = R_ExternalPtrProtected(ptr);
  if (TYPEOF(h) == CPLXSXP && XLENGTH(h) == 1 && COMPLEX(h)[0].r != 0) {
    if (!reserve(&dead, 1)) return;
    dead.v[dead.n++] = COMPLEX(h)[0].r;
  }
  R_SetExternalPtrAddr(ptr, &freed);
  if (rec != NULL && rec != &keyless && rec != &freed) free(rec);
}

/* The handle object `ptr` is being handed out again (x$grad's cache): see the header. */
void rtp_mark_reissued(SEXP ptr) {
  handle_record *rec = (handle_record *) R_ExternalPtrAddr(ptr);
  if (rec != NULL && rec != &keyless && rec != &freed) rec->reissued = 1;
}

/* Take one queued key; 0 when none is left. (A pop, not a copy of the whole queue: freeing one
 * object may, in principle, queue more.) */
int rtp_pop_dead(double *key) {
  if (dead.n < 1) return 0;
  *key = dead.v[--dead.n];
  return 1;
}

/* A new handle object of class `cls` for handle `h`. The handle kept has the plain MAGIC
 * imaginary part: flags Python sets on a reply (collect garbage, warnings waiting: see
 * rtorchpy/_r/handles.py) are read by R from the reply, never kept, so Python recognizes every
 * handle R passes back. */
SEXP rtp_wrap(SEXP h, SEXP cls) {
  if (TYPEOF(h) != CPLXSXP || XLENGTH(h) != 1) {
    rtp_error("runtime_error", "rtorchpy: a handle is one complex number");
  }
  if (COMPLEX(h)[0].i != MAGIC) {
    Rcomplex plain = COMPLEX(h)[0];
    plain.i = MAGIC;
    h = Rf_ScalarComplex(plain);
  }
  PROTECT(h);
  SEXP ptr = PROTECT(R_MakeExternalPtr(&keyless, handle_tag, h));
  if (COMPLEX(h)[0].r != 0) {
    R_RegisterCFinalizerEx(ptr, finalize_handle, FALSE);
    /* (after the calls that may fail: the finalizer frees the record; out of memory, the
     * handle keeps the shared record and works, only identical() to other such handles) */
    handle_record *rec = (handle_record *) malloc(sizeof(handle_record));
    if (rec != NULL) {
      rec->reissued = 0;
      R_SetExternalPtrAddr(ptr, rec);
    }
  }
  Rf_setAttrib(ptr, R_ClassSymbol, cls);
  UNPROTECT(2);
  return ptr;
}

/* Whether `ptr` (an external pointer) was made by rtp_wrap in this session (restored from a
 * file, its address is NULL). */
int rtp_is_live(SEXP ptr) {
  if (R_ExternalPtrTag(ptr) != handle_tag) return 0;
  void *addr = R_ExternalPtrAddr(ptr);
  return addr != NULL && addr != (void *) &freed;
}

/* rtp_is_live for R: whether `x` is a handle object of this session. */
SEXP rtp_live(SEXP x) {
  return Rf_ScalarLogical(TYPEOF(x) == EXTPTRSXP && rtp_is_live(x));
}

/* The handle of a handle object. */
SEXP rtp_handle(SEXP ptr) {
  if (TYPEOF(ptr) != EXTPTRSXP) rtp_error("type_error", "not an rtorchpy object");
  if (R_ExternalPtrTag(ptr) == handle_tag && R_ExternalPtrAddr(ptr) == (void *) &freed) {
    rtp_error("runtime_error",
              "this tensor's R object was already freed: R's garbage collector found it "
              "unreachable and released it, and an R function kept alive past that "
              "collection (a hook or custom autograd function) reached it again; keep the "
              "tensor in a variable that lives as long as the function needs it");
  }
  if (!rtp_is_live(ptr)) {
    rtp_error("runtime_error",
              "external pointer is not valid: this object was restored from a file "
              "(saveRDS(), save()) or another session, and its data did not survive; save "
              "as_array(x) instead and make a tensor of it again");
  }
  return R_ExternalPtrProtected(ptr);
}

/* The arguments of a custom function's call as Python gets them: each tensor's handle, NULL for
 * any other value (it stays in R); names dropped. */
SEXP rtp_handles_or_null(SEXP args) {
  if (TYPEOF(args) != VECSXP) rtp_error("runtime_error", "rtorchpy: the arguments must be a list");
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
  rtp_reregister_pending();
  SEXP out = PROTECT(Rf_allocVector(REALSXP, dead.n));
  if (dead.n) memcpy(REAL(out), dead.v, (size_t) dead.n * sizeof(double));
  dead.n = 0;
  UNPROTECT(1);
  return out;
}

/* Called once when R loads the library (init.c). */
void rtp_handles_init(void) {
  handle_tag = Rf_install("rtorchpy_handle");
}
