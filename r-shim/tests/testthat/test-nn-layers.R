# Layers, activations, losses, nn_init_*, clip_grad, torch_save/torch_load from R.
skip_if_no_python()

test_that("activation modules match their nnf functions", {
  x <- torch_randn(4, 5)
  expect_equal(as_array(nn_relu()(x)), pmax(as_array(x), 0))
  expect_equal(as_array(nn_relu6()(x * 10)), pmin(pmax(as_array(x * 10), 0), 6),
               tolerance = 1e-6)
  expect_equal(as_array(nn_leaky_relu(0.2)(x)), as_array(nnf_leaky_relu(x, 0.2)))
  expect_equal(as_array(nn_elu(alpha = 2)(x)), as_array(nnf_elu(x, 2)))
  expect_equal(as_array(nn_gelu()(x)), as_array(nnf_gelu(x)))
  expect_equal(as_array(nn_gelu(approximate = "tanh")(x)),
               as_array(nnf_gelu(x, approximate = "tanh")))
  expect_equal(as_array(nn_silu()(x)), as_array(x) / (1 + exp(-as_array(x))), tolerance = 1e-6)
  expect_equal(as_array(nn_sigmoid()(x)), 1 / (1 + exp(-as_array(x))), tolerance = 1e-6)
  expect_equal(as_array(nn_tanh()(x)), tanh(as_array(x)), tolerance = 1e-6)
  sm <- as_array(nn_softmax(dim = 2)(x))
  expect_equal(rowSums(sm), rep(1, 4), tolerance = 1e-6)
  expect_equal(colSums(as_array(nn_softmax(1)(x))), rep(1, 5), tolerance = 1e-6)
  expect_equal(as_array(nn_log_softmax(2)(x)), log(sm), tolerance = 1e-5)
  expect_equal(as_array(nn_softplus()(x)), log1p(exp(as_array(x))), tolerance = 1e-6)
  expect_equal(as_array(nn_softplus(beta = 2, threshold = 1)(x)),
               as_array(nnf_softplus(x, 2, 1)))
  expect_error(nn_softmax(dim = 0)(x), "Indexing starts at 1")
})

test_that("loss modules match their nnf functions, with reduction", {
  torch_manual_seed(2)
  input <- torch_randn(6, 3)
  target <- torch_randn(6, 3)
  expect_equal(nn_mse_loss()(input, target)$item(), mean((as_array(input - target))^2),
               tolerance = 1e-6)
  expect_equal(nn_mse_loss(reduction = "sum")(input, target)$item(),
               sum((as_array(input - target))^2), tolerance = 1e-5)
  expect_equal(nn_mse_loss(reduction = "none")(input, target)$shape, c(6L, 3L))
  expect_equal(nn_l1_loss()(input, target)$item(), mean(abs(as_array(input - target))),
               tolerance = 1e-6)
  expect_equal(nn_smooth_l1_loss(beta = 0.5)(input, target)$item(),
               nnf_smooth_l1_loss(input, target, beta = 0.5)$item())
  expect_equal(nn_huber_loss(delta = 2)(input, target)$item(),
               nnf_huber_loss(input, target, delta = 2)$item())
  classes <- torch_tensor(c(1L, 3L, 2L, 3L, 1L, 2L))
  ce <- nn_cross_entropy_loss()(input, classes)$item()
  lsm <- as_array(nnf_log_softmax(input, 2))
  expect_equal(ce, -mean(lsm[cbind(1:6, as_array(classes))]), tolerance = 1e-6)
  expect_equal(nn_nll_loss()(nnf_log_softmax(input, 2), classes)$item(), ce, tolerance = 1e-6)
  # ignore_index names a 1-based class, like the targets
  keep <- as_array(classes) != 3
  expect_equal(nn_cross_entropy_loss(ignore_index = 3)(input, classes)$item(),
               -mean(lsm[cbind(1:6, as_array(classes))][keep]), tolerance = 1e-6)
  expect_equal(nn_nll_loss(ignore_index = 1)(nnf_log_softmax(input, 2), classes)$item(),
               -mean(lsm[cbind(1:6, as_array(classes))][as_array(classes) != 1]),
               tolerance = 1e-6)
  w <- torch_tensor(c(1, 2, 3))
  wl <- nn_cross_entropy_loss(weight = w)
  expect_true("weight" %in% names(wl$buffers))
  expect_equal(wl(input, classes)$item(), nnf_cross_entropy(input, classes, weight = w)$item())
  p <- torch_sigmoid(input)
  t01 <- (target > 0)$to(dtype = torch_float())
  expect_equal(nn_bce_loss()(p, t01)$item(), nnf_binary_cross_entropy(p, t01)$item())
  expect_equal(nn_bce_with_logits_loss()(input, t01)$item(), nn_bce_loss()(p, t01)$item(),
               tolerance = 1e-5)
  pw <- torch_tensor(c(1, 2, 3))
  expect_equal(nn_bce_with_logits_loss(pos_weight = pw)(input, t01)$item(),
               nnf_binary_cross_entropy_with_logits(input, t01, pos_weight = pw)$item())
  expect_error(nn_mse_loss(reduction = "avg"), "`reduction` must be one of")
})

