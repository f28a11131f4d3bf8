/* The registry of handles as C shares it with Python: the state direct.py's direct_setup()
 * hands over, a tensor's registration under a new key, and the release of the keys R's
 * collector freed. Below pycall.c (which registers the tensors its replies carry) and direct.c
 * (which calls ops directly); above pyapi.c and handles.c only. */
#include <stdint.h>
#include <string.h>
#include "pyapi.h"

/* -- the direct path: state ------------------------------------------------------------------
 *
 * rtp_setup hands over, from rtorchpy/_r/direct.py, the registry of handles (a dict), its key
 * counter, the Tensor type, the list of Python warnings waiting for R, and a few functions. With
 * them the common calls run without Python-level bridge code: an op that converts nothing
 * between R and Python is called as its own function with the tensors themselves; a tensor it
 * returns is registered here, in the same registry under a key from the same counter, as
 * Python's _put would; and the handles registered here are released here too (their size rides
 * in the handle, see src/handles.c), a batch at a time at the start of a call.
 */
int direct_ready = 0;
PyObj *tensor_type, *warnings_list, *error_reply_fn, *encode_fn;
PyObj *direct_fn_getter, *grad_state, *s_grad, *s_grad_enabled;  /* (read by direct.c) */
static PyObj *objects_dict, *key_counter, *release_fn, *s_data, *s_nbytes;
SEXP tensor_cls = NULL;  /* the class of tensors (set by rtp_setup, names.c) */
double c_held = 0, c_threshold = 268435456.0;  /* bytes: as handles.py's _held_bytes */

/* The object behind a handle (a borrowed reference), or NULL (GIL held). */
PyObj *object_of(SEXP h) {
  PyObj *k = long_from((long) COMPLEX(h)[0].r);
  if (k == NULL) { err_clear(); return NULL; }
  PyObj *o = dict_getitem(objects_dict, k);  /* (never sets an error) */
  decref(k);
  return o;
}

/* Release the handles R collected (GIL held): those registered here directly, the others
 * through Python's release(). `all`: whatever is queued; else only batches worth a call. */
void release_queued(int all) {
  double key, bytes;
  if (all || rtp_ncdead() >= 256) {
    while (rtp_pop_cdead(&key, &bytes)) {
      PyObj *k = long_from((long) key);
      if (k != NULL) {
        if (dict_delitem(objects_dict, k) < 0) err_clear();  /* (gone already: nothing to do) */
        decref(k);
      } else {
        err_clear();
      }
      c_held -= bytes;
    }
  }
  if (all || rtp_ndead_int() >= RELEASE_BATCH) {
    PyObj *keys = list_new(0);
    if (keys == NULL) { err_clear(); return; }
    while (rtp_pop_dead(&key)) {
      PyObj *k = float_from(key);
      if (k == NULL || list_append(keys, k) < 0) err_clear();
      if (k) decref(k);
    }
    PyObj *r = call_one(release_fn, keys);  /* (steals keys) */
    if (r) decref(r);
    if (err_occurred()) err_clear();
  }
}

/* Register tensor `t` (GIL held): its key and size in bytes; 0 on failure (error cleared). */
int register_tensor(PyObj *t, double *key, double *bytes) {
  PyObj *data = getattr(t, s_data);
  PyObj *nb = data ? getattr(data, s_nbytes) : NULL;
  if (data) decref(data);
  if (nb == NULL) { err_clear(); return 0; }
  int overflow = 0;
  long n = long_as(nb, &overflow);
  decref(nb);
  PyObj *k = iter_next(key_counter);
  if (k == NULL) { err_clear(); return 0; }
  long kv = long_as(k, &overflow);
  if (overflow || dict_setitem(objects_dict, k, t) < 0) {
    decref(k);
    err_clear();
    return 0;
  }
  decref(k);
  *key = (double) kv;
  *bytes = (double) n;
  c_held += (double) n;
  return 1;
}

static void keep(PyObj **slot, PyObj *o) {
  incref(o);
  if (*slot) decref(*slot);
  *slot = o;
}

/* Take the direct path's state from `d`, the dict direct.py's direct_setup() returns, by name
 * (NULL: no direct path); whether the direct path is on. */
int setup_direct(PyObj *d) {
  direct_ready = 0;
  if (d == NULL) return 0;
  int gil = gil_ensure();
  int ok = d->ob_type == t_dict;
  const char *fields[9] = {"objects", "counter", "tensor_type", "warnings", "error_reply",
                           "encode", "direct_fn", "release", "grad_state"};
  PyObj **slots[9] = {&objects_dict, &key_counter, &tensor_type, &warnings_list,
                      &error_reply_fn, &encode_fn, &direct_fn_getter, &release_fn, &grad_state};
  for (int i = 0; i < 9 && ok; i++) {
    PyObj *key = unicode_from(fields[i]);
    PyObj *v = key ? dict_getitem(d, key) : NULL;  /* (borrowed; NULL: a field is missing) */
    if (key) decref(key);
    if (v == NULL) ok = 0; else keep(slots[i], v);
  }
  const char *names[4] = {"_data", "nbytes", "grad", "grad_enabled"};
  PyObj **strs[4] = {&s_data, &s_nbytes, &s_grad, &s_grad_enabled};
  for (int i = 0; i < 4 && ok; i++) {
    PyObj *u = unicode_from(names[i]);
    if (u == NULL) ok = 0; else { keep(strs[i], u); decref(u); }
  }
  ok = ok && warnings_list->ob_type == t_list;
  if (err_occurred()) err_clear();
  gil_release(gil);
  direct_ready = ok;
  return ok;
}

