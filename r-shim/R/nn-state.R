# nn_module internals: load_state_dict, clone, printing (the class is in nn-base.R).

# -- load_state_dict --------------------------------------------------------------------------

# Every tensor of the module's state, by its state_dict key, with where it lives.
.nn_state_entries <- function(x, prefix = "", out = list()) {
  priv <- .nn_private(x)
  for (nm in names(priv$parameters_)) {
    if (!is.null(priv$parameters_[[nm]])) {
      out[[paste0(prefix, nm)]] <- priv$parameters_[[nm]]
    }
  }
  for (nm in setdiff(names(priv$buffers_), priv$non_persistent_buffers_)) {
    if (!is.null(priv$buffers_[[nm]])) out[[paste0(prefix, nm)]] <- priv$buffers_[[nm]]
  }
  for (nm in names(priv$modules_)) {
    m <- priv$modules_[[nm]]
    if (!is.null(m)) out <- .nn_state_entries(attr(m, "module"), paste0(prefix, nm, "."), out)
  }
  out
}

.nn_shape_str <- function(s) paste0("[", paste(s, collapse = ", "), "]")

.nn_load_state_dict <- function(x, state_dict, strict, refer = FALSE) {
  if (!is.list(state_dict) || (length(state_dict) && is.null(names(state_dict)))) {
    .nn_error("load_state_dict(): `state_dict` must be a named list of tensors")
  }
  own <- .nn_state_entries(x)
  # a normalization layer's batch counter is absent from state dicts saved before it existed:
  # it loads as 0, as R torch and PyTorch do
  for (k in grep("(^|[.])num_batches_tracked$", setdiff(names(own), names(state_dict)),
                 value = TRUE)) {
    state_dict[[k]] <- torch_tensor(0L, dtype = torch_long())
  }
  given <- names(state_dict)
  missing_keys <- setdiff(names(own), given)
  unexpected <- setdiff(given, names(own))
  if (strict && length(missing_keys)) {
    .nn_value_error("Could not find ", paste(missing_keys, collapse = ", "),
                    " in the state_dict.")
  }
  if (strict && length(unexpected)) {
    .nn_value_error("Unexpected key(s) in state_dict: ",
                    paste0("\"", unexpected, "\"", collapse = ", "), ".")
  }
  keys <- intersect(names(own), given)
  problems <- character()
  for (k in keys) {
    v <- state_dict[[k]]
    if (!is_torch_tensor(v)) {
      problems <- c(problems, paste0("the value for ", k, " is not a tensor (", .what(v), ")"))
      next
    }
    s_new <- v$shape
    s_own <- own[[k]]$shape
    if (!identical(as.integer(s_new), as.integer(s_own))) {
      problems <- c(problems, paste0(
        "size mismatch for ", k, ": copying a param with shape ", .nn_shape_str(s_new),
        " from checkpoint, the shape in current model is ", .nn_shape_str(s_own), "."))
    }
  }
  if (length(problems)) {
    .nn_error("Error(s) in loading state_dict:\n\t", paste(problems, collapse = "\n\t"))
  }
  if (refer) {
    .nn_refer_state(x, state_dict)
  } else {
    with_no_grad(for (k in keys) own[[k]]$copy_(state_dict[[k]]))
  }
  invisible(x)
}

# load_state_dict(.refer_to_state_dict = TRUE): the module's parameters and buffers become the
# state dict's tensors (no copy; parameters keep their requires_grad).
.nn_refer_state <- function(x, state_dict, prefix = "") {
  priv <- .nn_private(x)
  for (nm in names(priv$parameters_)) {
    p <- priv$parameters_[[nm]]
    v <- state_dict[[paste0(prefix, nm)]]
    if (!is.null(p) && !is.null(v)) {
      priv$parameters_[[nm]] <- nn_parameter(v, requires_grad = p$requires_grad)
    }
  }
  for (nm in setdiff(names(priv$buffers_), priv$non_persistent_buffers_)) {
    v <- state_dict[[paste0(prefix, nm)]]
    if (!is.null(priv$buffers_[[nm]]) && !is.null(v)) priv$buffers_[[nm]] <- v
  }
  for (nm in names(priv$modules_)) {
    m <- priv$modules_[[nm]]
    if (!is.null(m)) .nn_refer_state(attr(m, "module"), state_dict, paste0(prefix, nm, "."))
  }
}

