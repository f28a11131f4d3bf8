/* The registry of handles as C shares it with Python: the state direct.py's direct_setup()
 * hands over, a tensor's registration (through Python's own `_put`, the one registration path),
 * and the release of the keys R's collector freed (through Python's `release`). Below pycall.c
 * (which registers the tensors its replies carry) and direct.c (which calls ops directly); above
 * pyapi.c and handles.c only. */
#include <stdint.h>
#include <string.h>
#include "pyapi.h"

/* -- the direct path: state ------------------------------------------------------------------
 *
 * rtp_setup hands over, from rtorchpy/_r/direct.py, the registry of handles (a dict, read to
 * find the object behind a handle), the Tensor type, the list of Python warnings waiting for R,
 * and a few functions. With them the common calls run without Python-level bridge code: an op
 * that converts nothing between R and Python is called as its own function with the tensors
 * themselves, and a tensor it returns is registered by handles.py's `_put`, as every tensor
 * that crosses to R is (its key, and the flags telling R to collect or to show warnings).
 */
int direct_ready = 0;
PyObj *tensor_type, *warnings_list, *error_reply_fn, *encode_fn, *put_fn;
PyObj *direct_fn_getter, *grad_state, *s_grad, *s_grad_enabled;  /* (read by direct.c) */
PyObj *s_err_message, *s_err_class, *s_direct_fn, *s_handle_first;  /* (pycall.c, direct.c) */
static PyObj *objects_dict, *release_fn;
SEXP tensor_cls = NULL;  /* the class of tensors (set by rtp_setup, names.c) */

/* The object behind a handle (a borrowed reference), or NULL (GIL held). */
PyObj *object_of(SEXP h) {
  PyObj *k = long_from((long) COMPLEX(h)[0].r);
  if (k == NULL) { err_clear(); return NULL; }
  PyObj *o = dict_getitem(objects_dict, k);  /* (never sets an error) */
  decref(k);
  return o;
}

/* Release the handles R collected (GIL held), through Python's release(). `all`: whatever is
 * queued; else only a batch worth a call. */
void release_queued(int all) {
  double key;
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
  const char *fields[9] = {"objects", "put", "tensor_type", "warnings", "error_reply",
                           "encode", "direct_fn", "release", "grad_state"};
  PyObj **slots[9] = {&objects_dict, &put_fn, &tensor_type, &warnings_list,
                      &error_reply_fn, &encode_fn, &direct_fn_getter, &release_fn, &grad_state};
  for (int i = 0; i < 9 && ok; i++) {
    PyObj *key = unicode_from(fields[i]);
    PyObj *v = key ? dict_getitem(d, key) : NULL;  /* (borrowed; NULL: a field is missing) */
    if (key) decref(key);
    if (v == NULL) ok = 0; else keep(slots[i], v);
  }
  const char *names[6] = {"grad", "grad_enabled", ERROR_MESSAGE, ERROR_CLASS, DIRECT_FN,
                          DIRECT_HANDLE_FIRST};
  PyObj **strs[6] = {&s_grad, &s_grad_enabled, &s_err_message, &s_err_class, &s_direct_fn,
                     &s_handle_first};
  for (int i = 0; i < 6 && ok; i++) {
    PyObj *u = unicode_from(names[i]);
    if (u == NULL) ok = 0; else { keep(strs[i], u); decref(u); }
  }
  ok = ok && warnings_list->ob_type == t_list;
  if (err_occurred()) err_clear();
  gil_release(gil);
  direct_ready = ok;
  return ok;
}

