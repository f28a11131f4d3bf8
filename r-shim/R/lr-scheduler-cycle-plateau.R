# lr_one_cycle and lr_reduce_on_plateau (see lr-scheduler-base.R for the base class and the
# documentation page, lr_schedulers).

# -- lr_one_cycle ----------------------------------------------------------------------------

OneCycleLR <- .lazy_r6(function() R6::R6Class(
  "lr_one_cycle", inherit = .r6(LRScheduler), lock_objects = FALSE,
  public = list(
    total_steps = NULL,
    anneal_strategy = NULL,
    cycle_momentum = NULL,
    use_beta1 = FALSE,
    phases = NULL,
    initialize = function(optimizer, max_lr, total_steps = NULL, epochs = NULL,
                          steps_per_epoch = NULL, pct_start = 0.3, anneal_strategy = "cos",
                          cycle_momentum = TRUE, base_momentum = 0.85, max_momentum = 0.95,
                          div_factor = 25, final_div_factor = 1e4, three_phase = FALSE,
                          last_epoch = -1) {
      if (!is_optimizer(optimizer)) {
        .type_error(class(optimizer)[[1L]], " is not an Optimizer")
      }
      if (!is.null(total_steps)) {
        self$total_steps <- .as_count("total_steps", total_steps, 1L,
                                      "Expected positive integer total_steps, but got %s")
      } else if (!is.null(epochs) && !is.null(steps_per_epoch)) {
        epochs <- .as_count("epochs", epochs, 1L, "Expected positive integer epochs, but got %s")
        steps_per_epoch <- .as_count("steps_per_epoch", steps_per_epoch, 1L,
                                     "Expected positive integer steps_per_epoch, but got %s")
        self$total_steps <- epochs * steps_per_epoch
      } else {
        .value_error("You must define either total_steps OR (epochs AND steps_per_epoch)")
      }
      if (!is.numeric(pct_start) || length(pct_start) != 1L || is.na(pct_start) ||
          pct_start < 0 || pct_start > 1) {
        .value_error("Expected float between 0 and 1 pct_start, but got ", deparse(pct_start))
      }
      if (!identical(anneal_strategy, "cos") && !identical(anneal_strategy, "linear")) {
        .value_error("anneal_strategy must be one of 'cos' or 'linear', instead got ",
                     deparse(anneal_strategy))
      }
      self$anneal_strategy <- anneal_strategy
      n <- self$total_steps
      phase <- function(end_step, start_lr, end_lr, start_m, end_m) {
        list(end_step = end_step, start_lr = start_lr, end_lr = end_lr,
             start_momentum = start_m, end_momentum = end_m)
      }
      self$phases <- if (.flag(three_phase)) {
        list(phase(pct_start * n - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
             phase(2 * pct_start * n - 2, "max_lr", "initial_lr", "base_momentum",
                   "max_momentum"),
             phase(n - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"))
      } else {
        list(phase(pct_start * n - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
             phase(n - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"))
      }
      groups <- optimizer$param_groups
      ng <- length(groups)
      max_lrs <- .per_group("max_lr", max_lr, ng)
      self$cycle_momentum <- .flag(cycle_momentum)
      if (self$cycle_momentum) {
        defaults <- names(optimizer$defaults)
        if (!"momentum" %in% defaults && !"betas" %in% defaults) {
          .value_error("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
        }
        self$use_beta1 <- "betas" %in% defaults
        max_ms <- .per_group("max_momentum", max_momentum, ng)
        base_ms <- .per_group("base_momentum", base_momentum, ng)
      }
      if (last_epoch == -1) {
        for (i in seq_len(ng)) {
          groups[[i]]$initial_lr <- max_lrs[[i]] / div_factor
          groups[[i]]$max_lr <- max_lrs[[i]]
          groups[[i]]$min_lr <- groups[[i]]$initial_lr / final_div_factor
          if (self$cycle_momentum) {
            if (self$use_beta1) {
              groups[[i]]$betas[[1L]] <- max_ms[[i]]
            } else {
              groups[[i]]$momentum <- max_ms[[i]]
            }
            groups[[i]]$max_momentum <- max_ms[[i]]
            groups[[i]]$base_momentum <- base_ms[[i]]
          }
        }
        optimizer$param_groups <- groups
      }
      super$initialize(optimizer, last_epoch)
    },
    get_lr = function() {
      step_num <- self$last_epoch
      if (step_num > self$total_steps) {
        .runtime_error("Tried to step ", step_num, " times. The specified number of total steps is ",
                       self$total_steps)
      }
      anneal <- function(start, end, pct) {
        if (self$anneal_strategy == "cos") end + (start - end) / 2 * (cos(pi * pct) + 1)
        else (end - start) * pct + start
      }
      groups <- private$groups
      lrs <- numeric(length(groups))
      nph <- length(self$phases)
      for (gi in seq_along(groups)) {
        group <- groups[[gi]]
        start_step <- 0
        for (i in seq_len(nph)) {
          ph <- self$phases[[i]]
          if (step_num <= ph$end_step || i == nph) {
            pct <- (step_num - start_step) / (ph$end_step - start_step)
            lrs[[gi]] <- anneal(group[[ph$start_lr]], group[[ph$end_lr]], pct)
            if (self$cycle_momentum) {
              mom <- anneal(group[[ph$start_momentum]], group[[ph$end_momentum]], pct)
            }
            break
          }
          start_step <- ph$end_step
        }
        if (self$cycle_momentum) {
          if (self$use_beta1) group$betas[[1L]] <- mom else group$momentum <- mom
          groups[[gi]] <- group
        }
      }
      private$groups <- groups
      lrs
    }
  )
))

#' @rdname lr_schedulers
#' @export
lr_one_cycle <- function(optimizer, max_lr, total_steps = NULL, epochs = NULL,
                         steps_per_epoch = NULL, pct_start = 0.3, anneal_strategy = "cos",
                         cycle_momentum = TRUE, base_momentum = 0.85, max_momentum = 0.95,
                         div_factor = 25, final_div_factor = 1e4, three_phase = FALSE,
                         last_epoch = -1, verbose = FALSE) {
  .flag(verbose, "verbose")  # (accepted as R torch's; the one-cycle schedule reports nothing)
  .r6(OneCycleLR)$new(optimizer, max_lr, total_steps, epochs, steps_per_epoch, pct_start,
                 anneal_strategy, cycle_momentum, base_momentum, max_momentum, div_factor,
                 final_div_factor, three_phase, last_epoch)
}

# -- lr_reduce_on_plateau --------------------------------------------------------------------

ReduceLROnPlateau <- .lazy_r6(function() R6::R6Class(
  "lr_reduce_on_plateau", inherit = .r6(LRScheduler), lock_objects = FALSE,
  public = list(
    factor = NULL, patience = NULL, cooldown = NULL, eps = NULL, mode = NULL,
    threshold = NULL, threshold_mode = NULL, min_lrs = NULL, default_min_lr = NULL,
    best = NULL, num_bad_epochs = 0L, cooldown_counter = 0L, mode_worse = NULL, verbose = FALSE,
    initialize = function(optimizer, mode = "min", factor = 0.1, patience = 10,
                          threshold = 1e-4, threshold_mode = "rel", cooldown = 0, min_lr = 0,
                          eps = 1e-8) {
      .check_real("factor", factor)
      if (factor >= 1) .value_error("Factor should be < 1.0.")
      if (!is_optimizer(optimizer)) {
        .type_error(class(optimizer)[[1L]], " is not an Optimizer")
      }
      if (!identical(mode, "min") && !identical(mode, "max")) {
        .value_error("mode ", mode, " is unknown!")
      }
      if (!identical(threshold_mode, "rel") && !identical(threshold_mode, "abs")) {
        .value_error("threshold mode ", threshold_mode, " is unknown!")
      }
      self$patience <- .as_count("patience", patience, 0L,
                                 "patience must be a non-negative integer, got %s")
      self$cooldown <- .as_count("cooldown", cooldown, 0L,
                                 "cooldown must be a non-negative integer, got %s")
      self$factor <- factor
      self$optimizer <- optimizer
      groups <- optimizer$param_groups
      if (length(min_lr) > 1L) {
        if (length(min_lr) != length(groups)) {
          .value_error("expected ", length(groups), " min_lrs, got ", length(min_lr))
        }
        self$min_lrs <- as.numeric(min_lr)
      } else {
        self$default_min_lr <- min_lr
        self$min_lrs <- rep(as.numeric(min_lr), length(groups))
      }
      self$eps <- eps
      self$last_epoch <- 0L
      self$mode <- mode
      self$threshold <- threshold
      self$threshold_mode <- threshold_mode
      self$mode_worse <- if (mode == "min") Inf else -Inf
      private$last_lr <- vapply(groups, function(g) as.numeric(g$lr), 0)
      self$best <- self$mode_worse
      self$cooldown_counter <- 0L
      self$num_bad_epochs <- 0L
    },
    step = function(metrics) {
      current <- if (is_torch_tensor(metrics)) as.numeric(as_array(metrics)) else
        as.numeric(metrics)
      if (length(current) != 1L || is.na(current)) {
        .value_error("metrics must be one number (or a one-element tensor)")
      }
      self$last_epoch <- self$last_epoch + 1L
      if (private$is_better(current, self$best)) {
        self$best <- current
        self$num_bad_epochs <- 0L
      } else {
        self$num_bad_epochs <- self$num_bad_epochs + 1L
      }
      if (self$cooldown_counter > 0L) {
        self$cooldown_counter <- self$cooldown_counter - 1L
        self$num_bad_epochs <- 0L
      }
      groups <- NULL
      if (self$num_bad_epochs > self$patience) {
        groups <- private$reduce_lr()
        self$cooldown_counter <- self$cooldown
        self$num_bad_epochs <- 0L
      }
      if (is.null(groups)) groups <- self$optimizer$param_groups
      private$last_lr <- vapply(groups, function(g) as.numeric(g$lr), 0)
      invisible(NULL)
    },
    get_lr = function() private$last_lr
  ),
  private = list(
    is_better = function(a, best) {
      rel <- self$threshold_mode == "rel"
      if (self$mode == "min") {
        if (rel) a < best * (1 - self$threshold) else a < best - self$threshold
      } else {
        if (rel) a > best * (self$threshold + 1) else a > best + self$threshold
      }
    },
    reduce_lr = function() {
      groups <- self$optimizer$param_groups
      if (length(groups) != length(self$min_lrs)) {
        if (is.null(self$default_min_lr)) {
          .value_error("The number of param groups in the `optimizer` (", length(groups), ") differs ",
                       "from when `lr_reduce_on_plateau` was initialized (", length(self$min_lrs),
                       "), usually due to a new param group being added to the optimizer. Please ",
                       "modify the `min_lrs` field to match the length of the `optimizer` param ",
                       "groups.")
        }
        self$min_lrs <- rep(self$default_min_lr, length(groups))
      }
      changed <- FALSE
      for (i in seq_along(groups)) {
        old <- as.numeric(groups[[i]]$lr)
        new <- max(old * self$factor, self$min_lrs[[i]])
        if (old - new > self$eps) {
          groups[[i]]$lr <- new
          changed <- TRUE
          if (isTRUE(self$verbose)) {
            message(sprintf("Epoch %d: reducing learning rate of group %d to %.4e.",
                            self$last_epoch, i, new))
          }
        }
      }
      if (changed) self$optimizer$param_groups <- groups
      groups
    }
  )
))

#' @rdname lr_schedulers
#' @export
lr_reduce_on_plateau <- function(optimizer, mode = "min", factor = 0.1, patience = 10,
                                 threshold = 1e-4, threshold_mode = "rel", cooldown = 0,
                                 min_lr = 0, eps = 1e-8, verbose = FALSE) {
  s <- .r6(ReduceLROnPlateau)$new(optimizer, mode, factor, patience, threshold, threshold_mode,
                             cooldown, min_lr, eps)
  s$verbose <- .flag(verbose, "verbose")
  s
}
