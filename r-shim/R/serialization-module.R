# A whole module in a torch_save() file, stored as data only: for each module of the tree its
# class names, its training flag, its plain fields, its parameters and buffers, and its children
# (by position in the list of modules, so a module reachable twice is stored once and stays
# shared). Loading finds the generator by class name and fills a new instance of it without
# running `initialize`: nothing in the file is ever evaluated (R's serialize() format can hold
# promises, which unserialize() runs; a file is untrusted input).

#' @include nn-base.R
NULL

.MODULE_TAG <- "__rtorchpy_r_nn_module__"
.MODULE_FORMAT <- 2L
.MODULE_KEYS_V1 <- c(.MODULE_TAG, "tensors")  # the old layout, refused (see .module_from_payload)

.module_payload <- function(module) {
  envs <- unique(.module_envs(attr(module, "module")))
  index_of <- function(m) {
    e <- attr(m, "module")
    for (i in seq_along(envs)) if (identical(envs[[i]], e)) return(i)
    .runtime_error("internal error: a child module was not found among the module's modules")
  }
  records <- lapply(envs, .module_record, index_of = index_of)
  out <- list(.MODULE_FORMAT, records)
  names(out) <- c(.MODULE_TAG, "modules")
  out
}

# The R6 objects of a module tree, the module first (a shared one more than once).
.module_envs <- function(x, out = list()) {
  out <- c(out, list(x))
  for (m in .nn_private(x)$modules_) if (!is.null(m)) out <- .module_envs(attr(m, "module"), out)
  out
}

# The data of one module (an R6 object); `index_of` gives a child's position.
.module_record <- function(m, index_of) {
  priv <- .nn_private(m)
  classes <- .subset2(m, ".classes")
  list(
    class = as.list(classes),
    training = isTRUE(.subset2(m, "training")),
    fields = .module_fields(m, classes[[1L]]),
    parameters = priv$parameters_,
    buffers = lapply(priv$buffers_, function(b) if (!is.null(b)) b),
    non_persistent = as.list(priv$non_persistent_buffers_),
    children = lapply(priv$modules_, function(c) if (!is.null(c)) index_of(c))
  )
}

# The public fields of a module that are neither methods nor active bindings, encoded.
.module_fields <- function(m, cls) {
  methods <- .module_method_names(m)
  out <- list()
  for (nm in sort(ls(m, all.names = TRUE))) {
    if (nm %in% .module_bookkeeping || nm %in% methods) next
    if (bindingIsActive(nm, m)) next
    v <- get(nm, envir = m, inherits = FALSE)
    out[nm] <- list(.field_encode(v, paste0("field `", nm, "` of the module of class '", cls,
                                            "'")))
  }
  out
}

.module_method_names <- function(m) {
  # a method (the class's own or an inherited one) is a function in a locked binding: R6
  # locks every method's binding (methods can't be replaced in an object), not the fields'
  is_method <- function(nm) {
    bindingIsLocked(nm, m) && is.function(get(nm, envir = m, inherits = FALSE))
  }
  nms <- ls(m, all.names = TRUE)
  nms <- nms[!vapply(nms, bindingIsActive, logical(1), env = m)]
  nms[vapply(nms, is_method, logical(1))]
}

# Bindings of a module object that are not its fields: R6's own (the enclosing environment it
# adds to every object), the class list, the training flag (saved on its own) and the cached
# private environment (see .nn_private).
.module_bookkeeping <- c(".__enclos_env__", ".classes", "training", ".__rtp_private__")

