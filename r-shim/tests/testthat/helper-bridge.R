# Calling an arbitrary Python callable through the C bridge. C finds callables by name only
# (src/names.c asks the bridge module's c_callable), so a test registers the callable as a
# function of the bridge module under a fresh name first.
c_callable_name <- local({
  k <- 0L
  function(f) {
    k <<- k + 1L
    nm <- paste0("test_callable_", k)
    reticulate::py_set_attr(rtorchpy:::.rt$bridge, nm, f)
    nm
  }
})

# .Call(rtp_ncall, ...) on `f` (table 3: functions of the bridge module): the raw reply.
c_call <- function(f, args, cls = NULL) {
  .Call(rtorchpy:::rtp_ncall, 3L, c_callable_name(f), args, cls)
}

# rtorchpy:::.call() on `f`: through C, or through reticulate when C does not call.
r_call <- function(f, args) rtorchpy:::.call(3L, c_callable_name(f), args)
