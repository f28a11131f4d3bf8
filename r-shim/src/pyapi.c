/* The Python C API, as this package uses it: the entry points of the libpython reticulate
 * loaded, found with dlsym (nothing is linked against Python), the check that the object
 * header declared by hand in pyapi.h matches that Python, and the smallest helpers on top.
 * The lowest layer of the bridge with handles.c, errors.c and closures.c: it calls no other
 * file of the package. */
#include <string.h>
#ifndef _WIN32
#include <dlfcn.h>
#endif
#include "pyapi.h"

int ready = 0;
SEXP unwind_token = NULL;
PyObj *bridge_module = NULL;
void *t_complex, *t_float, *t_long, *t_unicode;
PyObj *py_none, *py_true, *py_false;
PyObj **exc_keyboard_interrupt;

int (*gil_ensure)(void);
void (*gil_release)(int);
PyObj *(*tuple_new)(ptrdiff_t);
PyObj *(*list_new)(ptrdiff_t);
int (*list_setitem)(PyObj *, ptrdiff_t, PyObj *);
ptrdiff_t (*list_size)(PyObj *);
PyObj *(*list_getitem)(PyObj *, ptrdiff_t);
double (*float_as)(PyObj *);
long (*long_as)(PyObj *, int *);
void *t_list, *t_bool, *t_dict;
int (*tuple_setitem)(PyObj *, ptrdiff_t, PyObj *);
PyObj *(*complex_from)(double, double);
double (*complex_real)(PyObj *);
double (*complex_imag)(PyObj *);
PyObj *(*float_from)(double);
PyObj *(*long_from)(long);
PyObj *(*unicode_from)(const char *);
PyObj *(*object_call)(PyObj *, PyObj *, PyObj *);
int (*setattr)(PyObj *, const char *, PyObj *);
PyObj *(*err_occurred)(void);
void (*err_fetch)(PyObj **, PyObj **, PyObj **);
int (*exc_matches)(PyObj *, PyObj *);
PyObj *(*object_str)(PyObj *);
const char *(*unicode_utf8)(PyObj *);
void (*err_clear)(void);
void (*incref)(PyObj *);
void (*decref)(PyObj *);
PyObj *(*iter_next)(PyObj *);
int (*dict_setitem)(PyObj *, PyObj *, PyObj *);
PyObj *(*dict_getitem)(PyObj *, PyObj *);
int (*dict_delitem)(PyObj *, PyObj *);
int (*dict_next)(PyObj *, ptrdiff_t *, PyObj **, PyObj **);
ptrdiff_t (*dict_size)(PyObj *);
PyObj *(*getattr)(PyObj *, PyObj *);
int (*setattr_o)(PyObj *, PyObj *, PyObj *);
int (*list_append)(PyObj *, PyObj *);
void (*err_normalize)(PyObj **, PyObj **, PyObj **);
PyObj **exc_exception;
PyObj *(*import_module)(const char *);
PyObj *(*getattr_s)(PyObj *, const char *);

SEXP raw1(int v) {
  SEXP r = Rf_allocVector(RAWSXP, 1);
  RAW(r)[0] = (Rbyte) v;
  return r;
}

/* Whether the hand-declared object header matches this Python (the GIL is held): objects made
 * by the C API carry the expected type at the expected offset, and Py_IncRef/Py_DecRef change
 * the field read as the reference count by exactly one. */
static int layout_ok(void) {
  int ok = 1;
  PyObj *f = float_from(1.5), *c = complex_from(1.0, -3.5), *l = list_new(0);
  PyObj *i = long_from(1234567L);
  if (f == NULL || c == NULL || l == NULL || i == NULL) ok = 0;
  if (ok) {
    ok = f->ob_type == t_float && c->ob_type == t_complex && l->ob_type == t_list &&
         i->ob_type == t_long && py_true->ob_type == t_bool && py_false->ob_type == t_bool &&
         complex_real(c) == 1.0 && complex_imag(c) == -3.5 && float_as(f) == 1.5;
  }
  if (ok) {
    ptrdiff_t before = f->ob_refcnt;
    incref(f);
    ok = f->ob_refcnt == before + 1;
    decref(f);
    ok = ok && f->ob_refcnt == before;
  }
  if (f) decref(f);
  if (c) decref(c);
  if (l) decref(l);
  if (i) decref(i);
  if (err_occurred()) err_clear();
  return ok;
}

#define SYM(var, name) \
  do { *(void **) (&var) = dlsym(lib, name); if (var == NULL) return NULL; } while (0)

/* Find the Python C API in the libpython at `path` (already loaded by reticulate) and import
 * the bridge module named `module` through it: the library's handle (for the symbols other
 * files look up), or NULL when the API cannot be used (then every call goes through
 * reticulate). Nothing of reticulate's is read: the Python objects C calls are found by name,
 * through Python (see names.c). Sets `ready`. */
