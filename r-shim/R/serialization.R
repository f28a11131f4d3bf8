# torch_save / torch_load: the Python functions' .npz + JSON manifest format, so a file saved
# from Python loads in R and back.

#' Save and load tensors and state dicts
#'
#' `torch_save()` writes a tensor, or a (named, possibly nested) list of tensors such as a
#' module's `$state_dict()`, to `path` in rtorchpy's format (a NumPy `.npz` archive with a
#' JSON manifest; the same files as Python's `rtorchpy.torch_save()`). Names and order are
#' kept; numbers, strings, `TRUE`/`FALSE` and `NULL` may be list elements too.
#' `torch_load()` returns what was saved: tensors as new leaf tensors (`requires_grad` as
#' saved), named lists for dicts.
#'
#' A module (`torch_save(model, path)`, as in R torch) is saved as data: for each of its
#' modules the class name, the training flag, the parameters, buffers and children, and its
#' plain fields (numbers, strings, logicals, tensors and lists of them; a module with a field of
#' another kind, such as a function, can't be saved whole: save its state dict). Loading
#' finds the generator of that class (defined in the session, as R torch needs the module's
#' code too, or one of the package's layers) and fills a new module from the file without
#' running `initialize`. Nothing in a file is ever evaluated: `torch_load()` reads only arrays
#' and plain values, so a crafted file cannot run code. Python sees a dict. The portable way,
#' readable from Python too, is the state dict: `torch_save(model$state_dict(), path)` and
#' `model$load_state_dict(torch_load(path))`.
#'
#' @param obj A tensor, a list of tensors, or a module.
#' @param path A file path (written exactly, no extension added).
#' @param device Only `"cpu"`.
#' @param ... Unused (R torch's other arguments).
#' @return `torch_save()`: `NULL`, invisibly. `torch_load()`: the object.
#' @export
#' @family serialization
#' @examples
#' if (rtorchpy_available()) {
#'   path <- tempfile(fileext = ".pt")
#'   torch_save(list(w = torch_ones(2)), path)
#'   torch_load(path)
#'   unlink(path)
#' }
torch_save <- function(obj, path, ...) {
  if (is_nn_module(obj)) obj <- .module_payload(obj)
  .bridge("save", .save_node(obj, "obj"), path.expand(path))
  invisible(NULL)
}

#' @rdname torch_save
#' @export
torch_load <- function(path, device = "cpu") {
  .nn_check_device(device)
  if (!file.exists(path)) .nn_error("torch_load(): no such file: ", path)
  obj <- .load_node(.bridge("load", path.expand(path)))
  if (is.list(obj) && length(obj) >= 1L && identical(names(obj)[[1L]], .MODULE_TAG)) {
    obj <- .module_from_payload(obj, path, parent.frame())
  }
  obj
}

.save_node <- function(x, where) {
  if (is_torch_tensor(x)) return(.h(x))
  if (is.null(x)) return(NULL)
  if (is.list(x) && !is.object(x)) {
    items <- lapply(seq_along(x), function(i) .save_node(x[[i]], paste0(where, "[[", i, "]]")))
    nms <- names(x)
    if (is.null(nms)) return(list("__list__", items))
    # (R allows a name twice, a dict does not: such a list is saved as its names and values)
    if (anyDuplicated(nms)) return(list("__dupnamed__", as.list(nms), items))
    return(list("__named__", as.list(nms), items))
  }
  if (is.atomic(x) && !is.object(x) && !is.complex(x) && !is.raw(x)) {
    if (length(x) == 1L) return(x)
    if (anyNA(x)) {
      .nn_error("torch_save(): ", where, " holds NA, which the file format cannot keep")
    }
    # a vector (Adam's betas): a tuple of its values in the file, a vector again when loaded
    return(list("__vector__", as.list(as.vector(x))))
  }
  .nn_error("torch_save() saves tensors and lists of them (and single numbers, strings, ",
            "TRUE/FALSE, NULL); ", where, " is ", .what(x),
            if (is.atomic(x)) paste0(" of length ", length(x)))
}

.load_node <- function(n) {
  switch(n[[1L]],
    T = .t(n[[2L]]),
    D = {
      v <- lapply(n[[3L]], .load_node)
      names(v) <- as.character(unlist(n[[2L]]))
      v
    },
    L = lapply(n[[2L]], .load_node),
    U = unlist(n[[2L]]),
    N = {
      v <- lapply(n[[3L]], .load_node)
      names(v) <- as.character(unlist(n[[2L]]))
      v
    },
    V = n[[2L]]
  )
}