test_that("embedding takes 1-based indices and a 1-based padding row", {
  torch_manual_seed(1)
  emb <- nn_embedding(10, 3)
  expect_equal(emb$weight$shape, c(10L, 3L))
  idx <- torch_tensor(matrix(c(1L, 10L, 2L, 5L), 2))
  out <- emb(idx)
  expect_equal(out$shape, c(2L, 2L, 3L))
  w <- as_array(emb$weight)
  expect_equal(as_array(out)[1, 1, ], w[1, ])
  expect_equal(as_array(out)[2, 1, ], w[10, ])
  expect_error(emb(torch_tensor(c(0L, 1L))), "1-based")
  pe <- nn_embedding(5, 2, padding_idx = 2)
  expect_equal(as_array(pe$weight)[2, ], c(0, 0))
  pe(torch_tensor(c(2L, 3L, 2L)))$sum()$backward()
  g <- as_array(pe$weight$grad)
  expect_equal(g[2, ], c(0, 0))
  expect_equal(g[3, ], c(1, 1))
  expect_equal(nn_embedding(5, 2, padding_idx = -1)$padding_idx, 5)
  expect_error(nn_embedding(5, 2, padding_idx = 6), "Padding_idx must be within")
  expect_equal(as.vector(as_array(nnf_embedding(torch_tensor(3L), torch_tensor(diag(3))))),
               c(0, 0, 1))
})

test_that("bilinear, identity, flatten, unflatten and layer norm", {
  bl <- nn_bilinear(3, 4, 2)
  expect_equal(bl$weight$shape, c(2L, 3L, 4L))
  expect_equal(bl(torch_randn(5, 3), torch_randn(5, 4))$shape, c(5L, 2L))
  expect_true(all(abs(as_array(bl$weight)) <= 1 / sqrt(3)))
  x <- torch_randn(2, 3, 4)
  expect_equal(as_array(nn_identity(54, unused = 1)(x)), as_array(x))
  expect_equal(nn_flatten()(x)$shape, c(2L, 12L))
  expect_equal(nn_flatten(1, 2)(x)$shape, c(6L, 4L))
  expect_equal(nn_unflatten(2, c(3, 4))(torch_randn(2, 12))$shape, c(2L, 3L, 4L))
  expect_equal(nn_unflatten(-1, c(2, 2))(torch_randn(2, 4))$shape, c(2L, 2L, 2L))
  ln <- nn_layer_norm(4)
  expect_equal(names(ln$parameters), c("weight", "bias"))
  y <- as_array(ln(x))
  expect_equal(apply(y, c(1, 2), mean), matrix(0, 2, 3), tolerance = 1e-5)
  expect_length(nn_layer_norm(c(3, 4), elementwise_affine = FALSE)$parameters, 0)
  # normalized_shape as R gives it: a double, a double vector, an integer
  for (shape in list(4, c(4), 4L)) expect_equal(as_array(nnf_layer_norm(x, shape)), y)
  expect_equal(nnf_layer_norm(x, c(3, 4))$shape, c(2L, 3L, 4L))
  expect_error(nnf_layer_norm(x, 4.5), "size must be a sequence of integers")
})

