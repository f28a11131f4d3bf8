#ifndef RTORCHPY_ERRORS_H
#define RTORCHPY_ERRORS_H
/* Signal an R condition of class `kind` (value_error, type_error, runtime_error, ...) with the
 * message `msg` (UTF-8). Does not return. */
void rtp_error(const char *kind, const char *msg) __attribute__((noreturn));
#endif
