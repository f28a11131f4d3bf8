# Random number generators, as R torch has them: torch_manual_seed(), torch_generator(),
# the default generator's state, with_/local_torch_manual_seed(). The numbers are libtorch's
# CPU generator's (rtorchpy/numerics/mt19937.py): a seed gives R torch's values. The bridge
# side is rtorchpy/_r/random.py; a generator is an R6-like environment holding the Python
# generator's handle (`$ptr`), so it can be passed as `generator =` like a tensor.

#' Seed the random number generator
#'
#' Seeds the default generator. Afterwards `torch_randn()`, `torch_rand()`, `x$normal_()`,
#' `nn_linear()`'s initialisation and the other random functions give the same values as
#' R torch (and PyTorch) for the same seed.
#' @param seed An integer (a whole number; up to 2^53 exactly).
#' @return `NULL`, invisibly.
#' @export
#' @family random numbers
#' @examples
#' if (rtorchpy_available()) {
#'   torch_manual_seed(42)
#'   torch_rand(2)
#' }
torch_manual_seed <- function(seed) {
  .check_seed(seed)
  .bridge("rng_manual_seed", as.numeric(seed))
  invisible(NULL)
}

#' The default generator's seed
#' @return The seed last set (a number).
#' @export
#' @family random numbers
#' @examples
#' if (rtorchpy_available()) {
#'   torch_manual_seed(7)
#'   torch_initial_seed()
#' }
torch_initial_seed <- function() .bridge("rng_initial_seed")

.check_seed <- function(seed) {
  if (!is.numeric(seed) || length(seed) != 1L || is.na(seed) || seed != trunc(seed))
    .value_error("`seed` must be a single whole number")
}

#' Random number generators
#'
#' `torch_generator()` makes a generator of its own, to pass as `generator =` to the random
#' functions that take one (`torch_normal()`, `torch_bernoulli()`, `torch_multinomial()`,
#' `x$uniform_()`, `x$normal_()`, ...). Its methods: `$current_seed()` and
#' `$set_current_seed(seed)`; `$get_state()`/`$set_state(state)` give and restore its state
#' (a uint8 tensor in libtorch's layout).
#' @return A `torch_generator` object.
#' @examples
#' gen <- torch_generator()
#' gen$set_current_seed(1)
#' gen$current_seed()
#' @export
#' @family random numbers
torch_generator <- function() .new_generator(.bridge("generator_new"))

.new_generator <- function(ptr) {
  self <- new.env(parent = emptyenv())
  self$ptr <- ptr
  self$current_seed <- function() .bridge("generator_current_seed", ptr)
  self$set_current_seed <- function(seed) {
    .check_seed(seed)
    .bridge("generator_set_current_seed", ptr, as.numeric(seed))
    invisible(self)
  }
  self$get_state <- function() .bridge("generator_get_state", ptr)
  self$set_state <- function(new_state) {
    .bridge("generator_set_state", ptr, new_state)
    invisible(self)
  }
  class(self) <- c("torch_generator", "R6")
  self
}

#' @export
print.torch_generator <- function(x, ...) {
  cat("<torch_generator>\n")
  invisible(x)
}

#' The default generator's state
#'
#' `torch_get_rng_state()` returns the state of the default generator (a uint8 tensor, in
#' libtorch's layout: a state saved by R torch restores here); `torch_set_rng_state()`
#' restores it.
#' @param state A tensor returned by `torch_get_rng_state()`.
#' @export
#' @family random numbers
#' @examples
#' if (rtorchpy_available()) {
#'   state <- torch_get_rng_state()
#'   a <- torch_rand(2)
#'   torch_set_rng_state(state)
#'   b <- torch_rand(2)
#'   torch_equal(a, b)
#' }
torch_get_rng_state <- function() .bridge("generator_get_state", NULL)

#' @rdname torch_get_rng_state
#' @export
torch_set_rng_state <- function(state) {
  .bridge("generator_set_state", NULL, state)
  invisible(NULL)
}

#' Run code with a fixed seed
#'
#' `with_torch_manual_seed()` evaluates `code` with the default generator seeded with `seed`
#' and restores the generator's state afterwards; `local_torch_manual_seed()` does the same
#' until the calling function returns.
#' @param code Code to run.
#' @param ... Unused (for R torch's signature).
#' @param seed The seed.
#' @param .env The environment whose exit restores the state.
#' @return The value of `code`.
#' @export
#' @family random numbers
#' @examples
#' if (rtorchpy_available()) {
#'   a <- with_torch_manual_seed(torch_rand(2), seed = 1)
#'   b <- with_torch_manual_seed(torch_rand(2), seed = 1)
#'   torch_equal(a, b)
#' }
with_torch_manual_seed <- function(code, ..., seed) {
  state <- torch_get_rng_state()
  on.exit(torch_set_rng_state(state), add = TRUE)
  torch_manual_seed(seed)
  force(code)
}

#' @rdname with_torch_manual_seed
#' @export
local_torch_manual_seed <- function(seed, .env = parent.frame()) {
  state <- torch_get_rng_state()
  do.call(on.exit, list(substitute(torch_set_rng_state(s), list(s = state)), add = TRUE),
          envir = .env)
  torch_manual_seed(seed)
  invisible(NULL)
}
