# Containers: nn_sequential, nn_module_list, nn_module_dict; nn_prune_head().

#' @include nn-base.R
NULL

#' A sequential container
#'
#' Modules called in turn, each on the result of the previous one. Unnamed modules are
#' registered as `"0"`, `"1"`, ... (so parameter names are `"0.weight"`, as in R torch and
#' PyTorch), named ones under their names. `model[[i]]` is the `i`-th module (1-based),
#' `model[i]` a sequential of the selected modules, `length(model)` the number of modules.
#'
#' @param ... Modules.
#' @return An `nn_sequential` module.
#' @examples
#' if (rtorchpy_available()) {
#'   model <- nn_sequential(nn_linear(4, 3), nn_relu(), nn_linear(3, 1))
#'   model(torch_randn(2, 4))
#'   model[[1]]
#' }
#' @export
#' @family neural network modules
nn_sequential <- nn_module(
  "nn_sequential",
  initialize = function(...) {
    modules <- list(...)
    nms <- names(modules)
    for (i in seq_along(modules)) {
      if (!is_nn_module(modules[[i]])) {
        .nn_error("nn_sequential(): argument ", i, " is not an nn_module (", 
                  .what(modules[[i]]), ")")
      }
      name <- if (is.null(nms) || !nzchar(nms[[i]])) as.character(i - 1L) else nms[[i]]
      self$add_module(name, modules[[i]])
    }
  },
  forward = function(input) {
    for (module in private$modules_) input <- module(input)
    input
  }
)

#' A list of modules
#'
#' Holds modules (registered as `"0"`, `"1"`, ...) without calling them: `forward` is the
#' user's. `$append(module)`, `$extend(modules)`, `$insert(index, module)`; `[[i]]`, `[i]` and
#' `length()` as for a list.
#'
#' @param modules A list of modules.
#' @return An `nn_module_list` module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   layers <- nn_module_list(list(nn_linear(2, 3), nn_linear(3, 1)))
#'   length(layers)
#'   layers[[2]](layers[[1]](torch_randn(4, 2)))$shape
#' }
nn_module_list <- nn_module(
  "nn_module_list",
  initialize = function(modules = list()) {
    for (m in modules) self$append(m)
  },
  append = function(module) {
    self$add_module(as.character(length(private$modules_)), module)
    invisible(self)
  },
  extend = function(modules) {
    for (m in modules) self$append(m)
    invisible(self)
  },
  insert = function(index, module) {
    mods <- private$modules_
    n <- length(mods)
    if (index < 1 || index > n + 1) {
      .nn_error("insert(): index ", index, " is out of bounds (1 to ", n + 1, ")")
    }
    mods <- append(unname(mods), list(module), after = index - 1)
    private$modules_ <- list()
    for (m in mods) self$append(m)
    invisible(self)
  }
)

#' A named list of modules
#'
#' @param dict A named list of modules.
#' @return An `nn_module_dict` module: `model[["name"]]`, `model$name`, `length(model)`.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   layers <- nn_module_dict(list(a = nn_linear(2, 3), b = nn_relu()))
#'   layers$b(layers$a(torch_randn(1, 2)))
#' }
nn_module_dict <- nn_module(
  "nn_module_dict",
  initialize = function(dict) {
    if (length(dict) && (is.null(names(dict)) || any(!nzchar(names(dict))))) {
      .nn_error("nn_module_dict(): `dict` must be a named list of modules")
    }
    for (nm in names(dict)) self$add_module(nm, dict[[nm]])
  }
)

#' @export
length.nn_sequential <- function(x) length(.nn_private(attr(x, "module"))$modules_)

#' @export
length.nn_module_list <- function(x) length(.nn_private(attr(x, "module"))$modules_)

#' @export
length.nn_module_dict <- function(x) length(.nn_private(attr(x, "module"))$modules_)

#' @export
as.list.nn_sequential <- function(x, ...) .nn_private(attr(x, "module"))$modules_

#' @export
as.list.nn_module_list <- function(x, ...) unname(.nn_private(attr(x, "module"))$modules_)

#' @export
as.list.nn_module_dict <- function(x, ...) .nn_private(attr(x, "module"))$modules_

.nn_subset <- function(x, i) {
  mods <- .nn_private(attr(x, "module"))$modules_
  idx <- seq_along(mods)[i]
  if (anyNA(idx)) .nn_error("index out of bounds (the module has ", length(mods), " children)")
  mods[idx]
}

#' @export
`[.nn_sequential` <- function(x, i) {
  mods <- .nn_subset(x, i)
  names(mods)[grepl("^[0-9]+$", names(mods))] <- ""
  if (all(!nzchar(names(mods)))) mods <- unname(mods)
  do.call(nn_sequential, mods)
}

#' @export
`[.nn_module_list` <- function(x, i) nn_module_list(unname(.nn_subset(x, i)))

#' Drop the last modules of a model
#'
#' @param x An `nn_sequential`, or a module whose children are used in order.
#' @param head_size How many modules to drop from the end.
#' @return An `nn_sequential` of the first `length - head_size` children (the same module
#'   objects).
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   net <- nn_sequential(nn_linear(2, 3), nn_relu(), nn_linear(3, 1))
#'   nn_prune_head(net, 1)
#' }
nn_prune_head <- function(x, head_size = 1L) {
  if (!is_nn_module(x)) .nn_error("nn_prune_head(): `x` must be an nn_module")
  mods <- Filter(Negate(is.null), .nn_private(attr(x, "module"))$modules_)
  n <- length(mods) - head_size
  if (head_size < 0 || n < 0) {
    .nn_error("nn_prune_head(): can't drop ", head_size, " of ", length(mods), " modules")
  }
  mods <- mods[seq_len(n)]
  if (inherits(x, "nn_sequential")) {
    names(mods)[grepl("^[0-9]+$", names(mods))] <- ""
    if (all(!nzchar(names(mods)))) mods <- unname(mods)
  }
  do.call(nn_sequential, mods)
}