# Plain R values as the file's values: NULL, tensors, single numbers/strings/logicals as they
# are; other atomic vectors, with their names and NA positions, as a tagged list; lists
# element-wise; a function of this package's nnf_/torch_ API (a transformer layer's activation)
# by its name. Anything else (other functions, environments, objects) cannot be rebuilt.
.field_encode <- function(v, where) {
  if (is.null(v) || is_torch_tensor(v)) return(v)
  if (is.function(v)) {
    name <- .api_function_name(v)
    if (!is.null(name)) return(list("__rtorchpy_fn__", name))
  }
  if (is.atomic(v) && !is.object(v) && typeof(v) %in% c("logical", "integer", "double",
                                                         "character")) {
    extra <- setdiff(names(attributes(v)), "names")
    if (!length(extra)) {
      if (length(v) == 1L && is.null(names(v)) && !is.na(v)) return(v)
      na <- which(is.na(v))
      vals <- as.list(v)
      vals[na] <- list(NULL)
      return(list("__rvector__", typeof(v), vals, as.list(names(v) %||% character()),
                  as.list(as.integer(na))))
    }
  }
  if (is.list(v) && !is.object(v)) {
    out <- lapply(seq_along(v), function(i) .field_encode(v[[i]], paste0(where, "[[", i, "]]")))
    names(out) <- names(v)
    return(out)
  }
  what <- if (is.function(v)) "a function" else if (is.environment(v)) "an environment" else .what(v)
  .nn_error("torch_save() can't save this module: its ", where, " is ", what,
            ", which a file can't hold (modules are saved as data: tensors, numbers, strings, ",
            "logicals and lists of them). Save its state dict instead: ",
            "torch_save(model$state_dict(), path)")
}

# The name of `f` among the package's exported nnf_*/torch_* functions, or NULL.
.api_function_name <- function(f) {
  ns <- asNamespace("rtorchpy")
  for (nm in grep("^(nnf|torch)_", getNamespaceExports(ns), value = TRUE)) {
    if (identical(get(nm, envir = ns), f)) return(nm)
  }
  NULL
}

.field_decode <- function(v, path) {
  if (is.list(v) && length(v) == 2L && identical(v[[1L]], "__rtorchpy_fn__")) {
    # only a name that is one of the package's own nnf_/torch_ functions: nothing from the
    # file runs
    name <- v[[2L]]
    ns <- asNamespace("rtorchpy")
    if (!is.character(name) || length(name) != 1L || !grepl("^(nnf|torch)_", name) ||
        !name %in% getNamespaceExports(ns)) {
      .load_error(path, "a module field names an unknown function")
    }
    return(get(name, envir = ns))
  }
  if (is.list(v) && length(v) == 5L && identical(v[[1L]], "__rvector__")) {
    type <- v[[2L]]
    if (!is.character(type) || length(type) != 1L ||
        !type %in% c("logical", "integer", "double", "character")) {
      .load_error(path, "a module field has an unknown vector type")
    }
    vals <- v[[3L]]
    na <- as.integer(unlist(v[[5L]]))
    out <- vector(type, length(vals))
    if (length(vals)) {
      ok <- setdiff(seq_along(vals), na)
      out[ok] <- unlist(vals[ok])
      out[na] <- NA
    }
    nms <- unlist(v[[4L]])
    if (length(nms)) names(out) <- nms
    return(out)
  }
  if (is.list(v) && !is_torch_tensor(v)) {
    out <- lapply(v, .field_decode, path = path)
    names(out) <- names(v)
    return(out)
  }
  v
}

.load_error <- function(path, ...) {
  .nn_error("torch_load(): ", path, " is not a module file rtorchpy can load: ", ...)
}

# A module rebuilt from the payload read back from a file (`env`: where to look for the
# generators of user-defined classes).
.module_from_payload <- function(obj, path, env) {
  if (identical(names(obj), .MODULE_KEYS_V1)) {
    .load_error(path, "it was written by an older rtorchpy that stored the module with R's ",
                "serialize(), and reading that can run code from the file. Load it with that ",
                "version and save the state dict: torch_save(model$state_dict(), path)")
  }
  if (!identical(obj[[1L]], .MODULE_FORMAT) && !identical(obj[[1L]], as.double(.MODULE_FORMAT))) {
    .load_error(path, "unknown module format ", format(obj[[1L]]))
  }
  recs <- obj[[2L]]
  if (!is.list(recs) || !length(recs)) .load_error(path, "no modules in the file")
  made <- vector("list", length(recs))
  build <- function(i, depth) {
    if (!is.numeric(i) || length(i) != 1L || is.na(i) || i < 1 || i > length(recs) ||
        i != round(i)) {
      .load_error(path, "a child refers to module ", format(i), " of ", length(recs))
    }
    if (!is.null(made[[i]])) return(made[[i]])
    if (depth > 100L) .load_error(path, "the modules nest more than 100 levels deep")
    made[[i]] <<- .module_blank(recs[[i]], path, env)
    m <- attr(made[[i]], "module")
    rec <- recs[[i]]
    priv <- .nn_private(m)
    children <- lapply(rec$children, function(c) if (!is.null(c)) build(c, depth + 1L))
    names(children) <- names(rec$children)
    priv$modules_ <- children
    made[[i]]
  }
  root <- build(1L, 0L)
  for (i in seq_along(recs)) if (!is.null(made[[i]])) .module_fill(made[[i]], recs[[i]], path)
  root
}

