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
#' A module (`torch_save(model, path)`, as in R torch) is saved as its tensors plus the R
#' object serialized by R (`serialize()`), so loading it needs its code (the generator's
#' definition) in the session, as in R torch; Python sees a dict of tensors. The portable way,
#' readable from Python too, is the state dict: `torch_save(model$state_dict(), path)` and
#' `model$load_state_dict(torch_load(path))`.
#'
#' @param obj A tensor, a list of tensors, or a module.
#' @param path A file path (written exactly, no extension added).
#' @param device Only `"cpu"`.
#' @param ... Unused (R torch's other arguments).
#' @return `torch_save()`: `NULL`, invisibly. `torch_load()`: the object.
#' @export
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
  if (is.list(obj) && identical(names(obj), .MODULE_KEYS)) obj <- .module_from_payload(obj)
  obj
}

# A module in a file: its tensors by key, and the R object (an R6 object whose tensors are
# replaced by placeholders naming those keys) serialized with R's serialize() as a uint8
# tensor. Loading needs the module's code (a generator defined in the session, or a package's).
.MODULE_KEYS <- c("__rtorchpy_r_nn_module__", "tensors")

.module_payload <- function(module) {
  copy <- attr(module$clone(deep = TRUE), "module")
  tensors <- new.env(parent = emptyenv())
  tensors$list <- list()
  .module_strip(copy, tensors)
  blob <- serialize(copy, NULL)
  list2 <- list(torch_tensor(blob, dtype = torch_uint8()), tensors$list)
  names(list2) <- .MODULE_KEYS
  list2
}

.module_envs <- function(x, out = list()) {
  out <- c(out, list(x))
  for (m in .nn_private(x)$modules_) if (!is.null(m)) out <- .module_envs(attr(m, "module"), out)
  out
}

.module_strip <- function(x, tensors) {
  ref <- function(t) {
    key <- paste0("t", length(tensors$list))
    tensors$list[[key]] <- t
    structure(list(key = key, class = class(t), persistent = attr(t, "persistent")),
              class = "rtorchpy_saved_tensor")
  }
  for (m in unique(.module_envs(x))) {
    priv <- .nn_private(m)
    priv$parameters_ <- lapply(priv$parameters_, function(t) if (!is.null(t)) ref(t))
    priv$buffers_ <- lapply(priv$buffers_, function(t) if (!is.null(t)) ref(t))
  }
}

.module_from_payload <- function(obj) {
  module <- unserialize(as.raw(as_array(obj[[1L]])))
  tensors <- obj[[2L]]
  back <- function(r) {
    if (!inherits(r, "rtorchpy_saved_tensor")) return(r)
    t <- tensors[[r$key]]
    class(t) <- r$class
    if (!is.null(r$persistent)) attr(t, "persistent") <- r$persistent
    t
  }
  for (m in unique(.module_envs(module))) {
    priv <- .nn_private(m)
    priv$parameters_ <- lapply(priv$parameters_, back)
    priv$buffers_ <- lapply(priv$buffers_, back)
  }
  .nn_callable(module)
}

.save_node <- function(x, where) {
  if (is_torch_tensor(x)) return(.h(x))
  if (is.null(x)) return(NULL)
  if (is.list(x) && !is.object(x)) {
    items <- lapply(seq_along(x), function(i) .save_node(x[[i]], paste0(where, "[[", i, "]]")))
    nms <- names(x)
    if (is.null(nms)) return(list("__list__", items))
    if (anyDuplicated(nms)) {
      .nn_error("torch_save(): the names of ", where, " must be unique")
    }
    return(list("__named__", as.list(nms), items))
  }
  if (is.atomic(x) && length(x) == 1L && !is.object(x) && !is.complex(x) && !is.raw(x)) {
    return(x)
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
    V = n[[2L]]
  )
}