test_that("nn_init_* fill in place and return the tensor", {
  w <- torch_empty(30, 20, requires_grad = TRUE)
  r <- nn_init_uniform_(w, -0.5, 0.5)
  expect_identical(r, w)
  v <- as_array(w)
  expect_true(all(v >= -0.5 & v <= 0.5))
  expect_true(w$requires_grad && w$is_leaf)
  nn_init_normal_(w, mean = 3, std = 0.01)
  expect_equal(mean(as_array(w)), 3, tolerance = 0.01)
  nn_init_trunc_normal_(w, std = 3, a = -1, b = 0.5)
  expect_true(all(as_array(w) >= -1 & as_array(w) <= 0.5))
  nn_init_constant_(w, 2.5)
  expect_true(all(as_array(w) == 2.5))
  nn_init_zeros_(w)
  expect_true(all(as_array(w) == 0))
  nn_init_ones_(w)
  expect_true(all(as_array(w) == 1))
  e <- torch_empty(3, 4)
  nn_init_eye_(e)
  expect_equal(as_array(e), diag(1, 3, 4))
  nn_init_xavier_uniform_(w)
  expect_true(all(abs(as_array(w)) <= sqrt(6 / 50) + 1e-6))
  nn_init_xavier_normal_(w, gain = 2)
  nn_init_kaiming_uniform_(w, nonlinearity = "relu")
  expect_true(all(abs(as_array(w)) <= sqrt(2) * sqrt(3 / 20) + 1e-6))
  nn_init_kaiming_normal_(w, mode = "fan_out")
  q <- torch_empty(4, 6)
  nn_init_orthogonal_(q)
  qa <- as_array(q)
  expect_equal(qa %*% t(qa), diag(4), tolerance = 1e-5)
  expect_equal(nn_init_calculate_gain("relu"), sqrt(2))
  expect_equal(nn_init_calculate_gain("tanh"), 5 / 3)
  expect_equal(nn_init_calculate_gain("leaky_relu", 0.2), sqrt(2 / (1 + 0.04)))
  expect_error(nn_init_calculate_gain("nope"), "Unsupported nonlinearity")
  expect_error(nn_init_uniform_(1:3), "must be a tensor")
  expect_error(nn_init_eye_(torch_empty(2, 2, 2)), "Only tensors with 2 dimensions")
  torch_manual_seed(7)
  a <- as_array(nn_init_normal_(torch_empty(5)))
  torch_manual_seed(7)
  expect_equal(as_array(nn_init_normal_(torch_empty(5))), a)
})

test_that("clip_grad_norm_ and clip_grad_value_ take model$parameters", {
  model <- nn_linear(3, 2)
  (model(torch_ones(4, 3)) * 100)$sum()$backward()
  norm_before <- sqrt(sum(vapply(model$parameters, function(p) sum(as_array(p$grad)^2), 0)))
  total <- nn_utils_clip_grad_norm_(model$parameters, max_norm = 1)
  expect_true(is_torch_tensor(total))
  expect_equal(total$item(), norm_before, tolerance = 1e-4)
  norm_after <- sqrt(sum(vapply(model$parameters, function(p) sum(as_array(p$grad)^2), 0)))
  expect_equal(norm_after, 1, tolerance = 1e-4)
  model$zero_grad()
  (model(torch_ones(4, 3)) * 100)$sum()$backward()
  expect_null(nn_utils_clip_grad_value_(model$parameters, 0.5))
  expect_true(all(abs(as_array(model$weight$grad)) <= 0.5))
  expect_equal(nn_utils_clip_grad_norm_(model$weight, 1, norm_type = Inf)$item(), 0.5)
  expect_error(nn_utils_clip_grad_norm_(list(1, 2), 1), "list of tensors")
})

test_that("torch_save()/torch_load() round trip tensors, lists and state dicts in R", {
  path <- withr::local_tempfile(fileext = ".pt")
  x <- torch_randn(3, 4)
  torch_save(x, path)
  y <- torch_load(path)
  expect_equal(as_array(y), as_array(x))
  expect_equal(y$dtype, torch_float())
  obj <- list(a = torch_tensor(1:3), b = list(torch_ones(2, requires_grad = TRUE), 5),
              s = "text", z = NULL, flag = TRUE)
  torch_save(obj, path)
  back <- torch_load(path)
  expect_equal(names(back), c("a", "b", "s", "z", "flag"))
  expect_equal(as_array(back$a), 1:3)
  expect_equal(back$a$dtype, torch_long())
  expect_true(back$b[[1]]$requires_grad)
  expect_equal(back$b[[2]], 5)
  expect_equal(back$s, "text")
  expect_null(back$z)
  expect_true(back$flag)
  net <- nn_sequential(nn_linear(3, 4), nn_batch_norm1d(4))
  torch_save(net$state_dict(), path)
  sd <- torch_load(path)
  expect_equal(names(sd), names(net$state_dict()))
  other <- nn_sequential(nn_linear(3, 4), nn_batch_norm1d(4))
  other$load_state_dict(sd)
  other$eval()
  net$eval()
  inp <- torch_randn(2, 3)
  expect_equal(as_array(other(inp)), as_array(net(inp)))
  # vectors and names given twice round-trip (issue 29: R torch saves both)
  torch_save(list(a = 1:3), path)
  expect_equal(torch_load(path), list(a = 1:3))
  torch_save(list(a = torch_ones(1), a = torch_zeros(1)), path)
  expect_equal(names(torch_load(path)), c("a", "a"))
  expect_error(torch_save(list(a = c(1, NA)), path), "holds NA")
  expect_error(torch_load(file.path(tempdir(), "no-such-file")), "no such file")
  bad <- withr::local_tempfile()
  writeLines("not a file of ours", bad)
  expect_error(torch_load(bad), "not a file written by torch_save")
})