.module_blank <- function(rec, path, env) {
  cls <- unlist(rec$class)
  if (!is.character(cls) || !length(cls) || anyNA(cls)) .load_error(path, "a module has no class")
  gen <- .find_generator(cls[[1L]], env)
  if (is.null(gen)) {
    .nn_error("torch_load(): ", path, " holds a module of class '", cls[[1L]], "', and no ",
              "generator of that class was found: define it first (as in R torch, the file ",
              "holds the module's data, not its code), e.g. ", cls[[1L]], " <- nn_module(\"",
              cls[[1L]], "\", ...)")
  }
  e <- new.env(parent = baseenv())
  e$Module <- .nn_class(gen)
  # a subclass whose initialize does nothing: the instance is filled from the file instead
  Blank <- R6::R6Class(NULL, inherit = Module, lock_objects = FALSE, parent_env = e,
                       public = list(initialize = function(...) invisible(NULL)))
  .nn_callable(Blank$new())
}

.module_fill <- function(module, rec, path) {
  m <- attr(module, "module")
  priv <- .nn_private(m)
  tensors_or_null <- function(x, what) {
    if (!is.list(x)) .load_error(path, what, " is not a list")
    for (t in x) if (!is.null(t) && !is_torch_tensor(t)) .load_error(path, what, " holds a non-tensor")
    x
  }
  params <- tensors_or_null(rec$parameters, "the parameters")
  priv$parameters_ <- lapply(params, function(p) {
    if (is.null(p)) return(NULL)
    class(p) <- unique(c("nn_parameter", class(p)))
    p
  })
  np <- as.character(unlist(rec$non_persistent))
  bufs <- tensors_or_null(rec$buffers, "the buffers")
  priv$buffers_ <- lapply(bufs, function(b) if (!is.null(b)) nn_buffer(b))
  priv$non_persistent_buffers_ <- np
  m$training <- isTRUE(rec$training)
  fields <- rec$fields
  if (!is.list(fields)) .load_error(path, "the fields are not a list")
  for (nm in names(fields)) {
    if (!nzchar(nm) || nm %in% .module_bookkeeping) next
    if (exists(nm, envir = m, inherits = FALSE) &&
        (bindingIsActive(nm, m) || bindingIsLocked(nm, m))) next
    assign(nm, .field_decode(fields[[nm]], path), envir = m)
  }
  invisible(module)
}

# The nn_module generator of class `cls`: a variable of that name seen from `env` (the caller of
# torch_load) or the global environment, the package's own layers, else a generator of that
# class stored under another name in `env`, its enclosing environments or the global one.
.find_generator <- function(cls, env) {
  is_gen <- function(g) inherits(g, "nn_module_generator") && identical(class(g)[[1L]], cls)
  for (where in list(env, globalenv())) {
    g <- get0(cls, envir = where, inherits = TRUE)
    if (is_gen(g)) return(g)
  }
  g <- get0(cls, envir = asNamespace("rtorchpy"), inherits = FALSE)
  if (is_gen(g)) return(g)
  scan <- function(e) {
    for (nm in ls(e, all.names = TRUE)) {
      if (bindingIsActive(nm, e)) next
      g <- get0(nm, envir = e, inherits = FALSE)
      if (is_gen(g)) return(g)
    }
    NULL
  }
  e <- env
  while (!identical(e, emptyenv()) && !identical(e, globalenv()) && !isNamespace(e)) {
    g <- scan(e)
    if (!is.null(g)) return(g)
    e <- parent.env(e)
  }
  scan(globalenv())
}
