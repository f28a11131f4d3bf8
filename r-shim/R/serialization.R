# torch_save / torch_load: the Python functions' .npz + JSON manifest format, so a file saved
# from Python loads in R and back.

#' Save and load tensors and state dicts
#'
#' `torch_save()` writes a tensor, or a (named, possibly nested) list of tensors such as a
#' module's `$state_dict()`, to `path` in rtorchpy's format (a NumPy `.npz` archive with a
#' JSON manifest; the same files as Python's `rtorchpy.torch_save()`). Names and order are
#' kept; numbers, strings, `TRUE`/`FALSE` and `NULL` may be list elements too. A module is
#' saved through its state dict: `torch_save(model$state_dict(), path)`, then
#' `model$load_state_dict(torch_load(path))`. `torch_load()` returns what was saved: tensors
#' as new leaf tensors (`requires_grad` as saved), named lists for dicts.
#'
#' @param obj A tensor or a list of tensors.
#' @param path A file path (written exactly, no extension added).
#' @param device Only `"cpu"`.
#' @param ... Unused (R torch's other arguments).
#' @return `torch_save()`: `NULL`, invisibly. `torch_load()`: the object.
#' @export
torch_save <- function(obj, path, ...) {
  if (is_nn_module(obj)) {
    .nn_error("torch_save() can't save an nn_module in rtorchpy: save its state dict, ",
              "torch_save(model$state_dict(), path), and load it with ",
              "model$load_state_dict(torch_load(path))")
  }
  .bridge("save", .save_node(obj, "obj"), path.expand(path))
  invisible(NULL)
}

#' @rdname torch_save
#' @export
torch_load <- function(path, device = "cpu") {
  .nn_check_device(device)
  if (!file.exists(path)) .nn_error("torch_load(): no such file: ", path)
  .load_node(.bridge("load", path.expand(path)))
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