test_that("torch_save()/torch_load() of a whole module, as in R torch", {
  path <- withr::local_tempfile(fileext = ".pt")
  Model <- nn_module("Model",
    initialize = function() {
      self$body <- nn_sequential(nn_linear(3, 4), nn_batch_norm1d(4), nn_relu())
      self$head <- nn_linear(4, 2)
      self$tied <- self$head
      self$scale <- nn_parameter(torch_ones(1), requires_grad = FALSE)
      self$tmp <- nn_buffer(torch_zeros(1), persistent = FALSE)
      self$n <- 7
    },
    forward = function(x) self$head(self$body(x)) * self$scale
  )
  m <- Model()
  m(torch_randn(5, 3))
  m$eval()
  torch_save(m, path)
  back <- torch_load(path)
  expect_equal(class(back), c("Model", "nn_module"))
  expect_equal(names(back$state_dict()), names(m$state_dict()))
  for (nm in names(m$state_dict())) {
    expect_equal(as_array(back$state_dict()[[nm]]), as_array(m$state_dict()[[nm]]))
  }
  expect_false(back$training)
  expect_false(back$body$training)
  expect_equal(back$n, 7)
  expect_false(back$scale$requires_grad)
  expect_true(back$head$weight$requires_grad)
  expect_true(inherits(back$head$weight, "nn_parameter"))
  expect_equal(names(back$buffers), names(m$buffers))
  expect_identical(attr(back$head, "module"), attr(back$tied, "module"))
  x <- torch_randn(2, 3)
  expect_equal(as_array(back(x)), as_array(m(x)))
  # the loaded module trains on its own tensors
  back(x)$sum()$backward()
  expect_false(is_undefined_tensor(back$head$weight$grad))
  expect_true(is_undefined_tensor(m$head$weight$grad))
})

test_that("files cross between Python and R with names kept", {
  torch_ones(1)  # the bridge (and Python's rtorchpy) is loaded
  path <- gsub("\\\\", "/", withr::local_tempfile(fileext = ".pt"))
  reticulate::py_run_string(paste0(
    "import rtorchpy as _rt\n",
    "_m = _rt.nn_sequential(_rt.nn_linear(3, 2), _rt.nn_relu(), _rt.nn_linear(2, 1))\n",
    "_rt.torch_save(_m.state_dict(), '", path, "')\n",
    "_w = _m.state_dict()['0.weight']._data.tolist()\n"))
  sd <- torch_load(path)
  expect_equal(names(sd), c("0.weight", "0.bias", "2.weight", "2.bias"))
  model <- nn_sequential(nn_linear(3, 2), nn_relu(), nn_linear(2, 1))
  model$load_state_dict(sd)
  w_py <- do.call(rbind, lapply(reticulate::py_eval("_w"), unlist))
  expect_equal(as_array(model[[1]]$weight), w_py, tolerance = 1e-7)
  x <- matrix(c(0.1, 0.2, 0.3, -1, 0.5, 2), 2, byrow = TRUE)
  reticulate::py_run_string(paste0(
    "_y = _m(_rt.torch_tensor([[0.1, 0.2, 0.3], [-1, 0.5, 2]]))._data.tolist()\n"))
  expect_equal(as.vector(as_array(model(torch_tensor(x)))),
               unlist(reticulate::py_eval("_y")), tolerance = 1e-6)

  # and back: an R state dict loads into the Python model
  with_no_grad(model[[3]]$bias$fill_(42))
  torch_save(model$state_dict(), path)
  reticulate::py_run_string(paste0(
    "_sd = _rt.torch_load('", path, "')\n",
    "_keys = list(_sd.keys())\n",
    "_m.load_state_dict(_sd)\n",
    "_b = _m.state_dict()['2.bias']._data.tolist()\n"))
  expect_equal(unlist(reticulate::py_eval("_keys")), c("0.weight", "0.bias", "2.weight",
                                                       "2.bias"))
  expect_equal(unlist(reticulate::py_eval("_b")), 42)
})

test_that("layers and serialization do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  path <- withr::local_tempfile()
  body <- function(i) {
    m <- nn_sequential(nn_embedding(5, 3), nn_flatten(), nn_batch_norm1d(6), nn_gelu())
    m(torch_tensor(matrix(c(1L, 2L, 3L, 4L), 2)))$sum()$backward()
    nn_utils_clip_grad_norm_(m$parameters, 1)
    if (i %% 10 == 0) {
      torch_save(m$state_dict(), path)
      m$load_state_dict(torch_load(path))
      torch_save(m, path)
      torch_load(path)(torch_tensor(matrix(c(1L, 2L, 3L, 4L), 2)))
    }
  }
  run <- function(n) for (i in seq_len(n)) body(i)
  run(20)
  before <- live()
  run(200)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(grown, collapse = ", "))
})