void *py_api_load(SEXP path, SEXP module) {
  ready = 0;
  if (TYPEOF(path) != STRSXP || XLENGTH(path) != 1 || STRING_ELT(path, 0) == NA_STRING ||
      TYPEOF(module) != STRSXP || XLENGTH(module) != 1 || STRING_ELT(module, 0) == NA_STRING) {
    return NULL;
  }
#ifdef _WIN32
  return NULL;  /* no dlsym: every call goes through reticulate */
#else
  /* RTLD_NOLOAD: only a handle on the libpython reticulate loaded (its symbols are looked up
   * through the handle, so their visibility to other libraries is left as reticulate set it) */
  void *lib = dlopen(CHAR(STRING_ELT(path, 0)), RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
  if (lib == NULL) lib = dlopen(NULL, RTLD_NOW);  /* a Python linked into the process */
  if (lib == NULL) return NULL;
  const char *modname = Rf_translateCharUTF8(STRING_ELT(module, 0));
  SYM(gil_ensure, "PyGILState_Ensure");
  SYM(gil_release, "PyGILState_Release");
  SYM(tuple_new, "PyTuple_New");
  SYM(tuple_setitem, "PyTuple_SetItem");
  SYM(list_new, "PyList_New");
  SYM(list_setitem, "PyList_SetItem");
  SYM(list_size, "PyList_Size");
  SYM(list_getitem, "PyList_GetItem");
  SYM(float_as, "PyFloat_AsDouble");
  SYM(long_as, "PyLong_AsLongAndOverflow");
  SYM(t_list, "PyList_Type");
  SYM(t_dict, "PyDict_Type");
  SYM(t_bool, "PyBool_Type");
  SYM(complex_from, "PyComplex_FromDoubles");
  SYM(complex_real, "PyComplex_RealAsDouble");
  SYM(complex_imag, "PyComplex_ImagAsDouble");
  SYM(float_from, "PyFloat_FromDouble");
  SYM(long_from, "PyLong_FromLong");
  SYM(unicode_from, "PyUnicode_FromString");
  SYM(object_call, "PyObject_Call");
  SYM(setattr, "PyObject_SetAttrString");
  SYM(err_occurred, "PyErr_Occurred");
  SYM(err_fetch, "PyErr_Fetch");
  SYM(exc_matches, "PyErr_GivenExceptionMatches");
  SYM(exc_keyboard_interrupt, "PyExc_KeyboardInterrupt");
  SYM(object_str, "PyObject_Str");
  SYM(unicode_utf8, "PyUnicode_AsUTF8");
  SYM(err_clear, "PyErr_Clear");
  SYM(incref, "Py_IncRef");
  SYM(decref, "Py_DecRef");
  SYM(iter_next, "PyIter_Next");
  SYM(dict_setitem, "PyDict_SetItem");
  SYM(dict_getitem, "PyDict_GetItem");
  SYM(dict_delitem, "PyDict_DelItem");
  SYM(dict_next, "PyDict_Next");
  SYM(dict_size, "PyDict_Size");
  SYM(getattr, "PyObject_GetAttr");
  SYM(setattr_o, "PyObject_SetAttr");
  SYM(list_append, "PyList_Append");
  SYM(import_module, "PyImport_ImportModule");
  SYM(getattr_s, "PyObject_GetAttrString");
  SYM(err_normalize, "PyErr_NormalizeException");
  SYM(exc_exception, "PyExc_Exception");
  SYM(t_complex, "PyComplex_Type");
  SYM(t_float, "PyFloat_Type");
  SYM(t_long, "PyLong_Type");
  SYM(t_unicode, "PyUnicode_Type");
  SYM(py_none, "_Py_NoneStruct");
  SYM(py_true, "_Py_TrueStruct");
  SYM(py_false, "_Py_FalseStruct");
  int gil = gil_ensure();
  int ok = layout_ok();
  PyObj *b = ok ? import_module(modname) : NULL;  /* (already imported by R: a lookup) */
  if (b == NULL) {
    ok = 0;
    if (err_occurred()) err_clear();
  } else {
    if (bridge_module) decref(bridge_module);
    bridge_module = b;
  }
  gil_release(gil);
  ready = ok;
  return ok ? lib : NULL;
#endif
}

/* fn(arg) (GIL held): a new reference, or NULL with the Python error set. Steals `arg`. */
PyObj *call_one(PyObj *fn, PyObj *arg) {
  PyObj *tup = tuple_new(1);
  if (tup == NULL) {
    decref(arg);
    return NULL;
  }
  tuple_setitem(tup, 0, arg);  /* steals arg */
  PyObj *res = object_call(fn, tup, NULL);
  decref(tup);
  return res;
}

