# R6 classes of the package made on first use. An R6 class made when the package is built is
# stored in the installed package with its own copies of R6's methods (~25 kB each, byte
# code); made from this recipe, it costs nothing until a session needs it (~0.2 ms then).

# A class to make on first use: `make` returns the R6 class.
.lazy_r6 <- function(make) {
  e <- new.env(parent = emptyenv())
  e$make <- make
  structure(e, class = "rtorchpy_lazy_class")
}

# The R6 class of `x` (made now if it was not yet), or `x` itself if it is not a lazy class.
.r6 <- function(x) {
  if (!inherits(x, "rtorchpy_lazy_class")) return(x)
  cls <- x$class
  if (is.null(cls)) {
    cls <- x$make()
    x$class <- cls
  }
  cls
}
