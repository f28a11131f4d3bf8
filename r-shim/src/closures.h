/* Closures made with R's public C API (closures.c). */
#ifndef RTORCHPY_CLOSURES_H
#define RTORCHPY_CLOSURES_H
#include <R.h>
#include <Rinternals.h>

SEXP rtp_closure(SEXP formals, SEXP body, SEXP env);

#endif
