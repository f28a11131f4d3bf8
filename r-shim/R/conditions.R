# Errors as R torch signals them: conditions of class value_error, type_error, runtime_error,
# not_implemented_error (and index_error, a value_error too), each also "rtorchpy_error",
# "error" and "condition", so `tryCatch(..., value_error = )`, `expect_error(class = )` and a
# plain `error =` handler all work. Errors from Python arrive with their class already chosen
# (rtorchpy/_r/errors.py maps the Python exception); R code raises them with the helpers below.

# The classes a kind adds above its own, before rtorchpy_error.
.CONDITION_PARENTS <- list(index_error = "value_error")

.condition <- function(msg, kind = "runtime_error", call = NULL) {
  kind <- as.character(kind)
  structure(class = c(kind, .CONDITION_PARENTS[[kind]], "rtorchpy_error", "error", "condition"),
            list(message = msg, call = call))
}

.value_error <- function(...) stop(.condition(paste0(...), "value_error"))
.type_error <- function(...) stop(.condition(paste0(...), "type_error"))
.runtime_error <- function(...) stop(.condition(paste0(...), "runtime_error"))
.not_implemented_error <- function(...) stop(.condition(paste0(...), "not_implemented_error"))

# An error raised by the C code (src/errors.c calls this): classed like the others.
.c_error <- function(msg, kind) stop(.condition(msg, kind))