# -- clone ---------------------------------------------------------------------------------------

# A copy of the module; deep: its parameters and buffers copied too (a tensor shared by two
# places stays shared in the copy), requires_grad kept, no history.
.nn_clone <- function(x, deep = FALSE) {
  if (!.flag(deep)) return(.nn_callable(.subset2(x, "clone")(deep = FALSE)))
  top <- is.null(.rt$clone_memo)
  if (top) {
    .rt$clone_memo <- new.env(parent = emptyenv())
    .rt$clone_modules <- list()
    on.exit({
      .rt$clone_memo <- NULL
      .rt$clone_modules <- NULL
    }, add = TRUE)
  }
  .nn_callable(.subset2(x, "clone")(deep = TRUE))
}

.nn_clone_tensor <- function(t) {
  memo <- .rt$clone_memo
  key <- as.character(.tensor_key(t))
  if (!is.null(memo) && !is.null(memo[[key]])) return(memo[[key]])
  rg <- t$requires_grad
  new <- with_no_grad(t$detach()$clone())
  if (rg) new$requires_grad_(TRUE)
  attributes(new) <- attributes(t)[names(attributes(t)) != "class"]
  class(new) <- class(t)
  if (!is.null(memo)) assign(key, new, envir = memo)
  new
}

.nn_deep_clone_value <- function(name, value) {
  if (is_torch_tensor(value)) return(.nn_clone_tensor(value))
  if (is_nn_module(value)) {
    # a module reachable twice (shared) is cloned once
    done <- .rt$clone_modules
    for (pair in done) if (identical(pair[[1L]], attr(value, "module"))) return(pair[[2L]])
    new <- .nn_clone(attr(value, "module"), TRUE)
    .rt$clone_modules <- c(.rt$clone_modules, list(list(attr(value, "module"), new)))
    return(new)
  }
  if (inherits(value, "R6")) return(value$clone(deep = TRUE))
  if (is.list(value) && !is.object(value)) {
    return(lapply(value, function(v) .nn_deep_clone_value(name, v)))
  }
  value
}

# -- printing --------------------------------------------------------------------------------------

.nn_count <- function(m) {
  ps <- .nn_named(if (is_nn_module(m)) attr(m, "module") else m, "parameters_", TRUE)
  if (!length(ps)) return(0)
  sum(vapply(ps, function(p) prod(as.numeric(p$shape)), 0))
}

.comma <- function(n) formatC(n, format = "d", big.mark = ",")

.cat_rule <- function(title) {
  if (requireNamespace("cli", quietly = TRUE)) {
    cli::cat_rule(title)
  } else {
    width <- getOption("width", 80L)
    left <- paste0("\u2500\u2500 ", title, " ")
    cat(left, strrep("\u2500", max(0L, width - nchar(left))), "\n", sep = "")
  }
}

.cat_bullet <- function(text) {
  if (requireNamespace("cli", quietly = TRUE)) {
    cli::cat_bullet(text)
  } else {
    cat("\u2022 ", text, "\n", sep = "")
  }
}

.tensor_str <- function(t) {
  d <- t$shape
  paste0(t$dtype$word, if (length(d)) paste0(" [", paste0("1:", d, collapse = ", "), "]"))
}

.nn_print <- function(self, private) {
  cat("An `nn_module` containing ", .comma(.nn_count(self)), " parameters.\n", sep = "")
  mods <- Filter(Negate(is.null), private$modules_)
  if (length(mods)) {
    cat("\n")
    .cat_rule("Modules")
    for (nm in names(mods)) {
      .cat_bullet(paste0(nm, ": <", class(mods[[nm]])[[1L]], "> #",
                         .comma(.nn_count(mods[[nm]])), " parameters"))
    }
  }
  for (what in c("Parameters", "Buffers")) {
    ts <- Filter(Negate(is.null), if (what == "Parameters") private$parameters_ else
      private$buffers_)
    if (!length(ts)) next
    cat("\n")
    .cat_rule(what)
    for (nm in names(ts)) .cat_bullet(paste0(nm, ": ", .tensor_str(ts[[nm]])))
  }
}
